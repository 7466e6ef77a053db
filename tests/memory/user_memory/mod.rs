//! One person across projects: the user memory (USER.md in the user's data folder) is carried
//! by every workspace's session-start block, written directly by the person and only through
//! proposals by agents, absorbed when edited by hand, and safe under many writers at once.

use crate::common;

use std::path::Path;

use common::{Ws, hook_context, next_prompt, session_start_payload, text};
use serde_json::{Value, json};

mod concurrent;
mod guarded;
mod reach;

/// Two workspaces, one Chinese and one English, sharing the user memory in `dir`.
fn pair(dir: &Path) -> (Ws, Ws) {
    let zh = Ws::sharing_user(dir);
    zh.ok(&["init"]);
    let en = Ws::sharing_user(dir);
    en.ok(&["--set", "lang=en", "init"]);
    (zh, en)
}

/// USER.md as it is on disk.
fn user_file(ws: &Ws) -> String {
    std::fs::read_to_string(ws.user_md()).unwrap()
}

/// The part of a block between the ledger and PROJECT.md.
fn user_part(block: &str) -> &str {
    let start = block
        .find("--- USER.md")
        .unwrap_or_else(|| panic!("no user memory in:\n{block}"));
    let end = block
        .find("--- PROJECT.md ---")
        .expect("PROJECT.md in the block");
    assert!(
        start < end,
        "the user memory comes before PROJECT.md:\n{block}"
    );
    &block[start..end]
}
