//! Hosts that let trilogy see the conversation (DeepSeek Harness): at every model step the
//! host reports which copies of the memory block the model still sees, and trilogy answers
//! what to append (the block, a change notice, the reminder) and which stale copies to
//! replace with a short stand-in.
//!
//! Rules, on top of the session rules of `agent`: visibility is re-derived from the surface
//! at every step, never remembered (a compaction removes the block silently, so a surface
//! without it gets the whole block again); a surface that cannot be read counts as holding
//! the block once this session was given one; when memory changed, a session whose block is
//! visible gets one short notice of the changes made elsewhere (its own writes are never
//! echoed) and every copy but the newest is replaced by a stand-in; the reminder owed by the
//! last turn comes first, at the next step. The host decides nothing.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::workspace::Workspace;

use crate::model::host::HostLimits;

use super::agent::{
    ToolKind, change_notice, close_turn, foreign_changes, note_tool, validate_id, with_session,
};
use super::session_block::{Budget, Inputs, assemble_with, texts};

/// Longest change notice appended at a step, in characters: the notice's own cap (2,000
/// bytes, `truth::notice`), so the host's serialised message (id, role, source and this
/// text) stays under 2,200.
pub const STEP_NOTICE_CHARS: usize = 2000;

/// Message forms, as the host's `source.form`.
pub const FORM_BLOCK: &str = "trilogy";
pub const FORM_NOTICE: &str = "trilogy-update";
pub const FORM_NUDGE: &str = "trilogy-nudge";
pub const FORM_STANDIN: &str = "trilogy-superseded";

/// One live copy of the block on the host's surface.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Copy {
    /// The host's position (event sequence) of the message.
    pub seq: u64,
    /// SHA-1 (lowercase hex) of the message's text.
    pub digest: String,
}

/// What the model sees, as the host reports it.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Surface {
    /// False when the host could not read its surface.
    pub known: bool,
    /// Live copies of the block, oldest first.
    pub blocks: Vec<Copy>,
}

/// One model step of one session.
#[derive(Debug, Clone, Default)]
pub struct Step {
    /// 1 at the first step of a turn.
    pub step: u64,
    /// A subagent session: it gets the block, never a reminder (its parent records).
    pub subagent: bool,
    pub limits: HostLimits,
    pub surface: Surface,
    /// Tool calls finished since the last call, classified.
    pub tools: Vec<ToolKind>,
}

/// A message to append.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Append {
    pub form: &'static str,
    pub text: String,
    /// The whole block (the host marks it as a baseline of the conversation).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub baseline: bool,
}

/// A stale copy to replace in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replace {
    pub seq: u64,
    pub form: &'static str,
    pub text: String,
}

/// The answer for one step.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Answer {
    pub append: Vec<Append>,
    pub replace: Vec<Replace>,
}

/// Decide what one model step of session `id` gets.
pub fn step(ws: &Workspace, host: &str, id: &str, input: &Step) -> Result<Answer> {
    validate_id(id)?;
    let cfg = &ws.config;
    let t = texts(ws.lang());
    let budget = Budget::effective(cfg, input.limits.window_tokens, input.limits.char_cap);
    let now = ws.clock.now();
    let user = match cfg.inject_on_session_start {
        true => super::session_block::user::part(ws, budget),
        false => None,
    };
    with_session(ws, host, id, |r, st| {
        for kind in &input.tools {
            note_tool(r, st, *kind)?;
        }
        let mut out = Answer::default();
        if st.nudge_owed && !input.subagent {
            out.append.push(Append {
                form: FORM_NUDGE,
                text: t.nudge.to_string(),
                baseline: false,
            });
        }
        st.nudge_owed = false;
        let last = r.last_event_seq()?;
        if input.step <= 1 {
            st.turn_start_event = last;
            st.work_this_turn = false;
            st.wrote_this_turn = false;
        }
        if cfg.inject_on_session_start {
            let siblings = crate::ops::sibling::recent(ws, r)?;
            let (moved, moved_total) = crate::ops::anchors::cached(ws);
            let inputs = Inputs {
                config: cfg,
                today: ws.clock.today(),
                budget,
                file_date: &|| super::file_date(ws, r),
                siblings: &siblings,
                user: user.as_ref(),
                moved: &moved,
                moved_total,
                notes: &[],
            };
            let block = assemble_with(r, &inputs)?;
            let surface = &input.surface;
            let newest = surface.blocks.last();
            let unchanged = st.digest.as_deref() == Some(block.digest.as_str())
                || newest.is_some_and(|c| c.digest == block.digest);
            let given = st.digest.is_some();
            let present = surface.known && !surface.blocks.is_empty();
            if !(unchanged && (present || (!surface.known && given))) {
                // the whole block when the model lacks it, or holds one this session's
                // record does not account for; else a notice of others' changes
                let whole = if surface.known {
                    !present || !given
                } else {
                    !given
                };
                let keep = usize::from(!whole);
                let stale = surface.blocks.len().saturating_sub(keep);
                if surface.known && (whole || surface.blocks.len() > 1) {
                    for c in &surface.blocks[..stale] {
                        out.replace.push(Replace {
                            seq: c.seq,
                            form: FORM_STANDIN,
                            text: t.superseded.to_string(),
                        });
                    }
                }
                if whole {
                    out.append.push(Append {
                        form: FORM_BLOCK,
                        text: block.text.clone(),
                        baseline: true,
                    });
                    st.injected_at = Some(now.clone());
                    st.source = Some(if given { "compact" } else { "startup" }.into());
                    st.injections += 1;
                    st.injected_ids = block.ids.clone();
                    st.dropped = block.dropped.clone();
                    st.siblings_seen = siblings.iter().map(|e| e.id.clone()).collect();
                    st.user_seen = user.as_ref().map(|u| u.seq).or(Some(0));
                } else {
                    let changes = foreign_changes(r, st)?;
                    if let Some(n) = step_notice(ws, r, &changes)? {
                        out.append.push(Append {
                            form: FORM_NOTICE,
                            text: n,
                            baseline: false,
                        });
                        st.announced += changes.len() as u64;
                    }
                    // what sibling work trees recorded since: a notice of its own, by branch
                    if let Some(n) =
                        crate::ops::sibling::notice(ws.lang(), &siblings, &mut st.siblings_seen)
                        && n.chars().count() <= STEP_NOTICE_CHARS
                    {
                        out.append.push(Append {
                            form: FORM_NOTICE,
                            text: n,
                            baseline: false,
                        });
                    }
                    let own = st.actor();
                    if let Some(n) = super::user::notice(ws, &mut st.user_seen, &own)
                        && n.chars().count() <= STEP_NOTICE_CHARS
                    {
                        out.append.push(Append {
                            form: FORM_NOTICE,
                            text: n,
                            baseline: false,
                        });
                    }
                }
            }
            st.digest = Some(block.digest);
        }
        st.seen_event = last;
        st.ended_at = None;
        Ok(out)
    })
}

/// The change notice, short enough for one step.
fn step_notice(
    ws: &Workspace,
    r: &dyn crate::store::Reader,
    changes: &[crate::model::Event],
) -> Result<Option<String>> {
    let Some(n) = change_notice(ws, r, changes)? else {
        return Ok(None);
    };
    Ok(Some(if n.chars().count() <= STEP_NOTICE_CHARS {
        n
    } else {
        texts(ws.lang()).changed_notice(changes.len())
    }))
}

/// The session's turn is ending: note its last tool calls and decide whether the next step
/// owes a reminder. Returns whether one is owed.
pub fn turn_stopping(
    ws: &Workspace,
    host: &str,
    id: &str,
    tools: &[ToolKind],
    subagent: bool,
) -> Result<bool> {
    validate_id(id)?;
    let now = ws.clock.millis();
    with_session(ws, host, id, |r, st| {
        for kind in tools {
            note_tool(r, st, *kind)?;
        }
        let (work, wrote) = (st.work_this_turn && !subagent, st.wrote_this_turn);
        let closed = close_turn(r, &ws.config, now, st, work, wrote)?;
        Ok(closed == crate::ops::agent::Closed::Owed)
    })
}
