//! What reaches the MCP protocol from stdin: lines the SDK cannot decode or would answer
//! wrongly (not JSON, longer than 16 MiB, nested too deep, a batch, a lone UTF-16 surrogate
//! escape, params of the wrong shape) are answered here with a precise JSON-RPC error, under
//! the request's id where it can be read and `null` otherwise, and the session goes on.

use serde_json::{Value, json};

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

/// Longest line read as one message; the rest of a longer one is read and dropped.
pub(super) const MAX_LINE: usize = 16 << 20;

/// Deepest nesting of arrays and objects a message may have.
pub(super) const MAX_DEPTH: usize = 64;

/// An error reply under `id` (`null` when the request's id could not be read).
fn error_reply(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Whether arrays and objects in `bytes` (JSON text) nest deeper than `max`; strings are
/// skipped, so brackets inside them do not count.
fn nests_deeper(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for &b in bytes {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The top-level `"id"` of a message read only this far (too long, too deep, not JSON at its
/// end): a number or a string, else `null`.
pub(super) fn id_in_prefix(text: &str) -> Value {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() && i < 1 << 16 {
        match b[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let key = text.get(start..j.min(b.len())).unwrap_or_default();
                i = j + 1;
                let rest = text.get(i..).unwrap_or_default().trim_start();
                if depth == 1 && key == "id" && rest.starts_with(':') {
                    let v = rest[1..].trim_start();
                    let mut de = serde_json::Deserializer::from_str(v).into_iter::<Value>();
                    return match de.next() {
                        Some(Ok(id)) if id.is_string() || id.is_number() => id,
                        _ => Value::Null,
                    };
                }
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    Value::Null
}

/// What becomes of one line from stdin.
#[derive(Debug, PartialEq)]
pub(super) enum Frame {
    /// Passed on to the protocol as it is.
    Pass(String),
    /// Answered here, with this reply.
    Answer(String),
    /// Dropped without an answer (a notification nothing can be done with).
    Drop,
}

/// Read one line: a message for the protocol, or the error reply it gets instead.
/// `cut` says the line was longer than [`MAX_LINE`] and only its start is in `buf`.
pub(super) fn frame(buf: &[u8], cut: bool) -> Frame {
    let line = String::from_utf8_lossy(buf);
    let trimmed = line.trim();
    if cut {
        return Frame::Answer(error_reply(
            &id_in_prefix(trimmed),
            -32600,
            &format!(
                "invalid request: a message longer than {} MiB; send less at once",
                MAX_LINE >> 20
            ),
        ));
    }
    if trimmed.is_empty() {
        return Frame::Drop;
    }
    let utf8 = std::str::from_utf8(buf).is_ok();
    if utf8 && nests_deeper(trimmed.as_bytes(), MAX_DEPTH) {
        return Frame::Answer(error_reply(
            &id_in_prefix(trimmed),
            -32600,
            &format!("invalid request: nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    let parsed = utf8
        .then(|| serde_json::from_str::<Value>(trimmed).ok())
        .flatten();
    match parsed {
        Some(Value::Array(_)) => Frame::Answer(error_reply(
            &Value::Null,
            -32600,
            "invalid request: batches are not part of MCP; send one JSON-RPC message per line",
        )),
        Some(v) => match bad_params(&v) {
            Some(why) => match v.get("id") {
                Some(id) => Frame::Answer(error_reply(id, -32602, &why)),
                None => Frame::Drop,
            },
            None => Frame::Pass(trimmed.to_string()),
        },
        None => match utf8.then(|| lone_surrogate(trimmed)).flatten() {
            Some(Some(id)) => Frame::Answer(error_reply(
                &id,
                -32602,
                "invalid params: a string holds a lone UTF-16 surrogate (a \\ud800–\\udfff escape without its pair); send valid Unicode text",
            )),
            Some(None) => Frame::Drop,
            None => Frame::Answer(error_reply(
                &Value::Null,
                -32700,
                "parse error: a line was not a JSON-RPC message; send one JSON object per line",
            )),
        },
    }
}

/// Why a request's params cannot be what its method takes, for the shapes the protocol library
/// would otherwise answer with "method not found".
fn bad_params(v: &Value) -> Option<String> {
    let method = v.get("method")?.as_str()?;
    let params = v.get("params")?;
    if !params.is_object() {
        return Some(format!(
            "invalid params: `params` of {method} must be an object"
        ));
    }
    let args = params.get("arguments");
    if method == "tools/call" && args.is_some_and(|a| !a.is_object() && !a.is_null()) {
        return Some(
            "invalid params: `arguments` of tools/call must be an object (the tool's input)".into(),
        );
    }
    None
}

/// For a line that is JSON but for lone surrogates: `Some(Some(id))` for a request (answered
/// invalid params under its id), `Some(None)` for a notification, `None` when the line is not
/// a request even so.
fn lone_surrogate(line: &str) -> Option<Option<Value>> {
    let v: Value = serde_json::from_str(&replace_lone_surrogates(line)?).ok()?;
    v.get("method")?.as_str()?;
    match v.get("id") {
        None => Some(None),
        Some(id) if id.is_string() || id.is_number() => Some(Some(id.clone())),
        Some(_) => None,
    }
}

/// Read one line of at most [`MAX_LINE`] bytes into `buf`; the rest of a longer one is read
/// and dropped. `None` at the end of input, else whether the line was cut.
fn read_line(r: &mut impl std::io::BufRead, buf: &mut Vec<u8>) -> Option<bool> {
    use std::io::{BufRead, Read};
    buf.clear();
    let n = r
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)
        .ok()?;
    if n == 0 {
        return None;
    }
    if buf.len() <= MAX_LINE || buf.ends_with(b"\n") {
        return Some(false);
    }
    loop {
        let chunk = r.fill_buf().ok()?;
        if chunk.is_empty() {
            return Some(true);
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(p) => {
                r.consume(p + 1);
                return Some(true);
            }
            None => {
                let len = chunk.len();
                r.consume(len);
            }
        }
    }
}

/// Read stdin line by line on a thread: what the protocol can take is passed on; a line it
/// cannot (not JSON, too long, too deep, a batch, a lone surrogate, params of the wrong shape)
/// is answered here through `replies`, under its id where one can be read, and the server
/// lives on.
pub(super) fn filtered_stdin(
    handle: tokio::runtime::Handle,
    replies: tokio::sync::mpsc::UnboundedSender<String>,
) -> tokio::io::DuplexStream {
    use tokio::io::AsyncWriteExt;
    let (mut tx, rx) = tokio::io::duplex(1 << 20);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = Vec::new();
        while let Some(cut) = read_line(&mut stdin, &mut buf) {
            let line = match frame(&buf, cut) {
                Frame::Pass(line) => line,
                Frame::Answer(reply) => {
                    tracing::warn!("answered a message the protocol cannot take: {reply:.200}");
                    if replies.send(reply).is_err() {
                        break;
                    }
                    continue;
                }
                Frame::Drop => continue,
            };
            let sent = handle.block_on(async {
                tx.write_all(line.as_bytes()).await?;
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

/// Write to stdout what the protocol writes into the returned stream, line by line, and the
/// replies [`filtered_stdin`] sends between those lines; ends once the protocol is done and
/// every reply is out.
pub(super) fn merged_stdout(
    mut replies: tokio::sync::mpsc::UnboundedReceiver<String>,
) -> (tokio::io::DuplexStream, tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (tx, rx) = tokio::io::duplex(1 << 20);
    let pump = tokio::spawn(async move {
        let mut from = tokio::io::BufReader::new(rx);
        let mut out = tokio::io::stdout();
        let mut line = Vec::new();
        loop {
            line.clear();
            tokio::select! {
                n = from.read_until(b'\n', &mut line) => {
                    if !matches!(n, Ok(n) if n > 0) {
                        break;
                    }
                    if out.write_all(&line).await.is_err() {
                        return;
                    }
                }
                Some(reply) = replies.recv() => {
                    let write = async {
                        out.write_all(reply.as_bytes()).await?;
                        out.write_all(b"\n").await
                    };
                    if write.await.is_err() {
                        return;
                    }
                }
            }
            let _ = out.flush().await;
        }
        while let Ok(reply) = replies.try_recv() {
            let _ = out.write_all(reply.as_bytes()).await;
            let _ = out.write_all(b"\n").await;
        }
        let _ = out.flush().await;
    });
    (tx, pump)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(f: Frame) -> Value {
        match f {
            Frame::Answer(r) => serde_json::from_str(&r).unwrap(),
            other => panic!("not answered: {other:?}"),
        }
    }

    #[test]
    fn lines_the_protocol_cannot_take_are_answered_under_their_id() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(frame(ok.as_bytes(), false), Frame::Pass(ok.to_string()));
        let r = answer(frame(b"{nope", false));
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::Null, json!(-32700))
        );
        let r = answer(frame(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            false,
        ));
        assert_eq!(r["error"]["code"], -32600);
        assert!(r["id"].is_null());
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"d-1","method":"ping","params":{{"x":{}0{}}}}}"#,
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        let r = answer(frame(deep.as_bytes(), false));
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!("d-1"), json!(-32600))
        );
        let big = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"aaaa"#;
        let r = answer(frame(big.as_bytes(), true));
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(42), json!(-32600))
        );
        let r = answer(frame(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_status","arguments":[1]}}"#,
            false,
        ));
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(7), json!(-32602))
        );
        // a notification of the wrong shape gets no answer
        assert_eq!(
            frame(
                br#"{"jsonrpc":"2.0","method":"notifications/x","params":3}"#,
                false
            ),
            Frame::Drop
        );
    }

    #[test]
    fn the_id_is_read_at_the_top_level_only() {
        assert_eq!(
            id_in_prefix(r#"{"params":{"id":9},"id":"top","x":"#),
            json!("top")
        );
        assert_eq!(
            id_in_prefix(r#"{"jsonrpc":"2.0","id": 12 ,"method":"#),
            json!(12)
        );
        assert_eq!(id_in_prefix(r#"{"params":{"id":9},"x":"#), Value::Null);
        assert_eq!(id_in_prefix(r#"{"id":{"a":1}}"#), Value::Null);
        assert_eq!(id_in_prefix(r#"{"k":"has \" quote","id":3}"#), json!(3));
    }

    #[test]
    fn a_line_longer_than_the_cap_is_cut_and_its_rest_dropped() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"next\":1}\n");
        let mut r = std::io::Cursor::new(input);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf), Some(true));
        assert_eq!(buf.len(), MAX_LINE + 1);
        assert_eq!(read_line(&mut r, &mut buf), Some(false));
        assert_eq!(buf, b"{\"next\":1}\n");
        assert_eq!(read_line(&mut r, &mut buf), None);
    }

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
