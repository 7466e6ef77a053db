//! Fixing entries in place from their cards.

use super::*;

/// Entries as cards, fixed where they are seen: edit (and a stale version refused with the
/// entry as it is now), two-step remove, retire with a reason, supersede, restore with where
/// it landed; PROJECT sections edited and put back to a revision; a report shown on the card
/// it names and closed from there.
#[tokio::test(flavor = "current_thread")]
async fn panel_fixes_entries_in_place() {
    let home = Home::new();
    let a_root = alpha(&home, "alpha");
    report_on_tantivy(&home, &a_root);
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;

    let tantivy = "2026-11-17 — tantivy for the search index";
    let redb = "2026-11-29 — keep entries in redb 4";
    let panel = "2026-11-24 · panel";
    the_attention_strip_counts_the_report(&b).await;
    cards_show_their_facts_and_groups_fold(&b, tantivy).await;
    let posts =
        an_edit_saves_against_its_version_and_a_stale_one_is_refused(&b, &a_root, tantivy, redb)
            .await;
    supersede_retire_and_remove_from_the_card(&b, &a_root, redb, panel, posts).await;
    restore_lands_in_date_order_and_the_change_log_names_it(&b, &a_root, panel).await;
    a_section_is_edited_and_an_earlier_revision_put_back(&b, &a_root).await;
    the_report_is_closed_from_the_attention_view(&b).await;

    b.close().await;
}

/// The attention strip counts the report and links to where it is handled; doctor's count
/// comes when the server has judged it.
async fn the_attention_strip_counts_the_report(b: &Browser) {
    // the attention strip counts the report and links to where it is handled
    let strip = b
        .until(
            "the attention strip",
            "const a = document.querySelector('#attention [data-att=reports]'); return a ? [a.textContent, a.getAttribute('href')] : null",
        )
        .await;
    assert_eq!(strip[0], "待处理报告 1");
    assert!(
        strip[1].as_str().unwrap().ends_with("&tab=attention"),
        "{strip}"
    );
    // doctor is judged in the background at the server: its count comes when it is done
    b.until(
        "doctor's count",
        "const a = document.querySelector('#attention [data-att=doctor]');
         return !!a && /^体检 \\d+ 错 · \\d+ 警告$/.test(a.textContent)",
    )
    .await;
}

/// The cards: date, area, state and provenance, grouped by month or by area, a group folded
/// shut through a re-draw.
async fn cards_show_their_facts_and_groups_fold(b: &Browser, tantivy: &str) {
    // the cards: date, area, state, provenance; grouped by month, by area on request
    b.tab("决策").await;
    let id = b.card(tantivy).await;
    let card = b
        .js_with(
            "const c = document.querySelector(`.tp-entry-card[data-id=\"${arguments[0]}\"]`);
             return { date: c.querySelector('.tp-date').textContent, state: c.querySelector('.tp-state').textContent,
                      prov: c.querySelector('.tp-prov').textContent, report: !!c.querySelector('.tp-report'),
                      groups: [...document.querySelectorAll('#cards .tp-group')].map(g => g.dataset.group) }",
            vec![json!(id)],
        )
        .await;
    assert_eq!(card["date"], "2026-11-17");
    assert_eq!(card["state"], "现行");
    assert!(card["prov"].as_str().unwrap().contains("命令行"), "{card}");
    assert_eq!(
        card["report"],
        json!(true),
        "the report is shown on the card it names: {card}"
    );
    assert_eq!(card["groups"], json!(["2026-11", "2026-10"]), "{card}");
    let select = b.client.find(Locator::Id("group-by")).await.unwrap();
    select.select_by_value("kind").await.unwrap();
    b.until(
        "groups by kind",
        "return [...document.querySelectorAll('#cards .tp-group')].map(g => g.dataset.group).join('|') === '决策|决策 · 已被取代'",
    )
    .await;
    // a group folds shut and stays shut through a re-draw
    b.js("document.querySelector('#cards .tp-group').open = false; return true")
        .await;
    b.until(
        "the fold",
        "return !document.querySelector('#cards .tp-group').open",
    )
    .await;
    select.select_by_value("date").await.unwrap();
    select.select_by_value("kind").await.unwrap();
    b.until(
        "the fold kept",
        "return !document.querySelector('#cards .tp-group').open",
    )
    .await;
    b.js("document.querySelector('#cards .tp-group').open = true; return true")
        .await;
}

/// Edit: the entry's Markdown saved with its version; a stale version refused with the entry
/// as it is now and the draft kept, and a second save made against it; the count of entry
/// requests before the stale one.
async fn an_edit_saves_against_its_version_and_a_stale_one_is_refused(
    b: &Browser,
    a_root: &Path,
    tantivy: &str,
    redb: &str,
) -> usize {
    // edit: the entry's Markdown in a textarea; save sends its version
    b.card_click(tantivy, ".tp-card-edit-open").await;
    let opened = b
        .until(
            "the card editor",
            "const t = document.querySelector('.tp-card-edit'); return t ? t.value : null",
        )
        .await;
    assert!(
        opened
            .as_str()
            .unwrap()
            .starts_with(&format!("## {tantivy}\n"))
            && opened
                .as_str()
                .unwrap()
                .contains("因为：phrase queries and BM25"),
        "{opened}"
    );
    let edited = opened.as_str().unwrap().replace(
        "phrase queries and BM25",
        "phrase queries, BM25 and fast merges",
    );
    b.type_into(".tp-card-edit", &edited).await;
    b.click(".tp-form-save").await;
    b.status("已修改").await;
    assert!(read(a_root, "DECISIONS.md").contains("因为：phrase queries, BM25 and fast merges"));
    let posts = b.requests("entry").await.len();

    // a stale version: someone else edits the entry while the editor is open; the save is
    // refused, the page shows the entry as it is now and keeps the draft
    b.card_click(redb, ".tp-card-edit-open").await;
    b.until(
        "the card editor",
        "return !!document.querySelector('.tp-card-edit')",
    )
    .await;
    let other = b
        .js_with(
            "const root = new URLSearchParams(location.search).get('root');
             const list = await (await fetch('/trilogy/entries?root=' + encodeURIComponent(root) + '&file=DECISIONS.md')).json();
             const c = list.entries.find(e => e.heading === arguments[0]);
             const r = await fetch('/trilogy/entry', { method: 'POST', headers: {'content-type': 'application/json'},
               body: JSON.stringify({ root, id: c.id, action: 'edit', version: c.version,
                 text: '## ' + c.heading + '\\n' + c.body.replace('the lock protocol', 'the lock protocol, as another writer says') }) });
             return r.status",
            vec![json!(redb)],
        )
        .await;
    assert_eq!(other, json!(200));
    let draft = format!(
        "## {redb}\n选择：keep entries in redb 4\n放弃：redb 3\n因为：the lock protocol and its tests\n"
    );
    b.type_into(".tp-card-edit", &draft).await;
    b.click(".tp-form-save").await;
    b.status("被改过了").await;
    let conflict = b
        .until(
            "the entry as it is now",
            "const c = document.querySelector('.tp-conflict-current'); const t = document.querySelector('.tp-card-edit');
             return c && t ? [c.textContent, t.value] : null",
        )
        .await;
    assert!(
        conflict[0]
            .as_str()
            .unwrap()
            .contains("as another writer says"),
        "{conflict}"
    );
    assert_eq!(conflict[1].as_str().unwrap(), draft, "the draft is kept");
    assert!(read(a_root, "DECISIONS.md").contains("as another writer says"));
    // a second save is deliberate, against the version now shown
    b.click(".tp-form-save").await;
    b.status("已修改").await;
    assert!(read(a_root, "DECISIONS.md").contains("the lock protocol and its tests"));
    posts
}

/// Supersede (decisions only), retire with a reason, and remove on a second click.
async fn supersede_retire_and_remove_from_the_card(
    b: &Browser,
    a_root: &Path,
    redb: &str,
    panel: &str,
    posts: usize,
) {
    // supersede (decisions only): choice, because, over
    b.card_click("tantivy for the search index", ".tp-card-supersede")
        .await;
    b.type_into(
        ".tp-form input[name=choice]",
        "tantivy with a CJK tokenizer",
    )
    .await;
    b.type_into(
        ".tp-form input[name=because]",
        "Chinese text needs word pairs",
    )
    .await;
    b.type_into(".tp-form input[name=over]", "the default tokenizer")
        .await;
    b.click(".tp-form-save").await;
    b.status("已用新决策取代").await;
    let decisions = read(a_root, "DECISIONS.md");
    assert!(
        decisions.contains("选择：tantivy with a CJK tokenizer"),
        "{decisions}"
    );
    b.card("tantivy with a CJK tokenizer").await;

    // retire asks why; without a reason nothing is sent
    b.card_click(redb, ".tp-card-retire").await;
    let before = b.requests("entry").await.len();
    b.click(".tp-form-save").await;
    assert_eq!(
        b.requests("entry").await.len(),
        before,
        "no reason, no retire"
    );
    b.type_into(".tp-form input[name=why]", "redb 5 is out")
        .await;
    b.click(".tp-form-save").await;
    b.status("已退役").await;
    assert!(read(a_root, "DECISIONS.md").contains("redb 5 is out"));

    // remove: the first click only arms it
    b.tab("日志").await;
    b.card_click(panel, ".tp-card-remove").await;
    b.until(
        "the armed remove",
        "return !!document.querySelector('.tp-card-remove-confirm')",
    )
    .await;
    assert!(
        read(a_root, "SESSIONS.md").contains(panel),
        "armed, not removed"
    );
    let before = b.requests("entry").await.len();
    assert!(before > posts);
    b.card_click(panel, ".tp-card-remove-confirm").await;
    b.status("已移除").await;
    assert!(!read(a_root, "SESSIONS.md").contains(panel));
}

/// Restore from the history, in date order, and the change log naming the panel's operations.
async fn restore_lands_in_date_order_and_the_change_log_names_it(
    b: &Browser,
    a_root: &Path,
    panel: &str,
) {
    // restore from the history: the message says where it landed, in date order
    b.click_text("#insight-tabs", "可恢复").await;
    b.click_marked(
        "the removed session's restore",
        "const e = [...document.querySelectorAll('#history .tp-history')].find(x => x.dataset.state === 'removed' && x.textContent.includes(arguments[0]));
         if (!e) return null; const b = e.querySelector('.tp-history-restore'); b.setAttribute('data-test-click', 'r'); return 'r';",
        vec![json!(panel)],
    )
    .await;
    let said = b.status("已恢复").await;
    let log = read(a_root, "SESSIONS.md");
    let at = log
        .lines()
        .filter(|l| l.starts_with("## "))
        .position(|l| l == format!("## {panel}"))
        .unwrap_or_else(|| panic!("restored into {log}"))
        + 1;
    assert!(
        said.contains(&format!("SESSIONS.md，按日期排在第 {at} 条")),
        "{said}"
    );

    // the change log names the panel's operations in the page's language, and the first
    // rows it shows already hold the restore (a pane not on screen is read again when opened,
    // never shown as it was before a write)
    b.click_text("#insight-tabs", "变更记录").await;
    let ops = b
        .until(
            "the panel's events",
            "const r = [...document.querySelectorAll('#events-table .tp-event')].filter(r => r.querySelector('.tp-actor').dataset.actor === 'panel');
             return r.length >= 5 ? r.map(x => [x.querySelector('[data-op]').dataset.op, x.querySelector('[data-op]').textContent]) : null",
        )
        .await;
    for op in ops.as_array().unwrap() {
        assert_ne!(op[0], op[1], "{op} is translated");
        assert!(
            !op[1].as_str().unwrap().is_ascii(),
            "{op} is shown in Chinese"
        );
    }
    let names: Vec<&str> = ops
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o[1].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"退役") && names.contains(&"恢复"),
        "{names:?}"
    );
}

/// PROJECT: a section's body edited, then an earlier revision put back.
async fn a_section_is_edited_and_an_earlier_revision_put_back(b: &Browser, a_root: &Path) {
    // PROJECT: edit a section's body, then put an earlier revision back
    b.tab("现状").await;
    b.click_marked(
        "the 现状 section's edit",
        "const c = [...document.querySelectorAll('.tp-section-card')].find(c => c.querySelector('.tp-strong').textContent === '现状');
         const e = c && c.querySelector('.tp-section-edit'); if (!e) return null; e.setAttribute('data-test-click', 's'); return 's';",
        vec![],
    )
    .await;
    let body = b
        .until(
            "the section editor",
            "const t = document.querySelector('.tp-card-edit'); return t ? t.value : null",
        )
        .await;
    assert_eq!(
        body,
        "A CLI that keeps an agent's project memory in three Markdown files."
    );
    b.type_into(
        ".tp-card-edit",
        "A CLI and a web panel that keep an agent's memory.",
    )
    .await;
    b.click(".tp-form-save").await;
    b.status("已保存小节「现状」").await;
    assert!(
        read(a_root, "PROJECT.md").contains("A CLI and a web panel that keep an agent's memory.")
    );
    b.click_marked(
        "the 现状 revisions",
        "const c = [...document.querySelectorAll('.tp-section-card')].find(c => c.querySelector('.tp-strong').textContent === '现状');
         const e = c && c.querySelector('.tp-section-revisions'); if (!e) return null; e.setAttribute('data-test-click', 'v'); return 'v';",
        vec![],
    )
    .await;
    b.click_marked(
        "the earlier revision's restore",
        "const r = [...document.querySelectorAll('.tp-revision')].find(r => r.textContent.includes('A CLI that keeps'));
         const e = r && r.querySelector('.tp-restore-revision'); if (!e) return null; e.setAttribute('data-test-click', 'rv'); return 'rv';",
        vec![],
    )
    .await;
    b.status("已把小节「现状」恢复到第").await;
    assert!(read(a_root, "PROJECT.md").contains("A CLI that keeps an agent's project memory"));
}

/// The report, closed from the attention view; the strip follows.
async fn the_report_is_closed_from_the_attention_view(b: &Browser) {
    // the report, closed from the attention view; the strip follows
    b.click("#attention [data-att=reports]").await;
    b.until(
        "the attention view",
        "return document.getElementById('content').dataset.view === 'attention'",
    )
    .await;
    b.click("#attention-view .tp-close-report").await;
    b.status("已关闭报告").await;
    b.until(
        "no open report",
        "const a = document.querySelector('#attention [data-att=reports]'); return !!a && a.textContent === '待处理报告 0'",
    )
    .await;
    assert!(b.elements().await < 5_000);
}
