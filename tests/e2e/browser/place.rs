//! Where the panel opens and how it keeps its place: the workspace `serve` ran in, the
//! workspace and view in the address, and the tab strip's keys.

use super::*;

/// The panel opens on the workspace `serve` ran in (from a folder inside it), keeps the
/// workspace and the view in the address bar (a reload and a link restore them), and its view
/// tabs answer ←/→/Home/End.
#[tokio::test(flavor = "current_thread")]
async fn panel_opens_where_serve_ran_and_keeps_its_place() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    let a_root = alpha(&home, "alpha");
    let inside = b_root.join("src");
    std::fs::create_dir_all(&inside).unwrap();
    let server = Server::start(&home, &inside, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;
    b.until(
        "the list",
        "return document.querySelectorAll('#side-list .tp-item').length === 2",
    )
    .await;
    // beta is not the list's first row: opening the first row would not open it
    let first = b
        .js("return document.querySelector('#side-list .tp-item').dataset.root")
        .await;
    assert_eq!(
        first.as_str().unwrap(),
        a_root.to_string_lossy(),
        "alpha was seen last"
    );
    b.until_with(
        "the detail on beta",
        "const r = document.getElementById('detail-root'); return !!r && r.textContent === arguments[0]",
        vec![json!(b_root.to_string_lossy())],
    )
    .await;

    // a workspace opens on what the agent sees, byte for byte what `trilogy inject` prints
    assert_eq!(b.selected_tab().await, "agent");
    let text = b
        .until(
            "the injected text",
            "const t = document.getElementById('inject-text'); return t ? t.textContent : null",
        )
        .await;
    assert_eq!(
        text.as_str().unwrap(),
        printed(home.run(&b_root, &["inject"], &[], None))
    );
    let want = format!("root={}&tab=agent", uri_component(&b_root));
    assert!(
        b.address().await.ends_with(&format!("?{want}")),
        "{}",
        b.address().await
    );

    // the view goes into the address, and a reload comes back to it
    b.tab("决策").await;
    assert!(
        b.address().await.ends_with("&tab=decisions"),
        "{}",
        b.address().await
    );
    b.client.refresh().await.unwrap();
    b.until(
        "the reloaded page on beta's decisions",
        "const c = document.getElementById('content');
         return c && c.dataset.view === 'decisions' && c.dataset.ready === 'true'
           && document.querySelector('#tabs [aria-selected=true]').dataset.tab === 'decisions'",
    )
    .await;
    assert_eq!(b.text("#detail-root").await, b_root.to_string_lossy());

    // a link names another workspace and view: it opens there
    let link = format!(
        "{}?root={}&tab=archive",
        server.url.split("/trilogy/").next().unwrap().to_string() + "/trilogy/",
        uri_component(&a_root)
    );
    b.client.goto(&link).await.unwrap();
    b.until_with(
        "alpha's archive from the link",
        "const r = document.getElementById('detail-root'); const c = document.getElementById('content');
         return !!r && r.textContent === arguments[0] && c.dataset.view === 'archive' && c.dataset.ready === 'true'",
        vec![json!(a_root.to_string_lossy())],
    )
    .await;

    // keys on the tab strip: one tab stop (the selected tab), arrows move and open
    let stops = b
        .js("return [...document.querySelectorAll('#tabs [role=tab]')].map(t => t.tabIndex)")
        .await;
    assert_eq!(stops, json!([-1, -1, -1, -1, -1, 0]), "roving tabindex");
    b.js("document.querySelector('#tabs [aria-selected=true]').focus(); return true")
        .await;
    let mut seen = Vec::new();
    for (key, want) in [
        ('\u{E014}', "agent"),     // → from the last wraps to the first
        ('\u{E014}', "attention"), // →
        ('\u{E012}', "agent"),     // ←
        ('\u{E010}', "archive"),   // End
        ('\u{E011}', "agent"),     // Home
        ('\u{E012}', "archive"),   // ← from the first wraps to the last
    ] {
        b.press(key).await;
        b.until_with(
            &format!("the {want} tab selected and focused"),
            "const t = document.querySelector('#tabs [aria-selected=true]');
             return !!t && t.dataset.tab === arguments[0] && document.activeElement === t && t.tabIndex === 0
               && document.getElementById('content').dataset.view === arguments[0]",
            vec![json!(want)],
        )
        .await;
        seen.push(b.address().await);
    }
    assert!(seen[1].ends_with("tab=attention"), "{seen:?}");

    b.close().await;
}

/// A link carrying the token and a place (`root`, `tab`), opened in a browser that has no
/// cookie yet, hands the token over and still opens that workspace and view; the token
/// leaves the address, the place stays, wherever the token sat in the link.
#[tokio::test(flavor = "current_thread")]
async fn a_link_with_the_token_keeps_its_place_through_the_hand_over() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    let a_root = alpha(&home, "alpha");
    let server = Server::start(&home, &b_root, &[]);
    let (base, token) = server.url.split_once("?token=").unwrap();
    let b = Browser::launch().await;
    for (link, root, tab) in [
        (
            format!("{}&root={}&tab=archive", server.url, uri_component(&a_root)),
            &a_root,
            "archive",
        ),
        (
            format!(
                "{base}?root={}&token={token}&tab=decisions",
                uri_component(&b_root)
            ),
            &b_root,
            "decisions",
        ),
    ] {
        b.client.goto(&link).await.unwrap();
        b.until_with(
            &format!("{} at {tab} from the link", root.display()),
            "const r = document.getElementById('detail-root'); const c = document.getElementById('content');
             return !!r && r.textContent === arguments[0] && c.dataset.view === arguments[1] && c.dataset.ready === 'true'
               && document.querySelector('#tabs [aria-selected=true]').dataset.tab === arguments[1]",
            vec![json!(root.to_string_lossy()), json!(tab)],
        )
        .await;
        let here = b.address().await;
        assert_eq!(
            here,
            format!("/trilogy/?root={}&tab={tab}", uri_component(root)),
            "the place stays in the address, the token does not"
        );
    }
    // the cookie the hand-over set lets the page write: a request that changes something
    // passes the fence
    let status = b
        .js_with(
            "return fetch('/trilogy/review', {method: 'POST', headers: {'content-type': 'application/json'},
               body: JSON.stringify({root: arguments[0], id: 'nothing', action: 'reject'})}).then(r => r.status)",
            vec![json!(b_root.to_string_lossy())],
        )
        .await;
    assert_ne!(status, json!(403), "the token became the cookie");
    b.close().await;
}
