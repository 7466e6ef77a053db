//! `checkpoint`: record sessions, decisions, PROJECT edits and notes in one transaction, then
//! refresh the memory block in the rules files of hosts without hooks that hold it.
//!
//! Keeps the original tool's input shape (`sessions`, `decisions`, `project`, `notes`) and adds
//! `{section, line, replaces}` line edits and `supersedes`. The date is stamped here, never
//! taken from the caller. A retried identical call writes nothing new.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

use crate::workspace::{Synced, Tx, Workspace};

use super::AreaCount;

mod body;
mod direct;
pub mod drain;
mod group;
mod propose;
mod section;
mod submit;
pub(super) mod user;
mod validate;

pub(crate) use body::has_verification;
use body::{decision_body, section_text, session_body};
pub use direct::archive_overflow;
pub(crate) use direct::{apply_direct, canonical_place};
use direct::{known_areas, plan_decisions};
pub(crate) use propose::user_lines;
pub use propose::{proposal_id, proposed_from};
pub(crate) use section::edit_section;

pub use validate::{MAX_BATCH_BYTES, MAX_FIELD_BYTES, MAX_SECTION_BYTES, parse_input, validate};

/// The batch, as JSON.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointInput {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<SessionInput>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<DecisionInput>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub project: Vec<ProjectInput>,
    /// Lines for the user's own memory (USER.md), across every project: proposals for the
    /// person to accept unless their `review_mode.user` is `direct`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user: Vec<crate::model::user::UserLine>,
    /// What looks stale, duplicated or wrong; kept as a report for the user, never acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SessionInput {
    pub done: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionInput {
    pub choice: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// An earlier decision this one replaces: its id, heading, or choice text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// What question the decision answers; a topic has one live decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// When to look at it again: a date, `3 months`, `2周后`…, or a phrase kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectInput {
    pub section: String,
    /// Replace the whole section body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Add this line, or put it in place of `replaces`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// A line of the section, matched exactly, that `line` replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// When to look at the section again (its last line): a date, `3 months`, `2周后`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

/// What a checkpoint did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CheckpointOutcome {
    /// One sentence for the model.
    pub summary: String,
    /// `FILE: heading` per item written.
    pub written: Vec<String>,
    /// Ids of entries written.
    pub ids: Vec<String>,
    /// Lines a PROJECT edit dropped (kept in the section history).
    pub dropped_lines: Vec<String>,
    /// Area folded, duplicate ignored, unverified claim, …
    pub warnings: Vec<String>,
    /// Entries moved to the archive by this call.
    pub archived: usize,
    /// The `notes` report number, when notes were left.
    pub report: Option<u64>,
    /// Areas of SESSIONS.md after the call.
    pub areas: Vec<AreaCount>,
    /// The same as one line: `区域：插件(2) · 通用(5)`.
    pub area_line: String,
    /// Ids of proposals this call made or repeated (`review_mode` = `propose`): kept for a
    /// person's review (`trilogy review list`), not written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<String>,
    /// Why a rules file holding the memory block could not be refreshed after the write (see
    /// [`checkpoint`]); what was recorded stands. Never in the JSON: the surfaces warn of
    /// each, on stderr or in their log.
    #[serde(skip)]
    pub rules_unrefreshed: Vec<String>,
}

/// Record the batch. Validation and secret checks run before anything is stored.
///
/// After a call that wrote something, the block in every rules file that holds it is
/// refreshed ([`super::regions::refresh_rules_files`]): hosts without hooks re-read that file
/// every turn, so it follows the write that changed what it shows. A file that cannot be
/// refreshed does not fail the call; why is kept in
/// [`CheckpointOutcome::rules_unrefreshed`].
pub fn checkpoint(
    ws: &Workspace,
    actor: &str,
    input: &CheckpointInput,
) -> Result<Synced<CheckpointOutcome>> {
    let mut done = record(ws, actor, input)?;
    if !done.value.written.is_empty() {
        let (_, failed) = super::regions::refresh_rules_files(ws);
        done.value.rules_unrefreshed = failed.iter().map(ToString::to_string).collect();
    }
    Ok(done)
}

/// [`checkpoint`]'s record: the project's part in one transaction (through the group
/// commit), the user's lines in the user store.
fn record(
    ws: &Workspace,
    actor: &str,
    input: &CheckpointInput,
) -> Result<Synced<CheckpointOutcome>> {
    validate(input)?;
    // the user's lines go into the user store, a transaction of its own: they are checked
    // first, the project's part is written, then they are
    let mode = ws.config.review_mode.user;
    let lines = &input.user;
    let rest = CheckpointInput {
        user: Vec::new(),
        ..input.clone()
    };
    let nothing_else = rest.sessions.is_empty()
        && rest.decisions.is_empty()
        && rest.project.is_empty()
        && rest.notes.as_deref().is_none_or(|n| n.trim().is_empty());
    if !lines.is_empty() && nothing_else {
        return user::record(ws, actor, lines, mode);
    }
    if !lines.is_empty() {
        user::check(ws, actor, lines, mode)?;
    }
    let input = &rest;
    if ws.config.auto_scaffold && !ws.has_memory() {
        ws.scaffold()?;
    }
    ws.require_memory()?;
    // looked up before the write, so the decisions are compared with what was there before
    let near = if input.decisions.is_empty() {
        Vec::new()
    } else {
        crate::ops::truth::similar::warnings(ws, input)
    };
    let mut done = submit::submit(ws, actor, input)?;
    done.value.warnings.extend(near);
    if !lines.is_empty() {
        let u = user::record(ws, actor, lines, mode).map_err(|e| {
            Error::bad_input(format!(
                "the project's part was recorded ({}), the user lines were not: {e}; retrying the whole call records only what is missing",
                done.value.summary
            ))
        })?;
        let o = &mut done.value;
        o.summary = format!("{} {}", o.summary, u.value.summary);
        o.written.extend(u.value.written);
        o.dropped_lines.extend(u.value.dropped_lines);
        o.warnings.extend(u.value.warnings);
        o.proposed.extend(u.value.proposed);
    }
    if let Some(why) = &done.report.files_deferred {
        done.value.warnings.push(format!(
            "recorded in the store; the memory files were not written because {why}: the next trilogy command after that writes them"
        ));
    }
    Ok(done)
}

/// Apply a batch through the gate: what `review_mode` has proposed is checked and kept as
/// proposals, the rest written.
fn apply(tx: &mut Tx, input: &CheckpointInput) -> Result<CheckpointOutcome> {
    let mode = tx.ws.config.review_mode;
    if !mode.any_project_kind() {
        return apply_direct(tx, input);
    }
    let (direct, proposed) = propose::split(input, &mode);
    let staged = propose::stage(tx, &proposed)?;
    let mut out = apply_direct(tx, &direct)?;
    let n = staged.len();
    propose::keep(tx, staged, &mut out)?;
    if n > 0 {
        let sentence = format!(
            "Proposed {n} item(s) for a person's review (review_mode: propose); they are not in the memory files until accepted with `trilogy review accept ID`."
        );
        out.summary = match out.written.is_empty() {
            true => sentence,
            false => format!("{} {sentence}", out.summary),
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lang;

    #[test]
    fn unverified_done_is_marked() {
        let (body, unverified) = session_body(
            &SessionInput {
                done: "did the thing".into(),
                ..Default::default()
            },
            Lang::Zh,
        );
        assert!(unverified);
        assert_eq!(body, "完成：did the thing（未验证）");
        let (_, unverified) = session_body(
            &SessionInput {
                done: "fixed X; cargo test passes".into(),
                ..Default::default()
            },
            Lang::En,
        );
        assert!(!unverified);
    }

    #[test]
    fn decision_area_is_recorded_composed() {
        let body = decision_body(
            &DecisionInput {
                choice: "x".into(),
                area: Some("  cafe\u{301}  ".into()),
                ..Default::default()
            },
            Lang::En,
            chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(),
        );
        assert_eq!(body, "Chose: x\nArea: caf\u{e9}");
    }

    #[test]
    fn batch_errors_name_the_field() {
        let e = parse_input("{\"sessions\":[{\"don\":\"x\"}]}", "stdin").unwrap_err();
        assert!(e.to_string().contains("don"), "{e}");
        let input = CheckpointInput {
            sessions: vec![SessionInput {
                done: "  ".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(
            validate(&input)
                .unwrap_err()
                .to_string()
                .contains("sessions[0].done is empty")
        );
        let input = CheckpointInput {
            sessions: vec![SessionInput {
                done: "x".repeat(MAX_FIELD_BYTES + 1),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(validate(&input).unwrap_err().to_string().contains("limit"));
    }
}
