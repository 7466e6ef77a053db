//! `install` / `uninstall` for Cursor, VS Code, Windsurf and Zed through the real binary: each
//! host's config parses as the host's format, holds our server once after two installs, and
//! comes back byte for byte (other servers, comments and all); Cursor's hooks answer recorded
//! Cursor payloads in Cursor's shape. Cursor's own CLI cannot be installed here (no network),
//! so there is no end-to-end run of Cursor itself.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Ws, text};
use serde_json::{Value, json};

mod configs;
mod cursor_hooks;

/// A home folder for the user-level files, inside the test's state folder.
fn home(ws: &Ws) -> PathBuf {
    let h = ws.state.path().join("home");
    std::fs::create_dir_all(&h).unwrap();
    h
}

/// Run trilogy with HOME set to the test's home; returns (success, stdout, stderr).
fn run(ws: &Ws, args: &[&str]) -> (bool, String, String) {
    let out = ws.cmd().env("HOME", home(ws)).args(args).output().unwrap();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

fn ok(ws: &Ws, args: &[&str]) -> String {
    let (success, out, err) = run(ws, args);
    assert!(success, "trilogy {args:?} failed: {err}");
    out
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// JSON with comments and trailing commas (VS Code's and Zed's settings), as a value.
fn jsonc(text: &str) -> Value {
    let root = jsonc_parser::cst::CstRootNode::parse(text, &Default::default())
        .unwrap_or_else(|e| panic!("not JSONC ({e}): {text}"));
    root.object_value()
        .and_then(|o| o.to_serde_value())
        .unwrap_or_else(|| panic!("not an object: {text}"))
}

/// A workspace with one session recorded, whose text the block must carry.
fn with_memory() -> Ws {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "wired the editor hosts; tested",
    ]);
    ws
}

const OTHER_MCP: &str = r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"]
    }
  }
}
"#;

const OTHER_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "stop": [
      { "command": "./hooks/audit.sh" }
    ]
  }
}
"#;
