//! Damaged state: a store cut short, with pages overwritten or without its header, a store from
//! a newer trilogy, a directory or a file where trilogy expects the other, and a search racing a
//! rebuild of the index. Every command answers with a clear error naming the fix, `doctor` says
//! what is wrong, `doctor --fix` recovers without throwing anything away (and leaves a newer
//! trilogy's store alone), and searches never fail.

use crate::common;

#[cfg(unix)]
use std::path::Path;
use std::path::PathBuf;

use common::{Ws, text};

/// A workspace with history: sessions, a decision, an entry deleted by hand (restorable only
/// from the store) and a PROJECT section with several revisions.
fn populated() -> Ws {
    let ws = Ws::init();
    for i in 0..12 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("session {i} on the kestrel{i} parser; tested"),
        ]);
    }
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--because",
        "it is transactional",
    ]);
    ws.ok(&["checkpoint", "--section", "现状", "--text", "first state"]);
    ws.ok(&["checkpoint", "--section", "现状", "--text", "second state"]);
    // deleted by hand: from now on only the store remembers it (an entry below the newest, so
    // the save cannot be a copy read before the newest was written)
    let s = ws.read("SESSIONS.md");
    let first = s.find("\n## 2026").unwrap() + 1;
    let start = first + 3 + s[first + 3..].find("\n## ").unwrap() + 1;
    let end = start + 3 + s[start + 3..].find("\n## ").unwrap() + 1;
    assert!(s[start..end].contains("kestrel10"), "{}", &s[start..end]);
    ws.write("SESSIONS.md", &format!("{}{}", &s[..start], &s[end..]));
    assert_eq!(ws.json(&["status"])["restorable"], 1);
    ws
}

fn store(ws: &Ws) -> PathBuf {
    ws.root().join(".trilogy/store.redb")
}

/// Files in `.trilogy/` whose name starts with `prefix`.
fn kept(ws: &Ws, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(ws.root().join(".trilogy"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn live_sessions(ws: &Ws) -> usize {
    ws.json(&["read", "SESSIONS.md", "-n", "1000"])["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"] == "live")
        .count()
}

/// Every command on the damaged store fails with exit 8 and a message naming `doctor --fix`;
/// `doctor` reports it; `doctor --fix` keeps the damaged file, rebuilds every entry from the
/// Markdown, and the next commands work.
fn assert_recovers(ws: &Ws, what: &str) -> String {
    let damaged = std::fs::read(store(ws)).unwrap();
    let files = ws.snapshot();
    for args in [
        &["status"][..],
        &["search", "kestrel4"],
        &["log"],
        &[
            "checkpoint",
            "--session-done",
            "written on a damaged store; tested",
        ],
    ] {
        let out = ws.run(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(8), "{what}: {args:?}: {err}");
        assert!(err.contains("doctor --fix"), "{what}: {args:?}: {err}");
        assert!(!err.contains("panicked"), "{what}: {args:?}: {err}");
    }
    assert_eq!(
        ws.snapshot(),
        files,
        "{what}: a failed command changed a file"
    );
    let doctor = ws.run(&["doctor"]);
    let report = text(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(9), "{what}: {report}");
    assert!(
        report.contains("damaged") && report.contains("doctor --fix"),
        "{what}: {report}"
    );
    assert!(!report.contains("all checks passed"), "{what}: {report}");

    let fixed = ws.run(&["doctor", "--fix"]);
    let fix_report = text(&fixed.stdout);
    assert!(
        fixed.status.success(),
        "{what}: {fix_report}{}",
        text(&fixed.stderr)
    );
    let aside = kept(ws, "store.redb.damaged-");
    assert_eq!(aside.len(), 1, "{what}: {fix_report}");
    assert_eq!(
        std::fs::read(&aside[0]).unwrap(),
        damaged,
        "{what}: the damaged copy is kept as it was"
    );
    assert!(
        fix_report.contains(&aside[0].display().to_string()),
        "{what}: {fix_report}"
    );

    // every entry of the Markdown is back, the files are as they were
    assert_eq!(ws.snapshot(), files, "{what}: {fix_report}");
    assert_eq!(live_sessions(ws), 11, "{what}");
    let hits = ws.json(&["search", "kestrel4"]);
    assert!(
        hits["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("kestrel4"),
        "{what}: {hits}"
    );
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{what}: {}", text(&doctor.stdout));
    ws.ok(&["checkpoint", "--session-done", "after the repair; tested"]);
    assert_eq!(live_sessions(ws), 12, "{what}");
    fix_report
}

#[test]
fn a_store_cut_short_is_a_store_error_and_doctor_fix_rebuilds_it() {
    for cut in ["100 B", "4 KiB", "half"] {
        let ws = populated();
        let len = std::fs::metadata(store(&ws)).unwrap().len();
        let to = match cut {
            "100 B" => 100,
            "4 KiB" => 4096,
            _ => len / 2,
        };
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(store(&ws))
            .unwrap();
        f.set_len(to).unwrap();
        drop(f);
        let report = assert_recovers(&ws, cut);
        // what could not be read back is said, not hidden
        assert!(report.contains("recover"), "{cut}: {report}");
    }
}

#[test]
fn a_store_with_garbage_pages_is_a_store_error_and_doctor_fix_rebuilds_it() {
    let ws = populated();
    let path = store(&ws);
    let mut bytes = std::fs::read(&path).unwrap();
    // overwrite the middle half, page by page, with a fixed pseudo-random pattern
    let (from, to) = (bytes.len() / 4, bytes.len() * 3 / 4);
    let mut x: u32 = 0x9e37_79b9;
    for b in &mut bytes[from..to] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    std::fs::write(&path, &bytes).unwrap();
    let report = assert_recovers(&ws, "garbage");
    assert!(
        report.contains("recovered from the damaged store"),
        "{report}"
    );
}

/// Overwrite `len` bytes of the store at `at` with `with`.
fn overwrite(ws: &Ws, at: usize, with: &[u8]) {
    let path = store(ws);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at..at + with.len()].copy_from_slice(with);
    std::fs::write(&path, &bytes).unwrap();
}

#[test]
fn a_store_with_zeroed_pages_is_a_store_error_and_doctor_fix_rebuilds_it() {
    let ws = populated();
    let len = std::fs::metadata(store(&ws)).unwrap().len() as usize;
    // whole pages in the middle of the file, as a lost write leaves them
    let (from, to) = (len / 4 / 4096 * 4096, len * 3 / 4 / 4096 * 4096);
    overwrite(&ws, from, &vec![0; to - from]);
    let report = assert_recovers(&ws, "zeroed pages");
    assert!(report.contains("recover"), "{report}");
}

#[test]
fn a_store_without_its_header_is_a_store_error_and_doctor_fix_rebuilds_it() {
    for (what, at, with) in [
        ("first 16 bytes zeroed", 0, vec![0u8; 16]),
        ("wrong magic", 0, b"SQLite format 3\0".to_vec()),
        // both commit slots and the start of the header overwritten: nothing can be read back
        ("torn header", 0, vec![0xA5; 320]),
        // the magic number whole, both commit slots torn
        ("commit slots torn", 64, vec![0xA5; 256]),
        // a grown file whose header was never written, as a killed first command left it
        ("header never written", 0, vec![0; 4096]),
    ] {
        let ws = populated();
        overwrite(&ws, at, &with);
        let report = assert_recovers(&ws, what);
        assert!(report.contains("recover"), "{what}: {report}");
    }
}

/// Each live session's id with what only the store knows of it: when it was first seen, by
/// whom, from where.
fn provenance(ws: &Ws) -> Vec<String> {
    let read = ws.json(&["read", "SESSIONS.md", "-n", "1000"]);
    (read["entries"].as_array().unwrap().iter())
        .map(|e| {
            format!(
                "{} {} {} {}",
                e["id"], e["created_at"], e["actor"], e["provenance"]
            )
        })
        .collect()
}

#[test]
fn doctor_fix_brings_back_the_history_of_a_store_it_sets_aside() {
    let ws = populated();
    let events = ws.event_count();
    let known = provenance(&ws);
    assert!(known[0].contains("\"cli\""), "{known:?}");
    // the start of the header overwritten: the rest of the file still holds every record
    overwrite(&ws, 0, &[0u8; 16]);
    let out = ws.run(&["status"]);
    assert_eq!(out.status.code(), Some(8), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("trilogy doctor --fix"),
        "{}",
        text(&out.stderr)
    );

    let fixed = ws.run(&["doctor", "--fix"]);
    let report = text(&fixed.stdout);
    assert!(fixed.status.success(), "{report}{}", text(&fixed.stderr));
    assert!(!report.contains("could not recover"), "{report}");
    assert_eq!(kept(&ws, "store.redb.damaged-").len(), 1, "{report}");
    // the entry deleted by hand is restorable again, the section keeps its revisions, the
    // old events come before the rebuild's, every entry keeps its provenance
    let status = ws.json(&["status"]);
    assert_eq!(status["restorable"], 1, "{status}");
    let history = ws.json(&["log", "--section", "现状"]);
    let bodies: Vec<&str> = history["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["body"].as_str().unwrap().trim())
        .collect();
    assert_eq!(bodies, ["second state", "first state", "暂无"], "{history}");
    assert!(ws.event_count() >= events, "{report}");
    assert!(report.contains("the provenance of 12 entries"), "{report}");
    assert_eq!(provenance(&ws), known);
    let log = ws.json(&["log", "-n", "1000"]);
    let ops: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["op"].as_str().unwrap())
        .collect();
    assert!(ops.contains(&"remove"), "{log}");
    let restored = ws.run(&["restore", &removed_id(&ws)]);
    assert!(restored.status.success(), "{}", text(&restored.stderr));
    assert!(ws.read("SESSIONS.md").contains("kestrel10"));
}

#[test]
fn a_store_from_a_newer_trilogy_is_never_set_aside() {
    use trilogy::store::{Reader, Store};
    for newer in ["schema", "file format"] {
        let ws = populated();
        let path = store(&ws);
        let mut entries = 0;
        if newer == "schema" {
            let s = Store::open(&path, std::time::Duration::from_secs(5)).unwrap();
            let w = s.write(std::time::Duration::from_secs(5)).unwrap();
            w.set_meta("schema_version", 99).unwrap();
            w.commit().unwrap();
            entries = s.read().unwrap().all_entries().unwrap().len();
        } else {
            // both commit slots name a later format of redb's file
            overwrite(&ws, 64, &[4]);
            overwrite(&ws, 192, &[4]);
        }
        let bytes = std::fs::read(&path).unwrap();
        let out = ws.run(&["status"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(8), "{newer}: {err}");
        assert!(
            err.contains("newer trilogy") && err.contains("upgrade trilogy"),
            "{newer}: {err}"
        );
        for args in [&["doctor"][..], &["doctor", "--fix"]] {
            let doctor = ws.run(args);
            let report = text(&doctor.stdout);
            assert_eq!(doctor.status.code(), Some(9), "{newer}: {args:?}: {report}");
            assert!(report.contains("newer trilogy"), "{newer}: {report}");
            assert!(report.contains("upgrade trilogy"), "{newer}: {report}");
        }
        assert!(kept(&ws, "store.redb.damaged-").is_empty(), "{newer}");
        if newer == "schema" {
            // opened by redb (which keeps its own bookkeeping in the file), never written to
            let s = Store::open_read_only(&path).unwrap();
            let r = s.read().unwrap();
            assert_eq!(r.meta("schema_version").unwrap(), 99);
            assert_eq!(r.all_entries().unwrap().len(), entries);
        } else {
            assert!(
                std::fs::read(&path).unwrap() == bytes,
                "{newer}: left as it was"
            );
        }
    }
}

fn removed_id(ws: &Ws) -> String {
    let log = ws.json(&["log", "-n", "1000"]);
    log["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["op"] == "remove")
        .and_then(|e| e["ids"][0].as_str())
        .unwrap()
        .to_string()
}

#[test]
fn doctor_names_a_directory_where_a_memory_file_should_be() {
    let ws = populated();
    std::fs::remove_file(ws.path("DECISIONS.md")).unwrap();
    std::fs::create_dir(ws.path("DECISIONS.md")).unwrap();
    let doctor = ws.run(&["doctor"]);
    let report = text(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(9), "{report}");
    assert!(
        report.contains("is a directory where a file should be"),
        "{report}"
    );
    assert!(!report.contains("is missing"), "{report}");
}

/// `trilogy doctor` run by a user the permissions bind: this one, or `nobody` through
/// `setpriv` when this one is root (then the workspace is opened up to everyone first). Root
/// without `setpriv` fails the test: permissions cannot be observed without it.
#[cfg(unix)]
fn doctor_as_a_bound_user(ws: &Ws, unreadable: &Path) -> std::process::Output {
    use std::os::unix::fs::PermissionsExt;
    let cmd = ws.std_cmd();
    let bound = std::fs::read(unreadable).is_err();
    let mut run = if bound {
        let mut c = std::process::Command::new(cmd.get_program());
        c.args(cmd.get_args());
        c
    } else {
        for entry in walk(ws.root()) {
            if entry != unreadable {
                let mode = if entry.is_dir() { 0o777 } else { 0o666 };
                std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(mode)).unwrap();
            }
        }
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid", "65534", "--regid", "65534", "--clear-groups"]);
        c.arg(cmd.get_program()).args(cmd.get_args());
        c
    };
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => run.env(k, v),
            None => run.env_remove(k),
        };
    }
    run.arg("doctor").output().unwrap_or_else(|e| {
        panic!(
            "running as root, this test needs setpriv to run doctor as `nobody` ({e}): apt-get install util-linux"
        )
    })
}

#[cfg(unix)]
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn doctor_names_an_unreadable_memory_file() {
    use std::os::unix::fs::PermissionsExt;
    let ws = populated();
    let path = ws.path("DECISIONS.md");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let doctor = doctor_as_a_bound_user(&ws, &path);
    let report = text(&doctor.stdout);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        doctor.status.code(),
        Some(9),
        "{report}{}",
        text(&doctor.stderr)
    );
    assert!(
        report.contains("unreadable — permission denied"),
        "{report}"
    );
    assert!(!report.contains("is missing"), "{report}");
}

#[test]
fn a_file_in_place_of_the_index_is_reported_kept_and_replaced() {
    let ws = populated();
    let index = ws.root().join(".trilogy/index");
    if index.exists() {
        std::fs::remove_dir_all(&index).unwrap();
    }
    std::fs::write(&index, "not an index").unwrap();
    // a search still answers, from the store
    let hits = ws.json(&["search", "kestrel4"]);
    assert!(
        hits["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("kestrel4"),
        "{hits}"
    );
    let doctor = ws.run(&["doctor"]);
    let report = text(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(9), "{report}");
    assert!(
        report.contains("is a file where the search index directory should be"),
        "{report}"
    );
    let fixed = ws.run(&["doctor", "--fix"]);
    assert!(fixed.status.success(), "{}", text(&fixed.stdout));
    let aside = kept(&ws, "index.damaged-");
    assert_eq!(aside.len(), 1, "{}", text(&fixed.stdout));
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), "not an index");
    assert!(index.is_dir());
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

/// SESSIONS.md with `n` hand-written entries, one of them naming the quokka.
fn many_sessions(n: usize) -> String {
    let mut s = String::from("# SESSIONS\n\n");
    for i in (0..n).rev() {
        let animal = if i == n / 2 { " quokka" } else { "" };
        s.push_str(&format!(
            "## 2026-{:02}-{:02}\n\n完成：routine item {i} on the parser{animal}, checked by eye\n\n",
            1 + i % 11,
            1 + i % 28
        ));
    }
    s
}

#[test]
fn searches_during_a_reindex_loop_all_answer() {
    let ws = Ws::init();
    ws.write("SESSIONS.md", &many_sessions(3000));
    ws.ok(&["status"]);
    ws.ok(&["reindex"]);
    let rounds = 8;
    let (failures, searches, reindex_failures) = std::thread::scope(|scope| {
        let reindexer = scope.spawn(|| {
            let mut failures = Vec::new();
            for _ in 0..rounds {
                let out = ws.std_cmd().arg("reindex").output().unwrap();
                if !out.status.success() {
                    failures.push(format!("{:?}: {}", out.status.code(), text(&out.stderr)));
                }
            }
            failures
        });
        let mut searches = 0;
        let mut failures = Vec::new();
        while !reindexer.is_finished() || searches < 5 {
            searches += 1;
            let out = ws.run(&["search", "quokka", "--json"]);
            if !out.status.success() {
                failures.push(format!(
                    "exit {:?}: {}",
                    out.status.code(),
                    text(&out.stderr)
                ));
                continue;
            }
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let found = v["hits"]
                .as_array()
                .unwrap()
                .iter()
                .any(|h| h["snippet"].as_str().unwrap_or("").contains("quokka"));
            if !found {
                failures.push(format!("not found: {v}"));
            }
        }
        (failures, searches, reindexer.join().unwrap())
    });
    assert!(
        failures.is_empty(),
        "{} of {searches} searches failed: {failures:#?}",
        failures.len()
    );
    assert!(reindex_failures.is_empty(), "{reindex_failures:#?}");
}

#[test]
fn a_store_another_process_holds_open_is_never_set_aside() {
    use std::io::{BufRead, BufReader, Write};
    let ws = populated();
    // an MCP server keeps the store open between calls
    let mut server = ws
        .std_cmd()
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = server.stdin.take().unwrap();
    for line in [
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}),
        serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done":"written through the server; tested"}]}}}),
    ] {
        writeln!(input, "{line}").unwrap();
    }
    let mut frames = BufReader::new(server.stdout.take().unwrap()).lines();
    let answered = frames
        .by_ref()
        .map(|l| l.unwrap())
        .find(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|f| f["id"] == 2));
    assert!(answered.is_some(), "the server answered the checkpoint");

    overwrite(&ws, 0, &[0u8; 16]);
    let damaged = std::fs::read(store(&ws)).unwrap();
    let fixed = ws.run(&["doctor", "--fix"]);
    let report = text(&fixed.stdout);
    assert_eq!(
        fixed.status.code(),
        Some(9),
        "{report}{}",
        text(&fixed.stderr)
    );
    assert!(report.contains("another process has it open"), "{report}");
    assert!(kept(&ws, "store.redb.damaged-").is_empty(), "{report}");
    assert_eq!(std::fs::read(store(&ws)).unwrap(), damaged, "left in place");

    // once the server is gone (its close may write the header again), a damaged store is set
    // aside and rebuilt
    drop(input);
    assert!(server.wait().unwrap().success());
    overwrite(&ws, 0, &[0u8; 16]);
    let fixed = ws.run(&["doctor", "--fix"]);
    assert!(fixed.status.success(), "{}", text(&fixed.stdout));
    assert_eq!(kept(&ws, "store.redb.damaged-").len(), 1);
    assert!(
        ws.read("SESSIONS.md")
            .contains("written through the server")
    );
}
