//! Near-duplicate decisions: a new decision without a topic whose choice says nearly what a
//! live decision's says (the same subject decided again, maybe the other way) is recorded
//! with a warning naming the older one and how to supersede it. The index finds the
//! candidates; the judgement is a measure of its own, independent of the ranking: the overlap
//! (Jaccard) of the two choices' subject words and CJK pairs, with at least two shared.

use std::collections::HashSet;

use crate::index::{ArchiveMode, SearchQuery, subject_terms};
use crate::model::State;
use crate::ops::{CheckpointInput, DecisionInput};
use crate::workspace::Workspace;

/// Shares of shared subject terms at or above which two choices are near-duplicates.
const THRESHOLD: f64 = 0.5;
/// Live decisions looked at per new one.
const CANDIDATES: usize = 8;

/// How alike two choices are: the Jaccard overlap of their subject terms, 0 when they share
/// fewer than two.
pub fn similarity(a: &str, b: &str) -> f64 {
    let a: HashSet<String> = subject_terms(a).into_iter().collect();
    let b: HashSet<String> = subject_terms(b).into_iter().collect();
    let shared = a.intersection(&b).count();
    if shared < 2 {
        return 0.0;
    }
    shared as f64 / a.union(&b).count() as f64
}

/// The warnings for the batch's decisions that have neither a topic nor a `supersedes`.
/// Best effort: a search that fails warns about nothing.
pub fn warnings(ws: &Workspace, input: &CheckpointInput) -> Vec<String> {
    let mut out = Vec::new();
    for (i, d) in input.decisions.iter().enumerate() {
        if let Some(w) = warning(ws, i, d) {
            out.push(w);
        }
    }
    out
}

fn warning(ws: &Workspace, i: usize, d: &DecisionInput) -> Option<String> {
    let bare = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
    if !bare(&d.topic) || !bare(&d.supersedes) {
        return None;
    }
    let choice = crate::model::area_name(&d.choice);
    if subject_terms(&choice).len() < 2 {
        return None;
    }
    let q = SearchQuery {
        text: choice.clone(),
        limit: CANDIDATES,
        kind: Some("decision".into()),
        archive: ArchiveMode::Exclude,
        // only what this work tree holds can be superseded here
        here: true,
        ..SearchQuery::default()
    };
    let hits = crate::ops::search::search(ws, q).ok()?.hits;
    let (score, hit) = hits
        .iter()
        .filter(|h| h.state == State::Live.as_str())
        .filter_map(|h| {
            let old = h.heading.split_once(" — ").map_or("", |(_, c)| c);
            // the same choice again is a retry, not a near-duplicate
            (old.trim() != choice.trim()).then(|| (similarity(&choice, old), h))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    (score >= THRESHOLD).then(|| {
        format!(
            "decisions[{i}] is close to the live decision {} ({}); both are live now. If the new one replaces it, supersede it: `trilogy checkpoint --decision \"…\" --supersedes {}` (or give decisions a topic, and one topic keeps one live decision)",
            hit.id, hit.heading, hit.id
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_subject_decided_again_is_close_and_unrelated_choices_are_not() {
        for (a, b) in [
            ("Store memory in redb", "Store memory in sqlite"),
            ("记忆存在 redb 里", "记忆存在 sqlite 里"),
            (
                "Retry uploads with exponential backoff",
                "Retry uploads with a fixed backoff",
            ),
        ] {
            assert!(
                similarity(a, b) >= THRESHOLD,
                "{a} / {b}: {}",
                similarity(a, b)
            );
        }
        for (a, b) in [
            ("Use redb for the store", "Use tabs for indentation"),
            ("Run CI on every push", "Run the linter on every commit"),
            ("发布前跑完整测试", "发布说明用中文写"),
            (
                "Cache thumbnails in Redis",
                "Cache the session tokens in memory",
            ),
            ("日志保留 30 天", "备份保留 30 天"),
        ] {
            assert!(
                similarity(a, b) < THRESHOLD,
                "{a} / {b}: {}",
                similarity(a, b)
            );
        }
    }
}
