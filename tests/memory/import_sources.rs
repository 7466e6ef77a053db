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

// ---- cline --------------------------------------------------------------------------------

#[test]
fn cline_dry_run_lists_where_each_file_goes_and_writes_nothing() {
    let (_d, root) = fixture("cline");
    let (_ws, v) = dry_run_changes_nothing("cline", &root.join("memory-bank"));
    assert_eq!(item(&v, "projectbrief.md:3")["to"], "PROJECT.md › 这是什么");
    assert_eq!(
        item(&v, "productContext.md:4")["to"],
        "PROJECT.md › 这是什么"
    );
    assert_eq!(
        item(&v, "techContext.md:4")["to"],
        "PROJECT.md › 东西都在哪"
    );
    assert_eq!(
        item(&v, "techContext.md:8")["to"],
        "PROJECT.md › 怎么跑和怎么测"
    );
    assert_eq!(
        item(&v, "systemPatterns.md:4")["to"],
        "PROJECT.md › 东西都在哪"
    );
    let d = item(&v, "systemPatterns.md:7");
    assert_eq!(d["to"], "DECISIONS.md");
    assert_eq!(d["text"], format!("{MTIME_DAY} — Redux Toolkit for state"));
    let s = item(&v, "activeContext.md + progress.md");
    assert_eq!(s["to"], "SESSIONS.md");
    assert_eq!(s["status"], "add");
    assert!(
        skipped(&v, "notes-from-call.md").contains("not one of the memory bank's six core files")
    );
}

/// Regression: a source file named with terminal escape sequences drove the terminal of the
/// person previewing the import; its name is printed with them escaped.
#[test]
fn a_source_file_name_with_terminal_escapes_is_printed_escaped() {
    let (_dir, root) = fixture("cline");
    let bank = root.join("memory-bank");
    let odd = "notes\u{1b}]0;owned\u{7}\u{1b}[2J.md";
    std::fs::rename(bank.join("notes-from-call.md"), bank.join(odd)).unwrap();
    let ws = Ws::init();
    let out = ws.run(&[
        "import",
        "--from",
        "cline",
        bank.to_str().unwrap(),
        "--dry-run",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "raw escapes printed: {shown:?}"
    );
    assert!(
        shown.contains("notes\\u{1b}]0;owned\\u{7}\\u{1b}[2J.md"),
        "the name, escaped: {shown}"
    );
    // the JSON keeps the name as it is (JSON escapes it itself)
    let v = import(&ws, "cline", &bank, &["--dry-run"]);
    assert!(v.to_string().contains("notes\\u001b]0;owned"), "{v}");
}

#[test]
fn cline_import_puts_each_piece_where_the_mapping_says() {
    let (_d, root) = fixture("cline");
    let ws = Ws::init();
    // the project folder holding memory-bank/ is accepted too
    let v = import(&ws, "cline", &root, &[]);
    assert_eq!(v["added"], 13, "{v:#}");
    let what = section(&ws, "这是什么");
    assert!(
        what.contains("Stockroom is a web app for small warehouses"),
        "{what}"
    );
    assert!(
        what.contains("- Scan a barcode to look up or add an item\n- Track stock levels"),
        "{what}"
    );
    assert!(
        what.contains("lose count when two people edit at once"),
        "{what}"
    );
    assert!(!what.contains("暂无"), "{what}");
    let run = section(&ws, "怎么跑和怎么测");
    assert!(
        run.contains("- `npm install` then `npm run dev`\n- `npm test` runs Jest"),
        "{run}"
    );
    let place = section(&ws, "东西都在哪");
    assert!(place.contains("- React 18 with TypeScript"), "{place}");
    assert!(place.contains("Screens live in `src/screens/`"), "{place}");
    assert!(
        !place.contains("Redux"),
        "a decision went into a section: {place}"
    );
    assert_eq!(
        entry(
            &ws,
            "DECISIONS.md",
            &format!("{MTIME_DAY} — Redux Toolkit for state")
        ),
        format!(
            "## {MTIME_DAY} — Redux Toolkit for state\n选择：Redux Toolkit for state\n放弃：React Context\n因为：many screens share the cart\n"
        )
    );
    assert!(
        entry(
            &ws,
            "DECISIONS.md",
            &format!("{MTIME_DAY} — Barcode decoding in a Web Worker")
        )
        .contains("放弃：on the main thread")
    );
    let s = entry(&ws, "SESSIONS.md", MTIME_DAY);
    assert!(
        s.contains("完成：Finished the Firestore sync; `npm test` passes; Item list and search"),
        "{s}"
    );
    assert!(
        s.contains(
            "未完成：Barcode scanner component; Reports per location; Scanner is slow on iOS Safari"
        ),
        "{s}"
    );
    assert!(s.contains("下一步：Handle damaged barcodes"), "{s}");
    assert!(actors(&ws).iter().any(|a| a == "import:cline"));
}

#[test]
fn cline_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("cline");
    let ws = Ws::init();
    import(&ws, "cline", &root.join("memory-bank"), &[]);
    second_import_changes_nothing(&ws, "cline", &root.join("memory-bank"));
}

#[test]
fn cline_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("cline", "", "memory-bank/techContext.md");
}

#[test]
fn cline_in_english_uses_the_english_section_names() {
    let (_d, root) = fixture("cline");
    let ws = Ws::new();
    std::fs::write(ws.root().join("trilogy.toml"), "lang = \"en\"\n").unwrap();
    ws.ok(&["init"]);
    let v = import(&ws, "cline", &root, &[]);
    assert_eq!(
        item(&v, "memory-bank/techContext.md:8")["to"],
        "PROJECT.md › Run and test"
    );
    let run = section(&ws, "Run and test");
    assert!(run.contains("`npm test` runs Jest"), "{run}");
    let d = entry(
        &ws,
        "DECISIONS.md",
        &format!("{MTIME_DAY} — Redux Toolkit for state"),
    );
    assert!(d.contains("Chose: Redux Toolkit for state\nOver: React Context\nBecause: many screens share the cart"), "{d}");
}

// ---- claude -------------------------------------------------------------------------------

#[test]
fn claude_dry_run_lists_where_each_memory_goes_and_writes_nothing() {
    let (_d, root) = fixture("claude");
    let (_ws, v) = dry_run_changes_nothing("claude", &root.join("memory"));
    assert_eq!(item(&v, "feedback_pnpm.md")["to"], "DECISIONS.md");
    assert_eq!(item(&v, "project_release.md")["to"], "PROJECT.md › 现状");
    assert_eq!(
        item(&v, "reference_dashboards.md")["to"],
        "PROJECT.md › 东西都在哪"
    );
    assert_eq!(item(&v, "debugging.md")["to"], "PROJECT.md › 坑");
    assert_eq!(item(&v, "MEMORY.md:10")["to"], "PROJECT.md › 现状");
    assert!(skipped(&v, "user_profile.md").contains("about the person"));
    assert!(skipped(&v, "scratch.md").contains("not linked from MEMORY.md"));
}

#[test]
fn claude_import_puts_each_piece_where_the_mapping_says() {
    let (_d, root) = fixture("claude");
    let ws = Ws::init();
    let v = import(&ws, "claude", &root.join("memory"), &[]);
    assert_eq!(v["added"], 5, "{v:#}");
    let heading = format!("{MTIME_DAY} — Use pnpm for every install and script, never npm.");
    let d = entry(&ws, "DECISIONS.md", &heading);
    assert!(
        d.contains("选择：Use pnpm for every install and script, never npm."),
        "{d}"
    );
    assert!(
        d.contains("因为：the repository commits pnpm-lock.yaml and npm install rewrites it."),
        "{d}"
    );
    assert!(d.contains("**How to apply:** run `pnpm install`"), "{d}");
    assert!(section(&ws, "现状").contains("v2 ships on the 1st of each month"));
    assert!(section(&ws, "现状").contains("Postgres 16 in Docker, port 5433"));
    assert!(section(&ws, "东西都在哪").contains("grafana.internal/d/api-latency"));
    assert!(section(&ws, "坑").contains("port 8081 is taken"));
    for f in ["PROJECT.md", "DECISIONS.md"] {
        assert!(
            !ws.read(f).contains("terse answers"),
            "a user memory was imported into {f}"
        );
    }
    assert!(actors(&ws).iter().any(|a| a == "import:claude"));
}

#[test]
fn claude_md_notes_go_by_their_headings_and_the_rules_stay() {
    let (_d, root) = fixture("claude");
    let ws = Ws::init();
    let md = root.join("CLAUDE.md");
    let preview = import(&ws, "claude", &md, &["--dry-run"]);
    assert!(skipped(&preview, "CLAUDE.md:13").contains("`Code Style`: rules for the agent"));
    assert!(skipped(&preview, "CLAUDE.md:5").contains("@import"));
    assert!(skipped(&preview, "CLAUDE.md:19").contains("boot block"));
    let v = import(&ws, "claude", &md, &[]);
    assert_eq!(v["added"], 4, "{v:#}");
    assert!(
        section(&ws, "这是什么").contains("imports bank statements into a double-entry ledger")
    );
    assert!(section(&ws, "怎么跑和怎么测").contains("`cargo test` runs the suite"));
    assert!(section(&ws, "东西都在哪").contains("`src/parse/` holds one parser per bank"));
    assert!(section(&ws, "坑").contains("day-first"));
    let all = ws.ok(&["read"]);
    assert!(!all.contains("Errors are lowercase"), "{all}");
    assert!(!all.contains("keeps its memory in memory/"), "{all}");
    second_import_changes_nothing(&ws, "claude", &md);
}

#[test]
fn claude_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("claude");
    let ws = Ws::init();
    import(&ws, "claude", &root.join("memory"), &[]);
    second_import_changes_nothing(&ws, "claude", &root.join("memory"));
}

#[test]
fn claude_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("claude", "memory", "debugging.md");
}

// ---- delta --------------------------------------------------------------------------------

#[test]
fn delta_dry_run_lists_states_and_skips_and_writes_nothing() {
    let (_d, root) = fixture("delta");
    let (_ws, v) = dry_run_changes_nothing("delta", &root);
    assert_eq!(item(&v, "facts/win-update-cache.md")["state"], "live");
    assert_eq!(
        item(&v, "archive/win-update-cache-old.md")["state"],
        "superseded"
    );
    assert_eq!(item(&v, "archive/node18-pin.md")["state"], "archived");
    assert_eq!(
        item(&v, "decisions/sandbox-no-pipe.md")["text"],
        "2026-09-12 — 测试里子进程输出一律重定向到文件，不用管道。"
    );
    assert!(skipped(&v, "inbox/maybe-cache.md").contains("never promoted"));
    assert!(skipped(&v, "journal.md").contains("journal"));
}

#[test]
fn delta_import_keeps_superseded_states_archives_expired_and_keeps_verify_when() {
    let (_d, root) = fixture("delta");
    let ws = Ws::init();
    let v = import(&ws, "delta", &root, &[]);
    assert_eq!(v["added"], 4, "{v:#}");
    let new = "2026-09-17 — 清 Windows 更新下载缓存实测收益为零，不要再折腾。";
    assert_eq!(
        entry(&ws, "DECISIONS.md", new),
        format!(
            "## {new}\n选择：清 Windows 更新下载缓存实测收益为零，不要再折腾。\n因为：目录删空但可用空间没涨；servicing 同时在写入。\n主题：disk-cleanup\n标签：windows, disk\n复核时机：Windows 大版本更新后重新评估\n"
        )
    );
    let old = entry(
        &ws,
        "DECISIONS.md",
        "2026-09-10 — 清 Windows 更新缓存能腾出 8 GB。",
    );
    assert!(old.contains(&format!("已被取代：{new}")), "{old}");
    assert!(
        !old.contains("待补充"),
        "the placeholder reason was imported: {old}"
    );
    assert!(
        entry(
            &ws,
            "DECISIONS.md",
            "2026-09-12 — 测试里子进程输出一律重定向到文件，不用管道。"
        )
        .contains("复核时机：3个月后")
    );
    // expired: archived in the store, out of the file, restorable
    let decisions = ws.read("DECISIONS.md");
    assert!(!decisions.contains("Node 18"), "{decisions}");
    let id = item(&v, "archive/node18-pin.md")["id"]
        .as_str()
        .unwrap()
        .to_string();
    ws.ok(&["restore", &id]);
    assert!(
        ws.read("DECISIONS.md")
            .contains("## 2026-08-01 — CI 固定用 Node 18。")
    );
    assert!(
        !decisions.contains("也许可以缓存"),
        "an inbox candidate was imported"
    );
    assert!(actors(&ws).iter().any(|a| a == "import:delta"));
}

#[test]
fn delta_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("delta");
    let ws = Ws::init();
    import(&ws, "delta", &root, &[]);
    second_import_changes_nothing(&ws, "delta", &root);
}

#[test]
fn delta_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("delta", "", "decisions/sandbox-no-pipe.md");
}

#[test]
fn delta_bad_field_is_refused_naming_file_line_and_field() {
    let (_d, root) = fixture("delta");
    let f = root.join("facts/win-update-cache.md");
    let t = std::fs::read_to_string(&f)
        .unwrap()
        .replace("status: active", "status: maybe");
    std::fs::write(&f, t).unwrap();
    let ws = Ws::init();
    let before = tree(ws.root());
    let out = ws.run(&["import", "--from", "delta", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("{}: line 7: field `status`: `maybe`", f.display())),
        "{err}"
    );
    assert_same(&before, &tree(ws.root()), "a refused import");
}

// ---- basic-memory -------------------------------------------------------------------------

#[test]
fn basic_memory_dry_run_lists_observations_and_skips_relations_and_writes_nothing() {
    let (_d, root) = fixture("basic-memory");
    let (_ws, v) = dry_run_changes_nothing("basic-memory", &root);
    assert_eq!(
        item(&v, "architecture/search-design.md:15")["to"],
        "DECISIONS.md"
    );
    assert_eq!(
        item(&v, "architecture/search-design.md:16")["to"],
        "PROJECT.md › 东西都在哪"
    );
    assert_eq!(
        item(&v, "architecture/search-design.md:17")["to"],
        "PROJECT.md › 坑"
    );
    assert_eq!(
        item(&v, "architecture/search-design.md:18")["to"],
        "PROJECT.md › 怎么跑和怎么测"
    );
    assert_eq!(
        item(&v, "meetings/kickoff.md:11")["to"],
        "PROJECT.md › 这是什么"
    );
    assert!(skipped(&v, "architecture/search-design.md:22").contains("2 relation(s)"));
    assert!(skipped(&v, "architecture/diagram.png").contains("not a Markdown note"));
}

#[test]
fn basic_memory_import_puts_each_observation_where_its_category_says() {
    let (_d, root) = fixture("basic-memory");
    let ws = Ws::init();
    let v = import(&ws, "basic-memory", &root, &[]);
    assert_eq!(v["added"], 7, "{v:#}");
    assert_eq!(
        entry(
            &ws,
            "DECISIONS.md",
            "2025-10-24 — Use SQLite FTS5 for full-text search"
        ),
        "## 2025-10-24 — Use SQLite FTS5 for full-text search\n选择：Use SQLite FTS5 for full-text search\n因为：no extra server to run\n标签：search\n"
    );
    assert!(
        entry(
            &ws,
            "DECISIONS.md",
            "2025-09-30 — Ship desktop before mobile"
        )
        .contains("因为：the team knows Electron")
    );
    assert!(section(&ws, "坑").contains("- [issue] Tokenizer splits CJK text badly"));
    assert!(section(&ws, "怎么跑和怎么测").contains("- [command] `make reindex` rebuilds"));
    assert!(
        section(&ws, "东西都在哪").contains("- [architecture] The indexer lives in `src/index/`")
    );
    assert!(section(&ws, "这是什么").contains("- [goal] A notes app that works offline first"));
    let all = ws.ok(&["read"]);
    assert!(
        !all.contains("book the room"),
        "a task item was imported: {all}"
    );
    assert!(
        !all.contains("[[Database Schema]]"),
        "a relation was imported: {all}"
    );
    assert!(actors(&ws).iter().any(|a| a == "import:basic-memory"));
}

#[test]
fn basic_memory_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("basic-memory");
    let ws = Ws::init();
    import(&ws, "basic-memory", &root, &[]);
    second_import_changes_nothing(&ws, "basic-memory", &root);
}

#[test]
fn basic_memory_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("basic-memory", "", "meetings/kickoff.md");
}

// ---- hostile sources ----------------------------------------------------------------------

#[test]
fn links_out_fifos_and_huge_files_are_skipped_with_a_note_and_never_read() {
    let (_d, root) = fixture("claude");
    let mem = root.join("memory");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("elsewhere.md"),
        "- SECRET-OUTSIDE text\n",
    )
    .unwrap();
    // a topic "file" that is a link out of PATH, a FIFO and an oversized file, all linked
    std::os::unix::fs::symlink(outside.path().join("elsewhere.md"), mem.join("linked.md")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(mem.join("pipe.md"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let big = std::fs::File::create(mem.join("big.md")).unwrap();
    big.set_len(2 * 1024 * 1024).unwrap();
    let mut index = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    index.push_str("- [Out](linked.md) — x\n- [Pipe](pipe.md) — x\n- [Big](big.md) — x\n- [Up](../../../etc/passwd.md) — x\n");
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    let ws = Ws::init();
    let v = import(&ws, "claude", &mem, &["--dry-run"]);
    assert!(skipped(&v, "linked.md").contains("symbolic link"));
    assert!(skipped(&v, "pipe.md").contains("FIFO"));
    assert!(skipped(&v, "big.md").contains("limit"));
    assert!(skipped(&v, "../../../etc/passwd.md").contains("outside PATH"));
    let v = import(&ws, "claude", &mem, &[]);
    assert_eq!(v["added"], 5, "{v:#}");
    assert!(!ws.ok(&["read"]).contains("SECRET-OUTSIDE"));
}

#[test]
fn a_folder_that_is_not_the_source_is_refused_and_nothing_changes() {
    let ws = Ws::init();
    let empty = tempfile::tempdir().unwrap();
    let before = tree(ws.root());
    for (source, says) in [
        ("claude", "no MEMORY.md"),
        ("cline", "none of the memory bank's core files"),
        ("delta", "not a dsh-memory-delta store"),
        ("basic-memory", "no Markdown notes"),
    ] {
        let out = ws.run(&["import", "--from", source, empty.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{source}");
        assert!(
            text(&out.stderr).contains(says),
            "{source}: {}",
            text(&out.stderr)
        );
    }
    let out = ws.run(&["import", "--from", "cline", "/nonexistent/memory-bank"]);
    assert!(
        text(&out.stderr).contains("no such file or folder"),
        "{}",
        text(&out.stderr)
    );
    assert_same(&before, &tree(ws.root()), "a refused import");
}

#[test]
fn a_bundle_still_imports_without_from_and_dry_run_needs_from() {
    let ws = Ws::init();
    let out = ws.run(&["import", "x.json", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let a = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "用 redb 存状态",
        "--because",
        "多进程",
    ]);
    let bundle = a.root().join("b.json");
    ws.ok(&["export", "--out", bundle.to_str().unwrap()]);
    let v = a.json(&["import", bundle.to_str().unwrap()]);
    assert_eq!(v["mode"], "empty");
    assert!(a.read("DECISIONS.md").contains("用 redb 存状态"));
}
