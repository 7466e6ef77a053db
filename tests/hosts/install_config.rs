//! `install` and `uninstall` against the user's own configuration, through the real binary in
//! a private HOME: every file comes back byte for byte (one-line JSON, no final newline, CRLF,
//! comments) and what install created goes, and only that; a `trilogy` server entry the user
//! wrote survives (or `--force` replaces it and uninstall gives it back); a symlinked settings
//! file stays a link; a read-only or unmergeable file is refused before anything is written; a
//! killed install leaves nothing uninstall cannot undo; Windsurf's user-level server stays while
//! another project's install uses it.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Ws, text};
use serde_json::{Value, json};

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Run trilogy here; (success, stdout, stderr).
fn run(ws: &Ws, args: &[&str]) -> (bool, String, String) {
    let out = ws.run(args);
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// Every folder, file (its bytes) and link (its target) under `dir`, by relative path; the
/// store's own folder `.trilogy` is left out.
fn tree(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(list) = std::fs::read_dir(dir) else {
            return;
        };
        for e in list.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_path_buf();
            if rel == Path::new(".trilogy") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.file_type().is_symlink() {
                let to = std::fs::read_link(&p).unwrap();
                out.insert(rel, format!("link -> {}", to.display()));
            } else if meta.is_dir() {
                out.insert(rel, "folder".into());
                walk(base, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                let mode = trilogy::base::stat::mode(&meta) & 0o777;
                out.insert(rel, format!("{mode:o} {}", String::from_utf8_lossy(&bytes)));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The project's and the home folder's trees.
fn both(ws: &Ws) -> Trees {
    (tree(ws.root()), tree(&ws.home()))
}

type Trees = (BTreeMap<PathBuf, String>, BTreeMap<PathBuf, String>);

/// Every path of the project and home folders that is not as in `before`.
fn changed_since(ws: &Ws, before: &Trees) -> Vec<String> {
    let now = both(ws);
    let mut diff = Vec::new();
    for (name, was, is) in [("project", &before.0, &now.0), ("home", &before.1, &now.1)] {
        let keys: std::collections::BTreeSet<&PathBuf> = was.keys().chain(is.keys()).collect();
        diff.extend(
            keys.into_iter()
                .filter(|k| was.get(*k) != is.get(*k))
                .map(|k| {
                    format!(
                        "{name} {}: {:?} -> {:?}",
                        k.display(),
                        was.get(k),
                        is.get(k)
                    )
                }),
        );
    }
    diff
}

/// Assert the trees are as `before`, naming every path that differs.
fn same_trees(ws: &Ws, before: &Trees, what: &str) {
    let diff = changed_since(ws, before);
    assert!(diff.is_empty(), "{what}: changed:\n{}", diff.join("\n"));
}

/// A workspace with its home folder made.
fn ws() -> Ws {
    let ws = Ws::init();
    std::fs::create_dir_all(ws.home()).unwrap();
    ws
}

/// Files a user already has, in the shapes install must give back exactly.
fn existing(ws: &Ws, host: &str) -> Vec<(PathBuf, &'static str)> {
    let (r, h) = (ws.root(), ws.home());
    match host {
        "claude" => vec![
            (
                r.join(".claude/settings.json"),
                r#"{"model":"opus","hooks":{}}"#,
            ),
            (
                r.join(".mcp.json"),
                "{\r\n  \"mcpServers\": {\r\n    \"other\": {\"command\": \"x\"}\r\n  }\r\n}\r\n",
            ),
            (r.join("CLAUDE.md"), "# Notes\n\nNo final newline here."),
        ],
        "claude-user" => vec![(
            h.join(".claude.json"),
            r#"{"numStartups":3,"mcpServers":{}}"#,
        )],
        "codex" => vec![(r.join(".codex/config.toml"), "model = \"o3\"  # mine")],
        "gemini" => vec![(r.join(".gemini/settings.json"), "{\"theme\": \"dark\"}")],
        "cursor" => vec![
            (r.join(".cursor/hooks.json"), r#"{"other":true}"#),
            (
                r.join(".cursor/mcp.json"),
                "{\"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\"}}}",
            ),
        ],
        "vscode" => vec![
            (
                r.join(".vscode/mcp.json"),
                "{\n  // the team's\n  \"servers\": {\"fs\": {\"type\": \"stdio\", \"command\": \"mcp-fs\",},},\n}",
            ),
            (r.join(".github/copilot-instructions.md"), "Use tabs."),
        ],
        "windsurf" => vec![(r.join(".windsurfrules"), "Be brief.\n\n\n")],
        "zed" => vec![(
            r.join(".zed/settings.json"),
            "{\"theme\": \"One Dark\", /* mine */ \"vim_mode\": true,}",
        )],
        _ => vec![],
    }
}

#[test]
fn install_then_uninstall_gives_every_file_back_byte_for_byte_and_removes_only_what_it_made() {
    let cases: [(&str, &[&str]); 12] = [
        ("claude", &["claude"]),
        ("claude-user", &["claude", "--scope", "user"]),
        ("codex", &["codex"]),
        ("codex", &["codex", "--scope", "user"]),
        ("gemini", &["gemini"]),
        ("gemini", &["gemini", "--scope", "user"]),
        ("cursor", &["cursor"]),
        ("cursor", &["cursor", "--rules"]),
        ("vscode", &["vscode"]),
        ("windsurf", &["windsurf"]),
        ("zed", &["zed"]),
        ("zed", &["zed", "--scope", "user"]),
    ];
    let mut failed = Vec::new();
    for (files, args) in cases {
        let ws = ws();
        for (p, t) in existing(&ws, files) {
            put(&p, t);
        }
        // a folder of the user's, empty, stays
        std::fs::create_dir_all(ws.root().join(".vscode")).unwrap();
        let before = both(&ws);
        let install: Vec<&str> = std::iter::once("install")
            .chain(args.iter().copied())
            .collect();
        let out = ws.ok(&install);
        assert!(
            out.contains("created") || out.contains("updated"),
            "{args:?}: {out}"
        );
        assert_ne!(both(&ws), before, "{args:?}: install changed nothing");
        let uninstall: Vec<&str> = std::iter::once("uninstall")
            .chain(args.iter().copied())
            .collect();
        ws.ok(&uninstall);
        failed.extend(
            changed_since(&ws, &before)
                .into_iter()
                .map(|d| format!("{args:?}: {d}")),
        );
    }
    assert!(failed.is_empty(), "not given back:\n{}", failed.join("\n"));
}

/// A `trilogy` server the user wrote by hand: their own path, arguments and environment.
const OWN_MCP: &str = r#"{"mcpServers":{"trilogy":{"command":"/opt/dev/trilogy","args":["mcp","--verbose"],"env":{"RUST_LOG":"debug"}}}}"#;
const OWN_TOML: &str = "[mcp_servers.trilogy]\ncommand = \"/opt/dev/trilogy\"\nargs = [\"mcp\"]\nenv = { RUST_LOG = \"debug\" }\n";

#[test]
fn a_users_own_trilogy_entry_survives_install_and_uninstall() {
    for (host, file, own) in [
        ("claude", ".mcp.json", OWN_MCP),
        ("codex", ".codex/config.toml", OWN_TOML),
        ("cursor", ".cursor/mcp.json", OWN_MCP),
    ] {
        let ws = ws();
        let path = ws.root().join(file);
        put(&path, own);
        let before = both(&ws);
        let out = ws.ok(&["install", host]);
        assert!(
            out.contains("kept your own `trilogy` entry"),
            "{host}: {out}"
        );
        assert!(out.contains("--force"), "{host}: {out}");
        assert_eq!(read(&path), own, "{host}: install changed the user's entry");
        // the rest of the host was installed
        assert_ne!(both(&ws), before, "{host}: nothing installed");
        let again = ws.ok(&["install", host]);
        assert!(again.contains("kept your own"), "{host}: {again}");
        ws.ok(&["uninstall", host]);
        same_trees(&ws, &before, host);
    }
}

#[test]
fn force_replaces_a_users_own_entry_and_uninstall_gives_it_back() {
    for (host, file, own) in [
        ("claude", ".mcp.json", OWN_MCP),
        ("codex", ".codex/config.toml", OWN_TOML),
    ] {
        let ws = ws();
        let path = ws.root().join(file);
        put(&path, own);
        let before = both(&ws);
        let out = ws.ok(&["install", host, "--force"]);
        assert!(!out.contains("kept your own"), "{host}: {out}");
        let now = read(&path);
        assert!(
            !now.contains("/opt/dev/trilogy"),
            "{host}: not replaced: {now}"
        );
        assert!(now.contains("\"trilogy\""), "{host}: {now}");
        ws.ok(&["uninstall", host]);
        same_trees(&ws, &before, host);
    }
    // the file changed elsewhere since: the user's entry still comes back, beside their edit
    let ws = ws();
    let path = ws.root().join(".mcp.json");
    put(&path, OWN_MCP);
    ws.ok(&["install", "claude", "--force"]);
    let mut v: Value = serde_json::from_str(&read(&path)).unwrap();
    v["mcpServers"]["github"] = json!({"command": "gh-mcp"});
    put(&path, &serde_json::to_string_pretty(&v).unwrap());
    ws.ok(&["uninstall", "claude"]);
    let v: Value = serde_json::from_str(&read(&path)).unwrap();
    let own: Value = serde_json::from_str(OWN_MCP).unwrap();
    assert_eq!(
        v["mcpServers"]["trilogy"], own["mcpServers"]["trilogy"],
        "{v}"
    );
    assert_eq!(v["mcpServers"]["github"]["command"], "gh-mcp", "{v}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_user_settings_file_stays_a_link_and_its_target_gets_the_change() {
    for (host, link) in [
        ("claude", ".claude/settings.json"),
        ("gemini", ".gemini/settings.json"),
        ("zed", ".config/zed/settings.json"),
    ] {
        let ws = ws();
        let target = ws.home().join("dotfiles").join(format!("{host}.json"));
        let mine = "{\n  \"theme\": \"dark\"\n}\n";
        put(&target, mine);
        let link = ws.home().join(link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let before = both(&ws);
        ws.ok(&["install", host, "--scope", "user"]);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{host}: the link was replaced by a file"
        );
        assert!(
            read(&target).contains("trilogy"),
            "{host}: {}",
            read(&target)
        );
        ws.ok(&["uninstall", host, "--scope", "user"]);
        same_trees(&ws, &before, host);
    }
    // a link to nothing is refused by name, and nothing is written
    let ws = ws();
    let link = ws.home().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(ws.home().join("dotfiles/gone.json"), &link).unwrap();
    let before = both(&ws);
    let (success, _, err) = run(&ws, &["install", "claude", "--scope", "user"]);
    assert!(!success, "wrote through a link to nothing");
    assert!(
        err.contains("settings.json") && err.contains("link"),
        "{err}"
    );
    same_trees(&ws, &before, "dangling link");
}

#[test]
fn a_read_only_settings_file_is_refused_by_name_and_nothing_is_written() {
    for (host, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("zed", ".zed/settings.json"),
    ] {
        let ws = ws();
        let path = ws.root().join(file);
        put(&path, "{\"mine\": true}\n");
        trilogy::base::write::set_mode(&path, 0o444).unwrap();
        let before = both(&ws);
        let (success, _, err) = run(&ws, &["install", host]);
        assert!(!success, "{host}: wrote a read-only file");
        let name = file.rsplit('/').next().unwrap();
        assert!(
            err.contains(name) && err.contains("read-only"),
            "{host}: {err}"
        );
        same_trees(&ws, &before, host);
    }
}

#[test]
fn a_server_file_that_cannot_be_merged_is_refused_with_nothing_written_anywhere() {
    for bad in ["{ \"mcpServers\": {\n", "{\"mcpServers\": []}\n"] {
        let ws = ws();
        put(&ws.root().join(".mcp.json"), bad);
        put(&ws.root().join("CLAUDE.md"), "# Notes\n");
        let before = both(&ws);
        let (success, _, err) = run(&ws, &["install", "claude"]);
        assert!(!success, "accepted {bad:?}");
        assert!(
            err.contains(".mcp.json") && err.contains("nothing was changed"),
            "{err}"
        );
        assert!(
            !ws.root().join(".claude").exists(),
            "settings written for {bad:?}"
        );
        same_trees(&ws, &before, bad);
    }
}

#[test]
fn codex_refusing_config_toml_writes_no_hooks_json() {
    let ws = ws();
    let config = ws.root().join(".codex/config.toml");
    put(&config, "[mcp_servers\nmodel = 1\n");
    let before = both(&ws);
    let (success, _, err) = run(&ws, &["install", "codex"]);
    assert!(!success && err.contains("config.toml"), "{err}");
    assert!(!ws.root().join(".codex/hooks.json").exists());
    same_trees(&ws, &before, "codex");
}

const USER_HOOKS: &str = r#"{
  "hooks": {
    "Stop": [
      { "hooks": [ { "type": "command", "command": "notify-send done" } ] }
    ]
  }
}
"#;

/// `install claude` killed after its first file is written.
fn killed_install(ws: &Ws) {
    let out = ws
        .cmd()
        .env("TRILOGY_CRASH_AT", "install-after-first-file")
        .args(["install", "claude"])
        .output()
        .unwrap();
    assert!(
        !out.status.success() && out.status.code().is_none(),
        "install was not killed mid-way: {}",
        text(&out.stderr)
    );
}

#[test]
fn a_killed_install_leaves_nothing_uninstall_cannot_clean() {
    let ws = ws();
    let settings = ws.root().join(".claude/settings.json");
    put(&settings, USER_HOOKS);
    put(&ws.root().join(".mcp.json"), "{\"mcpServers\": {}}");
    let before = both(&ws);
    killed_install(&ws);
    assert!(
        read(&settings).contains("hook claude stop"),
        "the first file was written"
    );
    assert!(
        !read(&ws.root().join(".mcp.json")).contains("trilogy"),
        "killed before the second"
    );
    ws.ok(&["uninstall", "claude"]);
    same_trees(&ws, &before, "killed, then uninstalled");
    // killed, installed again (as a host's retry does), then uninstalled
    killed_install(&ws);
    ws.ok(&["install", "claude"]);
    ws.ok(&["uninstall", "claude"]);
    same_trees(&ws, &before, "killed, installed, uninstalled");
}

#[test]
fn windsurfs_user_level_server_stays_while_another_projects_install_uses_it() {
    let (a, b) = (ws(), Ws::init());
    // one user: the same home and state folder for both projects
    let shared = |ws: &Ws, args: &[&str]| {
        let out = ws
            .cmd()
            .env("HOME", a.home())
            .env("XDG_STATE_HOME", a.state.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    };
    let config = a.home().join(".codeium/windsurf/mcp_config.json");
    let home_before = tree(&a.home());
    shared(&a, &["install", "windsurf"]);
    shared(&b, &["install", "windsurf"]);
    shared(&a, &["uninstall", "windsurf"]);
    let v: Value = serde_json::from_str(&read(&config)).unwrap();
    assert_eq!(v["mcpServers"]["trilogy"]["args"], json!(["mcp"]), "{v}");
    assert!(!a.root().join(".windsurfrules").exists());
    assert!(b.root().join(".windsurfrules").exists());
    shared(&b, &["uninstall", "windsurf"]);
    assert_eq!(tree(&a.home()), home_before, "~/.codeium is left behind");
    // the other order, with a file the user had
    put(&config, OTHER_SERVERS);
    shared(&a, &["install", "windsurf"]);
    shared(&b, &["install", "windsurf"]);
    shared(&b, &["uninstall", "windsurf"]);
    assert!(read(&config).contains("\"trilogy\""), "{}", read(&config));
    shared(&a, &["uninstall", "windsurf"]);
    assert_eq!(read(&config), OTHER_SERVERS);
}

const OTHER_SERVERS: &str = "{\"mcpServers\":{\"gh\":{\"command\":\"gh-mcp\"}}}";
