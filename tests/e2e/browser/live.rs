//! The panel following the store while keeping drafts, and paging large files.

use super::*;

/// State that can be trusted: the open view follows a CLI write without a reload; a draft is
/// not dropped without asking (another workspace, another view, leaving the page); the list
/// does not stick over the tabs of a narrow screen; the empty badge looks at all three files;
/// the weekly chart ends this week, its labels with years; a clear can be undone.
#[tokio::test(flavor = "current_thread")]
async fn panel_follows_the_store_and_keeps_drafts() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    // only a log entry, long ago: PROJECT.md still the template
    let l_root = home.folder("logonly");
    home.run(&l_root, &["init"], &[], None);
    home.checkpoint(
        &l_root,
        "2026-10-19",
        json!({"sessions": [{"done": "logonly started, verified by cargo build", "area": "build"}]}),
    );
    let a_root = alpha(&home, "alpha");
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;

    the_open_view_follows_cli_writes(&b, &home, &a_root, &l_root).await;
    an_open_draft_asks_before_it_is_left(&b, &a_root, &b_root).await;
    a_write_elsewhere_leaves_the_form_and_its_focus(&b, &home, &a_root).await;
    the_log_only_workspace_charts_its_weeks_and_clears_undoably(&b, &l_root).await;
    a_narrow_window_stacks_the_list_above_the_detail(&b, &b_root).await;

    b.close().await;
}

/// The empty badge for a log entry, and a CLI checkpoint showing up in the open view with
/// no reload.
async fn the_open_view_follows_cli_writes(b: &Browser, home: &Home, a_root: &Path, l_root: &Path) {
    // the empty badge: a log entry is memory, whatever PROJECT.md says
    assert_eq!(row(b, l_root).await, Some(("已记录".into(), false)));

    // a CLI checkpoint while the page is open shows up in the open view, with no reload
    b.tab("日志").await;
    b.js("window.__same = 1; return true").await;
    home.checkpoint(
        a_root,
        common::TODAY,
        json!({"sessions": [{"done": "the panel follows the store, verified in Chromium", "area": "panel"}]}),
    );
    b.until(
        "the new session's card",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('the panel follows the store'))",
    )
    .await;
    assert_eq!(b.js("return window.__same").await, json!(1), "no reload");
    let polls = b.requests("change").await;
    assert!(
        !polls.is_empty()
            && polls
                .iter()
                .all(|u| u.contains(&format!("root={}", uri_component(a_root)))),
        "{polls:?}"
    );
}

/// The instruction editor's and a card's drafts: leaving them asks, cancelling stays, and the
/// open workspace's own row keeps the draft; removing another card asks first.
async fn an_open_draft_asks_before_it_is_left(b: &Browser, a_root: &Path, b_root: &Path) {
    // the instruction editor's draft: switching workspace asks, and cancelling stays
    b.click("#instruction-edit-open").await;
    let editor = b
        .client
        .find(Locator::Id("instruction-edit"))
        .await
        .unwrap();
    editor.send_keys("\nA draft.\n").await.unwrap();
    b.click_marked(
        "beta's row",
        "const row = [...document.querySelectorAll('#side-list .tp-item')].find(r => r.dataset.root === arguments[0]);
         if (!row) return null; row.querySelector('.tp-item-pick').setAttribute('data-test-click', 'beta'); return 'beta';",
        vec![json!(b_root.to_string_lossy())],
    )
    .await;
    assert_eq!(b.dialog().await, "有没保存的修改，离开会丢掉它。仍然离开？");
    b.client.dismiss_alert().await.unwrap();
    assert_eq!(
        b.text("#detail-root").await,
        a_root.to_string_lossy(),
        "stayed"
    );
    let kept = b
        .js("return document.getElementById('instruction-edit').value")
        .await;
    assert!(kept.as_str().unwrap().ends_with("A draft.\n"), "{kept}");
    // leaving the page asks too (the browser's own prompt, from beforeunload)
    let asks = b
        .js("const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented")
        .await;
    assert_eq!(asks, json!(true));
    b.click("#instruction-cancel").await;
    let asks = b
        .js("const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented")
        .await;
    assert_eq!(asks, json!(false), "nothing to lose, nothing asked");

    // a card's draft: another view asks; accepting goes
    b.js("window.__events = document.querySelectorAll('#events-table .tp-event').length; return true")
        .await;
    b.card_click("the panel follows the store", ".tp-card-edit-open")
        .await;
    b.type_into(".tp-card-edit", "## 2026-11-29 · panel\n完成：a draft\n")
        .await;
    b.click_marked(
        "the 决策 tab",
        "const t = document.querySelector('#tabs [data-tab=decisions]'); t.setAttribute('data-test-click', 't'); return 't';",
        vec![],
    )
    .await;
    assert_eq!(b.dialog().await, "有没保存的修改，离开会丢掉它。仍然离开？");
    b.client.dismiss_alert().await.unwrap();
    assert_eq!(b.selected_tab().await, "sessions");
    assert_eq!(
        b.js("return document.querySelector('.tp-card-edit').value")
            .await,
        "## 2026-11-29 · panel\n完成：a draft\n"
    );
    // the open workspace's own row clicked again keeps the draft, and asks nothing
    b.click_marked(
        "the open workspace's row",
        "const row = [...document.querySelectorAll('#side-list .tp-item')].find(r => r.dataset.root === arguments[0]);
         if (!row) return null; row.querySelector('.tp-item-pick').setAttribute('data-test-click', 'self'); return 'self';",
        vec![json!(a_root.to_string_lossy())],
    )
    .await;
    assert!(b.client.get_alert_text().await.is_err(), "no dialog");
    assert_eq!(
        b.js("const f = document.querySelector('.tp-card-edit'); return f && f.value")
            .await,
        "## 2026-11-29 · panel\n完成：a draft\n",
        "the draft is still there"
    );
    // removing another card while this draft is open asks first; dismissed, nothing happens
    let other = b
        .js("const c = [...document.querySelectorAll('#cards .tp-entry-card')].find(c => !c.querySelector('.tp-card-edit') && c.querySelector('.tp-card-remove'));
             return c ? c.dataset.id : null")
        .await;
    let other = other.as_str().expect("another card to remove").to_string();
    let remove_on = |css: &'static str| {
        format!(
            "const c = document.querySelector('#cards .tp-entry-card[data-id=\"{other}\"]'); const b = c && c.querySelector('{css}');
             if (!b) return null; b.setAttribute('data-test-click', '{css}'); return '{css}';"
        )
    };
    b.click_marked(
        "Remove on the other card",
        &remove_on(".tp-card-remove"),
        vec![],
    )
    .await;
    let focused = b
        .until(
            "the armed Remove",
            "return document.querySelector('.tp-card-remove-confirm') ? document.activeElement.className : null",
        )
        .await;
    assert!(
        focused.as_str().unwrap().contains("tp-card-remove-confirm"),
        "the focus moves onto the Confirm that took Remove's place: {focused}"
    );
    b.click_marked(
        "Confirm on the other card",
        &remove_on(".tp-card-remove-confirm"),
        vec![],
    )
    .await;
    assert_eq!(b.dialog().await, "有没保存的修改，离开会丢掉它。仍然离开？");
    b.client.dismiss_alert().await.unwrap();
    assert!(
        b.js("return !!document.querySelector('.tp-card-edit')").await == json!(true)
            && read(a_root, "SESSIONS.md").contains(
                b.js(&format!("return document.querySelector('#cards .tp-entry-card[data-id=\"{other}\"]').dataset.heading"))
                    .await
                    .as_str()
                    .unwrap()
            ),
        "the draft stays and the other card is not removed"
    );
}

/// A write elsewhere while a draft is open: the page follows it around the form, which keeps
/// its text and focus, and the view catches up when the form closes.
async fn a_write_elsewhere_leaves_the_form_and_its_focus(b: &Browser, home: &Home, a_root: &Path) {
    // a write elsewhere while the draft is open: the page follows it around the form, the
    // form keeps its text and its focus, and the view catches up when the form closes
    b.js("document.querySelector('.tp-card-edit').focus(); return true")
        .await;
    home.checkpoint(
        a_root,
        common::TODAY,
        json!({"sessions": [{"done": "a write while a draft is open, verified in Chromium", "area": "panel"}]}),
    );
    b.until(
        "the change log to show the write",
        "return !!document.getElementById('events-table') && document.getElementById('events-table').textContent.includes('SESSIONS.md: 2026-11-29 · panel')
           && [...document.querySelectorAll('#events-table .tp-event')].length > window.__events",
    )
    .await;
    let form = b
        .js("const t = document.querySelector('.tp-card-edit'); return [t.value, document.activeElement === t,
               [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('a write while a draft is open'))]")
        .await;
    assert_eq!(
        form,
        json!(["## 2026-11-29 · panel\n完成：a draft\n", true, false]),
        "the form is left alone"
    );
    b.click(".tp-form-cancel").await;
    b.until(
        "the view to catch up",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('a write while a draft is open'))",
    )
    .await;
    b.card_click("a write while a draft is open", ".tp-card-edit-open")
        .await;
    b.type_into(".tp-card-edit", "## 2026-11-29 · panel\n完成：a draft\n")
        .await;
    b.click("#tabs [data-tab=decisions]").await;
    b.dialog().await;
    b.client.accept_alert().await.unwrap();
    b.until(
        "the decisions",
        "return document.getElementById('content').dataset.view === 'decisions'",
    )
    .await;
    assert!(!read(a_root, "SESSIONS.md").contains("完成：a draft\n"));
}

/// The log-only workspace's weekly chart from its week to this one, and a clear that says
/// it can be undone and undoes.
async fn the_log_only_workspace_charts_its_weeks_and_clears_undoably(b: &Browser, l_root: &Path) {
    // the weekly chart of the log-only workspace: from its one week to this one, years shown
    b.pick(l_root).await;
    b.click_text("#insight-tabs", "每周会话").await;
    let chart = b
        .until(
            "the weekly chart",
            "const w = [...document.querySelectorAll('#weeks-chart .tp-week')].map(g => g.dataset.week);
             return w.length ? { weeks: w, labels: [...document.querySelectorAll('#weeks-chart .tp-week-label')].map(t => t.textContent) } : null",
        )
        .await;
    let weeks = chart["weeks"].as_array().unwrap();
    assert_eq!(weeks[0], "2026-W43");
    assert_eq!(
        weeks.last().unwrap(),
        "2026-W48",
        "the window ends today (2026-11-29): {chart}"
    );
    assert_eq!(weeks.len(), 6, "{chart}");
    let labels = chart["labels"].as_array().unwrap();
    assert!(labels.len() >= 2, "{chart}");
    for l in labels {
        let l = l.as_str().unwrap();
        assert!(
            l.len() == 8 && l.starts_with("2026-W"),
            "a label carries its year: {l}"
        );
    }
    assert_eq!(labels.last().unwrap(), "2026-W48");

    // a clear says it can be undone, and undoes
    b.click("#clear").await;
    b.click("#clear-confirm").await;
    let said = b.status("已清除").await;
    assert!(said.contains("可以撤销"), "{said}");
    assert!(!l_root.join("memory/SESSIONS.md").exists());
    b.click("#clear-undo").await;
    let said = b.status("已恢复这次清除的内容").await;
    assert!(said.contains("1 条条目"), "{said}");
    assert!(read(l_root, "SESSIONS.md").contains("logonly started"));
}

/// Below 760 px the list is one column above the detail and does not stick over the tabs.
async fn a_narrow_window_stacks_the_list_above_the_detail(b: &Browser, b_root: &Path) {
    // below 760 px the list is one column above the detail and does not stick over the tabs
    b.pick(b_root).await;
    b.client.set_window_size(400, 900).await.unwrap();
    let narrow = b
        .until(
            "the narrow layout",
            "const side = document.getElementById('side');
             if (window.innerWidth > 760) return null;
             const tabs = document.getElementById('tabs');
             tabs.scrollIntoView({ block: 'start' });
             const r = tabs.querySelector('[role=tab]').getBoundingClientRect();
             const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
             return { position: getComputedStyle(side).position, onTab: !!hit && !!hit.closest('#tabs'),
                      overflow: document.documentElement.scrollWidth - window.innerWidth };",
        )
        .await;
    assert_ne!(narrow["position"], "sticky", "{narrow}");
    assert_eq!(
        narrow["onTab"],
        json!(true),
        "nothing covers the tabs: {narrow}"
    );
    assert!(
        narrow["overflow"].as_i64().unwrap() <= 0,
        "no sideways scrolling: {narrow}"
    );
}

/// At 2,000 entries in each file (and 2,000 archived), every view stays under 5,000
/// elements: cards and tables come 50 at a time with "more".
#[tokio::test(flavor = "current_thread")]
async fn panel_pages_large_files() {
    let home = Home::new();
    let root = big(&home, "big", 2_000);
    let server = Server::start(&home, &root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    let rows = b
        .js("return document.querySelectorAll('#inject-entries .tp-inject-row').length")
        .await;
    assert_eq!(rows, json!(100), "the first hundred of the entries");
    assert!(b.exists("#inject-more").await);
    let mut counts = vec![("agent".to_string(), b.elements().await)];
    for (label, tab) in [
        ("待处理", "attention"),
        ("现状", "project"),
        ("决策", "decisions"),
        ("日志", "sessions"),
        ("归档", "archive"),
    ] {
        b.tab(label).await;
        if tab == "decisions" || tab == "sessions" || tab == "archive" {
            let shown = b
                .until(
                    "the cards",
                    "const c = document.getElementById('cards'); return c ? [Number(c.dataset.shown), Number(c.dataset.total)] : null",
                )
                .await;
            let total = if tab == "sessions" { 2_120 } else { 2_000 };
            assert_eq!(
                shown,
                json!([50, total]),
                "{tab}: a page of 50 of the {total}"
            );
        }
        counts.push((tab.to_string(), b.elements().await));
    }
    // "more" pages in the next 50
    b.click("#cards-more").await;
    let shown = b
        .until(
            "the second page",
            "const c = document.getElementById('cards');
             return c && Number(c.dataset.shown) >= 100 ? [Number(c.dataset.shown), document.querySelectorAll('#cards .tp-entry-card').length] : null",
        )
        .await;
    assert!(shown[0].as_u64().unwrap() >= 100, "{shown}");
    assert_eq!(
        shown[0], shown[1],
        "every entry asked for is drawn: {shown}"
    );
    counts.push(("archive+more".into(), b.elements().await));
    // reading on past the window: "more" lets the newest pages go, "newer" brings them back
    // (scrolling may page in by itself too: the test follows what is there)
    let reached = |v: &Value| v[0].as_u64().unwrap() + v[1].as_u64().unwrap();
    let window_now = "const c = document.getElementById('cards');
         return [Number(c.dataset.start), Number(c.dataset.shown), document.querySelectorAll('#cards .tp-entry-card').length]";
    let mut window = b.js(window_now).await;
    for _ in 0..12 {
        if reached(&window) >= 300 {
            break;
        }
        let before = reached(&window);
        b.click("#cards-more").await;
        b.until_with(
            "the next page",
            "const c = document.getElementById('cards');
             return c && !c.querySelector('#cards-more[disabled]') && Number(c.dataset.start) + Number(c.dataset.shown) > arguments[0]",
            vec![json!(before)],
        )
        .await;
        window = b.js(window_now).await;
    }
    let start = window[0].as_u64().unwrap();
    assert!(reached(&window) >= 300, "{window}");
    assert_eq!(
        (window[1].clone(), window[2].clone()),
        (json!(200), json!(200)),
        "a window of 200 cards: {window}"
    );
    assert_eq!(start, reached(&window) - 200, "{window}");
    assert!(b.exists("#cards-newer").await);
    counts.push(("archive+300".into(), b.elements().await));
    b.click("#cards-newer").await;
    b.until_with(
        "the page before the window",
        "const c = document.getElementById('cards'); return c && Number(c.dataset.start) === arguments[0]",
        vec![json!(start - 50)],
    )
    .await;
    // the change log and the restorable entries: 50 at a time too
    b.click_text("#insight-tabs", "变更记录").await;
    b.until(
        "a page of events",
        "return document.querySelectorAll('#events-table .tp-event').length === 50 && !!document.getElementById('events-more')",
    )
    .await;
    b.click("#events-more").await;
    let seqs = b
        .until(
            "a second page of events",
            "const r = [...document.querySelectorAll('#events-table .tp-event')].map(e => Number(e.dataset.seq));
             return r.length === 100 ? r : null",
        )
        .await;
    let seqs: Vec<i64> = seqs
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[0] > w[1]),
        "newest first, no repeats: {seqs:?}"
    );
    b.click_text("#insight-tabs", "可恢复").await;
    b.until(
        "a page of restorable entries",
        "return document.querySelectorAll('#history .tp-history').length === 50 && !!document.getElementById('history-more')",
    )
    .await;
    b.click("#history-more").await;
    b.until(
        "a second page of restorable entries",
        "return document.querySelectorAll('#history .tp-history').length === 100",
    )
    .await;
    counts.push(("history".into(), b.elements().await));
    for (view, n) in &counts {
        assert!(*n < 5_000, "{view}: {n} elements ({counts:?})");
    }

    b.close().await;
}
