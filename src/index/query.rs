//! Queries: what a search asks, what it answers, and how the index and the pending changes
//! are ranked together.

use std::collections::HashSet;
use std::ops::Bound;

use chrono::NaiveDate;
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{
    BooleanQuery, BoostQuery, EnableScoring, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, DocSet, TantivyDocument, Term};

use super::bm25::Bm25;
use super::doc::{Pending, SearchDoc};
use super::{HEADING_BOOST, PHRASE_BOOST, RESCORE_WINDOW, SearchIndex, days, index_err, terms};
use crate::error::{Error, Result};
use crate::model::State;

/// Which part of the archive a search covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveMode {
    /// Live files and the archive.
    #[default]
    Include,
    /// Live files only.
    Exclude,
    /// The archive only.
    Only,
}

/// A search.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub text: String,
    pub limit: usize,
    /// `session`, `decision` or `section`.
    pub kind: Option<String>,
    pub area: Option<String>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub archive: ArchiveMode,
}

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// Entry id, or section key.
    pub id: String,
    pub kind: String,
    pub file: String,
    pub heading: String,
    /// The best-matching line.
    pub snippet: String,
    pub score: f32,
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
}

impl SearchIndex {
    fn filters(&self, q: &SearchQuery) -> Vec<(Occur, Box<dyn Query>)> {
        let term = |f: Field, v: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(f, v),
                IndexRecordOption::Basic,
            ))
        };
        let mut v: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if let Some(k) = &q.kind {
            v.push((Occur::Must, term(self.f.kind, k)));
        }
        if let Some(a) = &q.area {
            v.push((Occur::Must, term(self.f.area, &a.trim().to_lowercase())));
        }
        match q.archive {
            ArchiveMode::Include => {}
            ArchiveMode::Exclude => {
                v.push((Occur::MustNot, term(self.f.state, State::Archived.as_str())))
            }
            ArchiveMode::Only => {
                v.push((Occur::Must, term(self.f.state, State::Archived.as_str())))
            }
        }
        if q.since.is_some() || q.until.is_some() {
            // undated documents (sections, undated entries) are stored with date 0: a date
            // filter leaves them out, as it does for pending documents
            let lo = Bound::Included(Term::from_field_i64(self.f.date, q.since.map_or(1, days)));
            let hi = q.until.map_or(Bound::Unbounded, |d| {
                Bound::Included(Term::from_field_i64(self.f.date, days(d)))
            });
            v.push((Occur::Must, Box::new(RangeQuery::new(lo, hi))));
        }
        v
    }

    /// Run a search; `pending` holds the changes the index has not applied yet.
    pub fn search(&self, q: &SearchQuery, pending: &Pending) -> Result<Vec<Hit>> {
        let tail = pending.docs.as_slice();
        let ordered = terms(&q.text);
        let mut distinct: Vec<String> = Vec::new();
        for t in &ordered {
            if !distinct.contains(t) {
                distinct.push(t.clone());
            }
        }
        if distinct.is_empty() {
            return Err(Error::bad_input(format!(
                "`{}` has no searchable words or characters",
                q.text.trim()
            )));
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &distinct {
            let h = TermQuery::new(
                Term::from_field_text(self.f.heading, t),
                IndexRecordOption::WithFreqs,
            );
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(h), HEADING_BOOST)),
            ));
            let b = TermQuery::new(
                Term::from_field_text(self.f.body, t),
                IndexRecordOption::WithFreqs,
            );
            should.push((Occur::Should, Box::new(b)));
        }
        // without filters the query is the bare union of term queries, which tantivy answers
        // with block-max WAND (skipping documents that cannot reach the top); nested in a
        // filtering query it would score every match of every term
        let filters = self.filters(q);
        let query = if filters.is_empty() {
            BooleanQuery::new(should)
        } else {
            let mut clauses: Vec<(Occur, Box<dyn Query>)> =
                vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
            clauses.extend(filters);
            BooleanQuery::new(clauses)
        };

        let reader = self.reader()?;
        let searcher = reader.searcher();
        let stale: HashSet<&str> = pending.keys.iter().map(String::as_str).collect();
        let want = q.limit.max(1);
        let mut top = searcher
            .search(
                &query,
                &TopDocs::with_limit(want + stale.len() + RESCORE_WINDOW).order_by_score(),
            )
            .map_err(|e| index_err(&self.dir, e))?;
        // phrase bonus, as a rescoring of the candidates (a phrase clause in the query itself
        // would keep tantivy from skipping low-scoring blocks): the query's tokens at
        // consecutive positions. For CJK this is the query as a contiguous substring
        // (characters and pairs interleave the same way).
        if ordered.len() >= 2 && ordered.len() <= 32 {
            let phrase: Vec<Term> = ordered
                .iter()
                .map(|t| Term::from_field_text(self.f.body, t))
                .collect();
            self.add_phrase_bonus(&searcher, PhraseQuery::new(phrase), &mut top)?;
        }
        let wanted: HashSet<&str> = distinct.iter().map(String::as_str).collect();
        let mut hits = Vec::new();
        for (score, addr) in top {
            if hits.len() >= want {
                break;
            }
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
            let get = |f: Field| {
                doc.get_first(f)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            let key = get(self.f.key);
            if stale.contains(key.as_str()) {
                continue;
            }
            let date = doc
                .get_first(self.f.date)
                .and_then(|v| v.as_i64())
                .filter(|d| *d > 0)
                .and_then(|d| NaiveDate::from_num_days_from_ce_opt(d as i32));
            let body = get(self.f.body);
            let heading = get(self.f.heading);
            hits.push(Hit {
                id: key[2..].to_string(),
                kind: get(self.f.kind),
                file: get(self.f.file),
                snippet: snippet(&heading, &body, &wanted),
                heading,
                score,
                state: get(self.f.state),
                date,
            });
        }
        let bm25 = Bm25::new(&searcher, &self.f, &distinct, tail, &self.dir)?;
        for (i, d) in tail.iter().enumerate() {
            if !self.tail_passes(d, q) {
                continue;
            }
            let score = bm25.score(i, &ordered);
            if score > 0.0 {
                hits.push(Hit {
                    id: d.key[2..].to_string(),
                    kind: d.kind.to_string(),
                    file: d.file.to_string(),
                    snippet: snippet(&d.heading, &d.body, &wanted),
                    heading: d.heading.clone(),
                    score,
                    state: d.state.to_string(),
                    date: d.date,
                });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(want);
        Ok(hits)
    }

    /// Add the boosted score of `phrase` to each candidate it matches, and re-sort.
    fn add_phrase_bonus(
        &self,
        searcher: &tantivy::Searcher,
        phrase: PhraseQuery,
        top: &mut [(f32, DocAddress)],
    ) -> Result<()> {
        let err = |e| index_err(&self.dir, e);
        let weight = phrase
            .weight(EnableScoring::enabled_from_searcher(searcher))
            .map_err(err)?;
        let mut order: Vec<usize> = (0..top.len()).collect();
        order.sort_by_key(|&i| (top[i].1.segment_ord, top[i].1.doc_id));
        let mut current: Option<(u32, Box<dyn tantivy::query::Scorer>)> = None;
        for i in order {
            let (seg, doc) = (top[i].1.segment_ord, top[i].1.doc_id);
            if current.as_ref().is_none_or(|(s, _)| *s != seg) {
                let scorer = weight
                    .scorer(searcher.segment_reader(seg), PHRASE_BOOST)
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
        top.sort_by(|a, b| b.0.total_cmp(&a.0));
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

/// The line sharing the most terms with the query (the heading when nothing better).
fn snippet(heading: &str, body: &str, wanted: &HashSet<&str>) -> String {
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
