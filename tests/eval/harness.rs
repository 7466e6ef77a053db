//! The search evaluation: trilogy's ranking against plain BM25 on natural-language questions.
//!
//! The set (`tests/eval/corpus.jsonl`, `questions.jsonl`, made by `gen_corpus.py` and frozen)
//! holds two workspaces of memory entries, one English, one Chinese, and questions judged with
//! the entries that answer them. Each workspace is built by real checkpoints (one per date,
//! the clock pinned to it), so the files, the store and the index are what an agent's
//! checkpoints make. Each question is asked twice, whole and in its keyword form, of:
//! - **trilogy**: `ops::search::search`, as `memory_search` and `trilogy search` call it;
//! - **bm25**: tantivy with its default BM25 over the same documents (every entry with a file,
//!   every PROJECT section as the file shows it, template ones too), tokenized by trilogy's own
//!   analyzer, the query's terms OR-ed over heading and body: the comparison is about ranking,
//!   not tokenizing;
//! - **bm25-no-template**: the same without the PROJECT sections that are still their
//!   template, so what the ranking itself adds is seen apart from leaving those out.
//!
//! Measures, over the top 10 of each answer: recall@k is, per question, the share of its
//! answer groups (one needed piece of evidence each, met by any entry in the group) that the
//! first k hits meet, averaged over the questions; MRR is the mean of 1 / the rank of the
//! first hit that meets any group (0 when none of the ten does).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use chrono::NaiveDate;
use serde::Deserialize;
use serde_json::{Value, json};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions};
use tantivy::{Index, TantivyDocument, Term, doc};
use trilogy::config::Config;
use trilogy::index::SearchQuery;
use trilogy::model::Lang;
use trilogy::ops::CheckpointInput;
use trilogy::workspace::{Clock, Workspace};

/// Hits looked at per answer.
pub const DEPTH: usize = 10;

#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub key: String,
    pub ws: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub date: Option<NaiveDate>,
    #[serde(flatten)]
    pub fields: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    pub id: String,
    pub ws: String,
    pub lang: String,
    pub kind: String,
    pub question: String,
    pub keywords: String,
    pub answers: Vec<Vec<String>>,
    pub split: String,
}

pub fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// One evaluated workspace: trilogy's, and the baseline indexes over its documents.
pub struct Built {
    pub ws: Workspace,
    /// Hit id (entry id or section key) → the corpus keys it stands for.
    pub keys: HashMap<String, Vec<String>>,
    baseline: Baseline,
    baseline_no_template: Baseline,
}

/// Build workspace `name` at `root` from its entries: one checkpoint per date, oldest first,
/// the PROJECT lines in the first.
pub fn build(root: &Path, name: &str, entries: &[Entry]) -> Built {
    let lang = if name == "en" { Lang::En } else { Lang::Zh };
    let config = Config {
        lang,
        ..Config::default()
    };
    std::fs::create_dir_all(root).unwrap();
    let mut ws = Workspace::new(root.to_path_buf(), config, Clock::default());
    trilogy::ops::init(&ws).unwrap();

    let mut by_date: BTreeMap<NaiveDate, Vec<&Entry>> = BTreeMap::new();
    let mut project = Vec::new();
    for e in entries.iter().filter(|e| e.ws == name) {
        match (e.kind.as_str(), e.date) {
            ("project", _) => project.push(e),
            (_, Some(d)) => by_date.entry(d).or_default().push(e),
            _ => panic!("{}: a session or decision needs a date", e.key),
        }
    }
    // per checkpoint: the ids it answered with and the entries it wrote
    let mut batches: Vec<(Vec<String>, Vec<&Entry>)> = Vec::new();
    let mut first = true;
    for (date, day) in &by_date {
        ws.clock = Clock {
            today: Some(*date),
            now_ms: None,
        };
        let sessions: Vec<&Entry> = day
            .iter()
            .copied()
            .filter(|e| e.kind == "session")
            .collect();
        let decisions: Vec<&Entry> = day
            .iter()
            .copied()
            .filter(|e| e.kind == "decision")
            .collect();
        let strip = |e: &Entry| {
            let mut m = e.fields.clone();
            m.remove("key");
            m.remove("ws");
            Value::Object(m)
        };
        let mut batch = json!({
            "sessions": sessions.iter().map(|e| strip(e)).collect::<Vec<_>>(),
            "decisions": decisions.iter().map(|e| strip(e)).collect::<Vec<_>>(),
        });
        if std::mem::take(&mut first) {
            batch["project"] = Value::Array(project.iter().map(|e| strip(e)).collect());
        }
        let input: CheckpointInput = serde_json::from_value(batch)
            .unwrap_or_else(|e| panic!("corpus entries of {date} in {name}: {e}"));
        let out = trilogy::ops::checkpoint(&ws, "eval", &input)
            .unwrap_or_else(|e| panic!("checkpoint of {date} in {name}: {e}"));
        let written: Vec<&Entry> = sessions.iter().chain(&decisions).copied().collect();
        assert_eq!(
            out.value.ids.len(),
            written.len(),
            "{date}: {:?}",
            out.value
        );
        batches.push((out.value.ids, written));
    }

    // each entry is the id of its checkpoint whose stored record holds its text; then the
    // baseline's documents
    let mut keys: HashMap<String, Vec<String>> = HashMap::new();
    let (docs, sections) = ws
        .read(|r| {
            for (ids, written) in &batches {
                let mut records = Vec::new();
                for id in ids {
                    records.push(
                        r.entry(id)?
                            .unwrap_or_else(|| panic!("entry {id} is not stored")),
                    );
                }
                for e in written {
                    let said = e
                        .fields
                        .get(if e.kind == "session" {
                            "done"
                        } else {
                            "choice"
                        })
                        .and_then(Value::as_str)
                        .unwrap()
                        .trim();
                    let rec = records
                        .iter()
                        .find(|rec| rec.body.contains(said) || rec.heading.contains(said))
                        .unwrap_or_else(|| {
                            panic!("{}: no entry of its checkpoint holds its text", e.key)
                        });
                    keys.entry(rec.id.clone()).or_default().push(e.key.clone());
                }
            }
            let mut docs = Vec::new();
            for e in r.all_entries()? {
                if e.file().is_some() {
                    docs.push((e.id.clone(), e.heading.clone(), e.body.clone(), false));
                }
            }
            let mut sections = Vec::new();
            for s in r.sections()? {
                if s.removed {
                    continue;
                }
                let text = s.text().to_string();
                let template = matches!(text.trim(), "" | "暂无" | "None yet" | "None yet.");
                docs.push((s.key.clone(), s.heading.clone(), text, template));
                sections.push((s.key.clone(), s.heading.clone()));
            }
            Ok((docs, sections))
        })
        .unwrap()
        .value;
    for e in &project {
        let heading = e.fields["section"].as_str().unwrap();
        let (key, _) = sections
            .iter()
            .find(|(_, h)| h == heading)
            .unwrap_or_else(|| panic!("{}: no section {heading}", e.key));
        keys.entry(key.clone()).or_default().push(e.key.clone());
    }
    Built {
        ws,
        keys,
        baseline: Baseline::new(&docs, true),
        baseline_no_template: Baseline::new(&docs, false),
    }
}

/// Plain BM25: tantivy's defaults over trilogy's tokens.
struct Baseline {
    index: Index,
    reader: tantivy::IndexReader,
    id: tantivy::schema::Field,
    heading: tantivy::schema::Field,
    body: tantivy::schema::Field,
}

impl Baseline {
    fn new(docs: &[(String, String, String, bool)], templates: bool) -> Baseline {
        let mut b = Schema::builder();
        let text = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("memory")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let id = b.add_text_field("id", STRING | STORED);
        let heading = b.add_text_field("heading", text.clone());
        let body = b.add_text_field("body", text);
        let index = Index::create_in_ram(b.build());
        index
            .tokenizers()
            .register("memory", trilogy::index::analyzer());
        let mut w = index.writer_with_num_threads(1, 50_000_000).unwrap();
        for (key, h, t, template) in docs {
            if *template && !templates {
                continue;
            }
            w.add_document(doc!(id => key.as_str(), heading => h.as_str(), body => t.as_str()))
                .unwrap();
        }
        w.commit().unwrap();
        let reader = index.reader().unwrap();
        Baseline {
            index,
            reader,
            id,
            heading,
            body,
        }
    }

    fn search(&self, text: &str) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in trilogy::index::terms(text) {
            if !seen.insert(t.clone()) {
                continue;
            }
            for f in [self.heading, self.body] {
                let q = TermQuery::new(Term::from_field_text(f, &t), IndexRecordOption::WithFreqs);
                should.push((Occur::Should, Box::new(q)));
            }
        }
        let _ = &self.index;
        let searcher = self.reader.searcher();
        let top = searcher
            .search(
                &BooleanQuery::new(should),
                &TopDocs::with_limit(DEPTH).order_by_score(),
            )
            .unwrap();
        top.into_iter()
            .map(|(_, addr)| {
                let d: TantivyDocument = searcher.doc(addr).unwrap();
                use tantivy::schema::Value as _;
                d.get_first(self.id)
                    .and_then(|v| v.as_str())
                    .unwrap()
                    .to_string()
            })
            .collect()
    }
}

/// The systems compared.
pub const SYSTEMS: [&str; 3] = ["trilogy", "bm25", "bm25-no-template"];
/// The forms each question is asked in.
pub const FORMS: [&str; 2] = ["full", "keywords"];

impl Built {
    /// The first [`DEPTH`] hit ids `system` answers `text` with.
    pub fn ask(&self, system: &str, text: &str) -> Vec<String> {
        match system {
            "trilogy" => {
                let q = SearchQuery {
                    text: text.to_string(),
                    limit: DEPTH,
                    ..SearchQuery::default()
                };
                trilogy::ops::search::search(&self.ws, q)
                    .unwrap()
                    .hits
                    .into_iter()
                    .map(|h| h.id)
                    .collect()
            }
            "bm25" => self.baseline.search(text),
            "bm25-no-template" => self.baseline_no_template.search(text),
            _ => unreachable!("{system}"),
        }
    }
}

impl Built {
    /// The corpus keys of hit ids, for a person reading a miss.
    pub fn shown(&self, ids: &[String]) -> Vec<String> {
        ids.iter()
            .map(|id| {
                self.keys
                    .get(id)
                    .map_or_else(|| id.clone(), |ks| ks.join("="))
            })
            .collect()
    }
}

/// One question's scores.
#[derive(Debug, Clone, Copy, Default)]
pub struct Score {
    pub r1: f64,
    pub r5: f64,
    pub rr: f64,
}

/// Score the hits `ids` of `built` against `q`'s answer groups.
pub fn score(built: &Built, q: &Question, ids: &[String]) -> Score {
    let groups: Vec<HashSet<&str>> = q
        .answers
        .iter()
        .map(|g| g.iter().map(String::as_str).collect())
        .collect();
    let meets = |id: &String, g: &HashSet<&str>| {
        built
            .keys
            .get(id)
            .is_some_and(|ks| ks.iter().any(|k| g.contains(k.as_str())))
    };
    let recall = |k: usize| {
        let top = &ids[..ids.len().min(k)];
        let met = groups
            .iter()
            .filter(|g| top.iter().any(|id| meets(id, g)))
            .count();
        met as f64 / groups.len() as f64
    };
    let first = ids
        .iter()
        .position(|id| groups.iter().any(|g| meets(id, g)));
    Score {
        r1: recall(1),
        r5: recall(5),
        rr: first.map_or(0.0, |p| 1.0 / (p as f64 + 1.0)),
    }
}

/// Mean scores of one (system, form) over some questions, in percent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mean {
    pub n: usize,
    pub r1: f64,
    pub r5: f64,
    pub mrr: f64,
}

pub fn mean(scores: &[Score]) -> Mean {
    let n = scores.len().max(1) as f64;
    Mean {
        n: scores.len(),
        r1: 100.0 * scores.iter().map(|s| s.r1).sum::<f64>() / n,
        r5: 100.0 * scores.iter().map(|s| s.r5).sum::<f64>() / n,
        mrr: 100.0 * scores.iter().map(|s| s.rr).sum::<f64>() / n,
    }
}
