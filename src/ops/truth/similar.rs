//! Near-duplicate decisions: a new decision without a topic that says nearly what a live
//! decision says (the same subject decided again, maybe the other way) is recorded with a
//! warning naming the older one and how to supersede it. The index finds the candidates; the
//! judgement is a measure of its own, independent of the ranking, over the whole decision:
//! - the choices alone alike: the overlap (Jaccard) of their subject words and CJK pairs, with
//!   at least two shared;
//! - or the same alternatives (the choices share a word and the rejected options share one, or
//!   crosswise: decided the other way), and the fields both decisions have (choice, over,
//!   because — unless turned round —, topic) alike on average.

use std::collections::HashSet;

use crate::index::{ArchiveMode, SearchQuery, subject_terms};
use crate::model::{Fields, State, read_fields};
use crate::ops::{CheckpointInput, DecisionInput};
use crate::workspace::Workspace;

/// Shares of shared subject terms at or above which two choices are near-duplicates.
const THRESHOLD: f64 = 0.5;
/// Live decisions looked at per new one.
const CANDIDATES: usize = 8;
/// Words any decision's choice or alternative may hold, naming no subject of its own.
const GENERIC: &[&str] = &[
    "use", "using", "keep", "adopt", "choose", "go", "nothing", "none", "current", "existing",
    "default", "status", "quo", "approach", "way", "instead", "不", "用", "使用", "采用", "保持",
    "现状", "方案",
];

type Terms = HashSet<String>;

fn terms(text: Option<&str>) -> Terms {
    subject_terms(text.unwrap_or_default())
        .into_iter()
        .collect()
}

/// Shared terms over all terms (0 for two empty sets).
fn jaccard(a: &Terms, b: &Terms) -> f64 {
    match a.union(b).count() {
        0 => 0.0,
        n => a.intersection(b).count() as f64 / n as f64,
    }
}

/// How alike two choices are: the Jaccard overlap of their subject terms, 0 when they share
/// fewer than two.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (terms(Some(a)), terms(Some(b)));
    if a.intersection(&b).count() < 2 {
        return 0.0;
    }
    jaccard(&a, &b)
}

/// One decision's terms, field by field.
struct Decision {
    choice: Terms,
    over: Terms,
    because: Terms,
    topic: Terms,
}

impl Decision {
    fn of_input(d: &DecisionInput) -> Decision {
        Decision {
            choice: terms(Some(&crate::model::area_name(&d.choice))),
            over: terms(d.over.as_deref()),
            because: terms(d.because.as_deref()),
            topic: terms(d.topic.as_deref()),
        }
    }

    fn of_fields(choice: &str, f: &Fields) -> Decision {
        Decision {
            choice: terms(Some(choice)),
            over: terms(f.over.as_deref()),
            because: terms(f.because.as_deref()),
            topic: terms(f.topic.as_deref()),
        }
    }
}

/// Do two term sets share a word that names a subject?
fn meet(a: &Terms, b: &Terms) -> bool {
    a.intersection(b).any(|t| !GENERIC.contains(&t.as_str()))
}

/// How alike two whole decisions are: [`similarity`] of the choices, or, when both weigh the
/// same alternatives (either way round), the mean likeness of the fields both have.
fn alike(a: &Decision, b: &Decision) -> f64 {
    let choices = {
        let shared = a.choice.intersection(&b.choice).count();
        if shared < 2 {
            0.0
        } else {
            jaccard(&a.choice, &b.choice)
        }
    };
    let straight = meet(&a.choice, &b.choice) && meet(&a.over, &b.over);
    let crosswise = meet(&a.choice, &b.over) && meet(&a.over, &b.choice);
    if !straight && !crosswise {
        return choices;
    }
    let (b_choice, b_over) = match straight {
        true => (&b.choice, &b.over),
        false => (&b.over, &b.choice),
    };
    let mut scores = vec![jaccard(&a.choice, b_choice), jaccard(&a.over, b_over)];
    // a decision turned round gives its own reasons: only one kept the same way weighs them
    let reasons = [(&a.because, &b.because)].into_iter().filter(|_| straight);
    for (x, y) in reasons.chain([(&a.topic, &b.topic)]) {
        if !x.is_empty() && !y.is_empty() {
            scores.push(jaccard(x, y));
        }
    }
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    mean.max(choices)
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
    let new = Decision::of_input(d);
    if new.choice.len() < 2 && new.over.is_empty() {
        return None;
    }
    let q = SearchQuery {
        // the alternatives too: the same subject decided again may be worded otherwise
        text: format!("{choice} {}", d.over.as_deref().unwrap_or_default()),
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
            (old.trim() != choice.trim()).then(|| {
                let fields = read_fields(h.text.split_once('\n').map_or("", |(_, b)| b));
                (alike(&new, &Decision::of_fields(old, &fields)), h)
            })
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

    fn decision(choice: &str, over: &str, because: &str) -> Decision {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Decision::of_input(&DecisionInput {
            choice: choice.into(),
            over: opt(over),
            because: opt(because),
            ..DecisionInput::default()
        })
    }

    #[test]
    fn whole_decisions_weighing_the_same_alternatives_are_close() {
        let live = decision("store in sqlite", "redb", "tooling");
        let again = decision("keep memory in sqlite files", "redb", "tooling again");
        assert!(
            alike(&again, &live) >= THRESHOLD,
            "{}",
            alike(&again, &live)
        );
        // decided the other way round
        let reversed = decision("redb for memory", "sqlite", "many writers");
        assert!(
            alike(&reversed, &live) >= THRESHOLD,
            "{}",
            alike(&reversed, &live)
        );
        for (a, b) in [
            (
                decision("Use ruff", "flake8", "faster"),
                decision("Use uv", "pip", "faster"),
            ),
            (
                decision("Use tabs", "nothing", "simpler"),
                decision("Use redb", "nothing", "simpler"),
            ),
            (
                decision("store sessions in sqlite", "json files", "queries"),
                decision("store the cache in redis", "memcached", "queries"),
            ),
        ] {
            assert!(alike(&a, &b) < THRESHOLD, "{}", alike(&a, &b));
        }
    }

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
