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

/// The icon: the page names one, and `/favicon.ico` (which browsers ask for by themselves)
/// answers 200 with it; both load as a picture.
#[tokio::test(flavor = "current_thread")]
async fn the_panel_has_an_icon() {
    let home = Home::new();
    let root = beta(&home, "beta");
    let server = Server::start(&home, &root, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;
    let got = b
        .js(
            "const load = (src) => new Promise((ok) => { const i = new Image();
               i.onload = () => ok(i.naturalWidth); i.onerror = () => ok(0); i.src = src; });
             const link = document.querySelector('link[rel~=icon]');
             return Promise.all([
               fetch('/favicon.ico').then(r => [r.status, r.headers.get('content-type')]),
               link ? load(link.href) : 0,
               load('/favicon.ico'),
             ])",
        )
        .await;
    assert_eq!(got[0], json!([200, "image/svg+xml"]), "{got}");
    assert!(got[1].as_u64().unwrap() > 0, "the page's icon draws: {got}");
    assert!(got[2].as_u64().unwrap() > 0, "/favicon.ico draws: {got}");
    b.close().await;
}

/// At 400 pixels wide the header stacks: the intro takes the width (a line holds many
/// characters, not a word), and the status chip and refresh sit under it.
#[tokio::test(flavor = "current_thread")]
async fn the_header_stacks_on_a_narrow_screen() {
    let home = Home::new();
    let root = alpha(&home, "alpha");
    let server = Server::start(&home, &root, &[]);
    let b = Browser::launch().await;
    b.client.set_window_size(400, 900).await.unwrap();
    b.open_on_agent(&server).await;
    // the chip is the widest thing beside the intro
    b.until(
        "the status chip",
        "return !!document.getElementById('status-chip')",
    )
    .await;
    let m = b
        .js("const intro = document.getElementById('intro'); const r = intro.getBoundingClientRect();
             const lh = parseFloat(getComputedStyle(intro).lineHeight);
             const below = (id) => document.getElementById(id).getBoundingClientRect().top >= r.bottom - 1;
             return { width: window.innerWidth, intro: r.width, lines: Math.round(r.height / lh),
                      chars: intro.textContent.length, chip: below('chip'), refresh: below('refresh'),
                      overflow: document.documentElement.scrollWidth - window.innerWidth }")
        .await;
    assert!(
        m["width"].as_f64().unwrap() <= 420.0,
        "a narrow window: {m}"
    );
    assert!(
        m["intro"].as_f64().unwrap() >= 0.8 * m["width"].as_f64().unwrap() - 40.0,
        "the intro takes the width: {m}"
    );
    let per_line = m["chars"].as_f64().unwrap() / m["lines"].as_f64().unwrap().max(1.0);
    assert!(per_line >= 15.0, "a line holds {per_line} characters: {m}");
    assert_eq!(m["chip"], json!(true), "the chip sits under the intro: {m}");
    assert_eq!(
        m["refresh"],
        json!(true),
        "refresh sits under the intro: {m}"
    );
    assert!(
        m["overflow"].as_i64().unwrap() <= 0,
        "no sideways scroll: {m}"
    );
    b.close().await;
}

/// The API's messages are in the language of the workspace asked about: the same mistake
/// (a window of 0 tokens) is told in Chinese for a Chinese workspace and in English for one
/// set to `lang = "en"`, on a page whose own labels stay Chinese.
#[tokio::test(flavor = "current_thread")]
async fn the_api_speaks_the_workspaces_language() {
    let home = Home::new();
    let en = beta(&home, "beta-en");
    std::fs::write(en.join("trilogy.toml"), "lang = \"en\"\n").unwrap();
    let zh = alpha(&home, "alpha");
    let server = Server::start(&home, &zh, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    // a window of 0 tokens, sent by picking a host (the field's own check is not asked)
    b.type_into("#inject-window", "0").await;
    let select = b.client.find(Locator::Id("inject-host")).await.unwrap();
    select.select_by_value("codex").await.unwrap();
    let said = |text: &'static str| {
        format!(
            "const e = document.querySelector('#agent-view .tp-err');
             return e && e.textContent.startsWith({text:?}) ? e.textContent : null"
        )
    };
    let zh_said = b
        .until("the Chinese message", &said("window 必须是正整数"))
        .await;
    assert!(zh_said.as_str().unwrap().ends_with("：0"), "{zh_said}");
    b.pick(&en).await;
    let en_said = b
        .until(
            "the English message",
            &said("window must be a positive whole number"),
        )
        .await;
    assert!(en_said.as_str().unwrap().ends_with(": 0"), "{en_said}");
    // the page's own labels follow the server's language, not the workspace's
    assert_eq!(b.text("#reread").await, "重新读取");
    // and so do the API's messages that name no workspace
    let unknown = b
        .js("return fetch('/trilogy/nowhere').then(r => r.json()).then(b => b.error)")
        .await;
    assert_eq!(unknown, json!("未知端点：/trilogy/nowhere"));
    b.close().await;
}
