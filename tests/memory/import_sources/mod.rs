//! `trilogy import --from SOURCE PATH` through the real binary, on fixtures in each tool's
//! real format (`tests/fixtures/import/<source>/`): the dry run says what goes where and
//! changes no byte, the import puts each piece where the mapping says, a second import (on a
//! later day too) changes nothing, a credential in the source is refused with its location,
//! and hostile or broken sources are skipped or refused without writing.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::{Ws, text};
use serde_json::Value;

mod basic_memory;
mod claude;
mod cline;
mod codex;
mod delta;
mod gemini;
mod refusals;

/// The fixtures' files all claim this modification time (2025-06-15 12:00 UTC), so the dates
/// taken from mtimes are the same on every machine.
const MTIME_SECS: u64 = 1_749_988_800;

const MTIME_DAY: &str = "2025-06-15";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn pin_mtimes(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            pin_mtimes(&p);
        } else {
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(MTIME_SECS))
                .unwrap();
        }
    }
}

/// A copy of the fixture of `source` in its own temporary folder (outside the workspace).
fn fixture(source: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("trilogy-source-")
        .tempdir()
        .unwrap();
    let root = dir.path().join(source);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import")
            .join(source),
        &root,
    );
    pin_mtimes(&root);
    (dir, root)
}

/// Every file under `root` (the store included) with its bytes — except the read path's stat
/// cache, `.trilogy/settled.json`, which any read (`trilogy status`, `trilogy read`) may write
/// when it finds the files as the store last wrote them.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(root).unwrap().display().to_string();
            if name == ".trilogy/settled.json" {
                continue;
            }
            if p.is_dir() {
                out.push((format!("{name}/"), Vec::new()));
                stack.push(p);
            } else {
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Fail naming the files that differ (not their bytes).
fn assert_same(before: &[(String, Vec<u8>)], after: &[(String, Vec<u8>)], what: &str) {
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(before),
        names(after),
        "{what}: files appeared or went"
    );
    let changed: Vec<&String> = before
        .iter()
        .zip(after)
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, _)| &a.0)
        .collect();
    assert!(changed.is_empty(), "{what}: changed {changed:?}");
}

fn import(ws: &Ws, source: &str, path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["import", "--from", source, path.to_str().unwrap()];
    args.extend_from_slice(extra);
    ws.json(&args)
}

/// The item of a preview or result that came from `from` (a prefix: `file:line`).
fn item<'a>(v: &'a Value, from: &str) -> &'a Value {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["from"].as_str().unwrap().starts_with(from))
        .unwrap_or_else(|| panic!("no item from {from} in {v:#}"))
}

fn skipped(v: &Value, from: &str) -> String {
    v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["from"].as_str().unwrap().starts_with(from))
        .unwrap_or_else(|| panic!("nothing skipped from {from} in {v:#}"))["reason"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The body of PROJECT section `name` as `read --section` prints it.
fn section(ws: &Ws, name: &str) -> String {
    ws.ok(&["read", "--section", name])
}

/// The text of the `## heading` entry in `file`, up to the next entry.
fn entry(ws: &Ws, file: &str, heading: &str) -> String {
    let t = ws.read(file);
    let start = t
        .find(&format!("## {heading}\n"))
        .unwrap_or_else(|| panic!("no `## {heading}` in {file}:\n{t}"));
    let rest = &t[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

/// Dry run: a preview naming what goes where, and not one byte of the workspace changed.
fn dry_run_changes_nothing(source: &str, path: &Path) -> (Ws, Value) {
    let ws = Ws::init();
    let before = tree(ws.root());
    let v = import(&ws, source, path, &["--dry-run"]);
    assert_eq!(v["dry_run"], true);
    assert!(v["written"].as_array().unwrap().is_empty());
    assert!(v["added"].as_u64().unwrap() > 0, "{v:#}");
    let human = ws.ok(&[
        "import",
        "--from",
        source,
        path.to_str().unwrap(),
        "--dry-run",
    ]);
    assert!(human.contains("dry run: nothing written"), "{human}");
    assert!(human.contains("skipped:"), "{human}");
    assert_same(&before, &tree(ws.root()), "a dry run");
    (ws, v)
}

/// A second import, on the same day and a later one, changes no byte and adds nothing.
fn second_import_changes_nothing(ws: &Ws, source: &str, path: &Path) {
    let before = tree(ws.root());
    let v = import(ws, source, path, &[]);
    assert_eq!(v["added"], 0, "{v:#}");
    assert!(v["written"].as_array().unwrap().is_empty());
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", "2027-03-04")
        .args(["import", "--from", source, path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let later: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(later["added"], 0, "{later:#}");
    assert_same(&before, &tree(ws.root()), "a repeated import");
}

/// A credential written into `file` of the source is refused with file and line; nothing
/// in the workspace changes.
fn secret_is_refused(source: &str, under: &str, file: &str) {
    let (_d, fixture_root) = fixture(source);
    let root = fixture_root.join(under);
    let path = root.join(file);
    let mut t = std::fs::read_to_string(&path).unwrap();
    let line = t.lines().count() + 1;
    t.push_str("deploy token ghp_R8x2Kq9ZtLmW4vNc7PbY1sHd6JfG3aUe0XoI\n");
    std::fs::write(&path, t).unwrap();
    let ws = Ws::init();
    let before = tree(ws.root());
    for dry in [true, false] {
        let mut args = vec!["import", "--from", source, root.to_str().unwrap()];
        if dry {
            args.push("--dry-run");
        }
        let out = ws.run(&args);
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!(
                "{}: line {line}: looks like a GitHub token",
                path.display()
            )),
            "{err}"
        );
        assert!(
            !err.contains("R8x2Kq9ZtLmW4vNc7PbY1sHd6JfG3aUe0XoI"),
            "{err}"
        );
    }
    assert_same(&before, &tree(ws.root()), "a refused import");
}

fn actors(ws: &Ws) -> Vec<String> {
    let v = ws.json(&["log", "-n", "1000"]);
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["actor"].as_str().unwrap().to_string())
        .collect()
}
