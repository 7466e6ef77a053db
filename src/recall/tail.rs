//! The messages not in the index yet — a few new ones, or all of them while another process
//! builds it — scored beside the index: BM25 as tantivy computes it (k1 1.2, b 0.75), with
//! the index's statistics and theirs together, so a new message ranks among indexed ones as it
//! will once committed. No index is built for them.

use std::collections::HashMap;

use tantivy::{Searcher, Term};

use super::RecallQuery;
use super::index::{Doc, Fields};

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Whether `d` passes the query's filters (hosts, host, since).
fn wanted(d: &Doc, q: &RecallQuery) -> bool {
    if !q.hosts.contains(&d.host) || q.host.is_some_and(|h| h != d.host) {
        return false;
    }
    match q.since {
        None => true,
        Some(day) => d
            .said
            .time
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .is_some_and(|t| t.date_naive() >= day),
    }
}

/// `(score, index into docs)` of each of `docs` that matches one of `terms`, best first.
pub fn score(
    searcher: &Searcher,
    f: &Fields,
    terms: &[String],
    docs: &[Doc],
    q: &RecallQuery,
) -> Vec<(f32, usize)> {
    let tokens: Vec<Option<Vec<String>>> = docs
        .iter()
        .map(|d| wanted(d, q).then(|| crate::index::terms(&d.said.text)))
        .collect();
    let indexed: u64 = searcher
        .segment_readers()
        .iter()
        .map(|s| u64::from(s.max_doc()))
        .sum();
    let indexed_tokens: u64 = (searcher.segment_readers().iter())
        .filter_map(|s| s.inverted_index(f.text).ok())
        .map(|i| i.total_num_tokens())
        .sum();
    let n = (indexed + docs.len() as u64).max(1) as f32;
    let pending_tokens: usize = tokens.iter().flatten().map(Vec::len).sum();
    let avg = ((indexed_tokens as usize + pending_tokens) as f32 / n).max(1.0);
    let idf: HashMap<&str, f32> = terms
        .iter()
        .map(|t| {
            let in_index = searcher
                .doc_freq(&Term::from_field_text(f.text, t))
                .unwrap_or(0);
            let in_tail = tokens.iter().flatten().filter(|ts| ts.contains(t)).count() as u64;
            let df = (in_index + in_tail) as f32;
            (t.as_str(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
        })
        .collect();
    let mut out: Vec<(f32, usize)> = Vec::new();
    for (i, ts) in tokens.iter().enumerate() {
        let Some(ts) = ts else { continue };
        let len = ts.len() as f32;
        let mut s = 0.0;
        for t in terms {
            let tf = ts.iter().filter(|x| *x == t).count() as f32;
            if tf > 0.0 {
                s += idf[t.as_str()] * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg));
            }
        }
        if s > 0.0 {
            out.push((s, i));
        }
    }
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out
}
