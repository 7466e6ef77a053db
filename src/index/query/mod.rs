//! Queries: what a search asks, what it answers, and how the index and the pending changes
//! are ranked together.
//!
//! Which documents are hits. A query's terms are its words (code names and their parts,
//! stemmed English), its CJK pairs and its single CJK characters. A document is a hit when it
//! holds at least one of the query's words or pairs; single characters add to its score but
//! never make a hit by themselves, so `boot block 重复` finds nothing in a workspace that holds
//! only 重 somewhere. A character the query holds by itself (a run of one CJK character: `锁`,
//! the `第` of `第 4242 次会话`) is a word of the query too, but a weak one: documents matching
//! nothing but such characters are returned only when no document matches a word or a pair
//! (so always for a query made of single characters), and are marked `weak`.
//!
//! Score. BM25 over heading and body (a heading word weighs [`HEADING_BOOST`] of a body word)
//! for the query's subject words (question and function words dropped while others remain),
//! then, over the candidates the index hands over: single CJK characters as a bonus; the
//! whole query as a phrase ([`PHRASE_BOOST`]); each two consecutive subject words (not CJK
//! pairs, whose overlap already places them) within [`PROXIMITY_SLOP`] positions of each other
//! ([`PROXIMITY_BOOST`]); and the whole multiplied by the square of the idf-weighed share of
//! subject words the document holds, so an entry holding more of the question outranks a
//! short one repeating part of it.
//!
//! Order. Higher score first, scores compared (and reported) to three decimals; equal scores
//! rank live before superseded before archived, then the newest first (by date, undated last,
//! then by store order), then by id. A workspace answers a query in the same order every time.
//! State, date and store order are one number in an index column (`doc::recency`), so ties
//! are ordered without loading the documents; they are ordered among the candidates the
//! index hands over (the limit, the pending keys and [`RESCORE_WINDOW`] more, by score).

use std::ops::Bound;

use chrono::NaiveDate;
use serde::Serialize;

use tantivy::Term;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

use super::doc::Pending;

use super::{HEADING_BOOST, SearchIndex, days};
use crate::error::{Error, Result};
use crate::model::State;

mod rank;
mod terms;

use rank::Pass;
use terms::Terms;
pub use terms::subject_terms;

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
    /// This work tree only: no entries of sibling work trees (the caller adds those).
    pub here: bool,
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
    /// Matched nothing but single CJK characters the query holds by themselves (see the
    /// module header): returned only because nothing matched a word or a pair.
    pub weak: bool,
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
    /// The whole document: an entry's `## heading` line and body, a PROJECT section's text, a
    /// file's prose.
    pub text: String,
    /// State, date and store order for equal scores: the higher ranks first.
    #[serde(skip)]
    pub recency: u64,
    /// Lower-ranked hits with the very same text under another heading (the same Done line in
    /// several sessions), folded into this one so the others show different answers.
    #[serde(skip_serializing_if = "is_zero")]
    pub also: usize,
    /// The branch the entry was recorded on (filled in from the store by the caller).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The sibling work tree that holds it, when it is not this one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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

    /// Any of `terms`, in the heading (boosted) or the body.
    fn any_of(&self, terms: &[String]) -> BooleanQuery {
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in terms {
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
        BooleanQuery::new(should)
    }

    /// Run a search; `pending` holds the changes the index has not applied yet.
    pub fn search(&self, q: &SearchQuery, pending: &Pending) -> Result<Vec<Hit>> {
        let t = Terms::of(&q.text);
        if t.ordered.is_empty() {
            return Err(Error::bad_input(format!(
                "`{}` has no searchable words or characters",
                q.text.trim()
            )));
        }
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let mut hits = Vec::new();
        if !t.strong.is_empty() {
            let pass = Pass {
                required: &t.strong,
                bonus: &t.chars,
                ordered: &t.ordered,
                weak: false,
            };
            hits = self.rank(&searcher, q, pending, &pass)?;
        }
        if hits.is_empty() && !t.lone.is_empty() {
            let pass = Pass {
                required: &t.lone,
                bonus: &[],
                ordered: &t.ordered,
                weak: true,
            };
            hits = self.rank(&searcher, q, pending, &pass)?;
        }
        Ok(hits)
    }
}
