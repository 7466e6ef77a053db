//! The MCP tools' answers: each tool's arguments read, the operation run, and its result
//! given back as JSON with a short text for the model. Serving and dispatching the calls is
//! the parent's; this names no rmcp type.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::index::{ArchiveMode, SearchQuery};
use crate::ops;
use crate::workspace::Workspace;

use super::{ReadArgs, RecallArgs, SearchArgs, StatusArgs, args, date, in_range, read_text};

/// `memory_checkpoint`: record the batch as `actor`.
pub(super) fn checkpoint(
    ws: &Workspace,
    actor: &str,
    name: &str,
    a: Option<Map<String, Value>>,
) -> Result<(Value, String)> {
    let input: ops::CheckpointInput = args(name, a)?;
    let out = ops::checkpoint(ws, actor, &input)?.value;
    for e in &out.rules_unrefreshed {
        tracing::warn!(error = %e, "could not refresh the memory block");
    }
    let text = out.summary.clone();
    Ok((serde_json::to_value(&out).unwrap_or(Value::Null), text))
}

/// `memory_read`: a file, a section or entries, of the project's memory or the user's, read
/// as an agent asks (bounded; see [`ops::read::Request`]); a whole file larger than `client`'s
/// limit on a tool result comes in pages (see [`super::budget`]).
pub(super) fn read(
    ws: &Workspace,
    client: Option<&str>,
    name: &str,
    a: Option<Map<String, Value>>,
) -> Result<(Value, String)> {
    let r: ReadArgs = args(name, a)?;
    let answer = super::budget::answer_bytes(client, ws.config.mcp_read_bytes);
    let page_bytes = (r.file.as_deref())
        .and_then(crate::model::FileKind::from_name)
        .map(|f| super::budget::page_bytes(answer, &ws.file_path(f).display().to_string()));
    let request = ops::read::Request {
        since: date("since", &r.since)?,
        until: date("until", &r.until)?,
        file: r.file,
        section: r.section,
        area: r.area,
        limit: r.limit,
        branch: None,
        asker: ops::read::Asker::Agent,
        page_bytes,
        cursor: r.cursor,
    };
    let outs: Vec<ops::ReadOutput> = (ops::read::run(ws, &request)?.into_iter())
        .map(|w| w.value)
        .collect();
    Ok(match outs.as_slice() {
        [one] => (
            serde_json::to_value(one).unwrap_or(Value::Null),
            read_text(one),
        ),
        many => (
            serde_json::to_value(many).unwrap_or(Value::Null),
            many.iter().map(read_text).collect::<Vec<_>>().join("\n"),
        ),
    })
}

/// `memory_recall`: what was said in this project's sessions.
pub(super) fn recall(
    ws: &Workspace,
    name: &str,
    a: Option<Map<String, Value>>,
) -> Result<(Value, String)> {
    let r: RecallArgs = args(name, a)?;
    let q = crate::recall::RecallQuery {
        text: r.query,
        since: date("since", &r.since)?,
        host: r
            .host
            .as_deref()
            .map(|h| {
                (crate::model::host::Host::parse(h))
                    .filter(|h| h.transcripts().is_some())
                    .ok_or_else(|| {
                        Error::bad_input(format!(
                            "`host` = `{h}`: use claude, codex, gemini or dsh"
                        ))
                    })
            })
            .transpose()?,
        limit: in_range("limit", r.limit, 1, 20)?.unwrap_or(0),
        hosts: Vec::new(),
    };
    let out = crate::recall::recall(ws, &q, &mut |_, _| {})?;
    let text = match out.hits.is_empty() {
        true => "nothing said in this project's sessions matches".to_string(),
        false => (out.hits.iter().enumerate())
            .map(|(i, h)| {
                let before = h
                    .before
                    .as_deref()
                    .map(|b| format!("\nbefore: {}", b.lines().next().unwrap_or_default()))
                    .unwrap_or_default();
                format!("[{}] {}\n{}{before}", i + 1, h.place(), h.text)
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    Ok((serde_json::to_value(&out).unwrap_or(Value::Null), text))
}

/// `memory_search`: entries and sections by words.
pub(super) fn search(
    ws: &Workspace,
    name: &str,
    a: Option<Map<String, Value>>,
) -> Result<(Value, String)> {
    let s: SearchArgs = args(name, a)?;
    let q = SearchQuery {
        text: s.query,
        limit: in_range("limit", s.limit, 1, 20)?.unwrap_or(0),
        kind: s.kind,
        area: s.area,
        since: date("since", &s.since)?,
        until: date("until", &s.until)?,
        archive: match s.archive.as_deref() {
            None | Some("include") => ArchiveMode::Include,
            Some("exclude") => ArchiveMode::Exclude,
            Some("only") => ArchiveMode::Only,
            Some(x) => {
                return Err(Error::bad_input(format!(
                    "`archive` = `{x}`: use include, exclude or only"
                )));
            }
        },
        here: s.here,
    };
    let out = ops::search::search(ws, q)?;
    let text = if out.hits.is_empty() {
        "no match".to_string()
    } else {
        out.hits
            .iter()
            .enumerate()
            .map(|(i, h)| {
                format!(
                    "[{}] {} · {} {} · {}{}\nbest line: {}\n{}",
                    i + 1,
                    h.file,
                    h.kind,
                    h.id,
                    h.state,
                    if h.weak {
                        " · weak (single characters only)"
                    } else {
                        ""
                    },
                    h.snippet,
                    h.text
                )
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    Ok((serde_json::to_value(&out).unwrap_or(Value::Null), text))
}

/// `memory_status`: the memory's counts, and what waits for a person.
pub(super) fn status(
    ws: &Workspace,
    name: &str,
    a: Option<Map<String, Value>>,
) -> Result<(Value, String)> {
    let _: StatusArgs = args(name, a)?;
    let s = ops::status(ws)?;
    let waiting = match (s.proposals_pending, s.open_reports.len()) {
        (0, 0) => String::new(),
        (p, r) => format!(
            " · waiting for a person: {p} proposals, {r} open reports (`trilogy review list`)"
        ),
    };
    let waiting = match s.section_conflicts.len() {
        0 => waiting,
        n => format!(
            "{waiting} · {n} section line(s) changed two ways, both kept (`section_conflicts`)"
        ),
    };
    let text = format!(
        "{} · sessions {} live, {} archived · decisions {}{waiting}{}",
        s.root,
        s.sessions_live,
        s.sessions_archived,
        s.decisions,
        if s.unparseable.is_empty() {
            ""
        } else {
            " · a memory file does not parse"
        }
    ) + if s.stale.is_some() {
        " · PROJECT.md may be stale"
    } else {
        ""
    } + &if s.due.is_empty() {
        String::new()
    } else {
        format!(" · {} due for review", s.due.len())
    } + &if ws.config.ignored.is_empty() {
        String::new()
    } else {
        format!(
            " · settings ignored (unknown to this trilogy, perhaps from a newer one): {}",
            ws.config.ignored.join(", ")
        )
    };
    Ok((serde_json::to_value(&s).unwrap_or(Value::Null), text))
}
