//! What install writes into each editor's own configuration: Cursor's server and hooks (and
//! its rules instead), VS Code, Windsurf and Zed, and configurations it must refuse or leave
//! alone.

use super::*;

#[test]
fn cursor_gets_its_server_and_hooks_once_and_uninstall_gives_back_the_bytes() {
    let ws = with_memory();
    let mcp = ws.root().join(".cursor/mcp.json");
    let hooks = ws.root().join(".cursor/hooks.json");
    put(&mcp, OTHER_MCP);
    put(&hooks, OTHER_HOOKS);
    ok(&ws, &["install", "cursor"]);
    let (mcp_once, hooks_once) = (read(&mcp), read(&hooks));
    assert!(ok(&ws, &["install", "cursor"]).contains("unchanged"));
    assert_eq!(read(&mcp), mcp_once, "a second install changes nothing");
    assert_eq!(read(&hooks), hooks_once, "a second install changes nothing");

    let m = json_of(&mcp);
    let servers = m["mcpServers"].as_object().unwrap();
    assert_eq!(servers.len(), 2, "{m}");
    assert_eq!(servers["github"]["command"], "npx");
    assert_eq!(
        servers["trilogy"],
        json!({"command": "trilogy", "args": ["mcp"]})
    );

    let h = json_of(&hooks);
    assert_eq!(h["version"], 1);
    for (event, arg) in [
        ("sessionStart", "session-start"),
        ("beforeSubmitPrompt", "user-prompt-submit"),
        ("postToolUse", "post-tool-use"),
        ("stop", "stop"),
        ("sessionEnd", "session-end"),
    ] {
        let ours: Vec<&Value> = h["hooks"][event]
            .as_array()
            .unwrap_or_else(|| panic!("no {event}: {h}"))
            .iter()
            .filter(|e| e["command"] == format!("trilogy hook cursor {arg}"))
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {h}");
    }
    assert_eq!(h["hooks"]["stop"][0]["command"], "./hooks/audit.sh");
    // the block comes from the sessionStart answer: no rules file repeats it
    assert!(!ws.root().join(".cursor/rules").exists());
    assert!(!ws.root().join(".rules").exists());

    ok(&ws, &["uninstall", "cursor"]);
    assert_eq!(read(&mcp), OTHER_MCP);
    assert_eq!(read(&hooks), OTHER_HOOKS);
}

#[test]
fn cursor_files_install_created_go_at_uninstall() {
    let ws = with_memory();
    ok(&ws, &["install", "cursor"]);
    assert!(ws.root().join(".cursor/hooks.json").is_file());
    ok(&ws, &["uninstall", "cursor"]);
    assert!(
        !ws.root().join(".cursor").exists(),
        "the folder install made goes"
    );
    // the user scope writes into the home folder, never the project
    ok(&ws, &["install", "cursor", "--scope", "user"]);
    let h = json_of(&home(&ws).join(".cursor/hooks.json"));
    assert_eq!(
        h["hooks"]["sessionStart"][0]["command"],
        "trilogy hook cursor session-start"
    );
    assert!(!ws.root().join(".cursor").exists());
    ok(&ws, &["uninstall", "cursor", "--scope", "user"]);
    assert!(!home(&ws).join(".cursor").exists());
}

#[test]
fn cursor_rules_flag_keeps_the_block_in_an_always_applied_rule_instead_of_hooks() {
    let ws = with_memory();
    ok(&ws, &["install", "cursor", "--rules"]);
    let mdc = ws.root().join(".cursor/rules/trilogy.mdc");
    let t = read(&mdc);
    assert!(t.starts_with("---\n"), "{t}");
    let front = t.split("---").nth(1).unwrap();
    assert!(
        front.lines().any(|l| l.trim() == "alwaysApply: true"),
        "{t}"
    );
    assert!(t.contains("<!-- trilogy:memory:start -->"), "{t}");
    assert!(t.contains("wired the editor hosts"), "{t}");
    assert!(
        !ws.root().join(".cursor/hooks.json").exists(),
        "no hooks with --rules"
    );
    assert!(ok(&ws, &["install", "cursor", "--rules"]).contains("unchanged"));
    assert_eq!(read(&mdc), t);
    // a new write reaches the rule
    ws.ok(&["checkpoint", "--session-done", "second thing done; tested"]);
    assert!(read(&mdc).contains("second thing done"));
    ok(&ws, &["uninstall", "cursor"]);
    assert!(!ws.root().join(".cursor").exists());
    let (success, _, err) = run(&ws, &["install", "cursor", "--rules", "--scope", "user"]);
    assert!(!success && err.contains("--rules"), "{err}");
}

#[test]
fn vscode_gets_a_stdio_server_and_the_block_in_copilot_instructions() {
    let ws = with_memory();
    let mcp = ws.root().join(".vscode/mcp.json");
    let instructions = ws.root().join(".github/copilot-instructions.md");
    let other = "{\n  // the team's servers\n  \"servers\": {\n    \"fs\": {\"type\": \"stdio\", \"command\": \"mcp-fs\"}\n  },\n  \"inputs\": []\n}\n";
    let own = "# How we work\n\nUse the test suite before committing.\n";
    put(&mcp, other);
    put(&instructions, own);
    ok(&ws, &["install", "vscode"]);
    let (once, block_once) = (read(&mcp), read(&instructions));
    ok(&ws, &["install", "vscode"]);
    assert_eq!(read(&mcp), once);
    assert_eq!(read(&instructions), block_once);

    let v = jsonc(&once);
    assert_eq!(
        v["servers"]["trilogy"],
        json!({"type": "stdio", "command": "trilogy", "args": ["mcp"]})
    );
    assert_eq!(v["servers"]["fs"]["command"], "mcp-fs");
    assert!(v.get("mcpServers").is_none(), "VS Code reads `servers`");
    assert!(once.contains("// the team's servers"));
    assert!(block_once.starts_with(own), "{block_once}");
    assert_eq!(
        block_once.matches("<!-- trilogy:memory:start -->").count(),
        1
    );
    assert!(block_once.contains("wired the editor hosts"));

    ok(&ws, &["uninstall", "vscode"]);
    assert_eq!(read(&mcp), other);
    assert_eq!(read(&instructions), own);

    let (success, _, err) = run(&ws, &["install", "vscode", "--scope", "user"]);
    assert!(!success && err.contains("code --add-mcp"), "{err}");
}

#[test]
fn windsurf_is_user_level_only_and_its_rules_file_stays_within_windsurfs_limit() {
    let ws = with_memory();
    // enough memory that the whole block would not fit in 6,000 characters
    for i in 0..20 {
        let done = format!(
            "step {i} of a long piece of work: {}; tested",
            "a word ".repeat(90)
        );
        ws.ok(&["checkpoint", "--session-done", &done]);
    }
    let whole = ws.ok(&["inject"]);
    assert!(
        whole.chars().count() > 6_000,
        "the whole block would not fit"
    );
    let config = home(&ws).join(".codeium/windsurf/mcp_config.json");
    put(&config, OTHER_MCP);
    let before = read(&config);

    let (success, _, err) = run(&ws, &["install", "windsurf", "--scope", "project"]);
    assert!(!success, "a project scope is refused");
    assert!(
        err.contains("mcp_config.json") && err.contains("user"),
        "{err}"
    );
    assert_eq!(read(&config), before, "a refusal changes nothing");
    assert!(!ws.root().join(".windsurfrules").exists());

    ok(&ws, &["install", "windsurf"]);
    let once = read(&config);
    ok(&ws, &["install", "windsurf", "--scope", "user"]);
    assert_eq!(read(&config), once);
    let v = json_of(&config);
    assert_eq!(v["mcpServers"].as_object().unwrap().len(), 2);
    assert_eq!(v["mcpServers"]["trilogy"]["args"], json!(["mcp"]));
    let rules = read(&ws.root().join(".windsurfrules"));
    assert!(rules.contains("<!-- trilogy:memory:start -->"));
    assert!(
        rules.chars().count() <= 6_000,
        "{} chars",
        rules.chars().count()
    );

    ok(&ws, &["uninstall", "windsurf"]);
    assert_eq!(read(&config), OTHER_MCP);
    assert!(!ws.root().join(".windsurfrules").exists());
}

const ZED_SETTINGS: &str = r#"// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark", // the dark one
  /* servers the team shares */
  "context_servers": {
    "postgres": {
      "command": "pg-mcp",
      "args": [],
    },
  },
  "vim_mode": true,
}
"#;

#[test]
fn zed_keeps_comments_and_trailing_commas_and_gets_the_block_in_dot_rules() {
    let ws = with_memory();
    let settings = ws.root().join(".zed/settings.json");
    put(&settings, ZED_SETTINGS);
    ok(&ws, &["install", "zed"]);
    let once = read(&settings);
    assert!(ok(&ws, &["install", "zed"]).contains("unchanged"));
    assert_eq!(read(&settings), once);
    for comment in [
        "// Zed settings",
        "// the dark one",
        "/* servers the team shares */",
    ] {
        assert!(once.contains(comment), "{comment} lost: {once}");
    }
    let v = jsonc(&once);
    let servers = v["context_servers"].as_object().unwrap();
    assert_eq!(servers.len(), 2, "{v}");
    let ours = &servers["trilogy"];
    assert_eq!(ours["command"], "trilogy");
    assert_eq!(ours["args"], json!(["mcp"]), "Zed requires args");
    assert_eq!(v["vim_mode"], true);
    let rules = read(&ws.root().join(".rules"));
    assert!(rules.contains("wired the editor hosts"), "{rules}");

    ok(&ws, &["uninstall", "zed"]);
    assert_eq!(read(&settings), ZED_SETTINGS);
    assert!(!ws.root().join(".rules").exists());

    // user scope: the user's settings, no rules file
    let user = home(&ws).join(".config/zed/settings.json");
    put(&user, ZED_SETTINGS);
    ok(&ws, &["install", "zed", "--scope", "user"]);
    assert!(read(&user).contains("\"trilogy\""));
    assert!(!ws.root().join(".rules").exists());
    ok(&ws, &["uninstall", "zed", "--scope", "user"]);
    assert_eq!(read(&user), ZED_SETTINGS);
}

#[test]
fn zed_says_which_file_dot_rules_now_takes_the_place_of() {
    let ws = with_memory();
    put(&ws.root().join("CLAUDE.md"), "# Notes for agents\n");
    let (success, _, err) = run(&ws, &["install", "zed"]);
    assert!(success, "{err}");
    assert!(err.contains(".rules comes before CLAUDE.md"), "{err}");
}

#[test]
fn bad_configs_are_refused_by_name_and_left_as_they_were() {
    let ws = with_memory();
    let cases = [
        (
            "cursor",
            ".cursor/mcp.json",
            "{ \"mcpServers\": { \"a\": 1, }\n  nope",
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            "{\"mcpServers\": [\"github\"]}\n",
        ),
        (
            "cursor",
            ".cursor/hooks.json",
            "{\"version\": 1, \"hooks\": {\"stop\": {}}}\n",
        ),
        ("vscode", ".vscode/mcp.json", "[1, 2]\n"),
        (
            "zed",
            ".zed/settings.json",
            "// mine\n{\"context_servers\": \"none\"}\n",
        ),
    ];
    for (host, file, bad) in cases {
        let path = ws.root().join(file);
        put(&path, bad);
        let (success, _, err) = run(&ws, &["install", host]);
        assert!(!success, "{host} {file}: accepted {bad:?}");
        assert!(
            err.contains(file.rsplit('/').next().unwrap()),
            "{host}: {err}"
        );
        assert!(err.contains("nothing was changed"), "{host}: {err}");
        assert_eq!(read(&path), bad, "{host} {file} was rewritten");
        std::fs::remove_file(&path).unwrap();
        // nothing else was written either: no server entry beside a refused hooks file
        for other in [
            ".cursor/mcp.json",
            ".vscode/mcp.json",
            ".zed/settings.json",
            ".rules",
        ] {
            assert!(
                !ws.root().join(other).exists(),
                "{host}: {other} was written"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn a_config_linked_out_of_the_repository_is_not_written_through() {
    let ws = with_memory();
    let outside = ws.state.path().join("elsewhere.json");
    std::fs::write(&outside, OTHER_MCP).unwrap();
    std::fs::create_dir_all(ws.root().join(".cursor")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.root().join(".cursor/mcp.json")).unwrap();
    let (success, _, err) = run(&ws, &["install", "cursor"]);
    assert!(!success, "followed a link out of the repository");
    assert!(err.contains("mcp.json"), "{err}");
    assert_eq!(read(&outside), OTHER_MCP);
}
