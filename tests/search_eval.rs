//! The search evaluation (see `tests/eval/harness.rs` and `tests/eval/README.md`): trilogy's
//! ranking against plain BM25 over the same documents, on natural-language questions and on
//! their keyword forms, English and Chinese apart. The report is printed (`cargo test --test
//! search_eval -- --nocapture`); the test holds trilogy to what it must show on the held-out
//! questions (`split = test`, never looked at while tuning): recall@5 on whole questions at
//! least 10 points above the baseline's, recall@1 at least 5 above, and no loss on the
//! keyword form.

#[path = "eval/harness.rs"]
mod harness;

use std::collections::BTreeMap;
use std::path::Path;

use harness::{
    DEPTH, Entry, FORMS, Mean, Question, SYSTEMS, Score, build, mean, read_jsonl, score,
};

#[test]
fn trilogy_ranks_answers_above_plain_bm25_on_held_out_questions() {
    // another set, to try one out: TRILOGY_EVAL_DIR
    let other = std::env::var_os("TRILOGY_EVAL_DIR");
    let dir = other.clone().map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/eval"),
        Into::into,
    );
    let entries: Vec<Entry> = read_jsonl(&dir.join("corpus.jsonl"));
    let questions: Vec<Question> = read_jsonl(&dir.join("questions.jsonl"));
    if other.is_none() {
        assert!(
            entries.len() >= 3000,
            "the corpus holds {} entries",
            entries.len()
        );
        assert!(
            questions.len() >= 500,
            "the set holds {} questions",
            questions.len()
        );
    }
    // the questions trilogy misses at 5 in one part of the set, with what it answered:
    // TRILOGY_EVAL_MISSES=dev (tune on the dev part only)
    let misses = std::env::var("TRILOGY_EVAL_MISSES").ok();

    let tmp = tempfile::tempdir().unwrap();
    // (lang, split, system, form) → per-question scores; also by kind for the held-out part
    let mut scores: BTreeMap<(String, String, &str, &str), Vec<Score>> = BTreeMap::new();
    let mut kinds: BTreeMap<(String, String, &str), Vec<Score>> = BTreeMap::new();
    for name in ["en", "zh"] {
        let built = build(&tmp.path().join(name), name, &entries);
        for q in questions.iter().filter(|q| q.ws == name) {
            for system in SYSTEMS {
                for form in FORMS {
                    let text = if form == "full" {
                        &q.question
                    } else {
                        &q.keywords
                    };
                    let ids = built.ask(system, text);
                    let s = score(&built, q, &ids);
                    if system == "trilogy"
                        && misses.as_deref() == Some(q.split.as_str())
                        && s.r5 < 1.0
                    {
                        println!(
                            "miss {} [{form}] {text:?} → {:?}",
                            q.id,
                            built.shown(&ids[..ids.len().min(5)])
                        );
                    }
                    scores
                        .entry((q.lang.clone(), q.split.clone(), system, form))
                        .or_default()
                        .push(s);
                    if form == "full" && q.split == "test" {
                        kinds
                            .entry((q.lang.clone(), q.kind.clone(), system))
                            .or_default()
                            .push(s);
                    }
                }
            }
        }
    }

    let means: BTreeMap<_, Mean> = scores.iter().map(|(k, v)| (k.clone(), mean(v))).collect();
    println!("\nsearch evaluation: recall@1, recall@5, MRR@{DEPTH} (percent)\n");
    println!("| lang | split | form | system | questions | R@1 | R@5 | MRR |");
    println!("|---|---|---|---|---|---|---|---|");
    for ((lang, split, system, form), m) in &means {
        println!(
            "| {lang} | {split} | {form} | {system} | {} | {:.1} | {:.1} | {:.1} |",
            m.n, m.r1, m.r5, m.mrr
        );
    }
    println!("\nheld-out questions by kind, whole questions\n");
    println!("| lang | kind | system | questions | R@1 | R@5 | MRR |");
    println!("|---|---|---|---|---|---|---|");
    for ((lang, kind, system), v) in &kinds {
        let m = mean(v);
        println!(
            "| {lang} | {kind} | {system} | {} | {:.1} | {:.1} | {:.1} |",
            m.n, m.r1, m.r5, m.mrr
        );
    }

    let mut failures = Vec::new();
    for lang in ["en", "zh"] {
        let get = |system, form| means[&(lang.to_string(), "test".to_string(), system, form)];
        let (t, b) = (get("trilogy", "full"), get("bm25", "full"));
        if t.r5 < b.r5 + 10.0 {
            failures.push(format!(
                "{lang}: recall@5 {:.1} is not 10 above bm25's {:.1}",
                t.r5, b.r5
            ));
        }
        if t.r1 < b.r1 + 5.0 {
            failures.push(format!(
                "{lang}: recall@1 {:.1} is not 5 above bm25's {:.1}",
                t.r1, b.r1
            ));
        }
        let (t, b) = (get("trilogy", "keywords"), get("bm25", "keywords"));
        for (what, tv, bv) in [
            ("recall@1", t.r1, b.r1),
            ("recall@5", t.r5, b.r5),
            ("MRR", t.mrr, b.mrr),
        ] {
            if tv < bv {
                failures.push(format!(
                    "{lang}: keyword {what} {tv:.1} is below bm25's {bv:.1}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "on the held-out questions:\n{}",
        failures.join("\n")
    );
}
