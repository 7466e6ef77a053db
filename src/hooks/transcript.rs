//! Claude Code transcripts (JSONL, an internal format that changes between versions): what the
//! last turn did, for when no PostToolUse hook reported. Parsed defensively; anything odd
//! makes the answer "unknown" rather than a guess.
//!
//! The path comes from the hook payload, so it is not trusted: only a regular file is read,
//! opened without blocking (a FIFO swapped in after the check cannot hang the hook), and only
//! its last [`TAIL_BYTES`] (`/dev/zero` or a huge sparse file cost at most that).

use std::path::Path;

use serde_json::Value;

use crate::ops::agent::{ToolKind, TurnFacts};

use super::tool_kind;

/// Largest transcript tail read (bytes): the last turn is near the end.
const TAIL_BYTES: u64 = 2 * 1024 * 1024;

/// The last [`TAIL_BYTES`] of the regular file at `path`, starting at a line boundary; `None`
/// for anything else (missing, a directory, a device, a FIFO, a socket).
fn read_tail(path: &Path) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    // never waiting on a FIFO, and the open file itself asked what it is
    let (mut f, meta) = crate::base::fence::open_regular(path, u64::MAX).ok()?;
    let from = meta.len().saturating_sub(TAIL_BYTES);
    f.seek(SeekFrom::Start(from)).ok()?;
    let mut buf = Vec::new();
    // the file may still be growing: the cap holds whatever its length is now
    f.take(TAIL_BYTES).read_to_end(&mut buf).ok()?;
    if from > 0 {
        // the first line is cut: start after it
        let cut = buf
            .iter()
            .position(|b| *b == b'\n')
            .map_or(buf.len(), |i| i + 1);
        buf.drain(..cut);
    }
    Some(buf)
}

fn is_human_prompt(v: &Value) -> bool {
    if v.get("type").and_then(Value::as_str) != Some("user") {
        return false;
    }
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("isMeta") || flag("isCompactSummary") || flag("isSidechain") {
        return false;
    }
    match v.pointer("/message/content") {
        Some(Value::String(_)) => true,
        Some(Value::Array(parts)) => {
            !parts
                .iter()
                .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_result"))
                && parts
                    .iter()
                    .any(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        }
        _ => false,
    }
}

/// Facts about the turn after the last human prompt, or `None` when the file is unreadable.
pub fn last_turn(path: &Path) -> Option<TurnFacts> {
    let buf = read_tail(path)?;
    let text = String::from_utf8_lossy(&buf);
    // a partial last line (still being written) does not parse
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let start = lines.iter().rposition(is_human_prompt)?;
    let mut facts = TurnFacts::default();
    for v in &lines[start + 1..] {
        if v.get("type").and_then(Value::as_str) != Some("assistant")
            || v.get("isSidechain")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        {
            continue;
        }
        let Some(Value::Array(parts)) = v.pointer("/message/content") else {
            continue;
        };
        for p in parts {
            if p.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
            match tool_kind(name, p.get("input").unwrap_or(&Value::Null)) {
                ToolKind::Work => facts.work = true,
                ToolKind::Record => facts.recorded = true,
                ToolKind::Other => {}
            }
        }
    }
    Some(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tools_after_the_last_human_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let lines = [
            r#"{"type":"user","message":{"role":"user","content":"first"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Edit","input":{}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"second"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"b","name":"Read","input":{}}]}}"#,
            r#"{"type":"user","message":{"content":[{"tool_use_id":"b","type":"tool_result","content":"x"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c","name":"Bash","input":{"command":"cargo test"}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_u"#,
        ];
        std::fs::write(&p, lines.join("\n")).unwrap();
        assert_eq!(
            last_turn(&p),
            Some(TurnFacts {
                work: true,
                recorded: false
            })
        );
        std::fs::write(&p, lines[..4].join("\n")).unwrap();
        assert_eq!(
            last_turn(&p),
            Some(TurnFacts {
                work: false,
                recorded: false
            })
        );
        assert_eq!(last_turn(&dir.path().join("missing.jsonl")), None);
    }
}
