//! `checkpoint`: record sessions, decisions, PROJECT edits and notes in one transaction.
//!
//! Keeps the original tool's input shape (`sessions`, `decisions`, `project`, `notes`) and adds
//! `{section, line, replaces}` line edits and `supersedes`. The date is stamped here, never
//! taken from the caller. A retried identical call writes nothing new.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::markdown::{normalize_newlines, one_line, safe_body};
use crate::model::{
    self, CATCH_ALL_AREA, EntryKind, FileKind, Lang, SectionRecord, State, decision_heading,
    labels, normalize_area, session_heading,
};
use crate::store::Reader;
use crate::workspace::{Tx, Workspace, Written};

use super::{AreaCount, area_line, area_map};

pub mod drain;
mod group;
mod propose;
mod section;
mod validate;

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
    pub user: Vec<crate::user::UserLine>,
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
}

/// Words that show a Done carries a verification note.
const VERIFIED_HINTS: [&str; 24] = [
    "verif",
    "test",
    "pass",
    "ran ",
    "run ",
    "check",
    "confirm",
    "measur",
    "reproduc",
    "bench",
    "green",
    "`",
    "未验证",
    "unverified",
    "验证",
    "测试",
    "通过",
    "跑",
    "实测",
    "确认",
    "复现",
    "运行",
    "检查",
    "执行",
];

pub(crate) fn has_verification(done: &str) -> bool {
    let lower = done.to_lowercase();
    VERIFIED_HINTS.iter().any(|h| lower.contains(h))
}

fn field_text(v: &str) -> String {
    normalize_newlines(v).trim().to_string()
}

/// Section text keeps the indentation of its first line (an indented code block).
fn section_text(v: &str) -> String {
    crate::model::trim_blank_lines(&normalize_newlines(v)).to_string()
}

fn session_body(s: &SessionInput, lang: Lang) -> (String, bool) {
    let l = labels(lang);
    let mut done = field_text(&s.done);
    let unverified = !has_verification(&done);
    if unverified {
        done.push_str(l.unverified);
    }
    let mut lines = vec![format!("{}{done}", l.done)];
    for (label, v) in [(l.open, &s.open), (l.next, &s.next)] {
        if let Some(v) = v.as_deref().map(field_text).filter(|v| !v.is_empty()) {
            lines.push(format!("{label}{v}"));
        }
    }
    (
        model::escape_marker(safe_body(&lines.join("\n"))),
        unverified,
    )
}

fn decision_body(d: &DecisionInput, lang: Lang, today: chrono::NaiveDate) -> String {
    let l = labels(lang);
    let mut lines = vec![format!("{}{}", l.chose, field_text(&d.choice))];
    for (label, v) in [(l.over, &d.over), (l.because, &d.because)] {
        if let Some(v) = v.as_deref().map(field_text).filter(|v| !v.is_empty()) {
            lines.push(format!("{label}{v}"));
        }
    }
    // short one-line names, composed and with white space folded
    let (area, topic) = match lang {
        Lang::Zh => ("区域：", "主题："),
        Lang::En => ("Area: ", "Topic: "),
    };
    for (label, v) in [(area, &d.area), (topic, &d.topic)] {
        if let Some(v) = v.as_deref().map(model::area_name).filter(|v| !v.is_empty()) {
            lines.push(format!("{label}{v}"));
        }
    }
    if let Some(r) = d.review.as_deref().filter(|r| !r.trim().is_empty()) {
        let review = crate::ops::truth::review::resolve(r, today);
        lines.push(format!(
            "{}{review}",
            crate::ops::truth::review::label(lang)
        ));
    }
    // a last line that reads like a state marker would be taken for one
    model::escape_marker(safe_body(&lines.join("\n")))
}

/// Record the batch. Validation and secret checks run before anything is stored.
pub fn checkpoint(
    ws: &Workspace,
    actor: &str,
    input: &CheckpointInput,
) -> Result<Written<CheckpointOutcome>> {
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
        return crate::user::record(ws, actor, lines, mode);
    }
    if !lines.is_empty() {
        crate::user::check(ws, actor, lines, mode)?;
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
    let mut done = group::submit(ws, actor, input)?;
    done.value.warnings.extend(near);
    if !lines.is_empty() {
        let u = crate::user::record(ws, actor, lines, mode).map_err(|e| {
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

/// Write a batch as it is, no gate (a person accepting a proposal comes here).
pub(crate) fn apply_direct(tx: &mut Tx, input: &CheckpointInput) -> Result<CheckpointOutcome> {
    let lang = tx.lang();
    let mut out = CheckpointOutcome::default();

    // sessions: processed in reverse so sessions[0] ends up topmost
    let mut known = known_areas(tx)?;
    let mut planned = Vec::new();
    for (i, s) in input.sessions.iter().enumerate() {
        let choice = normalize_area(s.area.as_deref(), &mut known);
        if choice.folded {
            out.warnings.push(format!(
                "sessions[{i}]: area `{}` folded into `{CATCH_ALL_AREA}`: at most {} named areas ({})",
                s.area.as_deref().unwrap_or_default().trim(),
                model::MAX_NAMED_AREAS,
                known.iter().filter(|k| *k != CATCH_ALL_AREA).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        let (body, unverified) = session_body(s, lang);
        if unverified {
            out.warnings.push(format!(
                "sessions[{i}].done names no verification; written as unverified"
            ));
        }
        planned.push((session_heading(tx.author().today, &choice.area), body));
    }
    for (heading, body) in planned.into_iter().rev() {
        record(tx, EntryKind::Session, heading, body, &mut out)?;
    }

    // decisions: each planned (and its topic checked) before any is stored
    let decisions = plan_decisions(tx, &input.decisions)?;
    for (heading, body, target) in decisions.into_iter().rev() {
        record(tx, EntryKind::Decision, heading.clone(), body, &mut out)?;
        if let Some(mut old) = target
            && old.state == State::Live
        {
            old.state = State::Superseded;
            old.superseded_by = Some(heading.clone());
            tx.put_entry(&old)?;
            tx.log(
                "supersede",
                vec![old.id.clone()],
                &format!("{} → {heading}", old.heading),
            )?;
            out.written
                .push(format!("DECISIONS.md: superseded {}", old.heading));
        }
    }

    for (i, p) in input.project.iter().enumerate() {
        edit_section(tx, i, p, &mut out, false)?;
    }

    if !out.written.is_empty()
        && let Some(cap) = tx.ws.config.archive_cap()
    {
        out.archived = archive_overflow(tx, cap, tx.ws.config.archive_batch())?;
        if out.archived > 0 {
            out.written.push(format!(
                "SESSIONS.md → SESSIONS-archive.md ×{}",
                out.archived
            ));
        }
    }

    if let Some(notes) = input
        .notes
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        // entries the notes name get the command that retires them, for the person reading
        let named = crate::ops::truth::retire::named_in(tx.store(), notes)?;
        let text = if named.is_empty() {
            notes.to_string()
        } else {
            let mut t = format!("{notes}\n\nentries named ({}):", named.len());
            for (id, heading) in &named {
                t.push_str(&format!(
                    "\n- {id} {heading}: if it is no longer true, `trilogy retire {id} --why \"…\"`"
                ));
            }
            t
        };
        let existing = tx.store().reports()?;
        match existing.iter().find(|r| r.open && r.text == text) {
            Some(r) => out.report = Some(r.seq),
            None => {
                let n = tx.add_report(&text)?;
                tx.log("report", vec![], &format!("report #{n}"))?;
                out.report = Some(n);
            }
        }
    }

    out.areas = area_map(tx.store(), tx.author().today)?;
    out.area_line = area_line(&out.areas, lang);
    out.summary = if out.written.is_empty() {
        "Nothing recorded: nothing new in this call.".to_string()
    } else {
        format!(
            "Recorded {} item(s): {}.",
            out.written.len(),
            out.written.join("; ")
        )
    };
    if let (Some(n), Some(notes)) = (out.report, input.notes.as_deref()) {
        out.summary.push_str(&format!(
            " Left for the user's review as report #{n}: {}",
            notes.trim()
        ));
    }
    Ok(out)
}

/// The areas SESSIONS.md holds now, sorted (what a new session's area is folded against).
fn known_areas(tx: &Tx) -> Result<Vec<String>> {
    let mut known: Vec<String> = (tx.store().file_entries(FileKind::Sessions, 0, usize::MAX)?)
        .iter()
        .map(|e| e.area())
        .collect();
    known.sort();
    known.dedup();
    Ok(known)
}

/// A decision as it will be written: heading, body, and the live decision it supersedes.
type Planned = (String, String, Option<crate::model::EntryRecord>);

/// Plan every decision of a batch — its heading and body, the decision it supersedes — and
/// check their topics, before any is stored.
fn plan_decisions(tx: &Tx, decisions: &[DecisionInput]) -> Result<Vec<Planned>> {
    let lang = tx.lang();
    let mut out = Vec::new();
    for (i, d) in decisions.iter().enumerate() {
        let heading = decision_heading(tx.author().today, &one_line(&d.choice));
        let body = decision_body(d, lang, tx.author().today);
        let target = match &d.supersedes {
            Some(s) => find_decision(tx, s, i, &heading, &body)?,
            None => None,
        };
        out.push((heading, body, target));
    }
    let ids: Vec<(String, String, Option<String>)> = (out.iter())
        .map(|(h, b, t)| (h.clone(), b.clone(), t.as_ref().map(|e| e.id.clone())))
        .collect();
    crate::ops::truth::topic::check(tx.store(), decisions, &ids)?;
    Ok(out)
}

/// Store one new entry, or note the duplicate; a removed or replaced copy comes back.
fn record(
    tx: &mut Tx,
    kind: EntryKind,
    heading: String,
    body: String,
    out: &mut CheckpointOutcome,
) -> Result<()> {
    let file = match kind {
        EntryKind::Session => "SESSIONS.md",
        EntryKind::Decision => "DECISIONS.md",
    };
    let rec = tx.new_entry(kind, heading, body)?;
    match tx.store().entry(&rec.id)? {
        Some(existing)
            if matches!(
                existing.state,
                State::Live | State::Archived | State::Superseded | State::Retired
            ) =>
        {
            out.warnings.push(format!(
                "{file}: identical entry already recorded ({}, {}); not written again",
                existing.heading,
                existing.state.as_str()
            ));
        }
        Some(mut existing) => {
            existing.state = State::Live;
            existing.replaced_by = None;
            tx.put_entry(&existing)?;
            tx.log("restore", vec![existing.id.clone()], &existing.heading)?;
            out.ids.push(existing.id.clone());
            out.written.push(format!("{file}: {}", existing.heading));
        }
        None => {
            tx.put_entry(&rec)?;
            tx.log(
                "add",
                vec![rec.id.clone()],
                &format!("{file}: {}", rec.heading),
            )?;
            out.ids.push(rec.id.clone());
            out.written.push(format!("{file}: {}", rec.heading));
        }
    }
    Ok(())
}

/// The live decision `needle` names; `None` when this very call already superseded it (a retry).
/// A decision never supersedes itself: naming the decision being written (it is stored
/// already, or its choice is the same text) is refused, unless this is a retry.
fn find_decision(
    tx: &Tx,
    needle: &str,
    i: usize,
    new_heading: &str,
    new_body: &str,
) -> Result<Option<crate::model::EntryRecord>> {
    let live = tx
        .store()
        .file_entries(FileKind::Decisions, 0, usize::MAX)?;
    let itself = model::entry_id(EntryKind::Decision, new_heading, new_body);
    let n = needle.trim();
    let lower = n.to_lowercase();
    let names = |e: &&crate::model::EntryRecord| e.id == n || names_self(n, &lower, &e.heading);
    // the decision being written (a retry finds it stored) is not a decision it can supersede
    let hit = live.iter().filter(|e| e.id != itself).find(names);
    match hit {
        Some(e) if e.state == State::Live => Ok(Some(e.clone())),
        Some(e) if e.superseded_by.as_deref() == Some(new_heading) => Ok(None),
        Some(e) => Err(Error::bad_input(format!(
            "decisions[{i}].supersedes: `{n}` is already superseded by {}",
            e.superseded_by.as_deref().unwrap_or("another decision")
        ))),
        None if n == itself || names_self(n, &lower, new_heading) => {
            Err(Error::bad_input(format!(
                "decisions[{i}].supersedes: `{n}` names this decision itself; a decision cannot supersede itself: name the earlier decision it replaces (its id or heading from `trilogy read DECISIONS.md`), or leave `supersedes` out"
            )))
        }
        None => {
            let list = live
                .iter()
                .filter(|e| e.state == State::Live)
                .take(20)
                .map(|e| format!("  {} {}", e.id, e.heading))
                .collect::<Vec<_>>()
                .join("\n");
            Err(Error::bad_input(format!(
                "decisions[{i}].supersedes: no live decision matches `{n}`; give an id, a heading or the choice text of one of:\n{list}"
            )))
        }
    }
}

/// Whether a `supersedes` of `n` (`lower` lowercased) names the decision whose heading is
/// `heading`, by the heading or by its choice.
fn names_self(n: &str, lower: &str, heading: &str) -> bool {
    n == heading
        || heading
            .split_once(" — ")
            .is_some_and(|(_, choice)| choice.to_lowercase() == lower)
}

/// Where a section the file lacks goes: one of the five fixed sections before the first fixed
/// section that comes after it (those from there on move down one place), anything else last.
pub(crate) fn canonical_place(tx: &mut Tx, sections: &[SectionRecord], key: &str) -> Result<u32> {
    let slot = |k: &str| k.parse::<u32>().ok();
    let end = sections.iter().map(|s| s.order + 1).max().unwrap_or(0);
    let Some(k) = slot(key) else {
        return Ok(end);
    };
    let next = sections
        .iter()
        .filter(|s| !s.removed && slot(&s.key).is_some_and(|t| t > k))
        .map(|s| s.order)
        .min();
    let Some(at) = next else {
        return Ok(end);
    };
    for s in sections.iter().filter(|s| s.order >= at) {
        let mut moved = s.clone();
        moved.order += 1;
        tx.put_section(&moved)?;
    }
    Ok(at)
}

/// Once more than `cap + batch` sessions are live, move the oldest into the archive, down to
/// `cap`. Prepending to the archive rewrites the whole file, so moving sessions in batches
/// makes that rewrite happen once per `batch + 1` sessions instead of at every write, whatever
/// the archive's size; the newest `cap` sessions are always in SESSIONS.md.
pub fn archive_overflow(tx: &mut Tx, cap: usize, batch: usize) -> Result<usize> {
    let live = tx.store().file_count(FileKind::Sessions)?;
    if live <= cap.saturating_add(batch) as u64 {
        return Ok(0);
    }
    let overflow = tx
        .store()
        .file_entries(FileKind::Sessions, cap, usize::MAX)?;
    if overflow.is_empty() {
        return Ok(0);
    }
    // a retired session stays in SESSIONS.md, where its marker says why (the archive holds
    // no states)
    let overflow: Vec<_> = overflow
        .into_iter()
        .filter(|e| e.state == State::Live)
        .collect();
    if overflow.is_empty() {
        return Ok(0);
    }
    let ids: Vec<String> = overflow.iter().map(|e| e.id.clone()).collect();
    for mut e in overflow {
        e.state = State::Archived;
        tx.put_entry(&e)?;
    }
    let n = ids.len();
    tx.log(
        "archive",
        ids,
        &format!("{n} entries → SESSIONS-archive.md"),
    )?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

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
