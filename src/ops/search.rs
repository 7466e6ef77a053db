//! `search`: the `memory_search` operation. Validates the query, brings the index up to the
//! store (or reads what it has not applied yet from the store), and ranks entries and PROJECT
//! sections across the live files and the archive; each hit carries its whole entry, cut at
//! [`HIT_TEXT_BYTES`] with a marker saying so. A damaged index is rebuilt; an index that
//! cannot be used at all leaves the answer to the store. `reindex` builds a new index beside
//! the live one and swaps it in, so searches meanwhile never fail.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::index::{Hit, Progress, SearchIndex, SearchQuery};
use crate::model::Lang;
use crate::workspace::Workspace;

/// Longest accepted query (bytes).
pub const MAX_QUERY_BYTES: usize = 4096;
/// Results when the caller does not say; the most a call returns.
pub const DEFAULT_LIMIT: usize = 5;
pub const MAX_LIMIT: usize = 20;
/// The most of an entry's text a hit carries (bytes, with the cut marker): enough for a
/// session or a decision whole, so one search answers without a read per hit.
pub const HIT_TEXT_BYTES: usize = 2048;

/// The line that ends a hit text cut at [`HIT_TEXT_BYTES`].
pub fn cut_marker(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "[后面的部分超出 2 KB，没有列出；memory_read 读得到全文]",
        Lang::En => "[the rest is over 2 KB and not shown; memory_read reads it whole]",
    }
}

/// `text` as a hit carries it: whole up to [`HIT_TEXT_BYTES`]; longer, cut at the last line
/// end in the second half of the room (else inside a line, marked `…`) and ended by
/// [`cut_marker`] on a line of its own.
pub fn bound_text(text: &str, lang: Lang) -> String {
    if text.len() <= HIT_TEXT_BYTES {
        return text.to_string();
    }
    let marker = cut_marker(lang);
    let room = HIT_TEXT_BYTES - marker.len() - "…\n".len();
    let mut end = room;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(nl) if nl >= room / 2 => format!("{}\n{marker}", text[..nl].trim_end()),
        _ => format!("{}…\n{marker}", &text[..end]),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchOutcome {
    pub query: String,
    pub hits: Vec<Hit>,
    /// Changes not in the index yet (a few recent ones, or all while another process holds
    /// the index writer), read from the store and scored beside it for this answer.
    pub unindexed: usize,
}

/// Check and normalise a query; `limit` 0 means the default, above the maximum is capped.
pub fn prepare(mut q: SearchQuery) -> Result<SearchQuery> {
    if q.text.trim().is_empty() {
        return Err(Error::bad_input(
            "the search query is empty; give a word, a phrase or a code name",
        ));
    }
    if q.text.len() > MAX_QUERY_BYTES {
        return Err(Error::bad_input(format!(
            "the search query is {} bytes; the limit is {MAX_QUERY_BYTES}",
            q.text.len()
        )));
    }
    if let Some(k) = &q.kind
        && !["session", "decision", "section", "prose", "user"].contains(&k.as_str())
    {
        return Err(Error::bad_input(format!(
            "kind `{k}`: use session, decision, section, prose or user"
        )));
    }
    // areas are compared composed (NFC), as they are recorded
    q.area = q.area.as_deref().map(crate::model::area_name);
    q.limit = match q.limit {
        0 => DEFAULT_LIMIT,
        n => n.min(MAX_LIMIT),
    };
    Ok(q)
}

/// Search the memory of `ws`. Never fails because of the index: a damaged index is rebuilt,
/// and when the index directory cannot be used at all (being replaced twice under this search,
/// a file in its place), the answer is read from the store.
pub fn search(ws: &Workspace, q: SearchQuery) -> Result<SearchOutcome> {
    let q = prepare(q)?;
    ws.require_memory()?;
    let dir = ws.inside(&ws.index_dir())?;
    // read before the workspace's snapshot: the user store is never opened inside it
    let user_docs = user_docs(ws, &q);
    let answer = |r: &dyn crate::store::Reader,
                  index: &SearchIndex,
                  tail: crate::index::Pending|
     -> Result<SearchOutcome> {
        // sibling work trees' recent entries are scored beside the pending changes, with this
        // index's statistics
        let unindexed = tail.len();
        let (mut tail, siblings) = with_siblings(ws, r, &q, tail)?;
        tail.docs.extend(user_docs.iter().cloned());
        let mut hits = index.search(&q, &tail)?;
        for h in &mut hits {
            if h.text.len() > HIT_TEXT_BYTES {
                h.text = bound_text(&h.text, ws.lang());
            }
            if let Some((branch, worktree)) = siblings.get(&h.id) {
                h.branch = branch.clone();
                h.worktree = Some(worktree.clone());
            } else if h.kind == "session" || h.kind == "decision" {
                h.branch = r.entry(&h.id)?.and_then(|e| e.origin.branch);
            }
        }
        Ok(SearchOutcome {
            query: q.text.clone(),
            hits,
            unindexed,
        })
    };
    let run = |r: &dyn crate::store::Reader| -> Result<SearchOutcome> {
        // tantivy may panic on a damaged segment: that is a broken index, like any other
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let index = ws.search_index()?;
            let shown: Progress = &mut |done, total| ws.progress("indexing", done, total);
            let tail = index.catch_up_showing(r, Some(shown))?;
            answer(r, &index, tail)
        }))
        .unwrap_or_else(|_| {
            Err(Error::Store {
                path: dir.clone(),
                message: "search index: damaged (reading it panicked)".into(),
            })
        })
    };
    let broken = |e: &Error| match e {
        Error::Store { path, .. } | Error::Io { path, .. } | Error::Busy { path, .. } => {
            path.starts_with(&dir)
        }
        _ => false,
    };
    let out = ws.read(|r| {
        let first = run(r);
        if !first.as_ref().is_err_and(broken) {
            return first;
        }
        // an index held open may have been replaced underneath: open it afresh
        ws.forget_search_index();
        let second = run(r);
        let Err(e) = &second else {
            return second;
        };
        if !broken(e) {
            return second;
        }
        // still failing: damaged (it is a cache: build a new one and put it in place, which
        // disturbs no search or rebuild running meanwhile), or unusable; then the store answers
        tracing::warn!("{e}; rebuilding the search index from the store");
        ws.forget_search_index();
        let mut quiet = |_: usize, _: usize| {};
        if crate::index::rebuild(&dir, r, &mut quiet).is_ok() {
            let third = run(r);
            if !third.as_ref().is_err_and(broken) {
                return third;
            }
            ws.forget_search_index();
        }
        let index = SearchIndex::in_memory();
        let tail = index.scan_store(r)?;
        answer(r, &index, tail)
    })?;
    Ok(out.value)
}

/// Sibling work trees' recent entries (`ops::sibling::recent`) as documents scored beside
/// `tail`, unless the query is for this work tree only; with the branch and work tree of each.
type SiblingTags = std::collections::HashMap<String, (Option<String>, String)>;

fn with_siblings(
    ws: &Workspace,
    r: &dyn crate::store::Reader,
    q: &SearchQuery,
    mut tail: crate::index::Pending,
) -> Result<(crate::index::Pending, SiblingTags)> {
    let mut tags = SiblingTags::new();
    if q.here || !ws.config.sibling_worktrees {
        return Ok((tail, tags));
    }
    for e in crate::ops::sibling::recent(ws, r)? {
        let (file, area) = if e.kind == "decision" {
            ("DECISIONS.md", String::new())
        } else {
            (
                "SESSIONS.md",
                crate::model::heading_area(&e.heading).to_lowercase(),
            )
        };
        tail.docs.push(crate::index::SearchDoc {
            key: format!("w:{}", e.id),
            kind: if e.kind == "decision" {
                "decision"
            } else {
                "session"
            },
            file,
            area,
            state: crate::model::State::Live.as_str(),
            date: Some(e.date),
            seq: 0,
            heading: e.heading,
            body: e.body,
        });
        tags.insert(e.id, (e.branch, e.worktree));
    }
    Ok((tail, tags))
}

/// The user memory's sections (USER.md) as documents scored beside the workspace's, unless
/// the query is for this work tree only or the user memory was never made.
fn user_docs(ws: &Workspace, q: &SearchQuery) -> Vec<crate::index::SearchDoc> {
    let Some(u) = ws.user_scope().filter(|u| !q.here && u.has_memory()) else {
        return Vec::new();
    };
    let read = u.read(|r| {
        Ok((r.sections()?.into_iter())
            .filter(|s| !s.removed && !crate::model::is_empty_body(s.text()))
            .filter(|s| crate::secrets::in_record(s).is_none())
            .map(|s| crate::index::SearchDoc {
                key: format!("u:{}", s.key),
                kind: "user",
                file: crate::model::user::FILE,
                area: String::new(),
                state: crate::model::State::Live.as_str(),
                date: None,
                seq: 0,
                body: s.text().to_string(),
                heading: s.heading,
            })
            .collect())
    });
    read.map(|w| w.value).unwrap_or_else(|e| {
        tracing::warn!("user memory left out of the search: {e}");
        Vec::new()
    })
}

/// Build the index again from the store and put it in place in one step (searches running
/// meanwhile use the previous index).
pub fn reindex(ws: &Workspace, progress: Progress) -> Result<u64> {
    ws.require_memory()?;
    let dir = ws.inside(&ws.index_dir())?;
    let n = ws.read(|r| crate::index::rebuild(&dir, r, progress))?.value;
    ws.forget_search_index();
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_at_a_line_end_and_marked() {
        let short = "## 2026-11-29\n完成：x";
        assert_eq!(bound_text(short, Lang::Zh), short);
        let lines: String = (0..400).map(|i| format!("line {i} 中文内容\n")).collect();
        let cut = bound_text(&lines, Lang::En);
        assert!(cut.len() <= HIT_TEXT_BYTES, "{}", cut.len());
        assert!(cut.len() > HIT_TEXT_BYTES * 3 / 4, "{}", cut.len());
        let (kept, marker) = cut.rsplit_once('\n').unwrap();
        assert_eq!(marker, cut_marker(Lang::En));
        assert!(lines.starts_with(&format!("{kept}\n")), "cut at a line end");
    }

    #[test]
    fn a_text_without_line_ends_is_cut_at_a_character() {
        let one_line = "长".repeat(5000);
        let cut = bound_text(&one_line, Lang::Zh);
        assert!(cut.len() <= HIT_TEXT_BYTES, "{}", cut.len());
        let (kept, marker) = cut.rsplit_once('\n').unwrap();
        assert_eq!(marker, cut_marker(Lang::Zh));
        let kept = kept.strip_suffix('…').unwrap();
        assert!(one_line.starts_with(kept) && kept.len() > HIT_TEXT_BYTES / 2);
    }
}
