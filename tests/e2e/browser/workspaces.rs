//! Reading workspaces in the panel, step by step: the list and the detail, the tabs, the
//! instruction file and its editor, the boot block buttons, search, the event log, agent
//! sessions, the weekly chart and the README's picture.

use super::*;

// -------------------------------------------------------------------------------------------
// The tests
// -------------------------------------------------------------------------------------------

/// Reading: the list and detail, the tabs, the instruction file and its editor, the boot
/// block buttons, plus search, the event log, agent sessions and the weekly chart. Checks 1–3,
/// 5–12, 18, 21–24 of §9.2; the screenshot for the README.
#[tokio::test(flavor = "current_thread")]
async fn panel_reads_workspaces_and_edits_only_the_instruction_file() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    let a_root = alpha(&home, "alpha");
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;

    let first = opens_on_the_list_and_the_first_workspace(&b).await;

    // 2. picking the other workspace re-reads /files for it and shows its content
    let other = if first == a_root { &b_root } else { &a_root };
    picking_another_workspace_reads_its_files(&b, other).await;
    memory_text_is_shown_never_run(&b, &b_root).await;

    b.pick(&a_root).await;
    let agents = a_root.join("AGENTS.md");
    the_detail_shows_its_tabs_root_and_one_danger_row(&b, &a_root).await;
    only_the_instruction_file_is_edited_whole(&b, &a_root, &agents).await;
    the_boot_block_is_removed_and_rewritten_once_confirmed(&b, &agents).await;
    the_archive_tab_is_read_only(&b).await;
    search_and_the_event_log_are_the_clis(&b, &home, &a_root).await;
    agent_sessions_and_the_weekly_chart_are_the_clis(&b, &home, &a_root).await;
    the_readme_picture_is_taken(&b).await;

    b.close().await;
}

/// The list, then the first workspace's files, from this server alone (check 1); the first
/// workspace's root.
async fn opens_on_the_list_and_the_first_workspace(b: &Browser) -> PathBuf {
    // 1. the list, then the first workspace's files: one /files and one /boot read
    b.until(
        "the list and the first workspace's files",
        "return document.querySelectorAll('#side-list .tp-item').length === 2
           && document.getElementById('content').dataset.ready === 'true' && !!document.getElementById('boot-badge')",
    )
    .await;
    let first = b
        .js("return document.querySelector('#side-list .tp-item').dataset.root")
        .await;
    let first = PathBuf::from(first.as_str().unwrap());
    assert_eq!(b.text("#detail-root").await, first.to_string_lossy());
    assert_eq!(
        b.requests("files").await.len(),
        1,
        "one /files read at opening"
    );
    assert_eq!(
        b.requests("boot").await.len(),
        1,
        "one /boot read at opening"
    );
    assert_eq!(
        b.requests("workspaces").await.len(),
        1,
        "one /workspaces read"
    );

    // the page and its assets come from this server alone (no CDN: it works offline), the
    // stylesheet applied
    let loaded = b
        .js("return { foreign: performance.getEntriesByType('resource').map(e => e.name)
                        .filter(n => new URL(n).origin !== location.origin),
                      assets: performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)
                        .filter(p => p.endsWith('.js') || p.endsWith('.css')).sort(),
                      grid: getComputedStyle(document.querySelector('.tp-body')).display }")
        .await;
    assert_eq!(
        loaded,
        json!({"foreign": [], "assets": ["/trilogy/cards.js", "/trilogy/panel.css", "/trilogy/panel.js"], "grid": "grid"})
    );
    first
}

/// Picking the other workspace re-reads its files beside a list that stays (checks 2, 24).
async fn picking_another_workspace_reads_its_files(b: &Browser, other: &Path) {
    // 24. the list and the detail are two columns, and the list stays through a selection
    b.js("window.__side = document.getElementById('side-list'); return true")
        .await;
    b.pick(other).await;
    let files = b.requests("files").await;
    assert_eq!(
        files.len(),
        2,
        "a second /files read for the picked workspace"
    );
    let want = format!("root={}", uri_component(other));
    assert!(
        files[1].contains(&want),
        "{} should ask for {want}",
        files[1]
    );
    assert_eq!(
        b.raw("现状", "PROJECT.md").await,
        read(other, "PROJECT.md"),
        "the picked workspace's PROJECT.md"
    );
    let layout = b
        .js(
            "const s = document.getElementById('side').getBoundingClientRect();
             const d = document.getElementById('detail').getBoundingClientRect();
             return { sideRight: s.right, detailLeft: d.left, sideTop: s.top, detailTop: d.top,
                      same: window.__side === document.getElementById('side-list'),
                      rows: document.querySelectorAll('#side-list .tp-item').length,
                      visible: document.getElementById('side').offsetParent !== null }",
        )
        .await;
    assert!(
        layout["sideRight"].as_f64() <= layout["detailLeft"].as_f64(),
        "list left of the detail: {layout}"
    );
    assert!(
        (layout["sideTop"].as_f64().unwrap() - layout["detailTop"].as_f64().unwrap()).abs() < 40.0,
        "list and detail side by side: {layout}"
    );
    assert_eq!(layout["same"], json!(true), "the picker persists: {layout}");
    assert_eq!(layout["rows"], json!(2));
    assert_eq!(layout["visible"], json!(true));
}

/// Markup in memory text is shown, never run, on the section cards as in the raw file.
async fn memory_text_is_shown_never_run(b: &Browser, b_root: &Path) {
    // memory text is text: markup in it is shown, never run, on the section cards as in the
    // raw file
    b.pick(b_root).await;
    b.raw("现状", "PROJECT.md").await;
    b.js("document.getElementById('raw-toggle').click(); return true")
        .await;
    let cards = b
        .until(
            "the PROJECT section cards",
            "const c = document.getElementById('sections');
             return c ? { text: c.textContent, imgs: c.querySelectorAll('img, b').length } : null",
        )
        .await;
    assert!(
        cards["text"]
            .as_str()
            .unwrap()
            .contains("<img src=x onerror="),
        "{cards}"
    );
    assert_eq!(cards["imgs"], json!(0), "{cards}");
    b.raw("现状", "PROJECT.md").await;
    let shown = b
        .js("const t = document.getElementById('file-text');
             return { text: t.textContent, elements: t.children.length, pwned: window.__pwned === 1,
                      imgs: document.querySelectorAll('#content img, #content b').length }")
        .await;
    assert_eq!(shown["text"], json!(read(b_root, "PROJECT.md")));
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .contains("<img src=x onerror="),
        "{shown}"
    );
    assert_eq!(shown["elements"], json!(0), "{shown}");
    assert_eq!(shown["imgs"], json!(0), "{shown}");
    assert_eq!(shown["pwned"], json!(false), "{shown}");
}

/// The tab strip, the root repeated and one danger row, no staleness banner (checks 18, 22, 23).
async fn the_detail_shows_its_tabs_root_and_one_danger_row(b: &Browser, a_root: &Path) {
    // 22. the tab strip, in order; 重新读取 beside it, in the toolbar
    let strip = b
        .js("return [...document.querySelectorAll('#tabs button')].map(b => b.textContent)")
        .await;
    assert_eq!(
        strip,
        json!(["智能体所见", "待处理", "现状", "决策", "日志", "归档"])
    );
    assert!(b.exists("#reread").await);

    // 23. the detail repeats the root; one danger row, holding only the clear button
    assert_eq!(b.text("#detail-root").await, a_root.to_string_lossy());
    let danger = b
        .js("return { rows: document.querySelectorAll('.tp-danger').length,
                      buttons: [...document.querySelectorAll('.tp-danger button')].map(b => b.textContent) }")
        .await;
    assert_eq!(danger, json!({"rows": 1, "buttons": ["清除记忆文件"]}));

    // 18. a fresh workspace shows no staleness banner
    assert!(!b.exists("#stale-banner").await);
}

/// Memory tabs show their files with no editor; the instruction file's editor opens, cancels,
/// keeps its draft across tabs and saves (checks 3, 5, 9–12).
async fn only_the_instruction_file_is_edited_whole(b: &Browser, a_root: &Path, agents: &Path) {
    // 3. each memory tab shows its file's text on the raw toggle; no editor is open until one
    // is asked for, and only the instruction file is edited whole
    for (label, file) in [
        ("现状", "PROJECT.md"),
        ("决策", "DECISIONS.md"),
        ("日志", "SESSIONS.md"),
    ] {
        assert_eq!(b.raw(label, file).await, read(a_root, file), "{file}");
        let editors = b
            .js("return { areas: [...document.querySelectorAll('textarea')].filter(t => t.offsetParent !== null).length,
                          edit: [...document.querySelectorAll('button')].filter(b => b.textContent === '编辑整份文件')
                                  .map(b => !!b.closest('#instruction')) }")
            .await;
        assert_eq!(
            editors,
            json!({"areas": 0, "edit": [true]}),
            "{label}: no editor for a memory file"
        );
    }

    // 5. the instruction panel: AGENTS.md's path and the 已写入 badge
    assert_eq!(b.text("#instruction-path").await, agents.to_string_lossy());
    assert_eq!(b.text("#boot-badge").await, "已写入");

    // 9. the editor opens the whole file, block included; the block buttons hide meanwhile
    b.click("#instruction-edit-open").await;
    let opened = b
        .until(
            "the editor",
            "const t = document.getElementById('instruction-edit'); return t.offsetParent !== null ? t.value : null",
        )
        .await;
    let on_disk = std::fs::read_to_string(agents).unwrap();
    assert_eq!(opened.as_str().unwrap(), on_disk);
    assert!(
        on_disk.contains("Use tabs, not spaces.") && on_disk.contains("<!-- trilogy:start -->")
    );
    assert!(!b.exists("#boot-remove").await && !b.exists("#boot-rewrite").await);

    // 11. cancel closes it, with no POST
    b.click("#instruction-cancel").await;
    b.until(
        "the editor to close",
        "return document.getElementById('instruction-edit').offsetParent === null && !!document.getElementById('boot-remove')",
    )
    .await;
    assert!(b.requests("save").await.is_empty());

    // 12. switching tabs keeps an open editor and its draft, with no POST
    b.click("#instruction-edit-open").await;
    b.until(
        "the editor",
        "return document.getElementById('instruction-edit').offsetParent !== null",
    )
    .await;
    let editor = b
        .client
        .find(Locator::Id("instruction-edit"))
        .await
        .unwrap();
    editor.send_keys("\nKeep commits small.\n").await.unwrap();
    let draft = b
        .js("return document.getElementById('instruction-edit').value")
        .await;
    let draft = draft.as_str().unwrap().to_string();
    assert!(draft.ends_with("Keep commits small.\n"), "{draft:?}");
    for label in ["决策", "归档", "现状"] {
        b.tab(label).await;
        let kept = b
            .js("const t = document.getElementById('instruction-edit'); return t.offsetParent !== null ? t.value : null")
            .await;
        assert_eq!(kept.as_str(), Some(draft.as_str()), "after {label}");
    }
    assert!(b.requests("save").await.is_empty());

    // 10. save: POST {root, file: AGENTS.md, text}, 已保存, the editor closes, buttons return
    b.click("#instruction-save").await;
    b.status("已保存 AGENTS.md").await;
    b.until(
        "the editor to close and the block buttons to return",
        "return document.getElementById('instruction-edit').offsetParent === null
           && !!document.getElementById('boot-remove') && !!document.getElementById('boot-rewrite')",
    )
    .await;
    assert_eq!(b.requests("save").await.len(), 1);
    assert_eq!(std::fs::read_to_string(agents).unwrap(), draft);
}

/// The block removed and rewritten, each armed by a first click (checks 6–8).
async fn the_boot_block_is_removed_and_rewritten_once_confirmed(b: &Browser, agents: &Path) {
    // 6. remove the block: a first click only arms it (the warning says what it does), the
    // second removes it: 未写入 with the consequence hint, the button disabled
    b.click("#boot-remove").await;
    let warning = b
        .until(
            "the armed block removal",
            "const w = document.getElementById('boot-warning'); return w && document.getElementById('boot-confirm') ? w.textContent : null",
        )
        .await;
    assert!(warning.as_str().unwrap().contains("memory/"), "{warning}");
    assert!(
        std::fs::read_to_string(agents)
            .unwrap()
            .contains("trilogy:start"),
        "armed, not removed"
    );
    b.click("#boot-cancel").await;
    b.until("the block buttons again", "return !!document.getElementById('boot-remove') && !document.getElementById('boot-confirm')").await;
    assert!(
        std::fs::read_to_string(agents)
            .unwrap()
            .contains("trilogy:start"),
        "cancelled"
    );
    b.click("#boot-remove").await;
    b.click("#boot-confirm").await;
    b.until(
        "the 未写入 badge",
        "return document.getElementById('boot-badge').textContent === '未写入'",
    )
    .await;
    assert_eq!(
        b.text("#boot-hint").await,
        "没有它，新会话不会知道 memory/ 的存在"
    );
    assert_eq!(
        b.js("return document.getElementById('boot-remove').disabled")
            .await,
        json!(true)
    );
    let removed = std::fs::read_to_string(agents).unwrap();
    assert!(!removed.contains("trilogy:start"), "{removed}");
    assert!(removed.contains("Use tabs, not spaces.") && removed.contains("Keep commits small."));

    // 8. after a remove the editor shows the file without the block (re-read, not stale)
    b.click("#instruction-edit-open").await;
    let reopened = b
        .until(
            "the editor",
            "const t = document.getElementById('instruction-edit'); return t.offsetParent !== null ? t.value : null",
        )
        .await;
    assert_eq!(reopened.as_str().unwrap(), removed);
    b.click("#instruction-cancel").await;

    // 7. rewrite: armed first too, then the block comes back, and the badge with it
    b.click("#boot-rewrite").await;
    b.until(
        "the armed rewrite",
        "return !!document.getElementById('boot-confirm')",
    )
    .await;
    assert!(
        !std::fs::read_to_string(agents)
            .unwrap()
            .contains("trilogy:start"),
        "armed, not rewritten"
    );
    b.click("#boot-confirm").await;
    b.until(
        "the 已写入 badge",
        "return document.getElementById('boot-badge').textContent === '已写入'",
    )
    .await;
    assert!(
        std::fs::read_to_string(agents)
            .unwrap()
            .contains("<!-- trilogy:start -->")
    );
}

/// The archive tab: no editor, the hint, 重新读取 kept, no save (check 21).
async fn the_archive_tab_is_read_only(b: &Browser) {
    // 21. the archive tab: no editor, the hint, 重新读取 kept, no save
    b.tab("归档").await;
    b.until(
        "the archive view",
        "return !!document.getElementById('archive-readonly')",
    )
    .await;
    assert!(b.exists("#archive-hint").await && b.exists("#reread").await);
    assert_eq!(
        b.js("return document.querySelectorAll('#content textarea, #content [contenteditable]').length")
            .await,
        json!(0)
    );
    assert_eq!(
        b.requests("save").await.len(),
        1,
        "no save from the archive"
    );
}

/// Search hits in `memory_search`'s order with whole entries, and the event log as `trilogy
/// log` has it.
async fn search_and_the_event_log_are_the_clis(b: &Browser, home: &Home, a_root: &Path) {
    // search: the memory_search ranking, whole entries shown
    let cli = home.json(a_root, &["search", "-n", "20", "panel verified Chromium"]);
    let want_ids: Vec<&str> = cli["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert!(want_ids.len() >= 2, "{cli}");
    let q = b.client.find(Locator::Id("search-q")).await.unwrap();
    q.send_keys("panel verified Chromium\n").await.unwrap();
    let shown = b
        .until(
            "search hits",
            "const hits = [...document.querySelectorAll('#search-hits .tp-hit')];
             return hits.length ? hits.map(h => [h.dataset.id, h.querySelector('pre').textContent]) : null",
        )
        .await;
    let shown = shown.as_array().unwrap();
    assert_eq!(
        shown
            .iter()
            .map(|h| h[0].as_str().unwrap())
            .collect::<Vec<_>>(),
        want_ids,
        "the panel's order is memory_search's"
    );
    for (hit, want) in shown.iter().zip(cli["hits"].as_array().unwrap()) {
        assert_eq!(hit[1], want["text"], "whole entry shown");
    }

    // the event log: who changed what, newest first, as `trilogy log` has it
    b.click_text("#insight-tabs", "变更记录").await;
    let log = home.json(a_root, &["log", "-n", "50"]);
    let rows = b
        .until(
            "the event log",
            "const rows = [...document.querySelectorAll('#events-table .tp-event')];
             return rows.length ? rows.map(r => [r.dataset.seq, r.querySelector('.tp-actor').dataset.actor, r.lastChild.textContent]) : null",
        )
        .await;
    let events = log["events"].as_array().unwrap();
    assert_eq!(rows.as_array().unwrap().len(), events.len());
    for (row, e) in rows.as_array().unwrap().iter().zip(events) {
        assert_eq!(row[0].as_str().unwrap(), e["seq"].to_string());
        assert_eq!(row[1], e["actor"]);
        assert_eq!(row[2], e["detail"]);
    }
    assert!(
        b.text("#events-table").await.contains("命令行"),
        "CLI writes are named"
    );
}

/// Each agent session's injected and dropped counts, and the weekly chart's weeks and bars.
async fn agent_sessions_and_the_weekly_chart_are_the_clis(b: &Browser, home: &Home, a_root: &Path) {
    // agent sessions: what each was injected and what its caps dropped
    b.click_text("#insight-tabs", "智能体会话").await;
    let sessions = home.json(a_root, &["sessions"]);
    let s = &sessions.as_array().unwrap()[0];
    assert_eq!(s["id"], "s-alpha-1");
    let row_text = b
        .until(
            "the agent session row",
            "const r = document.querySelector('#sessions-table .tp-session[data-session=\"s-alpha-1\"]'); return r ? r.textContent : null",
        )
        .await;
    let row_text = row_text.as_str().unwrap();
    let injected = s["injected_ids"].as_array().unwrap().len();
    assert!(row_text.contains(&format!("{injected} 条")), "{row_text}");
    let dropped = s["dropped"]["sessions"].as_array().unwrap().len();
    assert!(dropped > 0, "the 700-character cap drops log entries: {s}");
    assert!(
        row_text.contains(&format!("日志 {dropped} 条")),
        "{row_text}"
    );

    // the weekly chart: one column per week, quiet weeks included, and one bar segment per
    // (week, area), live and archived sessions alike
    b.click_text("#insight-tabs", "每周会话").await;
    let chart = b
        .until(
            "the weekly chart",
            "const r = [...document.querySelectorAll('#weeks-chart rect.tp-bar')];
             return r.length ? { weeks: [...document.querySelectorAll('#weeks-chart .tp-week')].map(g => g.dataset.week),
                                 bars: r.map(x => [x.dataset.week, x.dataset.area, Number(x.dataset.count)]) } : null",
        )
        .await;
    // from the first week with a session to this week (the server's pinned today, W48, or the
    // browser's own when the server does not say)
    let weeks: Vec<String> = chart["weeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        weeks[..6],
        [
            "2026-W43", "2026-W44", "2026-W45", "2026-W46", "2026-W47", "2026-W48"
        ],
        "{chart}"
    );
    let this_week = b
        .js("const d = new Date(); return window.trilogyPanel.isoWeekLabel(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()))")
        .await;
    let last = weeks.last().unwrap();
    assert!(
        last == "2026-W48" || last == this_week.as_str().unwrap(),
        "the window ends this week: {weeks:?}"
    );
    let mut bars: Vec<(String, String, i64)> = chart["bars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x[0].as_str().unwrap().to_string(),
                x[1].as_str().unwrap().to_string(),
                x[2].as_i64().unwrap(),
            )
        })
        .collect();
    bars.sort();
    let want: Vec<(String, String, i64)> = [
        ("2026-W43", "parser", 1),
        ("2026-W45", "archive", 1),
        ("2026-W47", "search", 1),
        ("2026-W48", "panel", 2),
    ]
    .iter()
    .map(|(w, a, n)| (w.to_string(), a.to_string(), *n))
    .collect();
    assert_eq!(bars, want);
}

/// The README's picture: the recorded workspace, its log and the changes, freshly loaded.
async fn the_readme_picture_is_taken(b: &Browser) {
    // the README's picture: the recorded workspace, its log and the changes, freshly loaded
    b.client.refresh().await.unwrap();
    b.until(
        "the page again",
        "return document.getElementById('content').dataset.ready === 'true' && !!document.getElementById('boot-badge') && !!document.getElementById('status-chip')",
    )
    .await;
    b.tab("日志").await;
    b.click_text("#insight-tabs", "变更记录").await;
    b.until(
        "the change log",
        "return !!document.getElementById('events-table')",
    )
    .await;
    b.client.set_window_size(1280, 1500).await.unwrap();
    b.js("window.scrollTo(0, 0); return true").await;
    let png = b.client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(target_dir().join("panel.png"), &png).unwrap();
}
