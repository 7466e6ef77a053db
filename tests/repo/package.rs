//! What `cargo package` ships: every file the binary compiles in (`include_str!`,
//! `include_bytes!`) matches the manifest's `include` list, and nothing of the tests, the
//! benches or the README's screenshot does — so `cargo install` from the package builds, and
//! the package carries none of the fixtures' bulk.

use std::path::{Path, PathBuf};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `include` patterns of `Cargo.toml`, without their leading `/`.
fn include_patterns() -> Vec<String> {
    let text = std::fs::read_to_string(manifest_dir().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    manifest["package"]["include"]
        .as_array()
        .expect("Cargo.toml has a package.include list")
        .iter()
        .map(|v| v.as_str().unwrap().trim_start_matches('/').to_string())
        .collect()
}

/// Cargo's glob subset used in the list: `*` within a path segment, `**` across segments.
fn matches(pattern: &str, path: &str) -> bool {
    fn go(p: &[&str], s: &[&str]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(&"**"), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some(seg), Some(name)) => segment(seg, name) && go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    fn segment(p: &str, s: &str) -> bool {
        match p.split_once('*') {
            None => p == s,
            Some((head, tail)) => {
                s.len() >= head.len() + tail.len() && s.starts_with(head) && s.ends_with(tail)
            }
        }
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let s: Vec<&str> = path.split('/').collect();
    go(&p, &s)
}

fn included(patterns: &[String], path: &str) -> bool {
    patterns.iter().any(|p| matches(p, path))
}

/// Every file under `dir`, recursively, leaving out installed and built trees (the
/// end-to-end suites' `node_modules/`, the fuzz targets' `target/`), which git ignores.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if !p.ends_with("node_modules") && !p.ends_with("target") {
                files(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// The files `src/` compiles in, relative to the manifest directory.
fn compiled_in() -> Vec<String> {
    let root = manifest_dir();
    let mut sources = Vec::new();
    files(&root.join("src"), &mut sources);
    let re = regex::Regex::new(r#"include_(?:str|bytes)!\(\s*"([^"]+)"\s*\)"#).unwrap();
    let mut out = Vec::new();
    for src in sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        let text = std::fs::read_to_string(src).unwrap();
        for c in re.captures_iter(&text) {
            let target = src.parent().unwrap().join(&c[1]);
            let target = target
                .canonicalize()
                .unwrap_or_else(|e| panic!("{}: {}: {e}", src.display(), &c[1]));
            let rel = target
                .strip_prefix(root.canonicalize().unwrap())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(rel);
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_globs_match_as_cargo_reads_them() {
    assert!(matches("src/**/*.rs", "src/lib.rs"));
    assert!(matches("src/**/*.rs", "src/ops/session_block/cut.rs"));
    assert!(!matches("src/**/*.rs", "src/ops/notes.md"));
    assert!(matches("templates/zh/*.md", "templates/zh/PROJECT.md"));
    assert!(!matches("templates/zh/*.md", "templates/zh/sub/PROJECT.md"));
    assert!(!matches("README.md", "tests/README.md"));
}

#[test]
fn the_package_holds_every_compiled_in_file_and_no_test_bulk() {
    let patterns = include_patterns();
    let compiled = compiled_in();
    assert!(
        compiled.len() >= 20,
        "the templates, panel, plugin and schemas: {compiled:?}"
    );
    for f in &compiled {
        assert!(
            included(&patterns, f),
            "{f} is compiled into the binary but not in Cargo.toml's package.include: \
             add it there, or `cargo install` from the package fails"
        );
    }
    for f in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
    ] {
        assert!(included(&patterns, f), "{f} is not packaged");
    }
    let root = manifest_dir();
    let mut bulk = Vec::new();
    for dir in ["tests", "benches"] {
        files(&root.join(dir), &mut bulk);
    }
    bulk.push(root.join("templates/panel/panel.png"));
    for f in bulk {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert!(!included(&patterns, &rel), "{rel} would be packaged");
    }
}
