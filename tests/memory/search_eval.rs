//! The search evaluation (see `tests/eval/harness.rs` and `tests/eval/README.md`): trilogy's
//! ranking against plain BM25 over the same documents, on natural-language questions and on
//! their keyword forms, English and Chinese apart. The report is printed (`cargo test --test
//! memory search_eval -- --nocapture`), with the targets trilogy aims at on the held-out questions
//! (`split = test`, never looked at while tuning): recall@5 on whole questions 10 points above
//! the baseline's, recall@1 5 above, no loss on the keyword form. The test fails when trilogy
//! falls below what it reached there (measured 2026-12-01, see `tests/eval/README.md`): on
//! whole questions recall@1 at least 3 points and recall@5 at least 2 above plain BM25, MRR
//! above it; on keywords recall@1 and MRR not below it.

#[path = "../eval/harness.rs"]
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
                        && s.r1 < 1.0
                    {
                        let b = built.ask("bm25", text);
                        let bs = score(&built, q, &b);
                        println!(
                            "miss {} [{form}] r5 {:.2} {text:?} (bm25 r1 {}) → {:?} | answers {:?} | bm25 {:?}",
                            q.id,
                            s.r5,
                            bs.r1,
                            built.shown(&ids[..ids.len().min(5)]),
                            q.answers,
                            built.shown(&b[..b.len().min(3)])
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
    println!("\ntargets on the held-out questions\n");
    for lang in ["en", "zh"] {
        let get = |system, form| means[&(lang.to_string(), "test".to_string(), system, form)];
        let (t, b) = (get("trilogy", "full"), get("bm25", "full"));
        let (tk, bk) = (get("trilogy", "keywords"), get("bm25", "keywords"));
        let target = |what: &str, ok: bool| {
            println!("{lang}: {what}: {}", if ok { "met" } else { "NOT met" })
        };
        target(
            &format!("recall@5 {:.1} ≥ bm25 {:.1} + 10", t.r5, b.r5),
            t.r5 >= b.r5 + 10.0,
        );
        target(
            &format!("recall@1 {:.1} ≥ bm25 {:.1} + 5", t.r1, b.r1),
            t.r1 >= b.r1 + 5.0,
        );
        target(
            &format!(
                "keywords R@1/R@5/MRR {:.1}/{:.1}/{:.1} ≥ bm25 {:.1}/{:.1}/{:.1}",
                tk.r1, tk.r5, tk.mrr, bk.r1, bk.r5, bk.mrr
            ),
            tk.r1 >= bk.r1 && tk.r5 >= bk.r5 && tk.mrr >= bk.mrr,
        );
        // the floor: what was reached, so a change that loses it fails
        for (what, tv, bv, margin) in [
            ("whole-question recall@1", t.r1, b.r1, 3.0),
            ("whole-question recall@5", t.r5, b.r5, 2.0),
            ("whole-question MRR", t.mrr, b.mrr, 0.1),
            ("keyword recall@1", tk.r1, bk.r1, 0.0),
            ("keyword MRR", tk.mrr, bk.mrr, 0.0),
        ] {
            if tv < bv + margin {
                failures.push(format!(
                    "{lang}: {what} {tv:.1} is not {margin} above bm25's {bv:.1}"
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
