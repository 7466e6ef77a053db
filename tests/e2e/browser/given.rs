//! What each agent session was given, read back from the panel word for word.

use super::*;

/// A session row opens to the exact block that session was given at its start and the
/// notice a later resume was given, word for word and in order.
#[tokio::test(flavor = "current_thread")]
async fn a_session_opens_to_the_text_it_was_given() {
    let home = Home::new();
    let root = alpha(&home, "alpha");
    let start = ["inject", "--session", "s-given", "--host", "codex"];
    let block = printed(home.run(&root, &start, &[], None));
    // another writer changes memory; the session, resumed, is told what changed
    home.checkpoint(
        &root,
        common::TODAY,
        json!({"sessions": [{"done": "the notice names this change, verified in Chromium", "area": "notices"}]}),
    );
    let resume = [
        "inject",
        "--session",
        "s-given",
        "--host",
        "codex",
        "--source",
        "resume",
    ];
    let notice = printed(home.run(&root, &resume, &[], None));
    assert!(notice.contains("the notice names this change"), "{notice}");
    let server = Server::start(&home, &root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    b.click("#insight-tabs [data-insight=sessions]").await;
    b.click_marked(
        "the session's toggle",
        "const row = document.querySelector('#sessions-table tr.tp-session[data-session=\"s-given\"]');
         const t = row && row.querySelector('.tp-given-toggle');
         if (!t) return null; t.setAttribute('data-test-click', 'given'); return 'given';",
        vec![],
    )
    .await;
    let items = b
        .until(
            "what the session was given",
            "const row = document.querySelector('#sessions-table tr.tp-given[data-session=\"s-given\"]');
             const items = row ? [...row.querySelectorAll('.tp-given-item')] : [];
             return items.length > 0 ? items.map(i => [i.dataset.kind, i.querySelector('.tp-given-text').textContent]) : null",
        )
        .await;
    assert_eq!(
        items,
        json!([["block", block], ["notice", notice]]),
        "the block word for word, then the notice"
    );
    // the other session (alpha's own, cut to 700 characters) was given its own block
    b.click_marked(
        "the other session's toggle",
        "const row = document.querySelector('#sessions-table tr.tp-session[data-session=\"s-alpha-1\"]');
         const t = row && row.querySelector('.tp-given-toggle');
         if (!t) return null; t.setAttribute('data-test-click', 'other'); return 'other';",
        vec![],
    )
    .await;
    let other = b
        .until(
            "the other session's block",
            "const row = document.querySelector('#sessions-table tr.tp-given[data-session=\"s-alpha-1\"]');
             const t = row && row.querySelector('.tp-given-item[data-kind=block] .tp-given-text');
             return t ? t.textContent : null",
        )
        .await;
    let other = other.as_str().unwrap();
    assert!(
        other.chars().count() <= 700,
        "cut to its host's 700: {other}"
    );
    assert_ne!(other, block);
    b.close().await;
}
