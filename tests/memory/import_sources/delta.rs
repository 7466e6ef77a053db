//! Importing a delta log: states and skips in the dry run, superseded and expired entries,
//! a second import on a later day, secrets, and a bad field named by file, line and field.

use super::*;

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
