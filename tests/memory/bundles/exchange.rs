//! Export and import of bundles: the same bytes back, the original plugin's bundles, bad
//! bundles refused whole, merge adding only what is missing, differing sections kept
//! restorable, and replace taking the bundle whole.

use super::*;

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
fn a_bundle_read_from_stdin_imports_and_bad_stdin_is_named_and_changes_nothing() {
    let bundle = original_bundle().to_string();
    let bad = Ws::new();
    let out = bad.run_stdin(
        &["import", "-"],
        &bundle[..bundle.find("\"files\"").unwrap() + 12],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("<stdin>: not JSON (line"), "{err}");
    assert!(
        !bad.root().join("memory").exists(),
        "nothing written: {err}"
    );

    let ws = Ws::new();
    let v: Value = serde_json::from_str(&ws.ok_stdin(&["import", "-", "--json"], &bundle)).unwrap();
    assert_eq!(v["mode"], "empty", "{v}");
    assert_eq!(ws.read("DECISIONS.md"), O_DECISIONS);
    assert_eq!(ws.read("SESSIONS-archive.md"), O_ARCHIVE);
    // a bundle file that is not there is named, with nothing written
    let gone = ws.root().join("no-such-bundle.json");
    let out = bad.run(&["import", gone.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("no-such-bundle.json"),
        "{}",
        text(&out.stderr)
    );
    assert!(!bad.root().join("memory").exists());
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
