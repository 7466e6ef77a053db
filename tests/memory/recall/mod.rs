//! Recall over the hosts' own transcripts: the recorded shapes of real Claude Code, Codex,
//! Gemini CLI and DeepSeek Harness sessions (tests/fixtures/recall, from the end-to-end
//! suite's runs, with the project's path made a placeholder) put where each host keeps them
//! under this test's own HOME, then recalled through the real binary.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Ws, text};
use serde_json::{Value, json};

mod cache;
mod draft;
mod left;
mod masked;
mod sessions;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recall")
            .join(name),
    )
    .unwrap()
}

fn sha256(s: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The workspace root as the hosts saw it.
pub(super) fn root(ws: &Ws) -> String {
    ws.root().canonicalize().unwrap().display().to_string()
}

/// A fixture's text for this workspace.
fn placed(ws: &Ws, name: &str) -> String {
    let r = root(ws);
    fixture(name)
        .replace("@WSHASH@", &sha256(&r))
        .replace("@SUBHASH@", &sha256(&format!("{r}/sub")))
        .replace("@WS@", &r)
        .replace("@KIT@", &ws.state.path().display().to_string())
}

pub(super) fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

fn append_to(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, bytes).unwrap();
}

fn set_mtime(path: &Path, t: std::time::SystemTime) {
    (std::fs::File::options().write(true).open(path).unwrap())
        .set_modified(t)
        .unwrap();
}

pub(super) fn claude_file(ws: &Ws) -> PathBuf {
    let slug: String = root(ws)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    ws.home()
        .join(".claude/projects")
        .join(slug)
        .join("6d180fe1-0934-4279-b365-2b88693115fe.jsonl")
}

fn codex_file(ws: &Ws) -> PathBuf {
    ws.home().join(".codex/sessions/2026/12/01/rollout-2026-12-01T20-41-27-01a23357-4522-7020-a7a4-afbd5df2a2f9.jsonl")
}

fn gemini_file(ws: &Ws) -> PathBuf {
    ws.home()
        .join(".gemini/tmp/my-proj/chats/session-2026-12-01T20-41-a888eaa1.jsonl")
}

pub(super) fn dsh_file(ws: &Ws) -> PathBuf {
    ws.dsh_home()
        .join("sessions/--proj--/session-26c79d9c-35bb-4de2-bead-33fd58cb9b88/session.jsonl.zstd")
}

/// `bytes` as one zstd frame (compressed in Rust, as trilogy reads it).
pub(super) fn zstd_frame(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// DeepSeek Harness's log: one zstd frame per appended event, as the harness writes it.
fn frames(lines: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines.lines() {
        out.extend(zstd_frame(format!("{l}\n").as_bytes()));
    }
    out
}

/// Every host's recorded session, placed for `ws`.
fn place_all(ws: &Ws) {
    write(&claude_file(ws), placed(ws, "claude.jsonl").as_bytes());
    write(&codex_file(ws), placed(ws, "codex.jsonl").as_bytes());
    write(&gemini_file(ws), placed(ws, "gemini.jsonl").as_bytes());
    write(
        &ws.home().join(".gemini/projects.json"),
        placed(ws, "gemini-projects.json").as_bytes(),
    );
    write(&dsh_file(ws), &frames(&placed(ws, "dsh.jsonl")));
}

fn recall(ws: &Ws, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["recall"];
    a.extend_from_slice(args);
    let v = ws.json(&a);
    v["hits"].as_array().unwrap().clone()
}

fn said(hits: &[Value]) -> Vec<(String, String, u64, String)> {
    hits.iter()
        .map(|h| {
            (
                h["host"].as_str().unwrap().to_string(),
                h["role"].as_str().unwrap().to_string(),
                h["line"].as_u64().unwrap(),
                h["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A Claude Code line of this workspace saying `text` (as the person, unless `role` says).
fn claude_line(ws: &Ws, role: &str, text: &str) -> String {
    let cwd = root(ws);
    let v = match role {
        "assistant" => {
            json!({"type":"assistant","cwd":cwd,"message":{"content":[{"type":"text","text":text}]}})
        }
        _ => json!({"type":"user","cwd":cwd,"message":{"content":text}}),
    };
    format!("{v}\n")
}
