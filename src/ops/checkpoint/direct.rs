//! A checkpoint applied straight to the memory (not proposed): the decisions planned against
//! the live ones, each entry recorded once, the project's sections edited, and the archive
//! kept under its cap. It writes through the transaction handed to it; it never commits.

use crate::error::{Error, Result};
use crate::markdown::one_line;
use crate::model::{
    self, CATCH_ALL_AREA, EntryKind, FileKind, SectionRecord, State, decision_heading,
    normalize_area, session_heading,
};
use crate::store::Reader;
use crate::workspace::Tx;

use crate::ops::{area_line, area_map};

pub use super::*;

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
pub(super) fn known_areas(tx: &Tx) -> Result<Vec<String>> {
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
pub(super) fn plan_decisions(tx: &Tx, decisions: &[DecisionInput]) -> Result<Vec<Planned>> {
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
    // an archive left untouched until fixed by hand takes no sessions meanwhile: they stay
    // live in SESSIONS.md and move once it reads again
    if tx.broken().contains_key(&FileKind::Archive) {
        return Ok(0);
    }
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
