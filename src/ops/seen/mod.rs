//! What the agent sees: the block a session start would inject for a host and a window, and
//! an account of it — the bytes each file got against its share, and for every decision and
//! session whether it is in the block and, when not, why (the count cap, the area quota,
//! the byte budget, its state, a credential). Beside that, how often each entry reached an
//! agent: aggregated from the per-session records in `.trilogy/agents/`, which keep each
//! session's last block, so nothing on the hooks' path writes more than it did.
//!
//! The text is assembled by the same call `trilogy inject` makes, so it is that command's
//! output byte for byte for the same host and window.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::host::{Host, HostLimits};
use crate::model::{EntryKind, FileKind, State};
use crate::ops::agent::{self, Source};
use crate::ops::session_block::{Budget, DECISIONS_SHARE, Ledger, PROJECT_SHARE, texts};
use crate::workspace::{Workspace, agents};

/// Days within which an injected entry counts as in use.
pub const IN_USE_DAYS: i64 = 30;

/// What a host with a window would be given, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Seen {
    /// Exactly what `trilogy inject` prints for the same host and window.
    pub text: String,
    pub ledger: Ledger,
    /// The ledger's first line, as the agent reads it.
    pub ledger_line: String,
    pub budget: Budget,
    pub host: String,
    pub files: Vec<FileShare>,
    pub entries: Vec<EntrySeen>,
    /// Agent session records the injection counts come from.
    pub sessions_counted: usize,
}

/// One file's part of the block.
#[derive(Debug, Clone, Serialize)]
pub struct FileShare {
    pub file: String,
    pub bytes_shown: usize,
    pub bytes_total: u64,
    /// The most the block gives it (PROJECT.md and DECISIONS.md are capped at their share;
    /// SESSIONS.md gets what is left).
    pub share: usize,
}

/// One decision or session, and its place in the block.
#[derive(Debug, Clone, Serialize)]
pub struct EntrySeen {
    pub id: String,
    pub kind: &'static str,
    pub heading: String,
    /// The first line of its text (a session's Done, a decision's choice), so a row says
    /// what the entry is beside its date and area; empty for one holding a credential.
    pub first_line: String,
    pub file: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    pub state: &'static str,
    pub shown: bool,
    /// `shown`, `cut` (shown, cut to its cap), `count_cap`, `area_quota`, `byte_budget`,
    /// `superseded`, `retired` or `credential`.
    pub reason: &'static str,
    /// Agent sessions whose last block held it, and the newest of those blocks.
    pub injected_count: u32,
    pub last_injected: Option<String>,
}

/// The host limits for `host` (as its hooks apply them), with a window when given.
pub fn limits_for(host: Option<&str>, window_tokens: Option<u64>) -> Result<HostLimits> {
    let mut limits = match host {
        None | Some("") | Some("cli") => HostLimits::default(),
        // only a host whose hooks limit the block is one to ask for
        Some(h) => (Host::parse(h).map(Host::limits))
            .filter(|l| *l != HostLimits::default())
            .ok_or_else(|| {
                Error::bad_input(format!(
                    "host `{h}`: use claude, codex or gemini (or leave it out for no host limit)"
                ))
            })?,
    };
    limits.window_tokens = window_tokens;
    Ok(limits)
}

/// The block for `host` and `window_tokens`, with its account.
pub fn seen(ws: &Workspace, host: Option<&str>, window_tokens: Option<u64>) -> Result<Seen> {
    ws.require_memory()?;
    let limits = limits_for(host, window_tokens)?;
    let host_name = host.filter(|h| !h.is_empty()).unwrap_or("cli");
    let block = agent::inject(ws, host_name, None, Source::Startup, limits)?.block;
    let shown: HashSet<&str> = block.ids.iter().map(String::as_str).collect();
    let lang = ws.lang();
    let today = ws.clock.today();
    let l = &block.ledger;
    let sizing = l.budget_bytes.min(l.budget_chars.unwrap_or(usize::MAX));
    let (decision_bytes, session_bytes) = (l.decisions_bytes_shown, l.sessions_bytes_shown);
    let (entries, sessions_counted, sizes) = ws
        .read(|r| {
            // the files' sizes as the store last wrote them, as the block's own ledger says
            let size = |f: FileKind| -> Result<u64> { Ok(r.stamp(f)?.map_or(0, |s| s.len)) };
            let sizes = (size(FileKind::Decisions)?, size(FileKind::Sessions)?);
            let (counts, counted) = injection_counts(ws, r)?;
            let mut out = Vec::new();
            // the first decision shown is the one the block may show cut
            let mut first_decision = true;
            r.scan_file(FileKind::Decisions, 0, &mut |d| {
                let is_shown = shown.contains(d.id.as_str());
                let reason = match (d.state, is_shown) {
                    (_, true) if first_decision && l.decision_cut => "cut",
                    (_, true) => "shown",
                    (State::Superseded, _) => "superseded",
                    (State::Retired, _) => "retired",
                    _ if crate::secrets::in_record(&d).is_some() => "credential",
                    _ => "byte_budget",
                };
                first_decision &= !is_shown;
                out.push(entry_seen(&d, is_shown, reason, &counts));
                Ok(true)
            })?;
            let sessions = r.file_entries(FileKind::Sessions, 0, usize::MAX)?;
            let live: Vec<_> = (sessions.iter())
                .filter(|e| e.state == State::Live && crate::secrets::in_record(e).is_none())
                .cloned()
                .collect();
            let wanted = ws.config.session_entries_injected as usize;
            let chosen: HashSet<String> =
                crate::ops::session_block::sessions_chosen(&live, today, wanted)
                    .into_iter()
                    .collect();
            let newest: HashSet<&str> = live.iter().take(wanted).map(|e| e.id.as_str()).collect();
            for e in &sessions {
                let is_shown = shown.contains(e.id.as_str());
                let reason = match e.state {
                    _ if is_shown => "shown",
                    State::Retired => "retired",
                    State::Superseded => "superseded",
                    _ if crate::secrets::in_record(e).is_some() => "credential",
                    _ if chosen.contains(&e.id) => "byte_budget",
                    _ if newest.contains(e.id.as_str()) => "area_quota",
                    _ => "count_cap",
                };
                out.push(entry_seen(e, is_shown, reason, &counts));
            }
            Ok((out, counted, sizes))
        })?
        .value;
    let project_share = (sizing as f64 * PROJECT_SHARE) as usize;
    let decisions_share = (sizing as f64 * DECISIONS_SHARE) as usize;
    let user_share = crate::ops::session_block::user::room(ws, block_budget(l));
    let mut files = vec![
        FileShare {
            file: FileKind::Project.file_name().into(),
            bytes_shown: l.project_bytes_shown,
            bytes_total: l.project_bytes_file,
            share: project_share,
        },
        FileShare {
            file: FileKind::Decisions.file_name().into(),
            bytes_shown: decision_bytes,
            bytes_total: sizes.0,
            share: decisions_share,
        },
        FileShare {
            file: FileKind::Sessions.file_name().into(),
            bytes_shown: session_bytes,
            bytes_total: sizes.1,
            share: sizing
                .saturating_sub(l.project_bytes_shown + decision_bytes + l.user_bytes_shown),
        },
    ];
    if l.user_bytes_file > 0 || l.user_bytes_shown > 0 {
        files.push(FileShare {
            file: crate::model::user::FILE.into(),
            bytes_shown: l.user_bytes_shown,
            bytes_total: l.user_bytes_file,
            share: user_share,
        });
    }
    Ok(Seen {
        ledger_line: texts(lang).ledger_injected(l),
        text: block.text.clone(),
        budget: block_budget(l),
        host: host_name.to_string(),
        ledger: block.ledger.clone(),
        files,
        entries,
        sessions_counted,
    })
}

/// The ledger line of the block a session start of `host` is given now (with that host's own
/// limit; no host: none): what the panel shows above everything, without the account [`seen`]
/// adds.
pub fn ledger_line(ws: &Workspace, host: Option<&str>) -> Result<String> {
    ws.require_memory()?;
    let limits = limits_for(host, None)?;
    let host_name = host.filter(|h| !h.is_empty()).unwrap_or("cli");
    let block = agent::inject(ws, host_name, None, Source::Startup, limits)?.block;
    Ok(texts(ws.lang()).ledger_injected(&block.ledger))
}

fn block_budget(l: &Ledger) -> Budget {
    Budget {
        bytes: l.budget_bytes,
        chars: l.budget_chars,
    }
}

fn entry_seen(
    e: &crate::model::EntryRecord,
    shown: bool,
    reason: &'static str,
    counts: &Counts,
) -> EntrySeen {
    let (n, last) = counts
        .get(&e.id)
        .map_or((0, None), |(n, at)| (*n, Some(at.clone())));
    EntrySeen {
        id: e.id.clone(),
        kind: e.kind.as_str(),
        heading: e.heading.clone(),
        first_line: first_line(e),
        file: e.file().map_or("", |f| f.file_name()),
        area: (e.kind == EntryKind::Session).then(|| e.area()),
        state: e.state.as_str(),
        shown,
        reason,
        injected_count: n,
        last_injected: last,
    }
}

/// The first line of an entry's text that says something; nothing of an entry that holds a
/// credential (the panel shows no part of it).
fn first_line(e: &crate::model::EntryRecord) -> String {
    if crate::secrets::in_record(e).is_some() {
        return String::new();
    }
    (e.body.lines().map(str::trim))
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}

/// Per entry id: how many agent sessions' last block held it, and the newest such block's
/// time.
pub type Counts = HashMap<String, (u32, String)>;

/// The [`Counts`] of every agent session record, and how many records were read.
pub fn injection_counts(ws: &Workspace, r: &dyn crate::store::Reader) -> Result<(Counts, usize)> {
    let list = agents::list(ws, r)?;
    let mut out: Counts = HashMap::new();
    for s in &list {
        let Some(at) = &s.injected_at else { continue };
        for id in &s.injected_ids {
            let slot = out.entry(id.clone()).or_insert((0, String::new()));
            slot.0 += 1;
            if *at > slot.1 {
                slot.1 = at.clone();
            }
        }
    }
    Ok((out, list.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_host_whose_hooks_limit_the_block_is_taken() {
        let claude = limits_for(Some("claude"), Some(200_000)).unwrap();
        assert_eq!(
            claude.char_cap,
            Some(crate::model::host::CLAUDE_CONTEXT_CHARS)
        );
        assert_eq!(claude.window_tokens, Some(200_000));
        assert_eq!(
            limits_for(Some("cli"), None).unwrap(),
            HostLimits::default()
        );
        // Cursor and DeepSeek Harness have hooks but no cap of their own: no host limit to ask for
        for h in ["cursor", "dsh", "zed", "nowhere"] {
            let e = limits_for(Some(h), None).unwrap_err().to_string();
            assert!(e.contains("use claude, codex or gemini"), "{h}: {e}");
        }
    }
}
