//! Agent sessions: what each host session was shown and when, notices of changes made
//! elsewhere, and the turn-end nudge. The hook surfaces translate host events into these calls.
//!
//! Rules: the same block is never injected twice into one session (after compaction, or when
//! the host lost it, the whole block comes again); changes made by others since the block
//! reach the next prompt as one short notice, the session's own writes are not echoed; a turn
//! that did work and recorded nothing owes a one-line reminder on the next prompt, within the
//! cooldown and the per-session maximum, reset by a successful write.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::host::HostLimits;
use crate::model::{AgentSession, Event};
use crate::store::Reader;
use crate::workspace::{Workspace, agents};

use super::session_block::{Block, Budget, Inputs, assemble_with, texts};

/// Longest short change notice (bytes).
pub const NOTICE_MAX: usize = 300;

/// Why a session start asked for a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Startup,
    Resume,
    Clear,
    Compact,
}

impl Source {
    pub fn parse(s: &str) -> Option<Source> {
        match s {
            "startup" => Some(Source::Startup),
            "resume" | "fork" => Some(Source::Resume),
            "clear" => Some(Source::Clear),
            "compact" => Some(Source::Compact),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Startup => "startup",
            Source::Resume => "resume",
            Source::Clear => "clear",
            Source::Compact => "compact",
        }
    }

    /// The host's context no longer holds an earlier block.
    fn lost_context(self) -> bool {
        matches!(self, Source::Clear | Source::Compact)
    }
}

/// What `inject` decided.
#[derive(Debug, Clone, Serialize)]
pub struct Injection {
    /// False when the session already has this exact block.
    pub injected: bool,
    pub block: Block,
    /// A resumed session whose first block is still in its context: what changed since, in
    /// place of a second whole block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

fn new_session(ws: &Workspace, id: &str, host: &str) -> AgentSession {
    AgentSession {
        id: id.to_string(),
        host: host.to_string(),
        started_at: ws.clock.now(),
        ..AgentSession::default()
    }
}

/// Run `f` on session `id`'s record (a new one when unknown) and a read snapshot of the store,
/// then write the record back: the store is only read (a read-only handle when the files are
/// as it wrote them), and the record is written whole without a sync (see [`agents`]).
pub(crate) fn with_session<R>(
    ws: &Workspace,
    host: &str,
    id: &str,
    f: impl FnOnce(&dyn Reader, &mut AgentSession) -> Result<R>,
) -> Result<R> {
    let _held = agents::lock(ws)?;
    let mut changed = None;
    let value = ws
        .read_settling(&format!("hook:{host}"), |r| {
            let mut st = agents::load(ws, r, id)?.unwrap_or_else(|| new_session(ws, id, host));
            let value = f(r, &mut st)?;
            changed = Some(st);
            Ok(value)
        })?
        .value;
    if let Some(st) = changed {
        agents::save(ws, &st)?;
    }
    Ok(value)
}

pub(crate) fn validate_id(id: &str) -> Result<()> {
    if id.trim().is_empty() || id.len() > 256 || id.chars().any(char::is_control) {
        return Err(Error::bad_input(
            "session id must be 1–256 printable characters",
        ));
    }
    Ok(())
}

/// Assemble the block; with a session id, inject it only when that session lacks it.
pub fn inject(
    ws: &Workspace,
    host: &str,
    session: Option<&str>,
    source: Source,
    limits: HostLimits,
) -> Result<Injection> {
    let mut budget = Budget::effective(&ws.config, limits.window_tokens, limits.char_cap);
    if let Some(cap) = limits.byte_cap {
        budget.bytes = budget.bytes.min(cap);
    }
    // read before the workspace's snapshot: the user store is never opened inside it
    let user = super::session_block::user::part(ws, budget);
    // what the last look at git found (the hook never runs git)
    let (moved, moved_total) = crate::ops::anchors::cached(ws);
    // a session's host keeping memory of its own is told so once
    let notes: Vec<String> = match session {
        Some(_) => crate::ops::native::told_once(ws, host)
            .into_iter()
            .collect(),
        None => Vec::new(),
    };
    // the block, and the sibling entries it names, from one snapshot
    let assembled = |r: &dyn Reader| -> Result<(Block, Vec<super::sibling::SiblingEntry>)> {
        let siblings = crate::ops::sibling::recent(ws, r)?;
        let inputs = Inputs {
            config: &ws.config,
            today: ws.clock.today(),
            budget,
            file_date: &|| super::file_date(ws, r),
            siblings: &siblings,
            user: user.as_ref(),
            moved: &moved,
            moved_total,
            notes: &notes,
        };
        Ok((assemble_with(r, &inputs)?, siblings))
    };
    let Some(id) = session else {
        let (block, _) = ws.read(|r| assembled(r))?.value;
        return Ok(Injection {
            injected: true,
            block,
            notice: None,
        });
    };
    validate_id(id)?;
    let now = ws.clock.now();
    with_session(ws, host, id, |r, st| {
        let (block, siblings) = assembled(r)?;
        let unchanged = st.digest.as_deref() == Some(block.digest.as_str());
        // a resumed session still holds its first block: it is told what changed since,
        // not given the whole block again (a compacted or cleared one has lost it)
        let lost =
            source.lost_context() || (source == Source::Resume && limits.resume_loses_context);
        let resumed = source == Source::Resume && st.digest.is_some() && !lost;
        let mut notice = None;
        if resumed && !unchanged {
            notice = change_notice(ws, r, &foreign_changes(r, st)?)?;
        }
        let injected = lost || (!unchanged && !resumed);
        if injected {
            st.digest = Some(block.digest.clone());
            st.injected_at = Some(now.clone());
            st.source = Some(source.as_str().to_string());
            st.injections += 1;
            st.injected_ids = block.ids.clone();
            st.dropped = block.dropped.clone();
        }
        // the block named what the siblings held; a resumed session hears only what is new
        if injected {
            st.siblings_seen = siblings.iter().map(|e| e.id.clone()).collect();
            st.user_seen = user.as_ref().map(|u| u.seq).or(Some(0));
        }
        st.seen_event = r.last_event_seq()?;
        st.turn_start_event = st.seen_event;
        st.ended_at = None;
        if injected {
            given(ws, id, &now, "block", Some(source.as_str()), &block.text);
        }
        if let Some(n) = &notice {
            given(ws, id, &now, "notice", None, n);
        }
        Ok(Injection {
            injected,
            block,
            notice,
        })
    })
}

/// Keep what session `id` was given, for a person to read back (`trilogy serve`'s sessions);
/// best effort: a record that cannot be written costs the hook nothing.
fn given(ws: &Workspace, id: &str, at: &str, kind: &str, source: Option<&str>, text: &str) {
    let item = agents::GivenItem {
        at: at.to_string(),
        kind: kind.to_string(),
        source: source.map(str::to_string),
        text: text.to_string(),
    };
    if let Err(e) = agents::give(ws, id, item) {
        tracing::debug!(error = %e, "what the session was given is not kept");
    }
}

/// What agent session `id` was given word for word, oldest first: each block and each notice.
pub fn given_to(ws: &Workspace, id: &str) -> Result<Vec<agents::GivenItem>> {
    validate_id(id)?;
    Ok(agents::given(ws, id)?.map_or_else(Vec::new, |g| g.items))
}

/// Changes made by others since the session last looked: their events, oldest first.
pub(crate) fn foreign_changes(r: &dyn Reader, st: &AgentSession) -> Result<Vec<Event>> {
    let own = st.actor();
    Ok(r.events_since(st.seen_event)?
        .into_iter()
        // `kept` says a save did not remove something: nothing changed for the agent
        // nor does a branch switch: the files follow the checkout, no one changed memory
        .filter(|e| e.actor != own && e.actor != crate::workspace::CHECKOUT)
        // nor does a proposal: it is not memory until a person accepts it
        .filter(|e| {
            !matches!(
                e.op.as_str(),
                "report" | "kept" | "propose" | "propose-again"
            )
        })
        .filter(|e| !st.own_events.contains(&e.seq))
        .collect())
}

/// The appended notice: what changed, with the changed entries' text up to a cap (see
/// `truth::notice`), else one short line.
pub fn change_notice(ws: &Workspace, r: &dyn Reader, events: &[Event]) -> Result<Option<String>> {
    if events.is_empty() {
        return Ok(None);
    }
    let t = texts(ws.lang());
    Ok(Some(
        crate::ops::truth::notice::render(r, ws.lang(), t.changed_list_head(), events)?
            .unwrap_or_else(|| t.changed_notice(events.len())),
    ))
}

/// What a prompt gets appended: the owed nudge, then the change notice. Starts a new turn.
/// A session without the block — never seen before (the hooks were installed mid-session),
/// or seen only by a tool hook — gets the whole block first.
pub fn prompt_submitted(
    ws: &Workspace,
    host: &str,
    id: &str,
    limits: HostLimits,
) -> Result<Option<String>> {
    pending(ws, host, id, limits, true)
}

/// What a prompt would get appended, for a host whose prompt hook cannot add context (Cursor):
/// given when the turn's first tool call ends, without starting a turn.
pub fn context_owed(
    ws: &Workspace,
    host: &str,
    id: &str,
    limits: HostLimits,
) -> Result<Option<String>> {
    pending(ws, host, id, limits, false)
}

/// A prompt was submitted in a host whose prompt hook cannot add context: a new turn starts,
/// and what is owed to the session (the reminder, the notice) waits for [`context_owed`].
pub fn turn_began(ws: &Workspace, host: &str, id: &str) -> Result<()> {
    validate_id(id)?;
    with_session(ws, host, id, |r, st| {
        st.turn_start_event = r.last_event_seq()?;
        st.work_this_turn = false;
        st.wrote_this_turn = false;
        Ok(())
    })
}

fn pending(
    ws: &Workspace,
    host: &str,
    id: &str,
    limits: HostLimits,
    new_turn: bool,
) -> Result<Option<String>> {
    validate_id(id)?;
    let has_block = ws
        .read(|r| agents::load(ws, r, id))?
        .value
        .is_some_and(|s| s.digest.is_some());
    let mut parts = Vec::new();
    if !has_block {
        let inj = inject(ws, host, Some(id), Source::Startup, limits)?;
        if inj.injected {
            parts.push(inj.block.text);
        }
    }
    // what comes after a block given here is this prompt's notice
    let notices_from = parts.len();
    with_session(ws, host, id, |r, st| {
        if st.nudge_owed {
            parts.push(texts(ws.lang()).nudge.to_string());
            st.nudge_owed = false;
        }
        let changes = foreign_changes(r, st)?;
        if let Some(n) = change_notice(ws, r, &changes)? {
            parts.push(n);
            st.announced += changes.len() as u64;
        }
        let siblings = crate::ops::sibling::recent(ws, r)?;
        if let Some(n) = crate::ops::sibling::notice(ws.lang(), &siblings, &mut st.siblings_seen) {
            parts.push(n);
        }
        let own = st.actor();
        if let Some(n) = super::user::notice(ws, &mut st.user_seen, &own) {
            parts.push(n);
        }
        st.seen_event = r.last_event_seq()?;
        if new_turn {
            st.turn_start_event = st.seen_event;
            st.work_this_turn = false;
            st.wrote_this_turn = false;
        }
        if parts.len() > notices_from {
            let notice = parts[notices_from..].join("\n\n");
            given(ws, id, &ws.clock.now(), "notice", None, &notice);
        }
        Ok((!parts.is_empty()).then(|| parts.join("\n\n")))
    })
}

/// What one tool call means for the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Edited files or ran commands.
    Work,
    /// Recorded memory.
    Record,
    /// Neither (reads, searches).
    Other,
}

/// A tool call finished in session `id`.
pub fn tool_used(ws: &Workspace, host: &str, id: &str, kind: ToolKind) -> Result<()> {
    validate_id(id)?;
    let now = ws.clock.millis();
    with_session(ws, host, id, |r, st| {
        st.post_tool_seen = true;
        match kind {
            ToolKind::Work => st.last_work_ms = now,
            ToolKind::Record => st.last_write_ms = now,
            ToolKind::Other => {}
        }
        note_tool(r, st, kind)
    })
}

/// What one finished tool call means for the session's turn.
pub(crate) fn note_tool(r: &dyn Reader, st: &mut AgentSession, kind: ToolKind) -> Result<()> {
    match kind {
        ToolKind::Work => st.work_this_turn = true,
        ToolKind::Record => {
            st.wrote_this_turn = true;
            st.nudges = 0;
            st.last_nudge_ms = 0;
            // the MCP server cannot name the session: its writes since the turn began are ours
            let mcp: Vec<u64> = r
                .events_since(st.turn_start_event.max(st.seen_event))?
                .iter()
                .filter(|e| e.actor == "mcp")
                .map(|e| e.seq)
                .collect();
            st.own_events.extend(mcp);
            let excess = st.own_events.len().saturating_sub(256);
            st.own_events.drain(..excess);
        }
        ToolKind::Other => {}
    }
    Ok(())
}

/// What the host's transcript says the last turn did (used when no tool hook reported).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnFacts {
    pub work: bool,
    pub recorded: bool,
}

/// How a turn that ended stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// It recorded, or did no work: nothing owed.
    Settled,
    /// It did work and recorded nothing: the next prompt gets a reminder.
    Owed,
    /// It did work and recorded nothing, and every one of `nudge_max_per_session` reminders
    /// is spent: a draft is due instead.
    Spent,
    /// It did work and recorded nothing; reminders are off (`nudge_on_turn_end = false`).
    Quiet,
    /// It did work and recorded nothing; a reminder waits for its cooldown.
    Cooling,
}

/// The turn ended: decide whether a reminder is owed for the next prompt. Never blocks.
pub fn turn_ended(
    ws: &Workspace,
    host: &str,
    id: &str,
    transcript: Option<TurnFacts>,
) -> Result<Closed> {
    validate_id(id)?;
    let cfg = &ws.config;
    let now = ws.clock.millis();
    with_session(ws, host, id, |r, st| {
        let (mut work, mut wrote) = (st.work_this_turn, st.wrote_this_turn);
        if !st.post_tool_seen
            && let Some(f) = transcript
        {
            work |= f.work;
            wrote |= f.recorded;
        }
        close_turn(r, cfg, now, st, work, wrote)
    })
}

/// End the session's turn: a turn that did work and recorded nothing (by any path, its own
/// writes in the log included) owes a reminder, within the cooldown and the maximum.
pub(crate) fn close_turn(
    r: &dyn Reader,
    cfg: &crate::config::Config,
    now: i64,
    st: &mut AgentSession,
    work: bool,
    mut wrote: bool,
) -> Result<Closed> {
    let own = st.actor();
    wrote |= r
        .events_since(st.turn_start_event)?
        .iter()
        .any(|e| e.actor == own);
    let closed = if wrote {
        st.nudges = 0;
        st.last_nudge_ms = 0;
        Closed::Settled
    } else if !work {
        Closed::Settled
    } else if !cfg.nudge_on_turn_end {
        Closed::Quiet
    } else if u64::from(st.nudges) >= cfg.nudge_max_per_session {
        Closed::Spent
    } else if st.last_nudge_ms == 0 || now - st.last_nudge_ms >= cfg.nudge_cooldown_ms as i64 {
        st.nudge_owed = true;
        st.nudges += 1;
        st.last_nudge_ms = now;
        Closed::Owed
    } else {
        Closed::Cooling
    };
    st.work_this_turn = false;
    st.wrote_this_turn = false;
    Ok(closed)
}

/// The host session ended.
pub fn session_ended(ws: &Workspace, host: &str, id: &str) -> Result<()> {
    validate_id(id)?;
    let now = ws.clock.now();
    with_session(ws, host, id, |_, st| {
        st.ended_at = Some(now);
        Ok(())
    })
}

/// Everything known about one agent session, with the entries it recorded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SessionView {
    #[serde(flatten)]
    pub session: AgentSession,
    /// The entries this session recorded (any state), oldest first, each with its branch.
    pub recorded: Vec<Recorded>,
}

/// An entry an agent session recorded: its provenance in brief.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recorded {
    pub id: String,
    pub kind: &'static str,
    pub state: &'static str,
    pub heading: String,
    pub branch: Option<String>,
}

/// Everything known about one agent session.
pub fn show_session(ws: &Workspace, id: &str) -> Result<SessionView> {
    ws.read(|r| {
        let Some(session) = agents::load(ws, r, id)? else {
            return Ok(None);
        };
        let mut own: Vec<_> = (r.all_entries()?.into_iter())
            .filter(|e| e.origin.agent_session.as_deref() == Some(id))
            .collect();
        own.sort_by_key(|e| e.seq);
        let recorded = (own.into_iter())
            .map(|e| Recorded {
                id: e.id,
                kind: e.kind.as_str(),
                state: e.state.as_str(),
                heading: e.heading,
                branch: e.origin.branch,
            })
            .collect();
        Ok(Some(SessionView { session, recorded }))
    })?
    .value
    .ok_or_else(|| {
        Error::NotFound(format!(
            "no agent session `{id}`; `trilogy sessions` lists them"
        ))
    })
}

/// Every agent session, most recent first.
pub fn list_sessions(ws: &Workspace) -> Result<Vec<AgentSession>> {
    let mut v = ws.read(|r| agents::list(ws, r))?.value;
    v.sort_by(|a, b| {
        b.injected_at
            .cmp(&a.injected_at)
            .then_with(|| b.started_at.cmp(&a.started_at))
    });
    Ok(v)
}
