//! Recall reads the hosts' transcripts within bounds: a DeepSeek Harness log whose zstd frames
//! say far more than they weigh is never decompressed whole (a frame over 64 MiB is skipped, a
//! log over 1 GiB marked unreadable), and a line longer than 64 MiB is skipped while the lines
//! after it stay searchable.

use crate::common;

use std::path::Path;

use common::Ws;

use super::recall::{claude_file, dsh_file, root, write, zstd_frame};
use serde_json::{Value, json};

/// A Claude Code line of this workspace in which the person says `text`.
fn claude_line(ws: &Ws, text: &str) -> String {
    let v = json!({"type":"user","cwd":root(ws),"message":{"content":text}});
    format!("{v}\n")
}

/// One DeepSeek Harness event, as the harness writes it: a zstd frame of its own.
fn frame(event: &Value) -> Vec<u8> {
    zstd_frame(format!("{event}\n").as_bytes())
}

/// The frame of a DeepSeek Harness event in which the person says `text`.
fn dsh_said(text: &str) -> Vec<u8> {
    frame(
        &json!({"type":"user/message","seq":7,"time":1796157678157u64,"data":{"content":[{"type":"text","text":text}],"source":{"kind":"user"},"role":"user","id":"e755a4c9"},"surfaceOp":"append"}),
    )
}

/// The start of a DeepSeek Harness session in this workspace, in which the person says `text`.
fn dsh_session(ws: &Ws, text: &str) -> Vec<u8> {
    let mut out = frame(
        &json!({"type":"session","version":0,"id":"session-26c79d9c-35bb-4de2-bead-33fd58cb9b88","createdAt":1796157678021u64,"cwd":root(ws),"delegationDepth":0}),
    );
    out.extend(dsh_said(text));
    out
}

fn hits(ws: &Ws, words: &str) -> Vec<Value> {
    ws.json(&["recall", words])["hits"]
        .as_array()
        .unwrap()
        .clone()
}

/// The `recall --status` row of `host`.
fn host_row(s: &Value, host: &str) -> Value {
    s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == host)
        .cloned()
        .unwrap_or_else(|| panic!("no {host} in {s}"))
}

/// Why `recall --status` says `file` is unreadable (`None`: it does not).
fn unreadable_why(s: &Value, file: &Path) -> Option<String> {
    s["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["file"] == file.display().to_string())
        .map(|u| u["why"].as_str().unwrap().to_string())
}

#[test]
fn a_zstd_frame_that_says_more_than_64_mib_is_skipped_and_the_frames_after_it_are_found() {
    let ws = Ws::init();
    let mut log = dsh_session(&ws, "narwhal before the bomb");
    // 65 MiB of line feeds in one frame of a few kilobytes, then the session goes on
    let nothing = vec![b'\n'; 65 << 20];
    log.extend(zstd_frame(&nothing));
    drop(nothing);
    log.extend(dsh_said("beluga after the bomb"));
    let log_path = write(&dsh_file(&ws), &log);
    assert_eq!(hits(&ws, "narwhal")[0]["line"], 2);
    // the skipped frame is one line, not sixty-five million
    let after = hits(&ws, "beluga");
    assert_eq!(after.len(), 1, "the frame after the skipped one is found");
    assert_eq!(after[0]["line"], 4);
    let s = ws.json(&["recall", "--status"]);
    assert!(unreadable_why(&s, &log_path).is_none(), "{s}");
    assert_eq!(host_row(&s, "dsh")["indexed"], 1, "{s}");
    assert!(s["skipped"].as_u64().unwrap() >= 1, "{s}");
}

#[test]
fn a_zstd_log_whose_frames_say_more_than_a_gigabyte_is_marked_unreadable() {
    let ws = Ws::init();
    write(
        &claude_file(&ws),
        claude_line(&ws, "walrus beside").as_bytes(),
    );
    let mut log = dsh_session(&ws, "narwhal before the bomb");
    // each frame under the frame cap, all of them together over the file's
    let bomb = zstd_frame(&vec![b'\n'; 63 << 20]);
    for _ in 0..17 {
        log.extend_from_slice(&bomb);
    }
    assert!(log.len() < 4 << 20, "{} bytes", log.len());
    let log_path = write(&dsh_file(&ws), &log);
    assert_eq!(hits(&ws, "walrus").len(), 1);
    assert!(hits(&ws, "narwhal").is_empty(), "nothing of it is read");
    let s = ws.json(&["recall", "--status"]);
    let why = unreadable_why(&s, &log_path).unwrap_or_else(|| panic!("{s}"));
    assert!(why.contains("more than 1024 MiB"), "{why}");
    assert_eq!(host_row(&s, "claude")["indexed"], 1, "{s}");
    assert_eq!(host_row(&s, "dsh")["unreadable"], 1, "{s}");
    // marked, and so it stays while the log is as it was
    assert_eq!(hits(&ws, "walrus").len(), 1);
    let again = ws.json(&["recall", "--status"]);
    assert_eq!(unreadable_why(&again, &log_path), Some(why));
}

#[test]
fn a_line_over_64_mib_is_skipped_and_the_lines_after_it_are_found() {
    let ws = Ws::init();
    let mut bytes = claude_line(&ws, "alpaca before").into_bytes();
    // one line of 65 MiB (a pasted dump), then the session goes on
    bytes.extend(std::iter::repeat_n(b'x', 65 << 20));
    bytes.push(b'\n');
    bytes.extend(claude_line(&ws, "okapi after").as_bytes());
    let file = write(&claude_file(&ws), &bytes);
    drop(bytes);
    assert_eq!(hits(&ws, "alpaca").len(), 1);
    let after = hits(&ws, "okapi");
    assert_eq!(after.len(), 1, "the line after the long one is found");
    assert_eq!(after[0]["line"], 3);
    let s = ws.json(&["recall", "--status"]);
    assert!(unreadable_why(&s, &file).is_none(), "{s}");
    assert_eq!(host_row(&s, "claude")["indexed"], 1, "{s}");
    assert!(s["skipped"].as_u64().unwrap() >= 1, "{s}");
    // a line appended after it is read on from there
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(&mut f, claude_line(&ws, "quokka later").as_bytes()).unwrap();
    drop(f);
    assert_eq!(hits(&ws, "quokka")[0]["line"], 4);
}
