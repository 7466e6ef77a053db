//! Install and uninstall on the files a user already has: foreign settings kept byte for
//! byte, a user's own empty containers and CRLF line ends kept, a folder install made removed.

use std::path::Path;

use serde_json::Value;

use super::*;

pub(super) fn opts(dir: &Path) -> InstallOptions {
    InstallOptions {
        target: Host::Claude,
        scope: Scope::Project,
        command: "trilogy".into(),
        os: shell::Os::HOST,
        root: dir.to_path_buf(),
        home: dir.join("home"),
        boot_block: crate::workspace::boot_block(crate::model::Lang::En, "memory"),
        state: Some(dir.join("state")),
        memory_block: String::new(),
        rules: false,
        force: false,
    }
}

const FOREIGN: &str = r#"{
  "permissions": {
    "allow": ["Bash(cargo test)"]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"#;

#[test]
fn install_keeps_foreign_settings_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, FOREIGN).unwrap();
    let o = opts(dir.path());
    install(&o).unwrap();
    let once = std::fs::read_to_string(&p).unwrap();
    let v: Value = serde_json::from_str(&once).unwrap();
    assert_eq!(v["permissions"]["allow"][0], "Bash(cargo test)");
    assert_eq!(v["model"], "opus");
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "the foreign Stop hook stays, ours is added");
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "trilogy hook claude session-start"
    );
    // key order of the original is kept
    assert!(once.find("\"permissions\"").unwrap() < once.find("\"hooks\"").unwrap());
    assert!(once.find("\"hooks\"").unwrap() < once.find("\"model\"").unwrap());
    let again = install(&o).unwrap();
    assert_eq!(again[0].action, "unchanged");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), once);
    assert!(
        std::fs::read_to_string(dir.path().join("CLAUDE.md"))
            .unwrap()
            .contains("<!-- trilogy:start -->")
    );

    uninstall(&o).unwrap();
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        FOREIGN,
        "uninstall restores the original bytes"
    );
    assert!(!dir.path().join("CLAUDE.md").exists());
}

#[test]
fn changed_command_replaces_our_handler_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    install(&o).unwrap();
    o.command = "/opt/my tools/trilogy".into();
    install(&o).unwrap();
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let groups = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(
        groups[0]["hooks"][0]["command"],
        "'/opt/my tools/trilogy' hook claude session-start"
    );
}

#[test]
fn broken_settings_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, "{ \"hooks\": [1, }").unwrap();
    let e = install(&opts(dir.path())).unwrap_err();
    assert!(e.to_string().contains("settings.json"), "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "{ \"hooks\": [1, }");
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn uninstall_keeps_a_users_own_empty_hooks_object() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let original = "{\n  \"hooks\": {}\n}\n";
    std::fs::write(&p, original).unwrap();
    let o = opts(dir.path());
    install(&o).unwrap();
    assert!(read(&p).contains("hook claude session-start"));
    uninstall(&o).unwrap();
    assert_eq!(read(&p), original);
}

#[test]
fn uninstall_keeps_an_mcp_json_that_was_empty_before_install() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".mcp.json");
    let original = "{\"mcpServers\":{}}\n";
    std::fs::write(&p, original).unwrap();
    let o = opts(dir.path());
    install(&o).unwrap();
    let v: Value = serde_json::from_str(&read(&p)).unwrap();
    assert_eq!(v["mcpServers"]["trilogy"]["args"][0], "mcp");
    uninstall(&o).unwrap();
    assert_eq!(read(&p), original, "the file stays as it was");
}

#[test]
fn crlf_files_get_crlf_lines_and_come_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let files = [
        (settings.clone(), FOREIGN.replace('\n', "\r\n")),
        (
            dir.path().join(".mcp.json"),
            "{\r\n  \"mcpServers\": {\r\n    \"other\": {\"command\": \"x\"}\r\n  }\r\n}\r\n"
                .into(),
        ),
        (
            dir.path().join("CLAUDE.md"),
            "# Notes\r\n\r\nWindows line ends.\r\n".into(),
        ),
        (
            dir.path().join(".codex/config.toml"),
            "model = \"o3\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"x\"\r\n".into(),
        ),
        (
            dir.path().join("AGENTS.md"),
            "# Agents\r\n\r\nBe kind.\r\n".into(),
        ),
    ];
    std::fs::create_dir_all(dir.path().join(".codex")).unwrap();
    for (p, t) in &files {
        std::fs::write(p, t).unwrap();
    }
    let mut o = opts(dir.path());
    let lone_lf = |t: &str| t.replace("\r\n", "").contains('\n');
    install(&o).unwrap();
    o.target = Host::Codex;
    install(&o).unwrap();
    for (p, _) in &files {
        let t = read(p);
        assert!(t.contains("trilogy"), "{}: {t}", p.display());
        assert!(!lone_lf(&t), "{} got LF lines: {t:?}", p.display());
    }
    uninstall(&o).unwrap();
    o.target = Host::Claude;
    uninstall(&o).unwrap();
    for (p, t) in &files {
        assert_eq!(&read(p), t, "{}", p.display());
    }
}

#[test]
fn uninstall_removes_what_install_created_and_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(dir.path());
    install(&o).unwrap();
    assert!(dir.path().join(".claude/settings.json").is_file());
    uninstall(&o).unwrap();
    for made in [".claude", ".mcp.json", "CLAUDE.md"] {
        assert!(!dir.path().join(made).exists(), "{made} is left behind");
    }
    // a folder the user had, even empty, stays
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    install(&o).unwrap();
    uninstall(&o).unwrap();
    assert!(dir.path().join(".claude").is_dir());
    assert!(!dir.path().join(".claude/settings.json").exists());
}

#[test]
fn without_a_record_uninstall_still_takes_our_entries_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    install(&o).unwrap();
    // installed elsewhere: this machine has no record
    std::fs::remove_dir_all(dir.path().join("state")).unwrap();
    o.state = None;
    uninstall(&o).unwrap();
    assert!(!dir.path().join(".claude/settings.json").exists());
    assert!(!dir.path().join(".mcp.json").exists());
    assert!(!dir.path().join("CLAUDE.md").exists());
}

#[test]
fn gemini_gets_its_own_shapes_in_one_settings_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.target = Host::Gemini;
    o.command = "/opt/my tools/trilogy".into();
    install(&o).unwrap();
    let p = dir.path().join(".gemini/settings.json");
    let v: Value = serde_json::from_str(&read(&p)).unwrap();
    let start = &v["hooks"]["SessionStart"][0];
    assert!(
        start.get("matcher").is_none(),
        "a lifecycle matcher is one exact value: none runs for every source"
    );
    let h = &start["hooks"][0];
    assert_eq!(
        h["command"],
        "'/opt/my tools/trilogy' hook gemini session-start"
    );
    assert_eq!(h["timeout"], 10_000, "milliseconds");
    assert_eq!(h["name"], "trilogy-session-start");
    for (event, arg) in [
        ("BeforeAgent", "user-prompt-submit"),
        ("AfterTool", "post-tool-use"),
        ("AfterAgent", "stop"),
        ("SessionEnd", "session-end"),
    ] {
        let cmd = v["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            cmd.ends_with(&format!("hook gemini {arg}")),
            "{event}: {cmd}"
        );
    }
    assert!(v["hooks"].get("PreCompress").is_none());
    assert!(
        v["hooks"]["AfterTool"][0]["matcher"]
            .as_str()
            .unwrap()
            .contains("mcp_trilogy_")
    );
    assert_eq!(
        v["mcpServers"]["trilogy"]["command"],
        "/opt/my tools/trilogy"
    );
    assert_eq!(v["mcpServers"]["trilogy"]["trust"], true);
    assert!(read(&dir.path().join("GEMINI.md")).contains("memory/PROJECT.md"));
    assert_eq!(install(&o).unwrap()[0].action, "unchanged");
    uninstall(&o).unwrap();
    assert!(!dir.path().join(".gemini").exists());
    assert!(!dir.path().join("GEMINI.md").exists());
}

#[test]
fn codex_pointer_in_agents_md_stays_when_it_was_there_before() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.target = Host::Codex;
    let agents = dir.path().join("AGENTS.md");
    // what scaffolding writes for a new project
    std::fs::write(&agents, &o.boot_block).unwrap();
    install(&o).unwrap();
    uninstall(&o).unwrap();
    assert_eq!(read(&agents), o.boot_block);
    std::fs::remove_file(&agents).unwrap();
    install(&o).unwrap();
    assert!(read(&agents).contains("memory/PROJECT.md"));
    let v = read(&dir.path().join(".codex/config.toml"));
    assert!(
        v.contains("default_tools_approval_mode = \"approve\""),
        "{v}"
    );
    uninstall(&o).unwrap();
    assert!(!agents.exists());
    assert!(!dir.path().join(".codex").exists());
}

#[test]
fn a_record_kept_by_an_older_trilogy_still_takes_our_server_out() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(dir.path());
    install(&o).unwrap();
    // an older trilogy kept only the list of items, and noted no server entry
    let installs = dir.path().join("state/installs");
    let file = std::fs::read_dir(&installs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let v: Value = serde_json::from_str(&read(&file)).unwrap();
    let items: Vec<&str> = v["made"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|i| !i.ends_with("mcpServers.trilogy"))
        .collect();
    std::fs::write(&file, serde_json::to_string(&items).unwrap()).unwrap();
    uninstall(&o).unwrap();
    for made in [".claude", ".mcp.json", "CLAUDE.md"] {
        assert!(!dir.path().join(made).exists(), "{made} is left behind");
    }
}

#[test]
fn a_file_edited_between_two_installs_keeps_the_edit_at_uninstall() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, FOREIGN).unwrap();
    let mut o = opts(dir.path());
    install(&o).unwrap();
    // the user edits the file, then installs again with another command
    let edited = read(&p).replacen("\"model\": \"opus\"", "\"model\": \"sonnet\"", 1);
    std::fs::write(&p, &edited).unwrap();
    o.command = "/opt/bin/trilogy".into();
    install(&o).unwrap();
    uninstall(&o).unwrap();
    assert_eq!(read(&p), FOREIGN.replace("\"opus\"", "\"sonnet\""));
    // a block refreshed in place is still only ours: the rules file comes back whole
    o.target = Host::Vscode;
    o.memory_block = "<!-- trilogy:memory:start -->\nold\n<!-- trilogy:memory:end -->\n".into();
    let rules = dir.path().join(".github/copilot-instructions.md");
    std::fs::create_dir_all(rules.parent().unwrap()).unwrap();
    std::fs::write(&rules, "Use tabs.").unwrap();
    install(&o).unwrap();
    std::fs::write(&rules, read(&rules).replace("old", "refreshed")).unwrap();
    uninstall(&o).unwrap();
    assert_eq!(read(&rules), "Use tabs.");
}

#[test]
fn a_pointer_file_edited_since_install_ends_as_it_did_before() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("CLAUDE.md");
    std::fs::write(&md, "# Notes\r\n\r\nNo final newline.").unwrap();
    let o = opts(dir.path());
    install(&o).unwrap();
    // the user adds a line above, so the file is no longer as install left it
    std::fs::write(&md, format!("# Top\r\n{}", read(&md))).unwrap();
    uninstall(&o).unwrap();
    assert_eq!(read(&md), "# Top\r\n# Notes\r\n\r\nNo final newline.");
    // text written after the block stays, and is not joined to the line before the block
    std::fs::write(&md, "# Notes\n").unwrap();
    install(&o).unwrap();
    std::fs::write(&md, format!("{}more\n", read(&md))).unwrap();
    uninstall(&o).unwrap();
    assert_eq!(read(&md), "# Notes\n\nmore\n");
}
