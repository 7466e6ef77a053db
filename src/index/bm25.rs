//! BM25 for the pending documents scored outside the index.

use std::collections::HashMap;
use std::path::Path;

use tantivy::schema::Field;
use tantivy::{TantivyError, Term};

use super::doc::SearchDoc;
use super::{Fields, HEADING_BOOST, PHRASE_BOOST, index_err, terms};
use crate::error::Result;

/// BM25 as tantivy computes it (k1 1.2, b 0.75), for the pending documents scored outside
/// the index, with statistics (document count, document frequencies, average field lengths)
/// taken over the index and the pending documents together: pending changes rank among
/// indexed ones as they will once committed, and a young workspace whose entries are all
/// pending still gets real idf. (Field lengths are not quantised here; an indexed version a
/// pending one replaces is counted twice: both are small differences.)
pub(super) struct Bm25 {
    /// Per query term: idf × (k1 + 1), for heading and body.
    heading: HashMap<String, f32>,
    body: HashMap<String, f32>,
    avg_heading: f32,
    avg_body: f32,
    /// Tokens of each pending document: (heading, body).
    tokens: Vec<(Vec<String>, Vec<String>)>,
}

const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;

impl Bm25 {
    pub(super) fn new(
        searcher: &tantivy::Searcher,
        f: &Fields,
        distinct: &[String],
        pending: &[SearchDoc],
        dir: &Path,
    ) -> Result<Bm25> {
        let err = |e: TantivyError| index_err(dir, e);
        let tokens: Vec<(Vec<String>, Vec<String>)> = pending
            .iter()
            .map(|d| (terms(&d.heading), terms(&d.body)))
            .collect();
        let docs: u64 = searcher
            .segment_readers()
            .iter()
            .map(|s| u64::from(s.max_doc()))
            .sum::<u64>()
            + pending.len() as u64;
        let indexed_tokens = |field: Field| -> Result<u64> {
            let mut n = 0u64;
            for s in searcher.segment_readers() {
                n += s.inverted_index(field).map_err(err)?.total_num_tokens();
            }
            Ok(n)
        };
        let avg = |total: u64| {
            if docs == 0 {
                1.0
            } else {
                (total as f32 / docs as f32).max(1.0)
            }
        };
        let avg_heading =
            avg(indexed_tokens(f.heading)?
                + tokens.iter().map(|(h, _)| h.len() as u64).sum::<u64>());
        let avg_body =
            avg(indexed_tokens(f.body)? + tokens.iter().map(|(_, b)| b.len() as u64).sum::<u64>());
        let weights = |field: Field, heading: bool| -> Result<HashMap<String, f32>> {
            let mut m = HashMap::new();
            for t in distinct {
                let pending_df = tokens
                    .iter()
                    .filter(|(h, b)| {
                        if heading {
                            h.contains(t)
                        } else {
                            b.contains(t)
                        }
                    })
                    .count() as u64;
                let n = (searcher
                    .doc_freq(&Term::from_field_text(field, t))
                    .map_err(err)?
                    + pending_df)
                    .min(docs);
                let x = ((docs - n) as f32 + 0.5) / (n as f32 + 0.5);
                m.insert(t.clone(), (1.0 + x).ln() * (1.0 + BM25_K1));
            }
            Ok(m)
        };
        Ok(Bm25 {
            heading: weights(f.heading, true)?,
            body: weights(f.body, false)?,
            avg_heading,
            avg_body,
            tokens,
        })
    }

    fn field(weights: &HashMap<String, f32>, avg: f32, tokens: &[String]) -> f32 {
        let len = tokens.len() as f32;
        let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len / avg);
        weights
            .iter()
            .map(|(t, w)| {
                let tf = tokens.iter().filter(|x| *x == t).count() as f32;
                if tf == 0.0 { 0.0 } else { w * tf / (tf + norm) }
            })
            .sum()
    }

    /// Whether pending document `i` holds any of `terms`, in its heading or its body.
    pub(super) fn holds_any(&self, i: usize, terms: &[String]) -> bool {
        let (heading, body) = &self.tokens[i];
        terms
            .iter()
            .any(|t| heading.contains(t) || body.contains(t))
    }

    /// The share of `terms`, each weighed by its idf over the body, that pending document `i`
    /// holds in its heading or its body.
    pub(super) fn share_held(&self, i: usize, terms: &[String]) -> f32 {
        let (mut held, mut total) = (0.0f32, 0.0f32);
        for t in terms {
            let w = self.body.get(t).copied().unwrap_or(0.0);
            total += w;
            if self.holds_any(i, std::slice::from_ref(t)) {
                held += w;
            }
        }
        if total > 0.0 { held / total } else { 1.0 }
    }

    /// The score the index would give pending document `i` for the query `ordered` (its
    /// tokens in order).
    pub(super) fn score(&self, i: usize, ordered: &[String]) -> f32 {
        let (heading, body) = &self.tokens[i];
        let mut score = HEADING_BOOST * Self::field(&self.heading, self.avg_heading, heading)
            + Self::field(&self.body, self.avg_body, body);
        // the phrase bonus: the query's tokens at consecutive positions of the body
        if ordered.len() >= 2 && ordered.len() <= 32 {
            let hits = body
                .windows(ordered.len())
                .filter(|w| w.iter().zip(ordered).all(|(a, b)| a == b))
                .count() as f32;
            if hits > 0.0 {
                let idf: f32 = ordered.iter().filter_map(|t| self.body.get(t)).sum();
                let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * body.len() as f32 / self.avg_body);
                score += PHRASE_BOOST * idf * hits / (hits + norm);
            }
        }
        score
    }
}
