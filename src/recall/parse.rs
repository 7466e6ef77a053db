//! Reading the hosts' transcript lines: what a person typed and what an agent answered, and
//! nothing else — no tool calls or results, no thinking, no compaction summaries, no
//! harness-injected messages, none of trilogy's own blocks, notices and reminders.
//!
//! The formats are internal to each host and change between versions: every line is parsed
//! on its own, a line that is not understood is counted and skipped (never guessed at), and a
//! last line without its line feed is left for the next read (the host is still writing it).

use serde_json::Value;

use super::Host;

/// Who said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One thing said, where it is in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// 1-based line number in the (decompressed) file.
    pub line: u64,
    pub role: Role,
    /// RFC 3339, when the line carries one.
    pub time: Option<String>,
    pub text: String,
    /// The working directory the file named as of this line.
    pub cwd: Option<String>,
}

/// What a file says about itself as it is read: kept between reads, so a read from an offset
/// knows the session and whether its lines belong to the workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Context {
    /// The session id, once a line named it.
    pub session: Option<String>,
    /// The working directory the last line named (Claude Code names one per line; Codex and
    /// DeepSeek Harness once, at the top).
    pub cwd: Option<String>,
    /// Gemini CLI: the project hash the file's first line names.
    pub project: Option<String>,
    /// Codex and DeepSeek Harness: the working directory the session started in.
    #[serde(default)]
    pub start: Option<String>,
}

/// What one read of a chunk of lines found.
#[derive(Debug, Default)]
pub struct Read {
    pub said: Vec<Said>,
    /// Lines in the chunk, counted as `str::lines` counts them.
    pub lines: u64,
    /// Lines that are not JSON, or JSON of a shape this trilogy does not know.
    pub skipped: u64,
}

/// Whether `text` is trilogy's own: a block, a notice, a reminder or a stand-in.
pub fn is_ours(text: &str) -> bool {
    const MARKS: [&str; 12] = [
        "===== 项目记忆",
        "===== Project memory",
        "【记忆提醒】",
        "[memory reminder]",
        "【项目记忆有更新】",
        "[project memory changed]",
        "【其他工作树有新记录】",
        "[sibling work trees]",
        "用户记忆（USER.md",
        "The user memory (USER.md",
        "（此处原有一份项目记忆块",
        "(A copy of the project memory block",
    ];
    let t = text.trim_start();
    t.contains("--- PROJECT.md ---") || MARKS.iter().any(|m| t.starts_with(m))
}

/// What a host wraps around text it injects itself (instructions, environment, hook output).
fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    [
        "<system-reminder>",
        "<local-command-caveat>",
        "<local-command-stderr>",
        "<session_context>",
        "<bash-input>",
        "<bash-stdout>",
        "<bash-stderr>",
        "<user-prompt-submit-hook>",
        "<task-notification>",
        "<user_shell_command>",
        "<turn_aborted>",
        "<skill>",
        "<plugins>",
        "<subagent_notification>",
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "Caveat: The messages below were generated",
        "[Request interrupted",
    ]
    .iter()
    .any(|m| t.starts_with(m))
}

fn keep(text: String) -> Option<String> {
    // what a host adds to a prompt inside these tags is its own
    let text = without(&text, "<system-reminder>", "</system-reminder>");
    let text = without(&text, "<hook_context>", "</hook_context>");
    let t = text.trim();
    (!t.is_empty() && !is_ours(t) && !is_injected(t)).then(|| t.to_string())
}

/// The text blocks of a message's `content`: a string, or an array of blocks whose `type` is
/// one of `kinds` (each block's `text`). `None` when it holds anything else that rules it out
/// (a tool result), or nothing readable.
fn texts(content: &Value, kinds: &[&str], refuse: &[&str]) -> Option<String> {
    match content {
        Value::String(s) => keep(s.clone()),
        Value::Array(parts) => {
            fn kind(p: &Value) -> &str {
                p.get("type").and_then(Value::as_str).unwrap_or("")
            }
            if parts.iter().any(|p| refuse.contains(&kind(p))) {
                return None;
            }
            // each part on its own: a host puts its instructions beside what was typed
            let t: Vec<String> = (parts.iter())
                .filter(|p| kinds.contains(&kind(p)))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .filter_map(|t| keep(t.to_string()))
                .collect();
            (!t.is_empty()).then(|| t.join("\n"))
        }
        _ => None,
    }
}

/// `text` without the spans between `open` and `close` (a host's injected tags, such as
/// Gemini CLI's `<hook_context>` or Claude Code's `<system-reminder>`).
fn without(text: &str, open: &str, close: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(open) {
        out.push_str(&rest[..i]);
        match rest[i..].find(close) {
            Some(j) => rest = &rest[i + j + close.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

fn time_of(v: &Value) -> Option<String> {
    match v.get("timestamp").or_else(|| v.get("time"))? {
        Value::String(s) => Some(s.clone()),
        // DeepSeek Harness: milliseconds since the epoch
        Value::Number(n) => chrono::DateTime::from_timestamp_millis(n.as_i64()?)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        _ => None,
    }
}

/// One Claude Code line (`~/.claude/projects/…/<session>.jsonl`).
fn claude(v: &Value, ctx: &mut Context) -> Option<Option<(Role, String)>> {
    if let Some(c) = v.get("cwd").and_then(Value::as_str) {
        ctx.cwd = Some(c.to_string());
    }
    if let Some(s) = v.get("sessionId").and_then(Value::as_str) {
        ctx.session.get_or_insert_with(|| s.to_string());
    }
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    let kind = v.get("type").and_then(Value::as_str)?;
    if flag("isApiErrorMessage") {
        return Some(None);
    }
    match kind {
        "user" => {
            if flag("isMeta") || flag("isCompactSummary") || v.get("toolUseResult").is_some() {
                return Some(None);
            }
            let content = v.pointer("/message/content")?;
            Some(texts(content, &["text"], &["tool_result"]).map(|t| (Role::User, t)))
        }
        "assistant" => {
            let content = v.pointer("/message/content")?;
            // thinking and tool calls are left out; only the text said
            Some(texts(content, &["text"], &[]).map(|t| (Role::Assistant, t)))
        }
        // snapshots, summaries, progress, system lines, titles: nothing said
        _ => Some(None),
    }
}

/// One Codex line (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
fn codex(v: &Value, ctx: &mut Context) -> Option<Option<(Role, String)>> {
    let kind = v.get("type").and_then(Value::as_str)?;
    let payload = v.get("payload")?;
    match kind {
        "session_meta" => {
            if let Some(id) = payload.get("id").and_then(Value::as_str) {
                ctx.session = Some(id.to_string());
            }
            if let Some(c) = payload.get("cwd").and_then(Value::as_str) {
                ctx.cwd = Some(c.to_string());
                ctx.start.get_or_insert_with(|| c.to_string());
            }
            Some(None)
        }
        "turn_context" => {
            if let Some(c) = payload.get("cwd").and_then(Value::as_str) {
                ctx.cwd = Some(c.to_string());
            }
            Some(None)
        }
        "response_item" => {
            if payload.get("type").and_then(Value::as_str) != Some("message") {
                // reasoning, function calls and their output
                return Some(None);
            }
            let role = match payload.get("role").and_then(Value::as_str)? {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                // developer and system messages are the harness's
                _ => return Some(None),
            };
            let content = payload.get("content")?;
            Some(texts(content, &["input_text", "output_text", "text"], &[]).map(|t| (role, t)))
        }
        // event_msg repeats what response_item holds
        _ => Some(None),
    }
}

/// One Gemini CLI line (`~/.gemini/tmp/<project>/chats/session-*.jsonl`): the first names the
/// session and the project's hash, the rest are messages (`user`, `gemini`) and updates.
fn gemini(v: &Value, ctx: &mut Context) -> Option<Option<(Role, String)>> {
    if let Some(h) = v.get("projectHash").and_then(Value::as_str) {
        ctx.project = Some(h.to_string());
        if let Some(s) = v.get("sessionId").and_then(Value::as_str) {
            ctx.session = Some(s.to_string());
        }
        return Some(None);
    }
    if v.get("$set").is_some() || v.get("$rewindTo").is_some() {
        return Some(None);
    }
    let role = match v.get("type").and_then(Value::as_str)? {
        "user" => Role::User,
        "gemini" => Role::Assistant,
        // info, error, warning lines are the CLI's own
        _ => return Some(None),
    };
    let content = v.get("content")?;
    let text = match content {
        Value::Array(parts) => {
            // `[{text}]` parts, as the model API has them; function calls and responses left out
            if parts.iter().any(|p| p.get("functionResponse").is_some()) {
                return Some(None);
            }
            let t: Vec<String> = (parts.iter())
                .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .filter_map(|t| keep(t.to_string()))
                .collect();
            (!t.is_empty()).then(|| t.join("\n"))
        }
        Value::String(s) => keep(s.clone()),
        _ => None,
    };
    Some(text.map(|t| (role, t)))
}

/// One DeepSeek Harness event line (a decompressed `session.jsonl.zstd` frame's lines): the
/// header names the session and its cwd; `user/message` and `assistant/message` events hold
/// what was said, unless a plugin appended them (trilogy's block, a runtime snapshot).
fn dsh(v: &Value, ctx: &mut Context) -> Option<Option<(Role, String)>> {
    let kind = v.get("type").and_then(Value::as_str)?;
    let data = v.get("data");
    let (role, content) = match kind {
        // the header: the session and its working directory
        "session" => {
            ctx.cwd = v.get("cwd").and_then(Value::as_str).map(str::to_string);
            ctx.start.clone_from(&ctx.cwd);
            ctx.session = v.get("id").and_then(Value::as_str).map(str::to_string);
            return Some(None);
        }
        "user/message" => {
            let data = data?;
            // what the person typed is `source.kind = "user"`; instructions, snapshots and
            // plugins' blocks (trilogy's) name another source
            let source = data.pointer("/source/kind").and_then(Value::as_str);
            if source.is_some_and(|k| k != "user") {
                return Some(None);
            }
            (Role::User, data.get("content")?)
        }
        "assistant/message" => (Role::Assistant, data?.pointer("/message/content")?),
        _ => return Some(None),
    };
    Some(texts(content, &["text"], &["tool-result", "tool_result"]).map(|t| (role, t)))
}

/// Read the complete lines of `chunk` (the part of a file from line `first_line` on), with
/// the context the file's earlier lines left; the caller keeps the partial last line.
/// Keys whose presence (unescaped, so never inside a string value) marks a line that can
/// hold nothing said: a tool's result, an attachment, a state update. Such lines are most of a
/// transcript's bytes, and are skipped without being parsed.
fn nothing_said(host: Host, line: &[u8]) -> bool {
    use memchr::memmem::Finder;
    fn marks(host: Host) -> &'static [&'static str] {
        match host {
            Host::Claude => &[
                "\"toolUseResult\":",
                "\"type\":\"attachment\"",
                "\"type\":\"progress\"",
                "\"type\":\"file-history-snapshot\"",
            ],
            // tool calls and their output, reasoning and token counts say nothing to recall
            Host::Codex => &[
                "\"type\":\"function_call_output\"",
                "\"type\":\"function_call\"",
                "\"type\":\"custom_tool_call\"",
                "\"type\":\"custom_tool_call_output\"",
                "\"type\":\"reasoning\"",
                "\"type\":\"token_count\"",
            ],
            Host::Gemini => &["{\"$set\":"],
            Host::Dsh => &["\"type\":\"assistant/chunk\"", "\"type\":\"tool/result\""],
            // hosts whose transcripts are not read
            Host::Cursor | Host::Vscode | Host::Windsurf | Host::Zed => &[],
        }
    }
    // each host's marks, made searchers once (in the order of `Host::ALL`)
    static FINDERS: std::sync::LazyLock<Vec<Vec<Finder<'static>>>> =
        std::sync::LazyLock::new(|| {
            (Host::ALL.iter())
                .map(|&h| marks(h).iter().map(Finder::new).collect())
                .collect()
        });
    let at = Host::ALL
        .iter()
        .position(|h| *h == host)
        .unwrap_or_default();
    FINDERS[at].iter().any(|m| m.find(line).is_some())
}

/// The lines of `text` as `str::lines` splits them (a `\r` before a line feed dropped),
/// over bytes: only the lines that may hold something said are checked as UTF-8.
fn split_lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    })
}

/// A Gemini CLI session kept as one JSON document (`session-*.json`, before the `.jsonl`
/// logs): `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`, each message
/// shaped as a line of the log. Given back as log lines, the messages first (so a hit's line
/// is the message's place in the session) and the session's own line last; `None` when it is
/// not such a document (a file still being written is not whole yet).
pub fn gemini_document(bytes: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let (session, project) = (v.get("sessionId")?, v.get("projectHash")?);
    let mut out = String::new();
    for m in v.get("messages")?.as_array()? {
        out.push_str(&m.to_string());
        out.push('\n');
    }
    let own = serde_json::json!({"sessionId": session, "projectHash": project});
    out.push_str(&own.to_string());
    out.push('\n');
    Some(out)
}

/// A Gemini CLI line with only the fields recall reads: its tool calls and their results, most
/// of a line's bytes, are skipped unread.
#[derive(serde::Deserialize)]
struct GeminiLine {
    #[serde(rename = "projectHash")]
    project_hash: Option<Value>,
    #[serde(rename = "sessionId")]
    session_id: Option<Value>,
    #[serde(rename = "$set")]
    set: Option<serde::de::IgnoredAny>,
    #[serde(rename = "$rewindTo")]
    rewind_to: Option<serde::de::IgnoredAny>,
    #[serde(rename = "type")]
    kind: Option<Value>,
    content: Option<Value>,
    timestamp: Option<Value>,
}

/// A Gemini CLI line as the value [`gemini`] reads: the fields it looks at, those present.
fn gemini_said(line: &str) -> Option<Value> {
    let l: GeminiLine = serde_json::from_str(line).ok()?;
    let marker = |m: Option<serde::de::IgnoredAny>| m.map(|_| Value::Null);
    let fields = [
        ("projectHash", l.project_hash),
        ("sessionId", l.session_id),
        ("$set", marker(l.set)),
        ("$rewindTo", marker(l.rewind_to)),
        ("type", l.kind),
        ("content", l.content),
        ("timestamp", l.timestamp),
    ];
    let v = (fields.into_iter()).filter_map(|(k, v)| Some((k.to_string(), v?)));
    Some(Value::Object(v.collect()))
}

pub fn lines(host: Host, chunk: &[u8], first_line: u64, ctx: &mut Context) -> Read {
    let mut out = Read::default();
    for (i, l) in split_lines(chunk).enumerate() {
        out.lines += 1;
        if l.trim_ascii().is_empty() || nothing_said(host, l) {
            continue;
        }
        // a byte that is not UTF-8 is read as U+FFFD, as a lossy read of the file would
        let l = match std::str::from_utf8(l) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(l),
        };
        let v = match host {
            Host::Gemini => gemini_said(&l),
            _ => serde_json::from_str::<Value>(&l).ok(),
        };
        let Some(v) = v else {
            out.skipped += 1;
            continue;
        };
        let said = match host {
            Host::Claude => claude(&v, ctx),
            Host::Codex => codex(&v, ctx),
            Host::Gemini => gemini(&v, ctx),
            Host::Dsh => dsh(&v, ctx),
            Host::Cursor | Host::Vscode | Host::Windsurf | Host::Zed => None,
        };
        match said {
            None => out.skipped += 1,
            Some(None) => {}
            Some(Some((role, text))) => out.said.push(Said {
                line: first_line + i as u64,
                role,
                time: time_of(&v),
                text,
                cwd: ctx.cwd.clone(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_lines_keep_what_was_said_and_nothing_else() {
        let chunk = concat!(
            r#"{"type":"user","cwd":"/p","sessionId":"s1","message":{"role":"user","content":"why does the linker need -lm?"},"timestamp":"2026-11-30T10:00:00Z"}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"secret thoughts"}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Because libm is separate."}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","name":"Bash","input":{}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"ok"}]},"toolUseResult":{}}"#,
            "\n",
            r#"{"type":"user","isMeta":true,"message":{"content":"<system-reminder>x</system-reminder>"}}"#,
            "\n",
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#,
            "\n",
            r#"{"type":"system","subtype":"compact_boundary"}"#,
            "\n",
            r#"{"type":"user","message":{"content":"===== 项目记忆（背景资料）=====\n…"}}"#,
            "\n",
            "not json\n",
        );
        let mut ctx = Context::default();
        let r = lines(Host::Claude, chunk.as_bytes(), 1, &mut ctx);
        let said: Vec<(u64, Role, &str)> = r
            .said
            .iter()
            .map(|s| (s.line, s.role, s.text.as_str()))
            .collect();
        assert_eq!(
            said,
            vec![
                (1, Role::User, "why does the linker need -lm?"),
                (3, Role::Assistant, "Because libm is separate.")
            ]
        );
        assert_eq!(r.skipped, 1);
        assert_eq!(
            (ctx.session.as_deref(), ctx.cwd.as_deref()),
            (Some("s1"), Some("/p"))
        );
        assert_eq!(r.said[0].time.as_deref(), Some("2026-11-30T10:00:00Z"));
    }

    #[test]
    fn lines_are_split_and_counted_as_str_lines_does() {
        for text in [
            "", "a", "a\n", "a\r\nb", "a\n\nb\n", "\r\n", "a\rb\n", "\n\n",
        ] {
            let want: Vec<&str> = text.lines().collect();
            let got: Vec<&[u8]> = split_lines(text.as_bytes()).collect();
            assert_eq!(
                got,
                want.iter().map(|l| l.as_bytes()).collect::<Vec<_>>(),
                "{text:?}"
            );
            let counted = lines(Host::Claude, text.as_bytes(), 1, &mut Context::default()).lines;
            assert_eq!(counted, want.len() as u64, "{text:?}");
        }
    }

    #[test]
    fn codex_lines_keep_user_and_assistant_messages_only() {
        let chunk = concat!(
            r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"c1","cwd":"/w"}}"#,
            "\n",
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}"#,
            "\n",
            r#"{"timestamp":"t2","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]}}"#,
            "\n",
            r#"{"timestamp":"t3","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the flaky test"}]}}"#,
            "\n",
            r#"{"timestamp":"t4","type":"event_msg","payload":{"type":"user_message","message":"fix the flaky test"}}"#,
            "\n",
            r#"{"timestamp":"t5","type":"response_item","payload":{"type":"reasoning","summary":[]}}"#,
            "\n",
            r#"{"timestamp":"t6","type":"response_item","payload":{"type":"function_call","name":"shell"}}"#,
            "\n",
            r#"{"timestamp":"t7","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"It was a race on the port."}]}}"#,
            "\n",
        );
        let mut ctx = Context::default();
        let r = lines(Host::Codex, chunk.as_bytes(), 10, &mut ctx);
        let said: Vec<(u64, &str)> = r.said.iter().map(|s| (s.line, s.text.as_str())).collect();
        assert_eq!(
            said,
            vec![
                (13, "fix the flaky test"),
                (17, "It was a race on the port.")
            ]
        );
        assert_eq!(
            (ctx.session.as_deref(), ctx.cwd.as_deref()),
            (Some("c1"), Some("/w"))
        );
    }
}
