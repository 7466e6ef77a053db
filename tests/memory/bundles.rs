//! Bundles, clear, the boot block and restore by text, through the real binary: export →
//! import gives the same bytes, the original plugin's bundles load, a bad bundle changes
//! nothing, a merge adds only what is new and keeps what differs restorable, `--replace` and
//! `clear` displace nothing for good.

use crate::common;

use std::path::Path;

use common::{Ws, headings, session_start_payload, text};
use serde_json::{Value, json};

/// Every file under `root` (the store included) with its bytes: what "nothing written" means.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(root).unwrap().display().to_string();
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

const O_PROJECT: &str = "# PROJECT\n\n> 这里写项目现在的样子，原地改，一屏以内。\n> 和代码冲突时以代码为准，并在同一次改动里修正这里。\n\n## 这是什么\n\n一个记账小工具，命令行。\n\n## 怎么跑和怎么测\n\nnpm test\n\n## 东西都在哪\n\nsrc/ 和 test/\n\n## 现状\n\n导出做完了，筛选还没做。\n\n## 坑\n\n暂无\n";
const O_DECISIONS: &str = "# DECISIONS\n\n> 只追加，新的在最上面。\n\n## 2026-01-05 — 用 SQLite 存账目\n选择：用 SQLite 存账目\n放弃：JSON 文件\n因为：要并发读\n";
const O_SESSIONS: &str = "# SESSIONS\n\n> 只追加，新的在最上面。\n\n## 2026-01-06 · 导出\n完成：导出 CSV；npm test 通过\n下一步：加日期筛选\n\n> 更早的会话条目已归档到 2 条（见 `SESSIONS-archive.md`，不会自动注入，需要时用 `memory_read` 读取）。\n";
const O_ARCHIVE: &str = "# SESSIONS ARCHIVE\n\n> 这些条目是从 SESSIONS.md 移出来的。\n> 最新的在最前，形状和 SESSIONS.md 一样。\n> 不会自动注入。\n\n## 2026-01-02 · 导入\n完成：银行流水解析器写好了；单测通过\n\n## 2026-01-01\nDone: scaffolded the repo; npm test passes\n";

/// A bundle as the original plugin's panel exported it.
fn original_bundle() -> Value {
    json!({
        "kind": "dsh-trilogy/memory-bundle",
        "version": 1,
        "exportedAt": "2026-01-07T08:00:00.000Z",
        "root": "/home/someone/ledger",
        "files": {
            "PROJECT.md": O_PROJECT,
            "DECISIONS.md": O_DECISIONS,
            "SESSIONS.md": O_SESSIONS,
            "SESSIONS-archive.md": O_ARCHIVE,
        }
    })
}

fn write_bundle(ws: &Ws, name: &str, v: &Value) -> String {
    let p = ws.root().join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p.display().to_string()
}

fn session(ws: &Ws, done: &str, area: &str) {
    ws.ok(&["checkpoint", "--session-done", done, "--area", area]);
}

/// A workspace with sessions (two of them archived), a decision and a PROJECT section.
fn recorded() -> Ws {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 3\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for i in 1..=5 {
        session(&ws, &format!("第 {i} 步做完；cargo test 通过"), "构建");
    }
    ws.ok(&[
        "checkpoint",
        "--decision",
        "用 redb 存状态",
        "--because",
        "多进程",
    ]);
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "能跑，缺导出。",
    ]);
    ws
}

/// A bundle file of `ws` (through `export --out`).
fn export(ws: &Ws, to: &Path) -> Value {
    let out = to.join("bundle.json");
    ws.ok(&["export", "--out", out.to_str().unwrap()]);
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

#[test]
fn export_then_import_into_an_empty_workspace_gives_the_same_bytes() {
    let a = recorded();
    assert!(a.path("SESSIONS-archive.md").exists());
    let b = Ws::new();
    let bundle = export(&a, b.root());
    assert_eq!(bundle["kind"], "dsh-trilogy/memory-bundle");
    assert_eq!(bundle["version"], 1);
    assert!(bundle["exportedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(bundle["root"], a.root().display().to_string());
    assert_eq!(bundle["files"].as_object().unwrap().len(), 4);
    // stdout gives the same bundle
    let printed: Value = serde_json::from_str(&a.ok(&["export"])).unwrap();
    assert_eq!(printed["files"], bundle["files"]);

    let file = b.root().join("bundle.json");
    let v = b.json(&["import", file.to_str().unwrap()]);
    assert_eq!(v["mode"], "empty");
    for name in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert_eq!(b.read(name), a.read(name), "{name} byte for byte");
    }
    // the store agrees with the files: a read changes nothing, the entries are there
    let before = b.snapshot();
    let s = b.json(&["read", "SESSIONS.md", "-n", "10"]);
    assert_eq!(s["entries"].as_array().unwrap().len(), 3);
    assert_eq!(b.snapshot(), before);
    // and exported again it is the same bundle
    let again: Value = serde_json::from_str(&b.ok(&["export"])).unwrap();
    assert_eq!(again["files"], bundle["files"]);
}

#[test]
fn a_bundle_exported_by_the_original_plugin_imports_and_reads_back() {
    let ws = Ws::new();
    let file = write_bundle(&ws, "old.json", &original_bundle());
    let out = ws.ok(&["import", &file]);
    assert!(out.contains("imported into an empty workspace"), "{out}");
    assert_eq!(ws.read("PROJECT.md"), O_PROJECT);
    assert_eq!(ws.read("DECISIONS.md"), O_DECISIONS);
    assert_eq!(ws.read("SESSIONS.md"), O_SESSIONS);
    assert_eq!(ws.read("SESSIONS-archive.md"), O_ARCHIVE);

    let now = ws.json(&["read", "--section", "现状"]);
    assert!(now.to_string().contains("导出做完了"), "{now}");
    let d = ws.json(&["read", "DECISIONS.md", "-n", "5"]);
    assert_eq!(d["entries"][0]["fields"]["chose"], "用 SQLite 存账目");
    let archived = ws.json(&["read", "SESSIONS-archive.md", "-n", "5"]);
    assert_eq!(archived["entries"].as_array().unwrap().len(), 2);
    let hit = ws.json(&["search", "银行流水"]);
    assert_eq!(hit["hits"][0]["file"], "SESSIONS-archive.md", "{hit}");
    // the files stay as they were imported
    assert_eq!(ws.read("SESSIONS.md"), O_SESSIONS);
}

#[test]
fn a_bad_bundle_is_refused_whole_and_nothing_is_written() {
    let secret = {
        let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
            .chars()
            .collect();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let body: String = (0..36)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                alphabet[((x >> 33) % 62) as usize]
            })
            .collect();
        format!("ghp_{body}")
    };
    let with = |name: &str, text: String| {
        let mut b = original_bundle();
        b["files"][name] = Value::String(text);
        b
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "foreign kind",
            {
                let mut b = original_bundle();
                b["kind"] = json!("someone-else/notes");
                serde_json::to_string(&b).unwrap()
            },
            "kind=\"someone-else/notes\"",
        ),
        (
            "only unknown files",
            json!({"kind": "dsh-trilogy/memory-bundle", "version": 1, "files": {"notes.md": "x", "package.json": "{}"}})
                .to_string(),
            "holds none of",
        ),
        (
            "a conflict marker",
            with(
                "SESSIONS.md",
                format!("{O_SESSIONS}\n<<<<<<< ours\n完成：a\n=======\n完成：b\n>>>>>>> theirs\n"),
            )
            .to_string(),
            "SESSIONS.md: line",
        ),
        (
            "an unclosed fence hiding headings",
            with(
                "DECISIONS.md",
                "# DECISIONS\n\n```\n## 2026-01-05 — a\n选择：a\n".into(),
            )
            .to_string(),
            "DECISIONS.md: line 3",
        ),
        (
            "a secret",
            with(
                "SESSIONS-archive.md",
                format!("{O_ARCHIVE}\n## 2025-12-30\n完成：token {secret}\n"),
            )
            .to_string(),
            "SESSIONS-archive.md: line 14: looks like",
        ),
        ("not JSON", "{\"kind\": \"dsh-trilogy/mem".into(), "not JSON"),
    ];
    for fresh in [true, false] {
        let ws = if fresh { Ws::new() } else { recorded() };
        for (what, body, says) in &cases {
            let p = ws.root().join("..").join(format!(
                "{}-bad.json",
                ws.root().file_name().unwrap().to_string_lossy()
            ));
            std::fs::write(&p, body).unwrap();
            let before = tree(ws.root());
            let out = ws.run(&["import", p.to_str().unwrap()]);
            std::fs::remove_file(&p).unwrap();
            assert_eq!(out.status.code(), Some(3), "{what}: {}", text(&out.stderr));
            let err = text(&out.stderr);
            assert!(err.contains(says), "{what}: {err}");
            assert_eq!(tree(ws.root()), before, "{what}: nothing written");
            if fresh {
                assert!(!ws.root().join("memory").exists(), "{what}");
            }
        }
    }
}

#[test]
fn merge_import_adds_only_the_entries_the_workspace_lacks() {
    let a = Ws::init();
    session(&a, "共同的第一步；测过", "构建");
    session(&a, "共同的第二步；测过", "构建");
    let b = Ws::new();
    let shared = export(&a, b.root());
    b.ok(&["import", b.root().join("bundle.json").to_str().unwrap()]);
    assert_eq!(
        shared["files"]["SESSIONS.md"].as_str().unwrap(),
        b.read("SESSIONS.md")
    );
    // both go on separately
    session(&a, "只有 A 做的；测过", "导出");
    a.ok(&[
        "checkpoint",
        "--decision",
        "只有 A 的决定",
        "--because",
        "试试",
    ]);
    session(&b, "只有 B 做的；测过", "导入");
    let later = export(&a, b.root());
    assert_eq!(
        headings(later["files"]["SESSIONS.md"].as_str().unwrap()).len(),
        3
    );

    let v = b.json(&["import", b.root().join("bundle.json").to_str().unwrap()]);
    assert_eq!(v["mode"], "merge");
    assert_eq!(v["added"], 2, "{v}");
    assert_eq!(v["already_present"], 2, "{v}");
    let s = b.read("SESSIONS.md");
    assert_eq!(headings(&s).len(), 4, "{s}");
    for done in ["共同的第一步", "共同的第二步", "只有 A 做的", "只有 B 做的"] {
        assert_eq!(s.matches(done).count(), 1, "{done} once: {s}");
    }
    assert!(b.read("DECISIONS.md").contains("只有 A 的决定"));
    // the same bundle again adds nothing and writes nothing
    let before = b.snapshot();
    let v = b.json(&["import", b.root().join("bundle.json").to_str().unwrap()]);
    assert_eq!(v["added"], 0, "{v}");
    assert_eq!(b.snapshot(), before);
}

#[test]
fn a_differing_project_section_keeps_the_current_text_and_the_bundles_is_restorable() {
    let a = Ws::init();
    a.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "A 说：导出做完了。",
    ]);
    a.ok(&["checkpoint", "--section", "坑", "--text", "时区要用 UTC。"]);
    let b = Ws::init();
    b.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "B 说：导入做完了。",
    ]);
    export(&a, b.root());
    let v = b.json(&["import", b.root().join("bundle.json").to_str().unwrap()]);
    assert_eq!(v["sections_kept"][0]["section"], "现状", "{v}");
    assert_eq!(v["sections_added"], json!(["坑"]), "{v}");
    let p = b.read("PROJECT.md");
    assert!(
        p.contains("B 说：导入做完了。") && !p.contains("A 说"),
        "{p}"
    );
    assert!(
        p.contains("时区要用 UTC。"),
        "an empty section takes the bundle's: {p}"
    );
    let reports = b.json(&["reports"]);
    let r = reports.as_array().unwrap();
    assert_eq!(r.len(), 1, "{reports}");
    assert!(r[0]["text"].as_str().unwrap().contains("现状"));
    let rev = v["sections_kept"][0]["revision"]
        .as_u64()
        .unwrap()
        .to_string();
    b.ok(&["restore", "--section", "现状", "--revision", &rev]);
    let p = b.read("PROJECT.md");
    assert!(
        p.contains("A 说：导出做完了。") && !p.contains("B 说"),
        "{p}"
    );
}

#[test]
fn replace_takes_the_bundle_whole_and_restore_brings_back_what_it_displaced() {
    let a = Ws::init();
    session(&a, "A 的记录；测过", "构建");
    let b = Ws::init();
    session(&b, "B 独有的记录；测过", "导入");
    b.ok(&["checkpoint", "--section", "现状", "--text", "B 的现状。"]);
    let bundle = export(&a, b.root());
    let v = b.json(&[
        "import",
        "--replace",
        b.root().join("bundle.json").to_str().unwrap(),
    ]);
    assert_eq!(v["mode"], "replace");
    assert_eq!(
        b.read("SESSIONS.md"),
        bundle["files"]["SESSIONS.md"].as_str().unwrap()
    );
    assert_eq!(
        b.read("PROJECT.md"),
        bundle["files"]["PROJECT.md"].as_str().unwrap()
    );
    let log = b.json(&["log", "-n", "50"]);
    let removed = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| (e["op"] == "remove" || e["op"] == "replace") && e["actor"] == "cli")
        .unwrap_or_else(|| panic!("the displaced entry is logged: {log}"));
    let id = removed["ids"][0].as_str().unwrap();
    b.ok(&["restore", id]);
    let s = b.read("SESSIONS.md");
    assert!(s.contains("B 独有的记录") && s.contains("A 的记录"), "{s}");
    let revs = b.json(&["log", "--section", "现状"]);
    assert!(revs.to_string().contains("B 的现状。"), "{revs}");
}

#[test]
fn clear_deletes_the_files_and_the_block_keeps_every_entry_restorable_and_the_next_session_starts_over()
 {
    let ws = Ws::init();
    let templates: Vec<(String, Vec<u8>)> = ws.snapshot();
    assert!(
        ws.root().join("AGENTS.md").exists(),
        "init writes the boot block"
    );
    session(&ws, "清空前的记录；测过", "构建");
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "清空前的现状。",
    ]);

    let before = tree(ws.root());
    let refused = ws.run(&["clear"]);
    assert_eq!(refused.status.code(), Some(3));
    assert!(
        text(&refused.stderr).contains("restorable"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(tree(ws.root()), before, "without --yes nothing changes");

    let v = ws.json(&["clear", "--yes"]);
    assert_eq!(v["bootBlockRemoved"], true, "{v}");
    assert_eq!(v["cleared"].as_array().unwrap().len(), 3, "{v}");
    assert!(
        !ws.root().join("memory").exists(),
        "the emptied folder goes"
    );
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "it held only the block"
    );

    // reading commands leave the files missing; nothing reads as lost or comes back
    ws.ok(&["status"]);
    let log = ws.json(&["log", "-n", "5"]);
    assert_eq!(log["events"][0]["op"], "clear", "{log}");
    assert_eq!(log["events"][0]["actor"], "cli");
    ws.ok(&["read"]);
    assert!(!ws.root().join("memory").exists());

    // the next session starts again from the templates and asks for the bootstrap
    let mut cmd = ws.std_cmd();
    cmd.args(["hook", "claude", "session-start"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(session_start_payload(&ws, "after-clear").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        text(&out.stdout).contains("项目记忆还是空的"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(ws.snapshot(), templates, "the templates, byte for byte");
    assert!(ws.root().join("AGENTS.md").exists());

    // and every entry is still there to restore
    let id = log["events"][0]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .find(|i| i.len() > 6)
        .unwrap()
        .to_string();
    ws.ok(&["restore", &id]);
    assert!(ws.read("SESSIONS.md").contains("清空前的记录"));
    let revs = ws.json(&["log", "--section", "现状"]);
    assert!(revs.to_string().contains("清空前的现状。"), "{revs}");
}

#[test]
fn a_command_that_records_after_a_clear_starts_from_the_templates() {
    let ws = Ws::init();
    let templates = ws.snapshot();
    session(&ws, "旧的；测过", "构建");
    ws.ok(&["clear", "--yes"]);
    session(&ws, "清空后的第一条；测过", "构建");
    let s = ws.read("SESSIONS.md");
    assert_eq!(headings(&s).len(), 1, "{s}");
    assert!(s.contains("清空后的第一条") && !s.contains("旧的"), "{s}");
    let project = &templates.iter().find(|(n, _)| n == "PROJECT.md").unwrap().1;
    assert_eq!(ws.read("PROJECT.md").as_bytes(), project.as_slice());
}

#[test]
fn block_status_remove_and_rewrite_manage_the_boot_block() {
    let ws = Ws::init();
    let agents = ws.root().join("AGENTS.md");
    let block = std::fs::read_to_string(&agents).unwrap();
    std::fs::write(&agents, format!("# Agents\n\nBe kind.\n\n{block}")).unwrap();
    let s = ws.json(&["block", "status"]);
    assert_eq!(s["exists"], true);
    assert_eq!(s["current"], true);
    assert_eq!(s["fileExists"], true);
    assert!(
        s["block"]
            .as_str()
            .unwrap()
            .contains("<!-- trilogy:start -->")
    );

    let r = ws.json(&["block", "remove"]);
    assert_eq!(r["removed"], true);
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap(),
        "# Agents\n\nBe kind.\n"
    );
    assert_eq!(ws.json(&["block", "status"])["exists"], false);
    assert_eq!(ws.json(&["block", "remove"])["removed"], false);

    ws.ok(&["block", "rewrite"]);
    let t = std::fs::read_to_string(&agents).unwrap();
    assert!(
        t.starts_with("# Agents\n\nBe kind.\n\n<!-- trilogy:start -->"),
        "{t}"
    );
    assert_eq!(ws.json(&["block", "status"])["current"], true);

    // the original plugin's block: there, but old; rewrite replaces it, remove takes it out
    let legacy = ws.root().join("OLD.md");
    std::fs::write(
        &legacy,
        "mine\n\n<!-- dsh-trilogy -->\n\n## Memory\n\n旧的说明\n",
    )
    .unwrap();
    let s = ws.json(&["block", "status", "--file", "OLD.md"]);
    assert_eq!(
        (s["exists"].clone(), s["current"].clone()),
        (json!(true), json!(false))
    );
    ws.ok(&["block", "remove", "--file", "OLD.md"]);
    assert_eq!(std::fs::read_to_string(&legacy).unwrap(), "mine\n");
    std::fs::write(&legacy, "<!-- dsh-trilogy -->\n\n## Memory\n\n旧的说明\n").unwrap();
    ws.ok(&["block", "rewrite", "--file", "OLD.md"]);
    let t = std::fs::read_to_string(&legacy).unwrap();
    assert!(
        t.starts_with("<!-- trilogy:start -->") && !t.contains("dsh-trilogy"),
        "{t}"
    );
    ws.ok(&["block", "remove", "--file", "OLD.md"]);
    assert!(!legacy.exists(), "a file left empty is deleted");

    // a missing file, and a path out of the workspace
    let s = ws.json(&["block", "status", "--file", "NONE.md"]);
    assert_eq!(s["fileExists"], false);
    assert_eq!(
        ws.run(&["block", "remove", "--file", "../x.md"])
            .status
            .code(),
        Some(3)
    );
    // the managed memory region still works as before
    ws.ok(&["block", "--file", "AGENTS.local.md"]);
    assert!(
        std::fs::read_to_string(ws.root().join("AGENTS.local.md"))
            .unwrap()
            .contains("<!-- trilogy:memory:start -->")
    );
}

#[test]
fn restore_by_text_brings_back_the_archived_entry_that_holds_it() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 2\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    session(&ws, "修好了时区换算；cargo test 通过", "时间");
    session(&ws, "第二条；测过", "构建");
    session(&ws, "第三条；测过", "构建");
    session(&ws, "第四条；测过", "构建");
    assert!(ws.read("SESSIONS-archive.md").contains("时区换算"));
    let missing = ws.run(&["restore", "--text", "从没写过的话"]);
    assert_eq!(missing.status.code(), Some(4));
    assert!(text(&missing.stderr).contains("no archived entry contains that text"));
    let v = ws.json(&["restore", "--text", "  修好了时区换算  "]);
    assert_eq!(v["from"], "archived");
    assert!(ws.read("SESSIONS.md").contains("时区换算"));
    assert!(!ws.read("SESSIONS-archive.md").contains("时区换算"));
    // the whole entry as the original's panel sends it (a stale pointer line inside), on stdin
    let archive = ws.read("SESSIONS-archive.md");
    let part = archive
        .split("\n## ")
        .find(|p| p.contains("第二条"))
        .unwrap()
        .trim();
    let sent = format!("## {part}\n> 更早的会话条目已归档到 1 条（见 `SESSIONS-archive.md`）。\n");
    ws.ok_stdin(&["restore", "--text", "-"], &sent);
    assert!(ws.read("SESSIONS.md").contains("第二条"));
}

#[test]
fn an_original_bundle_merges_into_a_workspace_with_memory_archive_included() {
    let ws = Ws::init();
    session(&ws, "这边自己的记录；测过", "构建");
    let file = write_bundle(&ws, "old.json", &original_bundle());
    let v = ws.json(&["import", &file]);
    assert_eq!(v["mode"], "merge");
    assert_eq!(
        v["added"], 4,
        "one decision, one session, two archived: {v}"
    );
    let s = ws.read("SESSIONS.md");
    assert_eq!(headings(&s).len(), 2, "{s}");
    assert!(
        s.contains("这边自己的记录") && s.contains("导出 CSV"),
        "{s}"
    );
    assert_eq!(s.matches("> 更早的会话条目已归档到").count(), 1, "{s}");
    assert!(
        s.contains("> 更早的会话条目已归档到 2 条"),
        "the pointer counts the archive: {s}"
    );
    let a = ws.read("SESSIONS-archive.md");
    assert!(a.starts_with("# SESSIONS ARCHIVE"), "{a}");
    assert_eq!(headings(&a), vec!["2026-01-02 · 导入", "2026-01-01"]);
    // the empty PROJECT sections take the bundle's text
    assert!(ws.read("PROJECT.md").contains("一个记账小工具"));
    let hit = ws.json(&["search", "银行流水"]);
    assert_eq!(hit["hits"][0]["file"], "SESSIONS-archive.md", "{hit}");
    // a second archive batch merges in: only the entry not there yet is added
    let mut more = original_bundle();
    more["files"] = json!({
        "SESSIONS-archive.md": format!("{O_ARCHIVE}\n## 2025-12-20 · 导入\n完成：更早的一条；测过\n"),
    });
    let file = write_bundle(&ws, "more.json", &more);
    let v = ws.json(&["import", &file]);
    assert_eq!(
        (v["added"].clone(), v["already_present"].clone()),
        (json!(1), json!(2)),
        "{v}"
    );
    assert_eq!(headings(&ws.read("SESSIONS-archive.md")).len(), 3);
}

#[test]
fn a_clear_that_dies_before_its_commit_loses_nothing() {
    let ws = Ws::init();
    session(&ws, "崩溃前的记录；测过", "构建");
    let before = ws.snapshot();
    let out = ws
        .cmd()
        .args(["clear", "--yes"])
        .env("TRILOGY_CRASH_AT", "before-commit")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the process died");
    // the store never recorded the clear: the next command writes the files back as they were
    ws.ok(&["init"]);
    assert_eq!(ws.snapshot(), before);
    let log = ws.json(&["log", "-n", "3"]);
    assert!(
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["op"] != "clear"),
        "{log}"
    );
}

#[test]
fn files_brought_back_after_a_clear_are_read_again() {
    let ws = Ws::init();
    session(&ws, "清空前写下的；测过", "构建");
    let kept = ws.snapshot();
    ws.ok(&["clear", "--yes"]);
    // a checkout puts the old files back
    std::fs::create_dir_all(ws.root().join("memory")).unwrap();
    for (name, bytes) in &kept {
        std::fs::write(ws.path(name), bytes).unwrap();
    }
    session(&ws, "之后又写的；测过", "构建");
    let s = ws.read("SESSIONS.md");
    assert!(
        s.contains("清空前写下的") && s.contains("之后又写的"),
        "{s}"
    );
    let v = ws.json(&["read", "SESSIONS.md", "-n", "10"]);
    assert_eq!(v["entries"].as_array().unwrap().len(), 2, "{v}");
}
