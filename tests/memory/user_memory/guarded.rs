//! What the user memory refuses and survives: hand edits and files that do not parse,
//! secrets, a workspace's settings reaching for it, the user folder as a workspace, a failed
//! checkpoint, and editing `USER.md` by hand through `trilogy user edit`.

use super::*;

#[test]
fn a_hand_edit_is_absorbed_and_a_file_that_does_not_parse_is_never_overwritten() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let path = ws.user_md();
    let file = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, file.replace("先给结论", "先给结论\n回答用中文")).unwrap();
    assert!(user_part(&ws.ok(&["inject"])).contains("回答用中文"));
    // the replaced line stays in the section's history
    ws.ok(&[
        "user",
        "add",
        "--section",
        "偏好",
        "--line",
        "回答用简体中文",
        "--replaces",
        "回答用中文",
    ]);
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now.contains("回答用简体中文") && !now.contains("回答用中文\n"),
        "{now}"
    );

    let broken = format!("{now}<<<<<<< HEAD\n## 偏好\nx\n=======\n## 偏好\ny\n>>>>>>> other\n");
    std::fs::write(&path, &broken).unwrap();
    let shown = ws.json(&["user", "show"]);
    assert!(
        shown["unparseable"]
            .as_str()
            .unwrap()
            .contains("merge conflict"),
        "{shown}"
    );
    let block = ws.ok(&["inject"]);
    assert!(user_part(&block).contains("无法解析"), "{block}");
    // a write meanwhile is refused, naming the file, and the person's file is left as it is
    let meanwhile = ws.run(&[
        "user",
        "add",
        "--section",
        "教训",
        "--line",
        "先跑测试再推送",
    ]);
    let err = text(&meanwhile.stderr);
    assert!(
        !meanwhile.status.success() && err.contains("USER.md") && err.contains("does not parse"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    // fixed by hand: taken in, and writing works again
    std::fs::write(&path, &now).unwrap();
    let fixed = ws.json(&["user", "show"]);
    assert!(fixed["unparseable"].is_null(), "{fixed}");
    assert!(fixed.to_string().contains("回答用简体中文"), "{fixed}");
    ws.ok(&[
        "user",
        "add",
        "--section",
        "教训",
        "--line",
        "先跑测试再推送",
    ]);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("## 教训\n\n先跑测试再推送\n")
    );
}

/// A GitHub token as a test stand-in (random-looking, so the secret rules take it).
fn token() -> String {
    "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6".to_string()
}

#[test]
fn secrets_are_refused_from_every_path() {
    let ws = Ws::init();
    ws.ok(&[
        "user",
        "add",
        "--section",
        "环境",
        "--line",
        "gh is logged in as alice",
    ]);
    let before = std::fs::read(ws.user_md()).unwrap();
    let line = format!("token {}", token());
    let cli = ws.run(&["user", "add", "--section", "环境", "--line", &line]);
    assert!(
        !cli.status.success() && text(&cli.stderr).contains("GitHub token"),
        "{}",
        text(&cli.stderr)
    );
    let batch = json!({"user":[{"section":"环境","line":line}]}).to_string();
    let cp = ws.run_stdin(&["checkpoint", "-"], &batch);
    assert!(
        !cp.status.success() && text(&cp.stderr).contains("refused"),
        "{}",
        text(&cp.stderr)
    );
    let r = ws.mcp_tool(
        "s1",
        "memory_checkpoint",
        json!({"user":[{"section":"环境","line":line}]}),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        ws.json(&["review", "list"])["proposals"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(std::fs::read(ws.user_md()).unwrap(), before);
    // written in by hand: never injected (the block says it was left out), never a search
    // hit, and doctor names it
    let hand = String::from_utf8(before)
        .unwrap()
        .replace("gh is logged in as alice", &line);
    std::fs::write(ws.user_md(), hand).unwrap();
    let block = ws.ok(&["inject"]);
    assert!(!block.contains("ghp_"), "{block}");
    assert!(
        user_part(&block).contains("「环境」一节里有像凭据"),
        "{block}"
    );
    let doctor = ws.run(&["doctor", "--json"]);
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let leak = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "user")
        .unwrap();
    assert_eq!(leak["level"], "error", "{doctor}");
    assert!(
        leak["message"].as_str().unwrap().contains("GitHub token"),
        "{leak}"
    );
    assert!(!leak.to_string().contains(&token()), "masked: {leak}");
    assert_eq!(ws.json(&["user", "show"])["withheld"], json!(["环境"]));
    let hits = ws.ok(&["search", "token", "--json"]);
    assert!(!hits.contains("ghp_"), "{hits}");
    // nor taken from a bundle
    let bundle = json!({"kind":"dsh-trilogy/memory-bundle","version":1,"exportedAt":"x","root":"/x",
        "files":{"USER.md": format!("# USER\n\n## 环境\n\n{line}\n")}});
    let imp = ws.run_stdin(&["import", "--user", "-"], &bundle.to_string());
    assert!(
        !imp.status.success() && text(&imp.stderr).contains("GitHub token"),
        "{}",
        text(&imp.stderr)
    );
}

#[test]
fn a_workspace_trilogy_toml_cannot_move_hide_or_open_the_user_memory() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        format!(
            "user_memory_dir = \"{}\"\ninject_user_memory = false\nuser_memory_max_bytes = 10\n[review_mode]\nuser = \"direct\"\n",
            elsewhere.path().display()
        ),
    )
    .unwrap();
    let config = ws.json(&["config"]);
    let warnings = config["warnings"].to_string();
    for key in [
        "user_memory_dir",
        "inject_user_memory",
        "user_memory_max_bytes",
        "review_mode.user",
    ] {
        assert!(warnings.contains(key), "{key}: {config}");
    }
    let block = ws.ok(&["inject"]);
    assert!(user_part(&block).contains("先给结论"));
    assert!(
        block.contains("设置未采用：4 项"),
        "the ledger says so: {block}"
    );
    let doctor = ws.json(&["doctor"]);
    let refused = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "config")
        .count();
    assert_eq!(refused, 4, "{doctor}");
    let cp = ws.ok_stdin(
        &["checkpoint", "--json", "-"],
        r#"{"user":[{"section":"偏好","line":"用 pnpm"}]}"#,
    );
    let cp: Value = serde_json::from_str(&cp).unwrap();
    assert_eq!(cp["proposed"].as_array().unwrap().len(), 1, "{cp}");
    assert!(!user_file(&ws).contains("pnpm"));
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    // hooks load leniently and are held to the same
    let started = ws.run_stdin(
        &["hook", "claude", "session-start"],
        &session_start_payload(&ws, "s1"),
    );
    assert!(hook_context(&text(&started.stdout)).contains("先给结论"));
    // a value that would be wrong in the person's own file does not stop the workspace
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "userMemoryDir = \"relative/x\"\nuser_memory_max_bytes = 999999\n",
    )
    .unwrap();
    assert!(user_part(&ws.ok(&["inject"])).contains("先给结论"));
    std::fs::remove_file(ws.root().join("trilogy.toml")).unwrap();
    // the person's own settings do open it
    let own = ws.root().join("own.toml");
    std::fs::write(&own, "[review_mode]\nuser = \"direct\"\n").unwrap();
    let direct = ws
        .cmd()
        .env("TRILOGY_CONFIG", &own)
        .args(["checkpoint", "-"])
        .write_stdin(r#"{"user":[{"section":"偏好","line":"用 pnpm"}]}"#)
        .output()
        .unwrap();
    assert!(direct.status.success(), "{}", text(&direct.stderr));
    assert!(user_file(&ws).contains("用 pnpm"));
}

#[test]
fn the_user_memory_folder_is_never_a_workspace() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let dir = ws.user_md().parent().unwrap().to_path_buf();
    for args in [vec!["status"], vec!["init"], vec!["inject"]] {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
            .arg("--root")
            .arg(&dir)
            .args(&args)
            .env("XDG_DATA_HOME", ws.data_home())
            .env("XDG_STATE_HOME", ws.state.path())
            .env("TRILOGY_CONFIG", ws.root().join("no-user-config.toml"))
            .env_remove("TRILOGY_USER_MEMORY_DIR")
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert!(
            !out.status.success() && err.contains("user memory"),
            "{args:?}: {err}"
        );
    }
    assert!(!dir.join("memory").exists() && !dir.join("AGENTS.md").exists());
    // and the user memory still works
    ws.ok(&["user", "add", "--section", "偏好", "--line", "回答用中文"]);
    assert!(user_part(&ws.ok(&["inject"])).contains("回答用中文"));
}

#[test]
fn a_checkpoint_that_fails_leaves_no_user_line_behind_and_review_works_outside_a_workspace() {
    let ws = Ws::init();
    let own = ws.root().join("own.toml");
    std::fs::write(&own, "[review_mode]\nuser = \"direct\"\n").unwrap();
    for config in [None, Some(&own)] {
        let mut cmd = ws.cmd();
        if let Some(c) = config {
            cmd.env("TRILOGY_CONFIG", c);
        }
        let bad = json!({"user":[{"section":"偏好","line":"用 pnpm"}],
            "decisions":[{"choice":"x","supersedes":"a decision that does not exist"}]});
        let out = cmd
            .args(["checkpoint", "-"])
            .write_stdin(bad.to_string())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{}", text(&out.stdout));
        assert!(
            ws.json(&["review", "list"])["proposals"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        let file = std::fs::read_to_string(ws.user_md()).unwrap_or_default();
        assert!(!file.contains("pnpm"), "{file}");
    }
    // a user proposal made from a repository that never ran `init`, reviewed from anywhere
    let bare = Ws::sharing_user(ws.user_md().parent().unwrap());
    std::fs::create_dir(bare.root().join(".git")).unwrap();
    let out: Value = serde_json::from_str(&bare.ok_stdin(
        &["checkpoint", "--json", "-"],
        r#"{"user":[{"section":"约定","line":"提交信息用英文"}]}"#,
    ))
    .unwrap();
    let id = out["proposed"][0].as_str().unwrap().to_string();
    let listed = bare.json(&["review", "list"]);
    assert_eq!(listed["proposals"][0]["id"], id.as_str(), "{listed}");
    // accepting refuses text of several lines, as every other path does
    let multi = bare.run(&["review", "accept", &id, "--text", "a\n## 偏好\nb"]);
    assert!(
        !multi.status.success() && text(&multi.stderr).contains("user[0].line"),
        "{}",
        text(&multi.stderr)
    );
    bare.ok(&["review", "accept", &id]);
    assert!(user_file(&ws).contains("提交信息用英文"));
}

#[cfg(unix)]
#[test]
fn user_edit_opens_the_editor_on_user_md_and_takes_what_it_saved() {
    let ws = Ws::init();
    let script = ws.state.path().join("editor.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '\\n## 工具\\n\\nrg 在 /usr/bin/rg\\n' >> \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = ws
        .cmd()
        .env("EDITOR", &script)
        .args(["user", "edit", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = shown["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["heading"] == "工具");
    assert_eq!(
        tools.unwrap()["lines"],
        json!(["rg 在 /usr/bin/rg"]),
        "{shown}"
    );
    // a section the person added is one agents can write to, by its heading
    ws.ok(&[
        "user",
        "add",
        "--section",
        "工具",
        "--line",
        "fd 在 /usr/bin/fdfind",
    ]);
    assert!(user_file(&ws).contains("rg 在 /usr/bin/rg\nfd 在 /usr/bin/fdfind\n"));
    // an editor that fails says so and leaves the file as it was
    let failing = ws
        .cmd()
        .env("EDITOR", "false")
        .args(["user", "edit"])
        .output()
        .unwrap();
    assert!(
        !failing.status.success() && text(&failing.stderr).contains("exited"),
        "{}",
        text(&failing.stderr)
    );
}
