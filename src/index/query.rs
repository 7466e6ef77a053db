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

use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::ops::Bound;

use chrono::NaiveDate;
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::query::{
    BooleanQuery, BoostQuery, EnableScoring, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, DocSet, Searcher, TantivyDocument, Term};

use super::bm25::Bm25;
use super::doc::{Pending, SearchDoc, whole_text};
use super::tokenizer::{is_cjk, lone_cjk};
use super::{
    HEADING_BOOST, MAX_NEAR_TERMS, PHRASE_BOOST, PROXIMITY_BOOST, PROXIMITY_SLOP, RECENCY,
    RESCORE_WINDOW, SearchIndex, days, index_err, terms,
};
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

/// A query's terms, by what they can do (see the module header).
struct Terms {
    /// Every term in query order: the phrase bonus.
    ordered: Vec<String>,
    /// Words and CJK pairs, each once: one of them makes a hit.
    strong: Vec<String>,
    /// Single CJK characters, each once: they add to a hit's score.
    chars: Vec<String>,
    /// The characters the query holds by themselves, each once: weak hits.
    lone: Vec<String>,
}

impl Terms {
    fn of(text: &str) -> Terms {
        let ordered = terms(text);
        let (mut strong, mut chars) = (Vec::new(), Vec::new());
        for t in &ordered {
            let mut cs = t.chars();
            let single = matches!((cs.next(), cs.next()), (Some(c), None) if is_cjk(c));
            push_new(if single { &mut chars } else { &mut strong }, t);
        }
        // question and function words weigh nothing while the query has other words: "what
        // did we decide about the backoff" is searched as "decide backoff"
        if strong.iter().any(|t| !is_stopword(t)) {
            strong.retain(|t| !is_stopword(t));
            chars.retain(|t| !is_stopword(t));
        }
        let mut lone = Vec::new();
        for c in lone_cjk(text) {
            for t in terms(c) {
                push_new(&mut lone, &t);
            }
        }
        Terms {
            ordered,
            strong,
            chars,
            lone,
        }
    }
}

/// The words and CJK pairs of `text` that carry its subject, each once, in order: no question
/// or function words, no single CJK characters (what a query is ranked by).
pub fn subject_terms(text: &str) -> Vec<String> {
    Terms::of(text)
        .strong
        .into_iter()
        .filter(|t| !is_stopword(t))
        .collect()
}

/// English and Chinese words that carry no subject: question words, pronouns, articles,
/// auxiliaries, prepositions (tokens are lowercase; Chinese ones are characters and pairs).
const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "should", "so", "some", "that", "the", "then",
    "there", "these", "this", "those", "to", "us", "was", "we", "were", "what", "when", "where",
    "which", "who", "why", "will", "with", "would", "you", "的", "了", "吗", "呢", "是", "在",
    "我们", "什么", "怎么", "怎样", "如何", "哪里", "哪个", "哪些", "为什", "为何", "是否", "这个",
    "那个", "有没",
];

/// Chinese characters that only ever carry grammar or ask (particles, question words): a pair
/// holding one (`点的`, `改了`, `在哪`) spans a word boundary and names no subject.
const FUNCTION_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '呀', '哪', '么', '什', '怎',
];

fn is_stopword(t: &str) -> bool {
    STOPWORDS.contains(&t)
        || (t.chars().count() == 2 && t.chars().any(|c| FUNCTION_CHARS.contains(&c)))
}

fn push_new(v: &mut Vec<String>, t: &str) {
    if !v.iter().any(|x| x == t) {
        v.push(t.to_string());
    }
}

/// One ranking pass: the documents holding any of `required` are hits, scored on `required`
/// and `bonus` together, plus the phrase bonus for `ordered`.
struct Pass<'a> {
    required: &'a [String],
    bonus: &'a [String],
    ordered: &'a [String],
    weak: bool,
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

    /// One pass over the index and the pending documents.
    fn rank(
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
    fn hit(
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

/// [`coverage`] of pending document `i`.
fn tail_coverage(bm25: &Bm25, i: usize, pass: &Pass) -> f32 {
    if pass.weak || pass.required.len() < 2 {
        return 1.0;
    }
    coverage(bm25.share_held(i, pass.required))
}

/// BM25's idf of a term found in `df` of `docs` documents.
fn idf(docs: f32, df: f32) -> f32 {
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

#[cfg(test)]
mod tests {
    use super::super::doc::recency;
    use super::*;

    #[test]
    fn query_terms_are_words_pairs_characters_and_lone_characters() {
        let t = Terms::of("boot 重复 锁");
        assert_eq!(t.strong, ["boot", "重复"]);
        assert_eq!(t.chars, ["重", "复", "锁"]);
        assert_eq!(t.lone, ["锁"], "only 锁 stands by itself");
        assert_eq!(t.ordered, ["boot", "重", "重复", "复", "锁"]);
    }

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
