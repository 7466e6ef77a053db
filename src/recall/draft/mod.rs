//! Drafts: a SESSIONS entry written from a host's own transcript, with no model, for a session
//! that did work (edited files, ran commands) and recorded nothing since its last write to
//! memory. The draft says what the person asked, which files were edited, which commands ran
//! and how each ended, and what the agent last said; its Done line is marked unverified.
//! Deterministic: the same transcript gives the same draft.
//!
//! Must not: write memory (where a draft goes is the caller's choice), read a transcript past
//! [`MAX_BYTES`], or let a credential through (every part is masked, and the draft is bounded).

mod steps;

use std::path::Path;

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::host::Host;
use crate::model::{Lang, labels};

use super::parse;
pub use steps::{Exit, Step};

/// The most of a transcript read for a draft.
pub const MAX_BYTES: u64 = 64 << 20;
/// The most characters kept of the request and of the agent's last words.
const GOAL_CHARS: usize = 160;
const NEXT_CHARS: usize = 200;
/// The most files and commands named (the rest counted).
const FILES: usize = 8;
const COMMANDS: usize = 6;
const COMMAND_CHARS: usize = 80;

/// What a transcript gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Work with nothing recorded after it: the entry to propose.
    Drafted(Draft),
    /// The session recorded after its last work: nothing to draft.
    Recorded,
    /// No file edited and no command run: nothing to draft.
    NoWork,
}

/// A drafted SESSIONS entry and what it was made of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Draft {
    pub heading: String,
    pub body: String,
    /// The Done line's text after its label (marked a draft and unverified).
    pub done: String,
    pub goal: Option<String>,
    pub edited: Vec<String>,
    pub ran: Vec<Ran>,
    pub next: Option<String>,
}

/// A command the draft names, with how it last ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ran {
    pub command: String,
    /// The exit code, when the host said it.
    pub exit: Option<i32>,
    /// Whether it ended well (`None`: no result in the transcript).
    pub ok: Option<bool>,
    /// A test run (its result is said as passed or failed).
    pub test: bool,
}

/// The marks a draft's Done line opens with, in each language.
const TAGS: [&str; 2] = [
    "（草稿：由会话记录整理，未经确认）",
    "(draft from the session transcript, not confirmed) ",
];

/// Whether an entry's or a proposal's text holds a draft's Done line.
pub fn is_draft(text: &str) -> bool {
    TAGS.iter().any(|t| text.contains(t.trim_end()))
}

/// The draft of the transcript at `path` (a host's JSONL file, or a Gemini CLI session
/// document), read through the fence: only a regular file, at most [`MAX_BYTES`].
pub fn draft_file(
    host: Host,
    path: &Path,
    root: &Path,
    today: NaiveDate,
    lang: Lang,
) -> Result<Outcome> {
    use std::io::Read;
    let (f, meta) =
        crate::base::fence::open_regular(path, MAX_BYTES).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::with_capacity(meta.len().min(MAX_BYTES) as usize + 1);
    f.take(MAX_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    // Gemini CLI's older sessions are one JSON document, given back as log lines
    let document = (host == Host::Gemini)
        .then(|| parse::gemini_document(&bytes))
        .flatten();
    let text = match document {
        Some(lines) => lines,
        // a byte that is not UTF-8 is read as U+FFFD, as recall reads it
        None => String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    };
    Ok(draft_of(host, &text, root, today, lang))
}

/// The draft of a transcript's `text`; file paths under `root` are named relative to it.
pub fn draft_of(host: Host, text: &str, root: &Path, today: NaiveDate, lang: Lang) -> Outcome {
    // only the work after the last checkpoint is drafted: the text is read from the last line
    // that names one, and whole only when the call named there did not write
    let start = last_checkpoint_line(text);
    let (head, tail) = text.split_at(start);
    let first = 1 + memchr::memchr_iter(b'\n', head.as_bytes()).count() as u64;
    let steps = steps_of(host, tail, first);
    match start > 0 && !steps.contains(&Step::Recorded) {
        true => draft_from(host, &steps_of(host, text, 1), "", root, today, lang),
        false => draft_from(host, &steps, head, root, today, lang),
    }
}

/// Where the last line naming a checkpoint (the MCP tool, or `trilogy checkpoint`) starts; 0
/// when none does.
fn last_checkpoint_line(text: &str) -> usize {
    // searched forward, the last hit kept: the forward searcher is vectorised, the reverse
    // one is not, and a transcript with no checkpoint is read to its start either way
    let at = ["memory_checkpoint", "trilogy checkpoint"]
        .iter()
        .filter_map(|m| memchr::memmem::find_iter(text.as_bytes(), m.as_bytes()).last())
        .max();
    at.map_or(0, |at| text[..at].rfind('\n').map_or(0, |i| i + 1))
}

/// The draft of `steps` (what was said and done, in order); `head` is the transcript before
/// them, where the request is looked for when none stands among them.
fn draft_from(
    host: Host,
    steps: &[Step],
    head: &str,
    root: &Path,
    today: NaiveDate,
    lang: Lang,
) -> Outcome {
    let last_write = steps.iter().rposition(|s| *s == Step::Recorded);
    let stretch = &steps[last_write.map_or(0, |i| i + 1)..];
    if !(stretch.iter()).any(|s| matches!(s, Step::Edited(_) | Step::Ran { .. })) {
        return match last_write {
            Some(_) => Outcome::Recorded,
            None => Outcome::NoWork,
        };
    }
    fn asked(s: &Step) -> Option<&str> {
        match s {
            Step::Asked(t) => Some(t),
            _ => None,
        }
    }
    // the request the work answered: the first in the stretch, else the last before it
    let earlier = || {
        let said = parse::lines(host, head.as_bytes(), 1, &mut parse::Context::default()).said;
        (said.into_iter().rev())
            .find(|s| s.role == parse::Role::User)
            .map(|s| s.text)
    };
    let goal = (stretch.iter().find_map(asked).map(String::from))
        .or_else(|| steps.iter().rev().find_map(asked).map(String::from))
        .or_else(earlier)
        .map(|t| cut(&t, GOAL_CHARS));
    let next = stretch.iter().rev().find_map(|s| match s {
        Step::Said(t) => Some(cut(t, NEXT_CHARS)),
        _ => None,
    });
    let edited = files_of(stretch, root);
    let ran = commands_of(stretch);
    let (heading, done, body) =
        render(today, lang, goal.as_deref(), &edited, &ran, next.as_deref());
    Outcome::Drafted(Draft {
        heading,
        body,
        done,
        goal,
        edited,
        ran,
        next,
    })
}

/// What was said and done in `text`, in its order (at one line, what was said first); its
/// first line is the transcript's line `first`.
fn steps_of(host: Host, text: &str, first: u64) -> Vec<Step> {
    let said = parse::lines(host, text.as_bytes(), first, &mut parse::Context::default()).said;
    // recall's reader leaves trilogy's own blocks and reminders out
    let mut all: Vec<(u64, u8, Step)> = (said.into_iter())
        .map(|s| {
            let step = match s.role {
                parse::Role::User => Step::Asked(s.text),
                parse::Role::Assistant => Step::Said(s.text),
            };
            (s.line, 0, step)
        })
        .collect();
    all.extend((steps::tool_steps(host, text, first).into_iter()).map(|(n, s)| (n, 1, s)));
    all.sort_by_key(|(n, order, _)| (*n, *order));
    all.into_iter().map(|(_, _, s)| s).collect()
}

/// The files edited, each once, in the order first edited, relative to `root` where under it.
fn files_of(stretch: &[Step], root: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in stretch {
        if let Step::Edited(p) = s {
            let shown = match Path::new(p).strip_prefix(root) {
                Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
                Err(_) => p.clone(),
            };
            let shown = crate::secrets::masked(&shown);
            if !out.contains(&shown) {
                out.push(shown);
            }
        }
    }
    out
}

/// The commands run, each once with how it last ended, the most recent last.
fn commands_of(stretch: &[Step]) -> Vec<Ran> {
    let mut out: Vec<Ran> = Vec::new();
    for s in stretch {
        let Step::Ran { command, exit } = s else {
            continue;
        };
        let command = cut(command, COMMAND_CHARS);
        out.retain(|r| r.command != command);
        let (exit, ok) = match *exit {
            Exit::Code(c) => (Some(c), Some(c == 0)),
            Exit::Failed => (None, Some(false)),
            Exit::Done => (None, Some(true)),
            Exit::Unknown => (None, None),
        };
        let test = (command.split(|c: char| !c.is_alphanumeric())).any(|w| {
            matches!(
                w,
                "test" | "tests" | "pytest" | "jest" | "vitest" | "ctest" | "spec"
            )
        });
        out.push(Ran {
            command,
            exit,
            ok,
            test,
        });
    }
    out
}

/// `text` masked, then its first paragraph on one line, cut to `max` characters (marked). The
/// mask reads the text as it was (a key's block is masked whole before its lines are joined).
fn cut(text: &str, max: usize) -> String {
    let masked = crate::secrets::masked(text);
    let para = masked.trim().split("\n\n").next().unwrap_or_default();
    let one: String = para.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.chars().count() > max {
        true => format!("{}…", one.chars().take(max).collect::<String>()),
        false => one,
    }
}

/// The entry: its heading (the day), its Done text (marked drafted and unverified) and body
/// (Done, Next).
fn render(
    today: NaiveDate,
    lang: Lang,
    goal: Option<&str>,
    edited: &[String],
    ran: &[Ran],
    next: Option<&str>,
) -> (String, String, String) {
    let zh = lang == Lang::Zh;
    let pick = |zh_text: String, en: String| if zh { zh_text } else { en };
    let mut parts: Vec<String> = Vec::new();
    if let Some(g) = goal {
        parts.push(pick(format!("应要求「{g}」"), format!("asked \"{g}\"")));
    }
    if !edited.is_empty() {
        let named = named(edited, FILES, zh);
        parts.push(pick(format!("改了 {named}"), format!("edited {named}")));
    }
    if !ran.is_empty() {
        let last = ran.iter().skip(ran.len().saturating_sub(COMMANDS));
        let shown: Vec<String> = last.map(|r| said_of(r, zh)).collect();
        let list = with_more(shown, ran.len().saturating_sub(COMMANDS), zh);
        parts.push(pick(format!("运行 {list}"), format!("ran {list}")));
    }
    let l = labels(lang);
    let (tag, sep) = match zh {
        true => (TAGS[0], "；"),
        false => (TAGS[1], "; "),
    };
    let done = format!("{tag}{}{}", parts.join(sep), l.unverified);
    let mut body = format!("{}{done}", l.done);
    if let Some(n) = next {
        body.push('\n');
        body.push_str(l.next);
        body.push_str(n);
    }
    (today.format("%Y-%m-%d").to_string(), done, body)
}

fn named(items: &[String], max: usize, zh: bool) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|p| format!("`{p}`")).collect();
    with_more(shown, items.len().saturating_sub(max), zh)
}

fn with_more(shown: Vec<String>, more: usize, zh: bool) -> String {
    let list = shown.join(if zh { "、" } else { ", " });
    match (more, zh) {
        (0, _) => list,
        (n, true) => format!("{list} 等另外 {n} 个"),
        (n, false) => format!("{list} and {n} more"),
    }
}

/// A command as the draft says it: `cmd` passed / failed (exit 1) / (exit 0) / (no result).
fn said_of(r: &Ran, zh: bool) -> String {
    let pick = |zh_text: String, en: String| if zh { zh_text } else { en };
    let end = match (r.ok, r.exit, r.test) {
        (None, _, _) => pick("（无结果）".into(), " (no result)".into()),
        (Some(true), _, true) => pick(" 通过".into(), " passed".into()),
        (Some(false), Some(c), true) => pick(
            format!(" 失败（退出码 {c}）"),
            format!(" failed (exit {c})"),
        ),
        (Some(false), None, true) => pick(" 失败".into(), " failed".into()),
        (Some(_), Some(c), false) => pick(format!("（退出码 {c}）"), format!(" (exit {c})")),
        (Some(true), None, false) => pick("（完成）".into(), " (done)".into()),
        (Some(false), None, false) => pick("（失败）".into(), " (failed)".into()),
    };
    format!("`{}`{end}", r.command)
}

#[cfg(test)]
mod tests;
