//! What a session did, read from its host's transcript: the files its tools edited, the
//! commands they ran with how each ended, and trilogy's own checkpoint calls. What people and
//! agents said comes from recall's line reader (`super::super::parse`); this adds the tool
//! calls it leaves out. Each host's shapes are its own and change between versions: a call
//! this reader does not know is not a step, never a guess.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::model::host::Host;

mod gemini;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The exit code the host reported.
    Code(i32),
    /// The host marked it failed without a code.
    Failed,
    /// The host marked it done without a code.
    Done,
    /// No result in the transcript (cut off, or still running).
    Unknown,
}

/// One thing a session did, at its line in the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A person's request.
    Asked(String),
    /// What an agent answered.
    Said(String),
    /// A file a tool wrote.
    Edited(String),
    /// A shell command and how it ended.
    Ran { command: String, exit: Exit },
    /// A write to trilogy's memory that succeeded (its MCP checkpoint, or `trilogy checkpoint`).
    Recorded,
}

/// A tool call waiting for its result: what it was.
enum Call {
    Shell(String),
    Checkpoint,
}

/// Tool calls waiting for their results, each with its id and line, in the order they were
/// made: those never answered are given in that order, the same at every read.
#[derive(Default)]
struct Pending(Vec<(String, u64, Call)>);

impl Pending {
    fn insert(&mut self, id: &str, line: u64, call: Call) {
        self.remove(id);
        self.0.push((id.to_string(), line, call));
    }

    fn remove(&mut self, id: &str) -> Option<(u64, Call)> {
        let at = self.0.iter().position(|(k, ..)| k == id)?;
        let (_, line, call) = self.0.remove(at);
        Some((line, call))
    }
}

/// The tool steps of `text` (a host's JSONL transcript, or its end from line `first` on), each
/// with its line; what was said is added by the caller.
pub fn tool_steps(host: Host, text: &str, first: u64) -> Vec<(u64, Step)> {
    let mut out = Vec::new();
    let mut calls = Pending::default();
    // Gemini CLI logs a message again as it is updated: a call id's last step is kept
    let mut logged: HashMap<String, usize> = HashMap::new();
    // most lines hold no tool call or result: only those naming one are parsed
    let marks: &[&str] = match host {
        Host::Claude => &["\"tool_use\"", "\"tool_result\""],
        Host::Codex => &["function_call", "custom_tool_call"],
        Host::Gemini => &["\"toolCalls\""],
        _ => &[],
    };
    let finders: Vec<memchr::memmem::Finder> =
        marks.iter().map(memchr::memmem::Finder::new).collect();
    for (i, line) in text.lines().enumerate() {
        let n = first + i as u64;
        if !finders.iter().any(|f| f.find(line.as_bytes()).is_some()) {
            continue;
        }
        // Claude Code's lines read typed, their outputs and copies skipped unread; the shapes
        // that do not fit (a string message, a result made of parts) as a whole value
        if host == Host::Claude
            && let Ok(l) = serde_json::from_str::<ClaudeLine>(line)
        {
            claude_parts(
                l.message.map(|m| m.content).unwrap_or_default(),
                n,
                &mut calls,
                &mut out,
            );
            continue;
        }
        if host == Host::Gemini && gemini::typed(line, n, &mut logged, &mut out) {
            continue;
        }
        if host == Host::Codex
            && let Ok(l) = serde_json::from_str::<CodexLine>(line)
        {
            if l.kind.as_deref() == Some("response_item")
                && let Some(p) = l.payload
            {
                codex_payload(p, n, &mut calls, &mut out);
            }
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match host {
            Host::Claude => claude(&v, n, &mut calls, &mut out),
            Host::Codex => codex(&v, n, &mut calls, &mut out),
            Host::Gemini => gemini::whole(&v, n, &mut logged, &mut out),
            _ => {}
        }
    }
    // calls never answered: a command with no known end, a checkpoint not known to have written
    for (_, n, call) in calls.0 {
        if let Call::Shell(command) = call {
            out.push((n, ran(command, Exit::Unknown)));
        }
    }
    out.sort_by_key(|(n, _)| *n);
    out
}

/// A command's step: `trilogy checkpoint` that ended well is a write to memory.
fn ran(command: String, exit: Exit) -> Step {
    let ok = matches!(exit, Exit::Code(0) | Exit::Done);
    let words: Vec<&str> = command.split_whitespace().collect();
    let checkpoint = (words.windows(2)).any(|w| w[0].ends_with("trilogy") && w[1] == "checkpoint");
    match checkpoint && ok {
        true => Step::Recorded,
        false => Step::Ran { command, exit },
    }
}

/// Whether a tool named `name` is trilogy's checkpoint (`mcp__trilogy__memory_checkpoint`,
/// `mcp_trilogy_memory_checkpoint`, or the bare name a host gives with a namespace).
fn is_checkpoint(name: &str, namespace: Option<&str>) -> bool {
    name.ends_with("memory_checkpoint")
        && (name.contains("trilogy") || namespace.is_some_and(|n| n.contains("trilogy")))
}

/// The code in `Exit code N` / `exited with code N` / `Exit Code: N`, wherever it stands.
fn code_in(text: &str) -> Option<i32> {
    const MARKS: [&str; 3] = ["exited with code ", "exit code: ", "exit code "];
    // where each mark first stands, in any case: found from the `xit` of every "exit" (a long
    // output is searched once, never copied)
    static FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 2]> =
        std::sync::LazyLock::new(|| {
            [
                memchr::memmem::Finder::new("xit"),
                memchr::memmem::Finder::new("XIT"),
            ]
        });
    let b = text.as_bytes();
    let mut first: [Option<usize>; 3] = [None; 3];
    let mut starts: Vec<usize> = (FINDERS.iter())
        .flat_map(|f| f.find_iter(b))
        .filter(|&at| at >= 1 && matches!(b[at - 1], b'e' | b'E'))
        .map(|at| at - 1)
        .collect();
    starts.sort_unstable();
    for at in starts {
        for (i, m) in MARKS.iter().enumerate() {
            let hit = b
                .get(at..at + m.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(m.as_bytes()));
            if hit && first[i].is_none() {
                first[i] = Some(at + m.len());
            }
        }
    }
    for from in first.into_iter().flatten() {
        let rest = &text[from..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        if let Ok(code) = rest[..end].parse() {
            return Some(code);
        }
    }
    None
}

/// A tool result's text: the string itself, or the JSON of anything else.
fn text_of(v: Option<&Value>) -> std::borrow::Cow<'_, str> {
    match v {
        Some(Value::String(s)) => std::borrow::Cow::Borrowed(s),
        Some(other) => std::borrow::Cow::Owned(other.to_string()),
        None => std::borrow::Cow::Borrowed(""),
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// A Claude Code transcript line, as the draft reads it: its message's parts; every other
/// field (the tool's output copied in `toolUseResult`, usage, ids) is skipped unread.
#[derive(serde::Deserialize)]
struct ClaudeLine<'a> {
    #[serde(borrow, default)]
    message: Option<ClaudeMessage<'a>>,
}

#[derive(serde::Deserialize)]
struct ClaudeMessage<'a> {
    #[serde(borrow, default)]
    content: Vec<Part<'a>>,
}

/// One part of a Claude Code message: a tool call, its result, or anything else.
#[derive(Default, serde::Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Input<'a>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: Option<bool>,
    /// A result's text (a result made of parts is read as a whole value instead).
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
}

/// What a tool call's input says that a draft names.
#[derive(Default, serde::Deserialize)]
struct Input<'a> {
    #[serde(borrow, default)]
    file_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    notebook_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<Cow<'a, str>>,
    /// Gemini CLI's name for a file some tools take.
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
}

/// Claude Code's line read as a whole value: its parts, as the typed read gives them.
fn claude(v: &Value, n: u64, calls: &mut Pending, out: &mut Vec<(u64, Step)>) {
    let Some(parts) = v.pointer("/message/content").and_then(Value::as_array) else {
        return;
    };
    fn s<'a>(p: &'a Value, at: &str) -> Option<Cow<'a, str>> {
        str_at(p, at).map(Cow::Borrowed)
    }
    let parts: Vec<Part> = (parts.iter())
        .map(|p| Part {
            kind: s(p, "/type"),
            id: s(p, "/id"),
            name: s(p, "/name"),
            input: Some(Input {
                file_path: s(p, "/input/file_path"),
                notebook_path: s(p, "/input/notebook_path"),
                command: s(p, "/input/command"),
                path: None,
            }),
            tool_use_id: s(p, "/tool_use_id"),
            is_error: p.get("is_error").and_then(Value::as_bool),
            content: Some(text_of(p.get("content"))),
        })
        .collect();
    claude_parts(parts, n, calls, out);
}

/// Claude Code: `tool_use` parts of an assistant message, `tool_result` parts of the next user
/// line. Edit, Write, MultiEdit and NotebookEdit name their file; Bash its command.
fn claude_parts(parts: Vec<Part>, n: u64, calls: &mut Pending, out: &mut Vec<(u64, Step)>) {
    for p in parts {
        let input = p.input.unwrap_or_default();
        match p.kind.as_deref() {
            Some("tool_use") => {
                let (Some(id), Some(name)) = (p.id.as_deref(), p.name.as_deref()) else {
                    continue;
                };
                match name {
                    "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
                        if let Some(path) = input.file_path.or(input.notebook_path) {
                            out.push((n, Step::Edited(path.into_owned())));
                        }
                    }
                    "Bash" => {
                        if let Some(c) = input.command {
                            calls.insert(id, n, Call::Shell(c.into_owned()));
                        }
                    }
                    _ if is_checkpoint(name, None) => {
                        calls.insert(id, n, Call::Checkpoint);
                    }
                    _ => {}
                }
            }
            Some("tool_result") => {
                let Some((at, call)) = p.tool_use_id.as_deref().and_then(|id| calls.remove(id))
                else {
                    continue;
                };
                let failed = p.is_error == Some(true);
                let text = p.content.unwrap_or_default();
                match call {
                    Call::Shell(command) => {
                        let exit = match (code_in(&text), failed) {
                            (Some(code), _) => Exit::Code(code),
                            (None, true) => Exit::Failed,
                            (None, false) => Exit::Code(0),
                        };
                        out.push((at, ran(command, exit)));
                    }
                    Call::Checkpoint if !failed => out.push((at, Step::Recorded)),
                    Call::Checkpoint => {}
                }
            }
            _ => {}
        }
    }
}

/// A Codex rollout line, as the draft reads it: its kind and its payload's fields a draft
/// names; the rest (the instructions, reasoning, token counts) is skipped unread.
#[derive(serde::Deserialize)]
struct CodexLine<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<CodexPayload<'a>>,
}

#[derive(Default, serde::Deserialize)]
struct CodexPayload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    /// A function call's JSON arguments, or a custom tool's input.
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    /// A call's output (one that is not a string is read as a whole value instead).
    #[serde(borrow, default)]
    output: Option<Cow<'a, str>>,
}

/// A Codex line read as a whole value: its payload, as the typed read gives it.
fn codex(v: &Value, n: u64, calls: &mut Pending, out: &mut Vec<(u64, Step)>) {
    if str_at(v, "/type") != Some("response_item") {
        return;
    }
    let Some(p) = v.get("payload") else {
        return;
    };
    let s = |at: &str| str_at(p, at).map(Cow::Borrowed);
    let payload = CodexPayload {
        kind: s("/type"),
        call_id: s("/call_id"),
        name: s("/name"),
        namespace: s("/namespace"),
        arguments: s("/arguments"),
        input: s("/input"),
        output: Some(text_of(p.get("output"))),
    };
    codex_payload(payload, n, calls, out);
}

/// Codex: `function_call` / `custom_tool_call` response items and their `*_output`; the shell
/// tool's output says `Process exited with code N`, `apply_patch` names its files in the patch.
fn codex_payload(p: CodexPayload, n: u64, calls: &mut Pending, out: &mut Vec<(u64, Step)>) {
    let call_id = p.call_id.as_deref().unwrap_or_default();
    match p.kind.as_deref() {
        Some("function_call") | Some("custom_tool_call") => {
            let name = p.name.as_deref().unwrap_or_default();
            let input = (p.arguments.as_deref())
                .or(p.input.as_deref())
                .unwrap_or_default();
            if name == "apply_patch" {
                for path in patched(input) {
                    out.push((n, Step::Edited(path)));
                }
            } else if is_checkpoint(name, p.namespace.as_deref()) {
                calls.insert(call_id, n, Call::Checkpoint);
            } else if matches!(
                name,
                "exec_command" | "shell" | "local_shell" | "container.exec"
            ) {
                let args: Value = serde_json::from_str(input).unwrap_or(Value::Null);
                let command = match args.get("cmd").or(args.get("command")) {
                    Some(Value::String(s)) => Some(s.clone()),
                    // `["bash", "-lc", "…"]`: the script is the last word
                    Some(Value::Array(words)) => {
                        words.last().and_then(Value::as_str).map(String::from)
                    }
                    _ => None,
                };
                if let Some(c) = command {
                    calls.insert(call_id, n, Call::Shell(c));
                }
            }
        }
        Some("function_call_output") | Some("custom_tool_call_output") => {
            let Some((at, call)) = calls.remove(call_id) else {
                return;
            };
            let text = p.output.unwrap_or_default();
            match call {
                Call::Shell(command) => {
                    let exit = code_in(&text).map_or(Exit::Done, Exit::Code);
                    out.push((at, ran(command, exit)));
                }
                Call::Checkpoint if text.contains("\"written\"") => out.push((at, Step::Recorded)),
                Call::Checkpoint => {}
            }
        }
        _ => {}
    }
}

/// The files an `apply_patch` input adds, updates, deletes or moves to.
fn patched(patch: &str) -> Vec<String> {
    const MARKS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    (patch.lines())
        .filter_map(|l| MARKS.iter().find_map(|m| l.strip_prefix(m)))
        .map(|p| p.trim().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_never_answered_are_given_in_the_order_they_were_made() {
        let line = r#"{"type":"assistant","message":{"content":[
            {"type":"tool_use","id":"z","name":"Bash","input":{"command":"first"}},
            {"type":"tool_use","id":"a","name":"Bash","input":{"command":"second"}},
            {"type":"tool_use","id":"m","name":"Bash","input":{"command":"third"}}]}}"#
            .replace('\n', "");
        let commands = || -> Vec<String> {
            (tool_steps(Host::Claude, &line, 1).into_iter())
                .map(|(_, s)| match s {
                    Step::Ran { command, exit } => {
                        assert_eq!(exit, Exit::Unknown);
                        command
                    }
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        for _ in 0..20 {
            assert_eq!(commands(), ["first", "second", "third"]);
        }
    }

    #[test]
    fn exit_codes_are_read_in_each_hosts_words() {
        assert_eq!(code_in("Error: Exit code 1\nboom"), Some(1));
        assert_eq!(
            code_in("Chunk ID: x\nProcess exited with code 0\n"),
            Some(0)
        );
        assert_eq!(code_in("Output: (empty)\nExit Code: 2\n"), Some(2));
        assert_eq!(code_in("(Bash completed with no output)"), None);
        // any case; the marks in their order, whatever comes first in the text; a mark with no
        // number after it gives way to the next
        assert_eq!(code_in("EXIT CODE 7"), Some(7));
        assert_eq!(code_in("exit code 3 … later: exited with code 4"), Some(4));
        assert_eq!(code_in("exited with code x; exit code: -2"), Some(-2));
        assert_eq!(code_in("the exit gate, unexited, context"), None);
    }

    #[test]
    fn a_patch_names_every_file_it_touches() {
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: docs/b.md\n+hi\n*** Delete File: old.txt\n*** End Patch";
        assert_eq!(patched(patch), ["src/a.rs", "docs/b.md", "old.txt"]);
    }

    #[test]
    fn a_checkpoint_through_the_shell_is_a_write_only_when_it_ended_well() {
        let ok = ran("trilogy checkpoint --session-done x".into(), Exit::Code(0));
        assert_eq!(ok, Step::Recorded);
        let failed = ran("trilogy checkpoint --session-done x".into(), Exit::Code(3));
        assert!(matches!(failed, Step::Ran { .. }));
        assert!(matches!(
            ran("cargo test".into(), Exit::Code(0)),
            Step::Ran { .. }
        ));
    }
}
