//! Every test file belongs to a suite: `tests/` holds one folder per area, each a test binary
//! (`tests/<area>/main.rs`) that declares every file beside it as a module. A file cargo would
//! not build (left at the top, or never declared) would pass by never running; this finds it.
//! A module of an area may be a folder (`<name>/mod.rs` with its own modules beside it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The `.rs` files directly in `dir`, by stem.
fn rust_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// The modules `source` declares from files (`mod name;`, not inline `mod name { … }`), with
/// the path a `#[path = "…"]` line above one gives it.
fn declared(source: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut path = None;
    for line in source.lines().map(str::trim) {
        if let Some(p) = line
            .strip_prefix("#[path = \"")
            .and_then(|r| r.strip_suffix("\"]"))
        {
            path = Some(p.to_string());
            continue;
        }
        let line = line.strip_prefix("pub ").unwrap_or(line);
        if let Some(name) = line.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            out.push((name.to_string(), path.take()));
        } else if !line.starts_with("#[") {
            path = None;
        }
    }
    out
}

/// The areas: the folders of `tests/` with a `main.rs`.
fn areas() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(tests_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("main.rs").is_file())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn no_test_file_sits_outside_an_area() {
    let loose = rust_files(&tests_dir());
    assert!(
        loose.is_empty(),
        "tests/{{{}}}.rs would each build as a test binary of their own: move each into the \
         area it tests (tests/<area>/) and declare it in that area's main.rs",
        loose.into_iter().collect::<Vec<_>>().join(",")
    );
}

/// The folders directly in `dir` that are modules (hold a `mod.rs`), by name.
fn module_dirs(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("mod.rs").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// Checks that `dir` holds exactly the modules `parent` (its `main.rs` or `mod.rs`) declares,
/// each a file `<name>.rs` or a folder `<name>/mod.rs`, and the same inside each such folder.
fn check_modules(dir: &Path, parent: &str) {
    let source = std::fs::read_to_string(dir.join(parent)).unwrap();
    let mods: BTreeSet<String> = declared(&source)
        .into_iter()
        .filter(|(_, path)| path.is_none())
        .map(|(name, _)| name)
        .collect();
    let mut files = rust_files(dir);
    files.remove(parent.trim_end_matches(".rs"));
    let folders = module_dirs(dir);
    files.extend(folders.iter().cloned());
    let forgotten: Vec<_> = files.difference(&mods).collect();
    let missing: Vec<_> = mods.difference(&files).collect();
    assert!(
        forgotten.is_empty() && missing.is_empty(),
        "{}: files never declared in {parent}: {forgotten:?}; declared without a file: {missing:?}",
        dir.display()
    );
    for folder in folders {
        check_modules(&dir.join(folder), "mod.rs");
    }
}

#[test]
fn every_file_of_an_area_is_a_module_of_it() {
    let areas = areas();
    assert!(
        areas.len() >= 5,
        "expected the areas of tests/, found {areas:?}"
    );
    for area in areas {
        check_modules(&area, "main.rs");
    }
}

#[test]
fn every_shared_helper_is_reached() {
    // the helpers outside the areas are reached through `#[path]` (or `mod` from common's own
    // mod.rs): collect every path the suite names and resolve it against the naming file
    let mut reached = BTreeSet::new();
    let mut sources = Vec::new();
    for area in areas() {
        for stem in rust_files(&area) {
            sources.push(area.join(format!("{stem}.rs")));
        }
    }
    let common = tests_dir().join("common");
    sources.push(common.join("mod.rs"));
    for file in &sources {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap();
        for (name, path) in declared(&text) {
            let target = match path {
                Some(p) => dir.join(p),
                None if file.ends_with("common/mod.rs") => dir.join(format!("{name}.rs")),
                None => continue,
            };
            reached.insert(target.canonicalize().unwrap_or(target));
        }
    }
    for helpers in ["common", "eval"] {
        let dir = tests_dir().join(helpers);
        for stem in rust_files(&dir) {
            let file = dir.join(format!("{stem}.rs")).canonicalize().unwrap();
            assert!(
                reached.contains(&file) || (helpers == "common" && stem == "mod"),
                "{} is reached by no test: declare it (`#[path = \"…\"] mod …;`) where it is used",
                file.display()
            );
        }
    }
}

#[test]
fn the_module_scanner_reads_declarations() {
    let source = "#[path = \"../common/mod.rs\"]\nmod common;\n\nmod a;\npub mod b;\n#[cfg(unix)]\nmod c;\nmod inline {\n}\n";
    assert_eq!(
        declared(source),
        vec![
            ("common".to_string(), Some("../common/mod.rs".to_string())),
            ("a".to_string(), None),
            ("b".to_string(), None),
            ("c".to_string(), None),
        ]
    );
}
