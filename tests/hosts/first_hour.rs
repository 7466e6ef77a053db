//! A newcomer's first hour: the language a fresh workspace takes from the locale and keeps for
//! the team, a switch of it that loses and renames nothing, `init` saying what it really did,
//! and one list of MCP tools wherever it is written.

use crate::common;

use std::collections::BTreeMap;

use common::{Ws, text};
use serde_json::{Value, json};

/// `trilogy init` in `ws` with `locale` as its `LANG` (and no `LC_ALL`, `LC_MESSAGES`).
fn init_in(ws: &Ws, locale: &str, extra: &[&str]) -> String {
    let out = ws
        .cmd()
        .arg("init")
        .args(extra)
        .env("LANG", locale)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn toml(ws: &Ws) -> String {
    std::fs::read_to_string(ws.root().join("trilogy.toml")).unwrap_or_default()
}

#[test]
fn an_english_locale_gets_english_files_and_block_and_records_it() {
    let ws = Ws::new();
    let out = init_in(&ws, "en_US.UTF-8", &[]);
    assert!(ws.read("PROJECT.md").contains("## What this is"));
    assert!(!ws.read("PROJECT.md").contains("这是什么"));
    let agents = std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap();
    assert!(agents.is_ascii(), "the block is English: {agents}");
    assert!(toml(&ws).contains("lang = \"en\""), "{}", toml(&ws));
    assert!(
        out.contains("language  en (from locale LANG=en_US.UTF-8; recorded in trilogy.toml)"),
        "{out}"
    );
    // a teammate whose locale is Chinese writes English labels in this workspace
    ws.cmd()
        .args(["checkpoint", "--decision", "use redb"])
        .args(["--over", "sqlite", "--because", "many writers"])
        .env("LANG", "zh_CN.UTF-8")
        .assert()
        .success();
    let decisions = ws.read("DECISIONS.md");
    assert!(decisions.contains("Because: "), "{decisions}");
    assert!(!decisions.contains("因为："), "{decisions}");
}

#[test]
fn a_chinese_locale_gets_chinese_and_lc_all_outranks_lang() {
    let zh = Ws::new();
    init_in(&zh, "zh_CN.UTF-8", &[]);
    assert!(zh.read("PROJECT.md").contains("## 这是什么"));
    assert!(toml(&zh).contains("lang = \"zh\""));
    let en = Ws::new();
    en.cmd()
        .arg("init")
        .env("LANG", "zh_CN.UTF-8")
        .env("LC_ALL", "en_GB.UTF-8")
        .assert()
        .success();
    assert!(en.read("PROJECT.md").contains("## What this is"));
}

/// Memory files already here (a teammate's clone, the original plugin's folder) keep their
/// language whatever this person's locale says.
#[test]
fn memory_already_here_keeps_its_language() {
    let ws = Ws::new();
    init_in(&ws, "zh_CN.UTF-8", &[]);
    std::fs::remove_file(ws.root().join("trilogy.toml")).unwrap();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    let out = init_in(&ws, "en_US.UTF-8", &[]);
    assert!(
        out.contains("language  zh (from the memory files' headings"),
        "{out}"
    );
    assert!(toml(&ws).contains("lang = \"zh\""));
    // the files gone, the store still tells
    std::fs::remove_file(ws.root().join("trilogy.toml")).unwrap();
    std::fs::remove_dir_all(ws.root().join("memory")).unwrap();
    let out = init_in(&ws, "en_US.UTF-8", &[]);
    assert!(out.contains("language  zh"), "{out}");
    assert!(ws.read("PROJECT.md").contains("## 这是什么"));
}

/// Every entry's id and bytes, by id, from `read --json` of DECISIONS.md and SESSIONS.md and
/// the PROJECT sections' text.
fn entries(ws: &Ws) -> BTreeMap<String, String> {
    let mut all = BTreeMap::new();
    for file in ["DECISIONS.md", "SESSIONS.md"] {
        let v: Value =
            serde_json::from_str(&ws.ok(&["read", file, "-n", "1000", "--json"])).unwrap();
        for e in v["entries"].as_array().unwrap() {
            let bytes = format!("{}\n{}", e["heading"], e["body"]);
            all.insert(e["id"].as_str().unwrap().to_string(), bytes);
        }
    }
    all
}

#[test]
fn switching_the_language_both_ways_loses_and_renames_nothing() {
    let ws = Ws::new();
    init_in(&ws, "zh_CN.UTF-8", &[]);
    let write = |what: &str, why: &str| {
        ws.ok(&[
            "checkpoint",
            "--decision",
            what,
            "--over",
            "x",
            "--because",
            why,
        ]);
        ws.ok(&["checkpoint", "--session-done", what, "--area", "store"]);
        ws.ok(&["checkpoint", "--section", "State", "--line", what]);
    };
    write("用 redb 做真相", "多个写者");
    let zh_entries = entries(&ws);
    let zh_project = ws.read("PROJECT.md");
    assert_eq!(zh_entries.len(), 2);

    let out = init_in(&ws, "zh_CN.UTF-8", &["--lang", "en"]);
    assert!(out.contains("language  en (from --lang; recorded"), "{out}");
    assert!(toml(&ws).contains("lang = \"en\""));
    assert!(!toml(&ws).contains("lang = \"zh\""));
    let agents = std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap();
    assert!(agents.is_ascii(), "the block follows the switch: {agents}");
    // what was written keeps its bytes and ids; PROJECT.md its headings
    assert_eq!(entries(&ws), zh_entries);
    assert_eq!(ws.read("PROJECT.md"), zh_project);
    write("tantivy for search", "CJK and English");
    let mixed = entries(&ws);
    assert_eq!(mixed.len(), 4);
    assert!(zh_entries.iter().all(|(id, b)| mixed.get(id) == Some(b)));
    assert!(ws.read("DECISIONS.md").contains("Because: "));
    assert!(ws.read("DECISIONS.md").contains("因为："));

    init_in(&ws, "en_US.UTF-8", &["--lang", "zh"]);
    assert!(toml(&ws).contains("lang = \"zh\""));
    write("再加一条", "切回中文");
    let back = entries(&ws);
    assert_eq!(back.len(), 6);
    assert!(mixed.iter().all(|(id, b)| back.get(id) == Some(b)));
    let project = ws.read("PROJECT.md");
    for line in ["用 redb 做真相", "tantivy for search", "再加一条"] {
        assert!(project.contains(line), "{project}");
    }
    assert_eq!(
        project.matches("\n## ").count(),
        zh_project.matches("\n## ").count()
    );
}

#[test]
fn init_says_what_it_created_restored_and_kept() {
    let ws = Ws::new();
    let out = ws.ok(&["init"]);
    assert!(
        out.contains("created   PROJECT.md, DECISIONS.md, SESSIONS.md (from the templates)"),
        "{out}"
    );
    ws.ok(&["checkpoint", "--session-done", "kept through a deletion"]);
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    let out = ws.ok(&["init"]);
    assert!(
        out.contains("restored  SESSIONS.md (deleted here; written again from the store)"),
        "{out}"
    );
    assert!(
        out.contains("kept      PROJECT.md, DECISIONS.md (already here; not overwritten)"),
        "{out}"
    );
    assert!(!out.contains("created"), "{out}");
    assert!(ws.read("SESSIONS.md").contains("kept through a deletion"));
    // after `clear`, the files start again from the templates
    ws.ok(&["clear", "--yes"]);
    let out = ws.ok(&["init"]);
    assert!(out.contains("created   PROJECT.md"), "{out}");
    let v: Value = serde_json::from_str(&ws.ok(&["init", "--json"])).unwrap();
    assert_eq!(
        v["kept"],
        json!(["PROJECT.md", "DECISIONS.md", "SESSIONS.md"])
    );
    assert_eq!(v["lang"], "zh");
}

/// The `memory_*` names in `text`, in order, each once.
fn tool_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (i, _) in text.match_indices("memory_") {
        let name: String = text[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[test]
fn the_mcp_tool_list_is_one_list_in_the_server_the_help_and_the_readme() {
    let ws = Ws::init();
    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}).to_string(),
    ];
    let (frames, _) = ws.mcp_session(&lines);
    let listed = frames.iter().find(|f| f["id"] == 2).unwrap();
    let served: Vec<String> = (listed["result"]["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(served.len() >= 6, "{served:?}");

    let help = ws.ok(&["mcp", "--help"]);
    assert_eq!(tool_names(&help), served, "trilogy mcp --help: {help}");
    // the command list, where clap may wrap the line: the entry up to the next command
    let commands = ws.ok(&["--help"]);
    let at = commands.find("\n  mcp ").unwrap();
    let entry: Vec<&str> = commands[at + 1..]
        .lines()
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with("      "))
        .map(|(_, l)| l)
        .collect();
    let entry = entry.join(" ");
    assert_eq!(tool_names(&entry), served, "trilogy --help: {entry}");

    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| any MCP host"))
        .unwrap();
    assert_eq!(tool_names(row), served, "README: {row}");
    let page = ws.ok(&["help", "hosts"]);
    let at = page.find("The MCP server (`trilogy mcp`").unwrap();
    let paragraph = page[at..].split("\n\n").next().unwrap();
    let offered = paragraph.split(", with the input schemas").next().unwrap();
    assert_eq!(tool_names(offered), served, "trilogy help hosts: {offered}");
}

fn git(ws: &Ws, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .arg("-C")
        .arg(ws.root())
        .args(args)
        .output()
        .unwrap()
}

/// Claude Code writes a person's approvals into `.claude/settings.local.json`: install keeps it
/// out of commits, and uninstall gives `.gitignore` back; install also sets git's merge driver.
#[test]
fn install_claude_ignores_the_local_settings_and_sets_the_merge_driver() {
    let ws = Ws::new();
    assert!(git(&ws, &["init", "-q"]).status.success());
    std::fs::write(ws.root().join(".gitignore"), "target/\n").unwrap();
    let out = ws.cmd().args(["install", "claude"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ignore = std::fs::read_to_string(ws.root().join(".gitignore")).unwrap();
    assert!(
        ignore.starts_with("target/\n")
            && ignore.contains("# trilogy:start\n.claude/settings.local.json\n# trilogy:end"),
        "{ignore}"
    );
    let ignored = git(&ws, &["check-ignore", "-q", ".claude/settings.local.json"]);
    assert_eq!(ignored.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("git: set merge.trilogy.driver"),
        "{}",
        text(&out.stderr)
    );
    let driver = git(&ws, &["config", "--get", "merge.trilogy.driver"]);
    assert!(text(&driver.stdout).contains("merge-driver %O %A %B %P"));

    ws.ok(&["uninstall", "claude"]);
    assert_eq!(
        std::fs::read_to_string(ws.root().join(".gitignore")).unwrap(),
        "target/\n"
    );

    // a project that ignores it already keeps its .gitignore as it is
    std::fs::write(ws.root().join(".gitignore"), ".claude/\n").unwrap();
    ws.ok(&["install", "claude"]);
    assert_eq!(
        std::fs::read_to_string(ws.root().join(".gitignore")).unwrap(),
        ".claude/\n"
    );
}
