//! The git merge driver on three arbitrary documents: it never panics; a merge without
//! conflict markers writes a file that parses with every fence closed (or is refused, leaving
//! git's line merge to it); every entry (PROJECT: every section) that both sides kept is in the result. Run with
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run merge` from `tests/fuzz/`.
//!
//! Input: the first byte picks the memory file (PROJECT, DECISIONS, SESSIONS, the archive),
//! the rest is split at NUL bytes into base, ours and theirs. Seeds: `seeds/merge/`.

#![no_main]

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use trilogy::markdown::{Doc, parse_bytes, reads_back, safe_body};
use trilogy::model::{FileKind, section_key};
use trilogy::ops::gitmerge::merge_driver;

/// One scratch folder for the whole run (the driver works on files, as git calls it).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // the driver writes with fsync: on tmpfs that costs nothing
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
        let dir = base.join(format!("trilogy-fuzz-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    })
}

fn keys(kind: FileKind, doc: &Doc) -> HashSet<String> {
    doc.blocks
        .iter()
        .map(|b| match kind {
            FileKind::Project => section_key(&b.heading),
            // the driver closes a fence left open at the end of a body, as the sync does
            _ => {
                let risky = b.body.contains(['`', '~', '<']);
                let body = match !risky || reads_back(&b.body) {
                    true => b.body.clone(),
                    false => safe_body(&b.body),
                };
                format!("{}\n{}", b.heading, body)
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let kind = FileKind::ALL[usize::from(pick) % FileKind::ALL.len()];
    let strip = matches!(kind, FileKind::Sessions | FileKind::Archive);
    let mut parts = rest.splitn(3, |b| *b == 0);
    let versions = [
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    ];
    let dir = scratch();
    let [base, ours, theirs] = ["base", "ours", "theirs"].map(|n| dir.join(n));
    for (path, bytes) in [&base, &ours, &theirs].into_iter().zip(versions) {
        std::fs::write(path, bytes).expect("write a version");
    }
    // the driver moves entries around, so a fence left open above a heading is refused too
    let parsed = versions.map(|v| {
        parse_bytes(v, strip)
            .and_then(|p| p.require_closed().map(|()| p))
            .ok()
    });
    let name = format!("memory/{}", kind.file_name());
    let report = match merge_driver(&base, &ours, &theirs, &name) {
        Ok(r) => r,
        Err(e) => {
            // refused (git then merges line by line) only when a version does not parse, or
            // when the merge would not read back
            assert!(
                parsed.iter().any(Option::is_none) || e.to_string().contains("merged result"),
                "refused parseable versions: {e}"
            );
            return;
        }
    };
    let (Some(o), Some(t)) = (&parsed[1], &parsed[2]) else {
        unreachable!("the driver merged an unparseable version");
    };
    let written = std::fs::read(&ours).expect("read the result");
    if report.conflicts > 0 {
        return;
    }
    let merged = match parse_bytes(&written, strip) {
        Ok(m) => m,
        Err(e) => panic!(
            "the merged file does not parse ({e}):\n{}",
            String::from_utf8_lossy(&written)
        ),
    };
    let got = keys(kind, &merged.doc);
    for k in keys(kind, &o.doc).intersection(&keys(kind, &t.doc)) {
        assert!(got.contains(k), "both sides kept {k:?}, the merge lost it");
    }
});
