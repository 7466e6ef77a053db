//! Who writes: actor names, the agent sessions trilogy remembers, and the check that an actor
//! name is short, printable and no credential.

use super::Dropped;

use serde::{Deserialize, Serialize};

/// What trilogy remembers about one agent session (keyed by the host's session id).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSession {
    pub id: String,
    /// `claude`, `codex`, `cli`.
    pub host: String,
    pub started_at: String,
    /// SHA-1 of the last block injected, and when, and why (`startup`, `compact`, …).
    pub digest: Option<String>,
    pub injected_at: Option<String>,
    pub source: Option<String>,
    pub injections: u32,
    /// Entries in the last block, and what its caps left out.
    pub injected_ids: Vec<String>,
    pub dropped: Dropped,
    /// Last event the session has seen (its block, or a notice, covered everything up to it).
    pub seen_event: u64,
    /// Changes announced to it by notices so far.
    pub announced: u64,
    /// Events written for this session by a process that could not name it (its MCP server),
    /// recognised when the host reports the tool call; never announced back to it.
    pub own_events: Vec<u64>,
    /// Event sequence at the start of the current turn.
    pub turn_start_event: u64,
    pub work_this_turn: bool,
    pub wrote_this_turn: bool,
    /// A PostToolUse hook reached us, so the transcript fallback is not needed.
    pub post_tool_seen: bool,
    pub nudge_owed: bool,
    pub nudges: u32,
    /// Unix milliseconds of the last nudge scheduled (0: none).
    pub last_nudge_ms: i64,
    pub ended_at: Option<String>,
    /// Sibling work trees' entries the session has been shown (its block, or a notice).
    #[serde(default)]
    pub siblings_seen: Vec<String>,
    /// The user store's last event the session has seen (`None`: it never saw the user memory).
    #[serde(default)]
    pub user_seen: Option<u64>,
    /// Unix milliseconds of the session's last work (a file edited, a command run) and of its
    /// last write to memory, as its tool hooks told them (0: none told).
    #[serde(default)]
    pub last_work_ms: i64,
    #[serde(default)]
    pub last_write_ms: i64,
    /// Drafts of its entry made for it from its transcript, oldest first: the proposal (or,
    /// recorded, the entry) each became, and the text's digest.
    #[serde(default)]
    pub drafts: Vec<DraftMade>,
}

/// A draft made for a session (see [`AgentSession::drafts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftMade {
    /// The proposal's id, or the entry's when it was recorded.
    pub id: String,
    /// SHA-1 prefix of the draft's text: the same work drafted again is not drafted twice.
    pub digest: String,
    pub recorded: bool,
    /// Withdrawn, for the session recorded its work itself afterwards.
    #[serde(default)]
    pub settled: bool,
}

impl AgentSession {
    /// The actor name this session's own writes carry in the event log.
    pub fn actor(&self) -> String {
        agent_actor(&self.id)
    }
}

/// Actor name of writes made by agent session `id`.
/// The agent session an actor names (`agent:<id>` → `<id>`), the inverse of [`agent_actor`].
pub fn actor_session(actor: &str) -> Option<String> {
    actor.strip_prefix("agent:").map(str::to_string)
}

pub fn agent_actor(id: &str) -> String {
    match check_actor(id) {
        Ok(()) => format!("agent:{id}"),
        // a host's session id that could not go into the log as it is: a stable stand-in
        Err(_) => format!("agent:{}", &crate::base::hex::sha1(id.as_bytes())[..16]),
    }
}

/// Longest actor or agent session id kept in the event log, in bytes.
pub const MAX_ACTOR: usize = 128;

/// Whether `s` may name who writes in the event log: short, printable, no spaces, and nothing
/// that looks like a credential (the log is shown to people and agents alike).
pub fn check_actor(s: &str) -> std::result::Result<(), String> {
    if s.is_empty() {
        return Err("is empty".into());
    }
    if s.len() > MAX_ACTOR {
        return Err(format!("is {} bytes; at most {MAX_ACTOR}", s.len()));
    }
    if let Some(c) = s.chars().find(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "holds U+{:04X}; use letters, digits and punctuation without spaces",
            u32::from(c)
        ));
    }
    if let Some(f) = crate::secrets::find(s) {
        return Err(format!("looks like {} ({})", f.kind, f.masked));
    }
    Ok(())
}
