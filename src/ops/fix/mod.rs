//! Fixing one memory in place, as a person does from the panel: edit an entry's text, remove
//! an entry, or edit a PROJECT section's body. Each names the version of what the person was
//! looking at ([`entry_version`], [`section_version`]); the check runs inside the write
//! transaction, so a change made since (an agent's checkpoint, a hand edit, another panel)
//! is refused as a conflict instead of being overwritten. Nothing is lost either way: an
//! edited entry stays restorable as `replaced`, a removed one as `removed`, and a section
//! keeps every revision. What a version is, and the check, live in [`super::version`].

use serde::Serialize;

use super::version::{current, section_version, stale};
use crate::error::{Error, Result};
use crate::model::{FileKind, SectionRecord, State};
use crate::store::Reader;
use crate::workspace::{Synced, Workspace};

/// What a fix did.
#[derive(Debug, Clone, Serialize)]
pub struct Fixed {
    /// `edit`, `remove` or `edit-section`.
    pub action: &'static str,
    /// The entry (or section key) acted on.
    pub id: String,
    /// An edited entry's new id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_id: Option<String>,
    pub heading: String,
    pub file: &'static str,
    /// The state of what is now in the file (`live`), or of the entry acted on (`removed`).
    pub state: &'static str,
    /// A section's revision after the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// False when the text sent was the text already stored: nothing was written.
    pub changed: bool,
}

/// The one `## ` block of `text`: its heading and body, as a file would hold them.
fn one_block(text: &str) -> Result<(String, String)> {
    let text = crate::markdown::normalize_newlines(text);
    let parsed = crate::markdown::parse(text.trim(), false).map_err(|e| {
        Error::bad_input(format!(
            "the entry's text does not read back as Markdown: {e}"
        ))
    })?;
    let mut doc = parsed.doc;
    if !doc.preamble.trim().is_empty() || doc.blocks.len() != 1 {
        return Err(Error::bad_input(format!(
            "the entry's text must be one entry: a `## ` heading line, then its body (found {} headings{})",
            doc.blocks.len(),
            if doc.preamble.trim().is_empty() {
                ""
            } else {
                " and text above the first"
            }
        )));
    }
    let b = doc.blocks.remove(0);
    if b.heading.trim().is_empty() {
        return Err(Error::bad_input("the entry's heading is empty"));
    }
    Ok((b.heading, b.body))
}

/// Refuse text holding what looks like a credential.
fn no_secret(what: &str, text: &str) -> Result<()> {
    match crate::secrets::find(text) {
        Some(f) => Err(Error::bad_input(format!(
            "refused: {what} line {} column {} looks like {} ({}); memory files are committed to git: write it without the secret",
            f.line, f.column, f.kind, f.masked
        ))),
        None => Ok(()),
    }
}

/// Put `text` (one entry: heading line and body) in place of live entry `id` as seen at
/// `version`. The old text stays restorable (`replaced`); a corrected entry keeps its place
/// among the entries of its date.
pub fn edit_entry(
    ws: &Workspace,
    actor: &str,
    id: &str,
    version: &str,
    text: &str,
) -> Result<Synced<Fixed>> {
    ws.require_memory()?;
    let (heading, body) = one_block(text)?;
    no_secret("the entry's text", &format!("{heading}\n{body}"))?;
    // a last line reading like a state marker would be taken for one when the file is read
    let body = crate::model::escape_marker(body);
    ws.write(actor, |tx| {
        let old = current(tx.store(), id, version)?;
        if old.state != State::Live {
            return Err(Error::bad_input(format!(
                "entry {} ({}) is {}: only a live entry is edited; restore it first",
                old.id,
                old.heading,
                old.state.as_str()
            )));
        }
        let file = old.file().map_or("", |f| f.file_name());
        let mut new = tx.new_entry(old.kind, heading.clone(), body.clone())?;
        if new.id == old.id {
            return Ok(Fixed {
                action: "edit",
                id: old.id.clone(),
                new_id: None,
                heading: old.heading,
                file,
                state: State::Live.as_str(),
                revision: None,
                changed: false,
            });
        }
        if let Some(there) = tx.store().entry(&new.id)? {
            return Err(Error::bad_input(format!(
                "an entry with this exact text is already stored ({}, {}): restore that one instead",
                there.id,
                there.state.as_str()
            )));
        }
        if old.kind == crate::model::EntryKind::Decision {
            // the edit takes the old decision's place: it may keep its topic, not take another's
            let planned = [(new.heading.clone(), new.body.clone(), Some(old.id.clone()))];
            crate::ops::truth::topic::check(tx.store(), &[Default::default()], &planned)?;
        }
        if new.sort_date == old.sort_date {
            new.seq = old.seq;
        }
        let mut gone = old.clone();
        gone.state = State::Replaced;
        gone.replaced_by = Some(new.id.clone());
        tx.put_entry(&gone)?;
        tx.put_entry(&new)?;
        tx.log(
            "replace",
            vec![old.id.clone(), new.id.clone()],
            &format!("{file}: {}", new.heading),
        )?;
        Ok(Fixed {
            action: "edit",
            id: old.id,
            new_id: Some(new.id),
            heading: new.heading,
            file,
            state: State::Live.as_str(),
            revision: None,
            changed: true,
        })
    })
}

/// Take entry `id`, as seen at `version`, out of its file; it stays restorable (`removed`).
pub fn remove_entry(ws: &Workspace, actor: &str, id: &str, version: &str) -> Result<Synced<Fixed>> {
    ws.require_memory()?;
    ws.write(actor, |tx| {
        let mut rec = current(tx.store(), id, version)?;
        let Some(f) = rec.file().filter(|f| *f != FileKind::Project) else {
            return Err(Error::bad_input(format!(
                "entry {} ({}) is {}: it is in no file to remove it from",
                rec.id,
                rec.heading,
                rec.state.as_str()
            )));
        };
        rec.state = State::Removed;
        rec.replaced_by = None;
        tx.put_entry(&rec)?;
        tx.log(
            "remove",
            vec![rec.id.clone()],
            &format!("{}: {}", f.file_name(), rec.heading),
        )?;
        Ok(Fixed {
            action: "remove",
            id: rec.id,
            new_id: None,
            heading: rec.heading,
            file: f.file_name(),
            state: State::Removed.as_str(),
            revision: None,
            changed: true,
        })
    })
}

/// Make `text` the body of PROJECT section `key`, as seen at `version`: a new revision (the
/// earlier ones stay, `trilogy log --section` lists them).
pub fn edit_section(
    ws: &Workspace,
    actor: &str,
    key: &str,
    version: &str,
    text: &str,
) -> Result<Synced<Fixed>> {
    ws.require_memory()?;
    let text = crate::markdown::normalize_newlines(text);
    let body = crate::model::trim_blank_lines(text.trim_end()).to_string();
    no_secret("the section's text", &body)?;
    // a heading line in it is escaped, as a checkpoint's text is: it cannot start a section
    let body = crate::markdown::safe_body(&body);
    ws.write(actor, |tx| {
        let sections = tx.store().sections()?;
        let cur = sections
            .iter()
            .find(|s| s.key == key)
            .cloned()
            .ok_or_else(|| Error::NotFound(format!("no PROJECT section with key `{key}`")))?;
        let now = section_version(&cur);
        if version != now {
            return Err(stale(&format!("section `{}`", cur.heading), version, &now));
        }
        // bodies are stored as a file holds them: after a blank line below the heading
        let stored = format!("\n{body}");
        if cur.text() == crate::model::trim_blank_lines(&stored) && !cur.removed {
            return Ok(Fixed {
                action: "edit-section",
                id: cur.key.clone(),
                new_id: None,
                heading: cur.heading.clone(),
                file: FileKind::Project.file_name(),
                state: State::Live.as_str(),
                revision: Some(cur.revision),
                changed: false,
            });
        }
        let rec = SectionRecord {
            body: stored,
            removed: false,
            revision: cur.revision + 1,
            ..cur.clone()
        };
        tx.put_section(&rec)?;
        tx.log(
            "edit-section",
            vec![cur.key.clone()],
            &format!("{} → revision {}", cur.heading, rec.revision),
        )?;
        Ok(Fixed {
            action: "edit-section",
            id: cur.key,
            new_id: None,
            heading: cur.heading,
            file: FileKind::Project.file_name(),
            state: State::Live.as_str(),
            revision: Some(rec.revision),
            changed: true,
        })
    })
}

/// Record `decision` in place of live decision `id`, as seen at `version`: written directly
/// (a person's choice needs no review), in one transaction with the version check.
pub fn supersede(
    ws: &Workspace,
    actor: &str,
    id: &str,
    version: &str,
    mut decision: crate::ops::DecisionInput,
) -> Result<Synced<crate::ops::CheckpointOutcome>> {
    ws.require_memory()?;
    decision.supersedes = Some(id.trim().to_string());
    let input = crate::ops::CheckpointInput {
        decisions: vec![decision],
        ..Default::default()
    };
    crate::ops::validate(&input)?;
    ws.write(actor, |tx| {
        let old = current(tx.store(), id, version)?;
        if old.kind != crate::model::EntryKind::Decision || old.state != State::Live {
            return Err(Error::bad_input(format!(
                "entry {} ({}) is a {} {}: only a live decision is superseded",
                old.id,
                old.heading,
                old.state.as_str(),
                old.kind.as_str()
            )));
        }
        crate::ops::apply_direct(tx, &input)
    })
}
