//! What the agent sees, as the panel shows it.

use super::*;

/// What the agent sees: the injected text for the picked host and window, a bar per file,
/// the ledger line before any file, and every entry with why it is in or out and whether
/// agents have been given it lately.
#[tokio::test(flavor = "current_thread")]
async fn panel_shows_what_the_agent_sees() {
    let home = Home::new();
    let a_root = alpha(&home, "alpha");
    // two session slots: the area allocation gives `search` one of them, so the second
    // newest `panel` session is out by the area quota
    std::fs::write(
        a_root.join("trilogy.toml"),
        "session_entries_injected = 2\n",
    )
    .unwrap();
    // a second agent session given the whole block (alpha's first was cut to 700 characters)
    home.run(
        &a_root,
        &["inject", "--session", "s-alpha-2", "--host", "codex"],
        &[],
        None,
    );
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    assert_eq!(
        b.text("#inject-text").await,
        printed(home.run(&a_root, &["inject"], &[], None))
    );

    the_ledger_line_sits_above_the_tabs(&b).await;
    each_file_has_a_bar_of_shown_bytes(&b).await;
    each_row_says_what_its_entry_says(&b).await;
    entries_say_why_they_are_out_and_which_are_in_use(&b, &home, &a_root).await;
    the_ledger_line_is_the_picked_hosts(&b, &home, &a_root).await;
    another_host_and_window_give_that_inject(&b, &home, &a_root).await;

    b.close().await;
}

/// The ledger line the agents get, above the tabs and every file.
async fn the_ledger_line_sits_above_the_tabs(b: &Browser) {
    // the ledger line the agents get, above the tabs and every file
    let ledger = b
        .until(
            "the ledger line",
            "const l = document.getElementById('ledger-line');
             return l && !l.hidden && l.textContent ? [l.textContent,
               !!(l.compareDocumentPosition(document.getElementById('tabs')) & Node.DOCUMENT_POSITION_FOLLOWING)] : null",
        )
        .await;
    assert!(
        ledger[0].as_str().unwrap().starts_with("本次注入"),
        "{ledger}"
    );
    assert_eq!(
        ledger[1],
        json!(true),
        "the ledger line comes before the tabs"
    );
    assert!(
        b.text("#inject-text")
            .await
            .contains(ledger[0].as_str().unwrap()),
        "the line is the block's own"
    );
}

/// A bar per file: shown bytes against the share and the file's size.
async fn each_file_has_a_bar_of_shown_bytes(b: &Browser) {
    // a bar per file, shown bytes against the share and the file's size
    let bars = b
        .js("return [...document.querySelectorAll('#inject-files .tp-bar-row')].map(r =>
               [r.dataset.file, Number(r.dataset.shown), Number(r.dataset.share), Number(r.dataset.total)])")
        .await;
    let bars = bars.as_array().unwrap();
    let files: Vec<&str> = bars.iter().map(|r| r[0].as_str().unwrap()).collect();
    for f in ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"] {
        assert!(files.contains(&f), "{files:?}");
    }
    for r in bars {
        assert!(
            r[1].as_u64().unwrap() <= r[3].as_u64().unwrap().max(r[1].as_u64().unwrap()),
            "{r}"
        );
    }
}

/// Each row shows its entry's first line under the heading: a session's Done, a decision's
/// choice, so two sessions of one day and area no longer read alike.
async fn each_row_says_what_its_entry_says(b: &Browser) {
    let rows = b
        .js("return [...document.querySelectorAll('#inject-entries .tp-inject-row')].map(r => {
               const l = r.querySelector('.tp-inject-line'); return [r.querySelector('.tp-strong').textContent, l ? l.textContent : null]; })")
        .await;
    let rows = rows.as_array().unwrap();
    let line = |heading: &str| -> String {
        let r = (rows.iter())
            .find(|r| r[0] == heading)
            .unwrap_or_else(|| panic!("{heading} is listed: {rows:?}"));
        r[1].as_str()
            .unwrap_or_else(|| panic!("{heading} has no line: {r}"))
            .to_string()
    };
    for (heading, says) in [
        (
            "2026-11-29 · panel",
            "the panel restores archived entries, verified in Chromium",
        ),
        (
            "2026-11-24 · panel",
            "the panel lists every workspace, verified in Chromium",
        ),
        (
            "2026-11-17 · search",
            "search ranks whole entries with BM25, verified by the search tests",
        ),
        (
            "2026-11-17 — tantivy for the search index",
            "tantivy for the search index",
        ),
    ] {
        let l = line(heading);
        assert!(
            l.starts_with("完成：") || l.starts_with("选择："),
            "{heading}: {l}"
        );
        assert!(l.contains(says), "{heading} reads {l:?}, not {says:?}");
    }
    assert!(
        rows.iter()
            .all(|r| r[1].as_str().is_some_and(|l| !l.is_empty())),
        "every row has its line: {rows:?}"
    );
}

/// The ledger line above the tabs is the block of the host picked, with that host's own
/// limit: none by default, Claude Code's characters, Codex's bytes.
async fn the_ledger_line_is_the_picked_hosts(b: &Browser, home: &Home, a_root: &Path) {
    let ledger_of = |out: String| -> String {
        (out.lines())
            .find(|l| l.starts_with("本次注入"))
            .unwrap_or_else(|| panic!("a ledger line in {out}"))
            .to_string()
    };
    for (host, cap) in [
        ("claude", Some("宿主单条上限 10000 字符")),
        ("codex", None),
        ("", None),
    ] {
        let select = b.client.find(Locator::Id("inject-host")).await.unwrap();
        select.select_by_value(host).await.unwrap();
        let mut args = vec!["inject"];
        if !host.is_empty() {
            args.extend(["--host", host]);
        }
        let want = ledger_of(home.run(a_root, &args, &[], None));
        let shown = b
            .until_with(
                &format!("the ledger line of {host:?}"),
                "const l = document.getElementById('ledger-line');
                 return l && !l.hidden && l.textContent === arguments[0] ? l.textContent : null",
                vec![json!(want)],
            )
            .await;
        let shown = shown.as_str().unwrap();
        match cap {
            Some(c) => assert!(shown.contains(c), "{host}: {shown}"),
            None => assert!(!shown.contains("宿主单条上限"), "{host}: {shown}"),
        }
        if host == "codex" {
            assert!(
                shown.contains("预算 10000 字节"),
                "Codex keeps 10000 bytes: {shown}"
            );
        }
    }
}

/// The entries: left out with why, in use as the sessions recorded, the rest never injected.
async fn entries_say_why_they_are_out_and_which_are_in_use(
    b: &Browser,
    home: &Home,
    a_root: &Path,
) {
    // the entries: the superseded decision is left out, and says why; what the session
    // `s-alpha-1` was given is in use, the rest never injected
    let rows = b
        .js("return [...document.querySelectorAll('#inject-entries .tp-inject-row')].map(r =>
               [r.querySelector('.tp-strong').textContent, r.dataset.reason, r.cells[2].textContent, r.dataset.use, r.cells[3].textContent])")
        .await;
    let rows = rows.as_array().unwrap();
    let old = rows
        .iter()
        .find(|r| r[0] == "2026-10-19 — keep entries in redb")
        .unwrap_or_else(|| panic!("the superseded decision is listed: {rows:?}"));
    assert_eq!(old[1], "superseded");
    assert_eq!(old[2], "没注入：已被取代");
    let quota = rows
        .iter()
        .find(|r| r[0] == "2026-11-24 · panel")
        .unwrap_or_else(|| panic!("the older panel session is listed: {rows:?}"));
    assert_eq!(
        (quota[1].as_str().unwrap(), quota[2].as_str().unwrap()),
        ("area_quota", "没注入：超出领域配额"),
        "{rows:?}"
    );
    assert!(
        !b.text("#inject-text")
            .await
            .contains("## 2026-11-24 · panel"),
        "and it is not in the text"
    );
    let sessions = home.json(a_root, &["sessions"]);
    let given: Vec<String> = sessions
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["injected_ids"].as_array().unwrap().clone())
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let uses = b
        .js("return [...document.querySelectorAll('#inject-entries .tp-inject-row')].map(r => [r.dataset.id, r.dataset.use, r.cells[3].textContent])")
        .await;
    let mut in_use = 0;
    for u in uses.as_array().unwrap() {
        let id = u[0].as_str().unwrap();
        if given
            .iter()
            .any(|g| g.starts_with(id) || id.starts_with(g.as_str()))
        {
            assert_eq!(u[1], "inUse", "{u}");
            assert!(u[2].as_str().unwrap().starts_with("在用1 次"), "{u}");
            in_use += 1;
        } else {
            assert_eq!(u[1], "never", "{u}");
            assert!(u[2].as_str().unwrap().starts_with("从未注入0 次"), "{u}");
        }
    }
    assert!(in_use > 0, "{uses} {given:?}");
    assert!(
        b.text("#agent-view")
            .await
            .contains("注入次数来自 2 个智能体会话的记录"),
        "the counts say where they come from"
    );
}

/// Another host and a window: the text is `trilogy inject --host … --window-tokens …`'s.
async fn another_host_and_window_give_that_inject(b: &Browser, home: &Home, a_root: &Path) {
    // another host and a window: the text is `trilogy inject --host … --window-tokens …`'s
    let select = b.client.find(Locator::Id("inject-host")).await.unwrap();
    select.select_by_value("codex").await.unwrap();
    b.type_into("#inject-window", "20000").await;
    b.click("#inject-apply").await;
    let want = printed(home.run(
        a_root,
        &["inject", "--host", "codex", "--window-tokens", "20000"],
        &[],
        None,
    ));
    b.until_with(
        "the codex block",
        "const t = document.getElementById('inject-text'); return !!t && t.textContent === arguments[0]",
        vec![json!(want)],
    )
    .await;
    let asked = b.requests("injection").await;
    assert!(
        asked.last().unwrap().contains("host=codex")
            && asked.last().unwrap().contains("window=20000"),
        "{asked:?}"
    );
}
