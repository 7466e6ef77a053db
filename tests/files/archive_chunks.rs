//! A fresh clone's first command reads the archive a chunk at a time; read in chunks of any
//! size, and read whole (`TRILOGY_WITHOUT=stream-archive`), an archive leaves the same
//! entries in the same order, the same files, the same log, and the same next write.

use crate::common;

use common::{Ws, text};

const PROJECT: &str = "# Project\n\n## What this is\n\nA test.\n";

/// An archive that only trilogy wrote: every entry dated, newest first, laid out as rendered.
fn canonical() -> String {
    let mut s = String::from("# Archive\n\nOlder sessions.\n");
    for k in (0..40).rev() {
        s.push_str(&format!(
            "\n## 2026-{:02}-{:02} session {k}\nDone: step {k}\nNext: step {}\n",
            k / 28 + 1,
            k % 28 + 1,
            k + 1
        ));
    }
    s
}

/// An archive as people and tools leave it: `## ` lines hidden in a fence and in a comment
/// across blank lines, an undated entry, one entry twice, dates out of order, extra blank
/// lines, Chinese text, no final newline.
fn hand_laid() -> String {
    [
        "# Archive",
        "",
        "## 2026-01-09 newest",
        "Done: a",
        "",
        "```text",
        "## 2026-01-05 inside a fence",
        "",
        "## 2026-01-04 also inside",
        "```",
        "",
        "## a note with no date",
        "body of the note",
        "",
        "## 2026-01-08 out of order",
        "Done: b",
        "",
        "",
        "## 2026-01-10 newer, below",
        "Done: c",
        "",
        "## 2026-01-07 twice",
        "Done: d",
        "",
        "## 2026-01-07 twice",
        "Done: d",
        "",
        "## 2026-01-06 中文条目",
        "完成：测试",
        "",
        "<!--",
        "## 2026-01-03 in a comment",
        "",
        "## 2026-01-02 in a comment too",
        "-->",
        "",
        "## 2026-01-01 last",
        "Done: e",
    ]
    .join("\n")
}

/// A fresh clone holding `archive`, and a SESSIONS.md that repeats one archived entry.
fn clone_with(archive: &str) -> Ws {
    let ws = Ws::new();
    std::fs::create_dir_all(ws.root().join("memory")).unwrap();
    ws.write("PROJECT.md", PROJECT);
    ws.write("SESSIONS-archive.md", archive);
    ws.write(
        "SESSIONS.md",
        "# Sessions\n\n## 2026-03-01 live\nDone: f\n\n## 2026-01-09 newest\nDone: a\n",
    );
    ws.write("DECISIONS.md", "# Decisions\n");
    ws
}

fn run(ws: &Ws, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut cmd = ws.cmd();
    cmd.env("TRILOGY_TODAY", "2026-04-01")
        .envs(env.iter().copied());
    let out = cmd.args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// What the clone holds after its first command and after one more session: the files, every
/// entry in store order, the log without its times.
fn after_first_commands(archive: &str, env: &[(&str, &str)]) -> Vec<String> {
    let ws = clone_with(archive);
    let mut out = vec![
        run(&ws, env, &["status", "--json"]).replace(&ws.root().display().to_string(), "ROOT"),
    ];
    let files = |out: &mut Vec<String>| {
        for f in ["SESSIONS.md", "SESSIONS-archive.md", "DECISIONS.md"] {
            out.push(std::fs::read_to_string(ws.path(f)).unwrap());
        }
    };
    files(&mut out);
    for f in ["SESSIONS-archive.md", "SESSIONS.md"] {
        let v: serde_json::Value =
            serde_json::from_str(&run(&ws, env, &["read", "--json", "-n", "1000", f])).unwrap();
        let entries = v["entries"].as_array().unwrap();
        assert!(!entries.is_empty(), "{f} holds entries: {v}");
        out.extend(entries.iter().map(|e| {
            format!(
                "{} {} {} {} {} {}",
                e["id"], e["state"], e["date"], e["heading"], e["body"], e["actor"]
            )
        }));
    }
    let sessions = ["--session-done", "one more; tested", "--area", "x"];
    run(&ws, env, &[&["checkpoint"][..], &sessions[..]].concat());
    files(&mut out);
    // a batch move puts entries on top; an archive rendered again keeps its layout
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 1\nsessions_archive_batch = 1\n",
    )
    .unwrap();
    run(&ws, env, &[&["checkpoint"][..], &sessions[..]].concat());
    files(&mut out);
    std::fs::remove_file(ws.path("SESSIONS-archive.md")).unwrap();
    run(&ws, env, &[&["checkpoint"][..], &sessions[..]].concat());
    files(&mut out);
    let log: serde_json::Value = serde_json::from_str(&run(&ws, env, &["log", "--json"])).unwrap();
    out.extend(
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| format!("{} {} {} {}", e["op"], e["ids"], e["detail"], e["actor"])),
    );
    out
}

fn read_alike(archive: &str) {
    let whole = after_first_commands(archive, &[("TRILOGY_WITHOUT", "stream-archive")]);
    for chunk in ["1", "40", "200", "100000"] {
        let chunked = after_first_commands(archive, &[("TRILOGY_CHUNK_BYTES", chunk)]);
        assert_eq!(chunked.len(), whole.len(), "chunks of {chunk} bytes");
        for (a, b) in chunked.iter().zip(&whole) {
            assert_eq!(a, b, "read in chunks of {chunk} bytes, and read whole");
        }
    }
}

#[test]
fn an_archive_only_trilogy_wrote_reads_in_chunks_as_it_reads_whole() {
    let archive = canonical();
    read_alike(&archive);
    // and it needs no rendering or layout: its bytes stand as they were
    let ws = clone_with(&archive);
    run(&ws, &[("TRILOGY_CHUNK_BYTES", "100")], &["status"]);
    assert_eq!(ws.read("SESSIONS-archive.md"), archive);
}

#[test]
fn an_archive_laid_out_by_hand_reads_in_chunks_as_it_reads_whole() {
    let archive = hand_laid();
    read_alike(&archive);
    let ws = clone_with(&archive);
    run(&ws, &[("TRILOGY_CHUNK_BYTES", "1")], &["status"]);
    let entries: serde_json::Value = serde_json::from_str(&run(
        &ws,
        &[],
        &["read", "--json", "-n", "1000", "SESSIONS-archive.md"],
    ))
    .unwrap();
    let headings: Vec<&str> = (entries["entries"].as_array().unwrap().iter())
        .map(|e| e["heading"].as_str().unwrap())
        .collect();
    assert!(
        !headings
            .iter()
            .any(|h| h.contains("inside") || h.contains("comment")),
        "`## ` lines in a fence or a comment are text, not entries: {headings:?}"
    );
    assert_eq!(
        headings
            .iter()
            .filter(|h| **h == "2026-01-07 twice")
            .count(),
        2
    );
    assert!(headings.contains(&"a note with no date"), "{headings:?}");
}

#[test]
fn an_archive_whose_first_entry_is_undated_reads_as_it_reads_whole() {
    let archive = format!("## a first note\nundated\n\n{}", canonical());
    read_alike(&archive);
}

#[test]
fn an_archive_laid_out_otherwise_than_rendered_reads_in_chunks_as_it_reads_whole() {
    let archive = canonical();
    let at = archive.match_indices("\n\n## ").nth(5).unwrap().0;
    read_alike(&format!("{}\n{}", &archive[..at], &archive[at..]));
    read_alike(archive.trim_end());
    read_alike(&archive.replacen("\n\nOlder sessions.\n", "\nOlder sessions.\n", 1));
    // laid out as rendered, but its newest entry dated below its oldest
    let top = "## 2026-02-12 session 39";
    assert!(archive.contains(top));
    read_alike(&archive.replacen(top, "## 2025-12-31 session 39", 1));
}
