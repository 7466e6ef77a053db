//! How the panel looks: the banner, the chip and English labels, and views that fit wide and
//! narrow windows.

use super::*;

/// The staleness banner (checks 17–19), the status chip (25, 26, 28, 29) and the English
/// labels.
#[tokio::test(flavor = "current_thread")]
async fn panel_banner_chip_and_english_labels() {
    let home = Home::new();
    // PROJECT.md last written on 2026-09-30 (its file that old too), the log 60 days on
    // (§4.11; trilogy judges by the store's revision dates, src/ops/session_block/stale.rs)
    let s_root = home.folder("stale");
    let then = [("TRILOGY_TODAY", "2026-09-30")];
    home.run(&s_root, &["init"], &then, None);
    home.run(
        &s_root,
        &[
            "checkpoint",
            "--section",
            "现状",
            "--text",
            "Stale is a small service.",
        ],
        &then,
        None,
    );
    age(
        &s_root.join("memory/PROJECT.md"),
        Duration::from_secs(60 * 86_400 + 3_600),
    );
    home.checkpoint(
        &s_root,
        common::TODAY,
        json!({"sessions": [{"done": "stale builds, verified by cargo build", "area": "build"}]}),
    );
    let here = home.folder("gamma");
    let server = Server::start(&home, &here, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;

    a_stale_reading_shows_the_banner_until_current(&b, &home, &s_root).await;
    the_chip_creates_polls_and_says_synced(&b, &here).await;
    english_labels_follow_the_servers_language(&b, &home, &here).await;

    b.close().await;
}

/// A stale reading shows the banner, whose action opens PROJECT's first section, and a re-read
/// once PROJECT.md is current takes it away (checks 17, 19).
async fn a_stale_reading_shows_the_banner_until_current(b: &Browser, home: &Home, s_root: &Path) {
    // 17. a stale reading shows the banner with the day and entry counts
    b.pick(s_root).await;
    let banner = b
        .until(
            "the staleness banner",
            "const e = document.getElementById('stale-banner'); return e ? e.textContent : null",
        )
        .await;
    let banner = banner.as_str().unwrap();
    assert!(banner.starts_with("PROJECT.md 可能过时"), "{banner}");
    assert!(
        banner.contains("已经 60 天没改过") && banner.contains("追加了 1 条"),
        "{banner}"
    );
    // its action opens PROJECT with the first section's editor
    b.click("#stale-edit").await;
    let editing = b
        .until(
            "the PROJECT editor",
            "const t = document.querySelector('#sections .tp-card-edit');
             return document.getElementById('content').dataset.view === 'project' && t && document.activeElement === t ? t.value : null",
        )
        .await;
    assert_eq!(editing, "暂无", "the first section, as it is");
    b.click(".tp-form-cancel").await;

    // 19. it goes after a re-read once PROJECT.md is current again
    home.checkpoint(
        s_root,
        common::TODAY,
        json!({"project": [{"section": "现状", "text": "Stale no more."}]}),
    );
    b.click("#reread").await;
    b.until(
        "the banner to go",
        "return !document.getElementById('stale-banner')",
    )
    .await;
    assert!(b.raw("现状", "PROJECT.md").await.contains("Stale no more."));
}

/// The chip: creating memory in a folder without it, polling `/status` for its own folder,
/// saying how long ago it synced, and nothing without a folder (checks 25, 26, 28, 29).
async fn the_chip_creates_polls_and_says_synced(b: &Browser, here: &Path) {
    // 28. the chip of a folder without memory: a button 无记忆 · 点击创建, which POSTs /init
    let chip = b
        .until(
            "the chip",
            "const c = document.getElementById('status-chip'); return c ? [c.tagName, c.textContent] : null",
        )
        .await;
    assert_eq!(chip, json!(["BUTTON", "无记忆 · 点击创建"]));
    // 25. one /status?cwd=<own cwd> at once, then one every 4000 ms
    let statuses = b.requests("status").await;
    let cwd = uri_component(here);
    assert!(
        statuses
            .iter()
            .all(|u| u.ends_with(&format!("/trilogy/status?cwd={cwd}"))),
        "{statuses:?}"
    );
    b.until(
        "a second /status poll",
        "return performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname === '/trilogy/status').length >= 3",
    )
    .await;
    let gaps = b
        .js("const t = performance.getEntriesByType('resource')
               .filter(e => new URL(e.name).pathname === '/trilogy/status').map(e => e.startTime);
             return t.slice(1).map((x, i) => x - t[i])")
        .await;
    for gap in gaps.as_array().unwrap() {
        assert!(
            gap.as_f64().unwrap() >= 3_900.0,
            "polls are 4000 ms apart, never closer: {gaps}"
        );
    }
    b.click("#status-chip").await;
    let chip = b
        .until(
            "the chip after init",
            "const c = document.getElementById('status-chip');
             return c && c.textContent.includes('刚刚') ? [c.tagName, c.textContent] : null",
        )
        .await;
    assert_eq!(chip[0], "SPAN", "{chip}");
    assert_eq!(b.requests("init").await.len(), 1);
    assert!(here.join("memory/PROJECT.md").exists());

    // 26. a synced chip: a span with 已同步 and how long ago
    for f in ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"] {
        age(&here.join("memory").join(f), Duration::from_secs(75));
    }
    let start = Instant::now();
    let chip = loop {
        let c = b
            .js("const c = document.getElementById('status-chip'); return c ? [c.tagName, c.textContent] : null")
            .await;
        if c[1].as_str().is_some_and(|t| t.contains("已同步")) {
            break c;
        }
        // "更新完毕" lingers 8 s after the init, then the chip settles
        assert!(
            start.elapsed() < DEADLINE + Duration::from_secs(10),
            "the chip never settled: {c}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(chip[0], "SPAN", "{chip}");
    let said = chip[1].as_str().unwrap();
    assert!(
        said.contains("已同步") && said.contains("1 分钟前"),
        "{said}"
    );

    // 29. no known cwd: the chip renders nothing. `trilogy serve` always knows the folder it
    // runs in (it does not start without one), so this asks the page's own chip renderer
    let v = b
        .js("const P = window.trilogyPanel;
             const snap = { phase: 'none', at: 0, workspace: null, lastSyncAt: null, lastSyncFile: null, now: Date.now() };
             return [P.chipNode('', snap, false), P.chipNode(null, snap, false), P.chipNode('/x', snap, false).tagName]")
        .await;
    assert_eq!(v, json!([null, null, "BUTTON"]));
}

/// English labels when the server's language is English.
async fn english_labels_follow_the_servers_language(b: &Browser, home: &Home, here: &Path) {
    // English labels when the server's language is English
    let en = Server::start(home, here, &[("TRILOGY_LANG", "en")]);
    b.open(&en).await;
    b.until(
        "the English panel",
        "return document.querySelectorAll('#tabs button').length === 6",
    )
    .await;
    let strip = b
        .js("return [...document.querySelectorAll('#tabs button')].map(b => b.textContent)")
        .await;
    assert_eq!(
        strip,
        json!([
            "What the agent sees",
            "Attention",
            "State",
            "Decisions",
            "Log",
            "Archive"
        ])
    );
    assert_eq!(b.text("#reread").await, "Re-read");
    assert_eq!(b.text("#title").await, "Project memory");
}

/// Every view at 1400 and at 400 pixels wide: none scrolls sideways, and each is saved as a
/// picture under target/panel-shots/ to look at (the README's comes from there).
#[tokio::test(flavor = "current_thread")]
async fn panel_views_fit_wide_and_narrow() {
    let home = Home::new();
    let a_root = alpha(&home, "alpha");
    beta(&home, "beta");
    home.run(
        &a_root,
        &["inject", "--session", "s-alpha-2", "--host", "codex"],
        &[],
        None,
    );
    report_on_tantivy(&home, &a_root);
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    let shots = target_dir().join("panel-shots");
    std::fs::create_dir_all(&shots).unwrap();
    for (width, height) in [(1400u32, 1800u32), (400, 2400)] {
        b.client.set_window_size(width, height).await.unwrap();
        for (label, tab) in [
            ("智能体所见", "agent"),
            ("待处理", "attention"),
            ("现状", "project"),
            ("决策", "decisions"),
            ("日志", "sessions"),
            ("归档", "archive"),
        ] {
            b.tab(label).await;
            if tab == "sessions" {
                b.click_text("#insight-tabs", "每周会话").await;
                b.until(
                    "the chart",
                    "return !!document.getElementById('weeks-chart')",
                )
                .await;
            }
            if tab == "decisions" {
                b.click_text("#insight-tabs", "变更记录").await;
                b.until(
                    "the change log",
                    "return !!document.getElementById('events-table')",
                )
                .await;
            }
            let fit = b
                .js("window.scrollTo(0, 0);
                     const wide = [...document.querySelectorAll('#app *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                       .filter(e => !e.closest('.tp-pre, .tp-table, .tp-list')).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5);
                     return { overflow: document.documentElement.scrollWidth - window.innerWidth, wide }")
                .await;
            assert!(
                fit["overflow"].as_i64().unwrap() <= 0,
                "{tab} at {width} px scrolls sideways: {fit}"
            );
            let png = b.client.screenshot().await.unwrap();
            assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
            std::fs::write(shots.join(format!("{width}-{tab}.png")), &png).unwrap();
        }
    }
    b.close().await;
}
