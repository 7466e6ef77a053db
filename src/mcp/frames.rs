//! What reaches the MCP protocol from stdin: frames that are not JSON-RPC the SDK can decode
//! (a lone UTF-16 surrogate escape, a line that does not parse) are answered here with a
//! precise error under their own id instead of ending the session.

use serde_json::{Value, json};

pub(super) const PARSE_ERROR_METHOD: &str = "trilogy/parse-error";

/// The method a request holding a lone UTF-16 surrogate is turned into, so it gets an
/// invalid-params reply under its own id.
pub(super) const INVALID_PARAMS_METHOD: &str = "trilogy/invalid-params";

/// `text` with every `\uXXXX` escape of a lone UTF-16 surrogate (one not in a high–low pair)
/// replaced by `\ufffd`; `None` when there is none. serde_json refuses such strings, so a
/// request holding one could not otherwise be read far enough to find its id.
pub(super) fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        let h = text.get(at..at + 4)?;
        h.bytes()
            .all(|c| c.is_ascii_hexdigit())
            .then(|| u16::from_str_radix(h, 16).ok())
            .flatten()
    };
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // an escape: `\\` and `\"` are skipped whole, so an escaped backslash is never read as
        // the start of `\u`
        let Some(unit) = (bytes.get(i + 1) == Some(&b'u'))
            .then(|| hex(i + 2))
            .flatten()
        else {
            i += 2;
            continue;
        };
        let end = i + 6;
        let paired = (0xD800..=0xDBFF).contains(&unit)
            && text.get(end..end + 2) == Some("\\u")
            && hex(end + 2).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
        if paired {
            i = end + 6;
        } else if (0xD800..=0xDFFF).contains(&unit) {
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            copied = end;
            i = end;
        } else {
            i = end;
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// For a line that is JSON but for lone surrogates: `Some(Some(frame))` asking for an
/// invalid-params reply under the request's id, `Some(None)` for a notification (nothing to
/// answer), `None` when the line is not a request even so.
pub(super) fn lone_surrogate_frame(line: &str) -> Option<Option<String>> {
    let v: Value = serde_json::from_str(&replace_lone_surrogates(line)?).ok()?;
    let method = v.get("method")?.as_str()?.to_string();
    match v.get("id") {
        None => Some(None),
        Some(id) if id.is_string() || id.is_number() => Some(Some(
            json!({"jsonrpc": "2.0", "id": id, "method": INVALID_PARAMS_METHOD, "params": {"method": method}})
                .to_string(),
        )),
        Some(_) => None,
    }
}

/// Read stdin line by line on a thread and pass each frame on; a line that is not JSON becomes
/// a request for [`PARSE_ERROR_METHOD`], so the client hears about it and the server lives on,
/// and a request that is JSON but for a lone surrogate becomes one for [`INVALID_PARAMS_METHOD`]
/// under its own id.
pub(super) fn filtered_stdin(handle: tokio::runtime::Handle) -> tokio::io::DuplexStream {
    use std::io::BufRead;
    use tokio::io::AsyncWriteExt;
    let (mut tx, rx) = tokio::io::duplex(1 << 20);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = Vec::new();
        let mut bad = 0u64;
        loop {
            buf.clear();
            match stdin.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf);
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let utf8 = std::str::from_utf8(&buf).is_ok();
            let frame = if utf8 && serde_json::from_str::<Value>(trimmed).is_ok() {
                trimmed.to_string()
            } else if let Some(answer) = utf8.then(|| lone_surrogate_frame(trimmed)).flatten() {
                match answer {
                    Some(frame) => frame,
                    None => {
                        tracing::warn!("ignoring a notification holding a lone surrogate");
                        continue;
                    }
                }
            } else {
                bad += 1;
                tracing::warn!("ignoring a line that is not JSON");
                let shown: String = trimmed.chars().take(200).collect();
                json!({"jsonrpc": "2.0", "id": format!("trilogy-parse-error-{bad}"), "method": PARSE_ERROR_METHOD, "params": {"line": shown}})
                    .to_string()
            };
            let sent = handle.block_on(async {
                tx.write_all(frame.as_bytes()).await?;
                tx.write_all(b"\n").await
            });
            if sent.is_err() {
                break;
            }
        }
        let _ = handle.block_on(tx.shutdown());
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lone_surrogates_are_replaced() {
        let r = |t: &str| replace_lone_surrogates(t);
        assert_eq!(r(r#"{"a":"\ud800"}"#).as_deref(), Some(r#"{"a":"\ufffd"}"#));
        assert_eq!(
            r(r#"["\udc00x\ud83d"]"#).as_deref(),
            Some(r#"["\ufffdx\ufffd"]"#)
        );
        // a pair, an escaped backslash before `ud800`, and plain escapes stay
        assert_eq!(r(r#"["\ud83d\ude00","\\ud800","\u0041\n"]"#), None);
        assert_eq!(r(r#"["\\\ud800"]"#).as_deref(), Some(r#"["\\\ufffd"]"#));
        // a truncated escape is left to the JSON parser
        assert_eq!(r(r#"["\ud8"#), None);
    }
}
