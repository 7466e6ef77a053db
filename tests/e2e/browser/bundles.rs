//! Export, import, restore and clear from the panel.

use super::*;

/// Writing: export and import as one group, the download's name and contents, a bad import
/// file, the archive restore, restore of a removed entry, the two-click clear and forget.
/// Checks 4, 13–16, 20 and 27 of §9.2.
#[tokio::test(flavor = "current_thread")]
async fn panel_exports_imports_restores_and_clears() {
    let home = Home::new();
    let d_root = home.folder("delta");
    home.run(&d_root, &["init"], &[], None);
    let a_root = alpha(&home, "alpha");
    // a hand edit rewrites a decision; absorbed by the next command, the old text is a
    // replaced entry, restorable from the history pane
    let decisions = read(&a_root, "DECISIONS.md");
    assert!(
        decisions.contains("因为：phrase queries and BM25"),
        "{decisions}"
    );
    std::fs::write(
        a_root.join("memory/DECISIONS.md"),
        decisions.replace(
            "因为：phrase queries and BM25",
            "因为：phrase queries, BM25 and CJK pairs",
        ),
    )
    .unwrap();
    home.run(
        &a_root,
        &["checkpoint", "--notes", "the README lists an old flag"],
        &[],
        None,
    );
    assert!(read(&a_root, "DECISIONS.md").contains("CJK pairs"));

    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;
    b.until(
        "the list",
        "return document.querySelectorAll('#side-list .tp-item').length === 2 && document.getElementById('content').dataset.ready === 'true'",
    )
    .await;
    b.pick(&a_root).await;

    let first_heading = archive_offers_a_restore_per_dated_entry(&b, &a_root).await;
    export_downloads_the_workspaces_bundle(&b, &a_root).await;
    an_archived_entry_goes_back_in_date_order(&b, &a_root, &first_heading).await;
    a_replaced_entry_is_restored_from_its_history(&b, &a_root).await;
    import_says_what_came_in_and_refuses_bad_json(&b, &home, &d_root).await;
    clear_arms_first_and_forget_touches_no_file(&b, &home, &a_root, &d_root).await;

    b.close().await;
}

/// The archive tab: one card with 恢复 per dated entry, none for the header (check 20); the
/// first dated heading.
async fn archive_offers_a_restore_per_dated_entry(b: &Browser, a_root: &Path) -> String {
    // 20. the archive tab: one card with 恢复 per dated entry, none for the header
    b.tab("归档").await;
    let archive = read(a_root, "SESSIONS-archive.md");
    let dated: Vec<&str> = archive.lines().filter(|l| l.starts_with("## 20")).collect();
    assert_eq!(
        dated.len(),
        2,
        "the fixture archives two entries: {archive}"
    );
    let offered = b
        .until(
            "the archived entries",
            "const e = [...document.querySelectorAll('#cards .tp-entry-card')];
             return e.length ? e.map(x => [x.querySelector('.tp-card-restore').textContent, x.dataset.state,
                                           '## ' + x.dataset.heading]) : null",
        )
        .await;
    let offered = offered.as_array().unwrap();
    assert_eq!(offered.len(), 2);
    for (o, heading) in offered.iter().zip(&dated) {
        assert_eq!(o[0], "恢复");
        assert_eq!(o[1], "archived");
        assert_eq!(o[2].as_str().unwrap(), *heading, "the file's order");
    }
    dated[0].to_string()
}

/// Export and import are one group on one row, and export downloads the bundle named by
/// folder and date, holding the files (checks 13, 14).
async fn export_downloads_the_workspaces_bundle(b: &Browser, a_root: &Path) {
    // 13. export and import are one group, on one row, even with the archive hint shown
    let group = b
        .js(
            "const e = document.getElementById('export'), i = document.getElementById('import');
             return { same: e.parentElement === i.parentElement, group: e.parentElement.className,
                      row: e.getBoundingClientRect().top === i.getBoundingClientRect().top,
                      hint: document.getElementById('archive-hint').offsetParent !== null }",
        )
        .await;
    assert_eq!(
        group,
        json!({"same": true, "group": "tp-btn-group", "row": true, "hint": true})
    );

    // 14. export: GET /export?root=, a download named <folder>-memory-<UTC date>.json
    let before = chrono::Utc::now().format("%Y-%m-%d").to_string();
    b.click("#export").await;
    b.status("已导出 4 个文件").await;
    let after = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let exports = b.requests("export").await;
    assert_eq!(exports.len(), 1);
    assert!(exports[0].contains("root="), "{}", exports[0]);
    let start = Instant::now();
    let saved = loop {
        let names: Vec<String> = std::fs::read_dir(b.downloads.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        if let Some(n) = names
            .iter()
            .find(|n| n.ends_with(".json") && !n.ends_with(".crdownload"))
        {
            break n.clone();
        }
        assert!(
            start.elapsed() < DEADLINE,
            "no download arrived in {}: {names:?}",
            b.downloads.path().display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        saved == format!("alpha-memory-{before}.json")
            || saved == format!("alpha-memory-{after}.json"),
        "download named {saved}"
    );
    let bundle: Value =
        serde_json::from_str(&std::fs::read_to_string(b.downloads.path().join(&saved)).unwrap())
            .unwrap();
    assert_eq!(bundle["kind"], "dsh-trilogy/memory-bundle");
    assert_eq!(bundle["version"], 1);
    for f in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert_eq!(bundle["files"][f], read(a_root, f), "{f} in the download");
    }
}

/// The archive restore: the entry goes back into the log in date order, and the message says
/// where it landed.
async fn an_archived_entry_goes_back_in_date_order(
    b: &Browser,
    a_root: &Path,
    first_heading: &str,
) {
    // the archive restore: the entry goes back into the log in date order, and the message
    // says where it landed
    b.click(".tp-entry-card:first-of-type .tp-card-restore")
        .await;
    let said = b.status("已恢复").await;
    let log = read(a_root, "SESSIONS.md");
    let log_headings: Vec<&str> = log.lines().filter(|l| l.starts_with("## ")).collect();
    let at = log_headings
        .iter()
        .position(|l| *l == first_heading)
        .unwrap_or_else(|| panic!("{first_heading} restored into {log}"))
        + 1;
    assert!(
        said.contains(&format!("SESSIONS.md，按日期排在第 {at} 条")),
        "{said} (the entry is number {at} in {log})"
    );
    assert!(!said.contains("顶部"), "{said}");
    assert!(!read(a_root, "SESSIONS-archive.md").contains(first_heading));
    b.until(
        "one archived entry left",
        "return document.querySelectorAll('#cards .tp-entry-card').length === 1",
    )
    .await;
}

/// A replaced entry restored from the history pane by id, and the event log naming who did
/// what.
async fn a_replaced_entry_is_restored_from_its_history(b: &Browser, a_root: &Path) {
    // restore of a replaced entry, from the history pane, by id
    b.click_text("#insight-tabs", "可恢复").await;
    let mark = b
        .until_with(
            "the replaced decision in the history",
            "const e = [...document.querySelectorAll('#history .tp-history')]
               .find(x => x.querySelector('pre').textContent.includes(arguments[0]));
             if (!e) return null;
             e.querySelector('.tp-history-restore').setAttribute('data-test-click', 'history');
             return e.dataset.state;",
            vec![json!("因为：phrase queries and BM25")],
        )
        .await;
    assert_eq!(mark, "replaced");
    let states = b
        .js("return [...document.querySelectorAll('#history .tp-history')].map(x => x.dataset.state).sort()")
        .await;
    assert_eq!(
        states,
        json!(["archived", "replaced", "superseded"]),
        "one archived entry left, the replaced and the superseded decision"
    );
    b.click("[data-test-click=\"history\"]").await;
    let said = b
        .status("已恢复：2026-11-17 — tantivy for the search index")
        .await;
    assert!(
        said.contains("DECISIONS.md") && said.contains("按日期"),
        "{said}"
    );
    assert!(read(a_root, "DECISIONS.md").contains("因为：phrase queries and BM25"));
    b.tab("决策").await;
    b.until(
        "the restored decision on screen",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('因为：phrase queries and BM25'))",
    )
    .await;
    // ... and the event log names who did what: the panel's restores, the hand edit, the CLI
    b.click_text("#insight-tabs", "变更记录").await;
    let who = b
        .until(
            "a panel event",
            "const a = [...document.querySelectorAll('#events-table .tp-actor')];
             return a.some(x => x.dataset.actor === 'panel') ? [...new Set(a.map(x => x.textContent))].sort() : null",
        )
        .await;
    assert_eq!(who, json!(["命令行", "手改文件", "面板"]));
}

/// Import into the other workspace says what came in; an unparseable file is a JSON error,
/// never posted (checks 15, 16).
async fn import_says_what_came_in_and_refuses_bad_json(b: &Browser, home: &Home, d_root: &Path) {
    // 15. import into the other workspace: POST {root, bundle}, re-read, and say what came in:
    // one decision and one session, no PROJECT section
    b.pick(d_root).await;
    let bundle_path = home.dir.path().join("bundle.json");
    let decisions = "# DECISIONS\n\n## 2026-10-01 — ship the panel\n选择：ship the panel\n放弃：a desktop app\n因为：the browser is everywhere\n";
    let sessions_text = "# SESSIONS\n\n## 2026-10-02 · panel\n完成：the panel imports bundles, verified in Chromium\n";
    std::fs::write(
        &bundle_path,
        json!({
            "kind": "dsh-trilogy/memory-bundle",
            "version": 1,
            "exportedAt": "2026-10-02T10:00:00.000Z",
            "root": "/elsewhere/delta",
            "files": {"DECISIONS.md": decisions, "SESSIONS.md": sessions_text}
        })
        .to_string(),
    )
    .unwrap();
    let picker = b.client.find(Locator::Id("import-file")).await.unwrap();
    picker
        .send_keys(&bundle_path.to_string_lossy())
        .await
        .unwrap();
    let said = b.status("已导入").await;
    assert_eq!(said, "已导入 2 条条目、0 个 PROJECT 小节");
    assert_eq!(b.requests("import").await.len(), 1);
    assert!(read(d_root, "DECISIONS.md").contains("ship the panel"));
    assert!(read(d_root, "SESSIONS.md").contains("the panel imports bundles"));
    b.tab("日志").await;
    b.until(
        "the imported log on screen",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('the panel imports bundles'))",
    )
    .await;

    // 16. an unparseable file: a JSON error, and never POSTed
    let bad = home.dir.path().join("bad.json");
    std::fs::write(&bad, "{\"kind\": \"dsh-trilogy/memory-bundle\", files: ").unwrap();
    let before_files = read(d_root, "SESSIONS.md");
    let picker = b.client.find(Locator::Id("import-file")).await.unwrap();
    picker.send_keys(&bad.to_string_lossy()).await.unwrap();
    let said = b.status("JSON").await;
    assert!(said.starts_with("导入的文件不是有效的 JSON"), "{said}");
    assert_eq!(
        b.js("return document.getElementById('status').className")
            .await,
        "tp-status tp-err"
    );
    assert_eq!(
        b.requests("import").await.len(),
        1,
        "the bad file is never POSTed"
    );
    assert_eq!(read(d_root, "SESSIONS.md"), before_files);
}

/// Clear: armed by a first click, done by the second; only the cleared row offers 忘记, which
/// forgets that row and touches no file (checks 4, 27).
async fn clear_arms_first_and_forget_touches_no_file(
    b: &Browser,
    home: &Home,
    a_root: &Path,
    d_root: &Path,
) {
    // 4. clear: a first click only arms it (the warning names the archive), the second clears
    b.pick(a_root).await;
    b.click("#clear").await;
    let warning = b
        .until(
            "the armed clear",
            "const w = document.getElementById('clear-warning'); return w ? w.textContent : null",
        )
        .await;
    assert!(warning.as_str().unwrap().contains("归档"), "{warning}");
    assert!(b.requests("clear").await.is_empty(), "armed, not cleared");
    assert!(a_root.join("memory/PROJECT.md").exists());
    b.click("#clear-confirm").await;
    let said = b.status("已清除").await;
    assert!(said.starts_with("已清除 4 个文件"), "{said}");
    assert!(
        said.contains("可以撤销"),
        "a clear says it can be undone: {said}"
    );
    assert!(
        said.contains("Memory 段"),
        "the boot block removal is reported: {said}"
    );
    assert_eq!(b.requests("clear").await.len(), 1);
    for f in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert!(!a_root.join("memory").join(f).exists(), "{f} cleared");
    }
    assert!(
        !std::fs::read_to_string(a_root.join("AGENTS.md"))
            .unwrap()
            .contains("trilogy:start")
    );
    b.until(
        "the 已清除 badges",
        "return document.querySelector('#detail-title .tp-badge').textContent === '已清除'",
    )
    .await;

    // 27. only the cleared row offers 忘记; it forgets that row only, touching no file
    assert_eq!(row(b, a_root).await, Some(("已清除".into(), true)));
    let (_, d_forget) = row(b, d_root).await.unwrap();
    assert!(!d_forget, "a live workspace cannot be forgotten");
    let agents_before = std::fs::read_to_string(a_root.join("AGENTS.md")).unwrap();
    b.click("#side-list .tp-forget").await;
    b.until_with(
        "the row to go",
        "return ![...document.querySelectorAll('#side-list .tp-item')].some(r => r.dataset.root === arguments[0])",
        vec![json!(a_root.to_string_lossy())],
    )
    .await;
    assert_eq!(b.requests("forget").await.len(), 1);
    assert!(row(b, d_root).await.is_some(), "the other row stays");
    assert!(!b.exists("#side-list .tp-forget").await);
    let registry = std::fs::read_to_string(home.registry()).unwrap();
    assert!(!registry.contains(&*a_root.to_string_lossy()), "{registry}");
    assert_eq!(
        std::fs::read_to_string(a_root.join("AGENTS.md")).unwrap(),
        agents_before
    );
}
