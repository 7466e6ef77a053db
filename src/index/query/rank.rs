//! One ranking pass over the index and the pending changes: candidates, their BM25 score and
//! bonuses, the share of subject words held, ties by recency, and the snippet shown. The
//! order is the module header's of `query`; this module only scores, it never writes.

use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::query::{BooleanQuery, EnableScoring, Occur, PhraseQuery, Query};
use tantivy::schema::{Field, Value};
use tantivy::{DocAddress, DocSet, Searcher, TantivyDocument, Term};

use super::*;
use crate::error::Result;
use crate::index::bm25::Bm25;
use crate::index::doc::{Pending, SearchDoc, whole_text};
use crate::index::tokenizer::is_cjk;
use crate::index::{
    MAX_NEAR_TERMS, PHRASE_BOOST, PROXIMITY_BOOST, PROXIMITY_SLOP, RECENCY, RESCORE_WINDOW,
    SearchIndex, index_err, terms,
};
use crate::model::State;

/// One ranking pass: the documents holding any of `required` are hits, scored on `required`
/// and `bonus` together, plus the phrase bonus for `ordered`.
pub(super) struct Pass<'a> {
    pub(super) required: &'a [String],
    pub(super) bonus: &'a [String],
    pub(super) ordered: &'a [String],
    pub(super) weak: bool,
}

impl SearchIndex {
    /// One pass over the index and the pending documents.
    pub(super) fn rank(
        &self,
        searcher: &Searcher,
        q: &SearchQuery,
        pending: &Pending,
        pass: &Pass,
    ) -> Result<Vec<Hit>> {
        // without filters the query is the bare union of term queries, which tantivy answers
        // with block-max WAND (skipping documents that cannot reach the top); nested in a
        // filtering query it would score every match of every term
        let filters = self.filters(q);
        let any = self.any_of(pass.required);
        let query = if filters.is_empty() {
            any
        } else {
            let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(any))];
            clauses.extend(filters);
            BooleanQuery::new(clauses)
        };
        let stale: HashSet<&str> = pending.keys.iter().map(String::as_str).collect();
        let want = q.limit.max(1);
        // twice the hits asked for, so that folding repeated texts still leaves enough
        let pool = want * 2;
        let mut top = searcher
            .search(
                &query,
                &TopDocs::with_limit(pool + stale.len() + RESCORE_WINDOW).order_by_score(),
            )
            .map_err(|e| index_err(&self.dir, e))?;
        // the characters and the phrase, as rescorings of the candidates: clauses of the query
        // itself would keep tantivy from skipping low-scoring blocks, and characters would
        // make hits. The phrase is the query's tokens at consecutive positions; for CJK this
        // is the query as a contiguous substring (characters and pairs interleave the same
        // way).
        if !pass.bonus.is_empty() {
            self.add_bonus(searcher, &self.any_of(pass.bonus), 1.0, &mut top)?;
        }
        if pass.ordered.len() >= 2 && pass.ordered.len() <= 32 {
            let phrase: Vec<Term> = pass
                .ordered
                .iter()
                .map(|t| Term::from_field_text(self.f.body, t))
                .collect();
            self.add_bonus(searcher, &PhraseQuery::new(phrase), PHRASE_BOOST, &mut top)?;
        }
        // proximity: each two subject words next to each other in the query, found within a
        // few words of each other in one entry, count more than the same words scattered
        for pair in near_pairs(pass).windows(2) {
            let terms = pair
                .iter()
                .enumerate()
                .map(|(i, t)| (i, Term::from_field_text(self.f.body, t)))
                .collect();
            let near = PhraseQuery::new_with_offset_and_slop(terms, PROXIMITY_SLOP);
            self.add_bonus(searcher, &near, PROXIMITY_BOOST, &mut top)?;
        }
        // coverage: an entry holding more of the query's distinct subject words ranks above
        // one repeating fewer of them
        if !pass.weak && pass.required.len() >= 2 {
            let held = self.held(searcher, pass.required, &top)?;
            for (c, n) in top.iter_mut().zip(held) {
                c.0 *= coverage(n);
            }
        }
        let recency = self.recency_of(searcher, &top)?;
        let mut ranked: Vec<(f32, u64, DocAddress)> = top
            .iter()
            .zip(recency)
            .map(|(&(score, addr), r)| (rounded(score), r, addr))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        let wanted: HashSet<&str> = pass
            .required
            .iter()
            .chain(pass.bonus)
            .map(String::as_str)
            .collect();
        let mut hits: Vec<Hit> = Vec::new();
        for (score, recency, addr) in ranked {
            // past the limit only what ties with the last one taken on score and recency too
            // (documents with neither a date nor a store order): the id decides below
            if hits.len() >= pool
                && hits
                    .last()
                    .is_some_and(|h| (h.score, h.recency) != (score, recency))
            {
                break;
            }
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
            if let Some(hit) = self.hit(&doc, (score, recency), &wanted, &stale, pass.weak) {
                hits.push(hit);
            }
        }
        let tail = pending.docs.as_slice();
        if !tail.is_empty() {
            let terms: Vec<String> = pass.required.iter().chain(pass.bonus).cloned().collect();
            let bm25 = Bm25::new(searcher, &self.f, &terms, tail, &self.dir)?;
            for (i, d) in tail.iter().enumerate() {
                if !self.tail_passes(d, q) || !bm25.holds_any(i, pass.required) {
                    continue;
                }
                hits.push(Hit {
                    id: d.key[2..].to_string(),
                    kind: d.kind.to_string(),
                    file: d.file.to_string(),
                    snippet: snippet(&d.heading, &d.body, &wanted),
                    heading: d.heading.clone(),
                    score: rounded(bm25.score(i, pass.ordered) * tail_coverage(&bm25, i, pass)),
                    weak: pass.weak,
                    state: d.state.to_string(),
                    date: d.date,
                    text: d.text(),
                    recency: d.recency(),
                    also: 0,
                    branch: None,
                    worktree: None,
                });
            }
        }
        hits.sort_by(ranking);
        let mut hits = fold(hits);
        hits.truncate(want);
        Ok(hits)
    }

    /// The hit a stored document makes; `None` when the index holds an outdated version.
    pub(super) fn hit(
        &self,
        doc: &TantivyDocument,
        (score, recency): (f32, u64),
        wanted: &HashSet<&str>,
        stale: &HashSet<&str>,
        weak: bool,
    ) -> Option<Hit> {
        let get = |f: Field| {
            doc.get_first(f)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let key = get(self.f.key);
        if stale.contains(key.as_str()) {
            return None;
        }
        let date = doc
            .get_first(self.f.date)
            .and_then(|v| v.as_i64())
            .filter(|d| *d > 0)
            .and_then(|d| NaiveDate::from_num_days_from_ce_opt(d as i32));
        let kind = get(self.f.kind);
        let body = get(self.f.body);
        let heading = get(self.f.heading);
        Some(Hit {
            id: key.get(2..).unwrap_or_default().to_string(),
            text: whole_text(&kind, &heading, &body),
            kind,
            file: get(self.f.file),
            snippet: snippet(&heading, &body, wanted),
            heading,
            score,
            weak,
            state: get(self.f.state),
            date,
            recency,
            also: 0,
            branch: None,
            worktree: None,
        })
    }

    /// The recency of each candidate (see `doc::recency`), read from the index's column.
    fn recency_of(&self, searcher: &Searcher, top: &[(f32, DocAddress)]) -> Result<Vec<u64>> {
        let mut columns: HashMap<u32, Column<u64>> = HashMap::new();
        let mut out = Vec::with_capacity(top.len());
        for (_, addr) in top {
            let column = match columns.entry(addr.segment_ord) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(
                    searcher
                        .segment_reader(addr.segment_ord)
                        .fast_fields()
                        .u64(RECENCY)
                        .map_err(|e| index_err(&self.dir, e))?,
                ),
            };
            out.push(column.first(addr.doc_id).unwrap_or(0));
        }
        Ok(out)
    }

    /// The share of the query's subject words each candidate holds, in its heading or its
    /// body, each word weighed by its idf (a rare word held counts more than a common one).
    fn held(
        &self,
        searcher: &Searcher,
        terms: &[String],
        top: &[(f32, DocAddress)],
    ) -> Result<Vec<f32>> {
        let docs = searcher.num_docs() as f32;
        let mut share = vec![0.0f32; top.len()];
        let mut total = 0.0f32;
        let mut one = vec![(0.0f32, DocAddress::new(0, 0)); top.len()];
        for t in terms {
            let df = searcher
                .doc_freq(&Term::from_field_text(self.f.body, t))
                .map_err(|e| index_err(&self.dir, e))? as f32;
            let w = idf(docs, df);
            total += w;
            for (o, c) in one.iter_mut().zip(top) {
                *o = (0.0, c.1);
            }
            self.add_bonus(
                searcher,
                &self.any_of(std::slice::from_ref(t)),
                1.0,
                &mut one,
            )?;
            for (k, o) in share.iter_mut().zip(&one) {
                if o.0 > 0.0 {
                    *k += w;
                }
            }
        }
        Ok(share
            .into_iter()
            .map(|k| k / total.max(f32::MIN_POSITIVE))
            .collect())
    }

    /// Add the score of `query`, boosted, to each candidate it matches.
    fn add_bonus(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        boost: f32,
        top: &mut [(f32, DocAddress)],
    ) -> Result<()> {
        let err = |e| index_err(&self.dir, e);
        let weight = query
            .weight(EnableScoring::enabled_from_searcher(searcher))
            .map_err(err)?;
        let mut order: Vec<usize> = (0..top.len()).collect();
        order.sort_by_key(|&i| (top[i].1.segment_ord, top[i].1.doc_id));
        let mut current: Option<(u32, Box<dyn tantivy::query::Scorer>)> = None;
        for i in order {
            let (seg, doc) = (top[i].1.segment_ord, top[i].1.doc_id);
            if current.as_ref().is_none_or(|(s, _)| *s != seg) {
                let scorer = weight
                    .scorer(searcher.segment_reader(seg), boost)
                    .map_err(err)?;
                current = Some((seg, scorer));
            }
            let Some((_, scorer)) = current.as_mut() else {
                continue;
            };
            let at = if scorer.doc() >= doc {
                scorer.doc()
            } else {
                scorer.seek(doc)
            };
            if at == doc {
                top[i].0 += scorer.score();
            }
        }
        Ok(())
    }

    fn tail_passes(&self, d: &SearchDoc, q: &SearchQuery) -> bool {
        let archived = d.state == State::Archived.as_str();
        q.kind.as_deref().is_none_or(|k| k == d.kind)
            && q.area
                .as_deref()
                .is_none_or(|a| a.trim().to_lowercase() == d.area)
            && match q.archive {
                ArchiveMode::Include => true,
                ArchiveMode::Exclude => !archived,
                ArchiveMode::Only => archived,
            }
            && q.since.is_none_or(|s| d.date.is_some_and(|x| x >= s))
            && q.until.is_none_or(|u| d.date.is_some_and(|x| x <= u))
    }
}

/// The query's subject words in query order, each once, for the proximity bonus: the words
/// and CJK pairs that make hits (question and function words are gone from them).
fn near_pairs(pass: &Pass) -> Vec<String> {
    if pass.weak {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for t in pass.ordered {
        if pass.required.contains(t) && !out.contains(t) && !t.chars().any(is_cjk) {
            out.push(t.clone());
        }
    }
    out.truncate(MAX_NEAR_TERMS);
    out
}

/// Hits in rank order with each text kept once: a later hit whose entry says exactly what an
/// earlier one says, under another heading, is counted in the earlier one's `also`.
fn fold(hits: Vec<Hit>) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for h in hits {
        let body = h.text.split_once('\n').map_or("", |(_, b)| b).trim();
        if body.is_empty() {
            out.push(h);
            continue;
        }
        match seen.entry((h.kind.clone(), body.to_string())) {
            Entry::Occupied(first) => out[*first.get()].also += 1,
            Entry::Vacant(slot) => {
                slot.insert(out.len());
                out.push(h);
            }
        }
    }
    out
}

/// [`coverage`] of pending document `i`.
fn tail_coverage(bm25: &Bm25, i: usize, pass: &Pass) -> f32 {
    if pass.weak || pass.required.len() < 2 {
        return 1.0;
    }
    coverage(bm25.share_held(i, pass.required))
}

/// BM25's idf of a term found in `df` of `docs` documents.
pub(super) fn idf(docs: f32, df: f32) -> f32 {
    (1.0 + (docs - df + 0.5) / (df + 0.5)).ln()
}

/// The factor a score is multiplied by for holding `share` (idf-weighed) of the query's
/// subject words.
fn coverage(share: f32) -> f32 {
    share * share
}

/// A score to three decimals: what hits are compared and reported by.
fn rounded(score: f32) -> f32 {
    (score * 1000.0).round() / 1000.0
}

/// The order of hits (see the module header).
fn ranking(a: &Hit, b: &Hit) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| b.recency.cmp(&a.recency))
        .then_with(|| a.id.cmp(&b.id))
}

/// The line sharing the most terms with the query (the heading when nothing better).
pub(super) fn snippet(heading: &str, body: &str, wanted: &HashSet<&str>) -> String {
    let mut best = (0usize, heading);
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        let n = terms(line)
            .iter()
            .filter(|t| wanted.contains(String::as_str(t)))
            .collect::<HashSet<_>>()
            .len();
        if n > best.0 {
            best = (n, line);
        }
    }
    let line = best.1.trim();
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::doc::recency;

    #[test]
    fn ties_rank_live_then_newest_then_store_order_then_id() {
        let hit = |id: &str, state: &str, date: Option<&str>, seq: u64| Hit {
            recency: recency(state, date.map(|d| d.parse().unwrap()), seq),
            id: id.into(),
            kind: "session".into(),
            file: "SESSIONS.md".into(),
            heading: String::new(),
            snippet: String::new(),
            score: 1.5,
            weak: false,
            state: state.into(),
            date: date.map(|d| d.parse().unwrap()),
            text: String::new(),
            also: 0,
            branch: None,
            worktree: None,
        };
        let mut hits = vec![
            hit("a", "archived", Some("2026-11-05"), 9),
            hit("b", "live", None, 0),
            hit("c", "live", Some("2026-11-01"), 1),
            hit("d", "live", Some("2026-11-03"), 2),
            hit("e", "live", Some("2026-11-03"), 3),
            hit("f", "superseded", Some("2026-11-04"), 4),
            hit("g", "live", Some("2026-11-03"), 3),
        ];
        let mut better = hit("z", "archived", None, 0);
        better.score = 1.501;
        hits.push(better);
        hits.reverse();
        hits.sort_by(ranking);
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["z", "e", "g", "d", "c", "b", "f", "a"]);
    }
}
