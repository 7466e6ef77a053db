//! `restore`: bring back an archived, removed, replaced or superseded entry (it returns to its
//! date position, because files are ordered by date), or an earlier revision of a section —
//! or, as the original's panel did, the archived entry that contains a given text.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::markdown::entry_block;
use crate::model::{EntryRecord, FileKind, SectionRecord, State};
use crate::store::Reader;
use crate::workspace::{Synced, Tx, Workspace};

#[derive(Debug, Clone, Serialize)]
pub struct RestoreOutcome {
    pub id: String,
    pub heading: String,
    pub from: &'static str,
    pub to: &'static str,
}

/// What a restore that would write a credential back says: the store keeps what a person
/// once wrote (and deleted), but trilogy never puts a secret into a memory file itself.
fn refused(id: &str, what: &str, f: &crate::secrets::Finding) -> Error {
    Error::bad_input(format!(
        "refused: {id} ({what}) line {} column {} looks like {} ({}); restoring it would write the secret back into a memory file, so nothing was restored: record what it said again, without the secret",
        f.line, f.column, f.kind, f.masked
    ))
}

/// `id_prefix` trimmed, when it is long enough to name an entry (at least 4 characters).
pub(crate) fn id_prefix_checked(id_prefix: &str) -> Result<&str> {
    let prefix = id_prefix.trim();
    if prefix.len() < 4 {
        return Err(Error::bad_input(format!(
            "id `{prefix}` is too short; give at least 4 characters of an id from `trilogy log` or `trilogy read --json`"
        )));
    }
    Ok(prefix)
}

/// The one entry, in any state, whose id starts with `prefix`.
pub(crate) fn entry_by_prefix(r: &dyn Reader, prefix: &str) -> Result<EntryRecord> {
    let mut matches: Vec<EntryRecord> = r
        .all_entries()?
        .into_iter()
        .filter(|e| e.id.starts_with(prefix))
        .collect();
    match matches.len() {
        0 => Err(Error::NotFound(format!(
            "no entry with id `{prefix}`; `trilogy log` lists ids"
        ))),
        1 => Ok(matches.remove(0)),
        n => Err(Error::bad_input(format!(
            "id `{prefix}` matches {n} entries; give more characters"
        ))),
    }
}

/// Restore the entry whose id starts with `id_prefix` (with `version`, only while it is as
/// that version saw it: see [`crate::ops::fix`]).
pub fn restore_entry(
    ws: &Workspace,
    actor: &str,
    id_prefix: &str,
    version: Option<&str>,
) -> Result<Synced<RestoreOutcome>> {
    ws.require_memory()?;
    let prefix = id_prefix_checked(id_prefix)?;
    ws.write(actor, |tx| {
        let rec = entry_by_prefix(tx.store(), prefix)?;
        super::version::check_entry(tx.store(), &rec.id, version)?;
        if rec.state == State::Live {
            return Err(Error::bad_input(format!(
                "entry {} ({}) is already live",
                rec.id, rec.heading
            )));
        }
        bring_back(tx, rec)
    })
}

/// Make `rec` live again and log it.
fn bring_back(tx: &mut Tx, mut rec: EntryRecord) -> Result<RestoreOutcome> {
    if let Some(f) = crate::secrets::in_record(&rec) {
        return Err(refused(&rec.id, &rec.heading, &f));
    }
    let from = rec.state.as_str();
    if rec.state == State::Replaced {
        // its replacement took its place (sequence number) among entries of its date:
        // back beside it, it needs a place of its own
        rec.seq = tx.store().next_seq()?;
    }
    rec.state = State::Live;
    rec.replaced_by = None;
    rec.superseded_by = None;
    tx.put_entry(&rec)?;
    tx.log("restore", vec![rec.id.clone()], &rec.heading)?;
    Ok(RestoreOutcome {
        id: rec.id,
        heading: rec.heading,
        from,
        to: State::Live.as_str(),
    })
}

/// Restore the archived entry whose text (heading line and body, as the archive holds it)
/// contains `text`, trimmed: the original's restore by text. The first such entry in archive
/// order (newest first) comes back to SESSIONS.md.
pub fn restore_text(ws: &Workspace, text: &str, actor: &str) -> Result<Synced<RestoreOutcome>> {
    let needle = comparable(text);
    let needle = needle.as_str();
    if needle.is_empty() {
        return Err(Error::bad_input(
            "no text given; give the archived entry's text (or a unique part of it)",
        ));
    }
    ws.require_memory()?;
    let lang = ws.lang();
    ws.write(actor, |tx| {
        let mut found = None;
        tx.store().scan_file(FileKind::Archive, 0, &mut |e| {
            if comparable(&entry_block(&e, lang).text()).contains(needle) {
                found = Some(e);
                return Ok(false);
            }
            Ok(true)
        })?;
        let Some(rec) = found else {
            return Err(Error::NotFound(
                "no archived entry contains that text; `trilogy read SESSIONS-archive.md` shows the archive"
                    .into(),
            ));
        };
        bring_back(tx, rec)
    })
}

/// Text as compared by [`restore_text`]: LF line ends, no trailing spaces on a line, no archive
/// pointer line (the original's archive could carry one inside an entry), trimmed.
fn comparable(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !crate::markdown::is_pointer_line(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// Put revision `revision` of a section back as its current text (a new revision); with
/// `version`, only while the section is as that version saw it.
pub fn restore_section(
    ws: &Workspace,
    actor: &str,
    name: &str,
    revision: u64,
    version: Option<&str>,
) -> Result<Synced<RestoreOutcome>> {
    ws.require_memory()?;
    ws.write(actor, |tx| {
        let cur = super::query::find_section(&tx.store().sections()?, name)?;
        let now = super::version::section_version(&cur);
        if let Some(seen) = version.filter(|v| *v != now) {
            return Err(Error::Conflict(format!(
                "section `{}` changed since it was read (version {seen}, now {now}): nothing was restored; read it again",
                cur.heading
            )));
        }
        let history = tx.store().section_history(&cur.key)?;
        let old = history
            .iter()
            .find(|r| r.revision == revision)
            .ok_or_else(|| {
                Error::NotFound(format!(
                    "section `{}` has revisions 1..={}; `trilogy log --section \"{}\"` lists them",
                    cur.heading, cur.revision, cur.heading
                ))
            })?;
        if let Some(f) = crate::secrets::find(&old.body) {
            return Err(refused(
                &cur.key,
                &format!("{} revision {revision}", cur.heading),
                &f,
            ));
        }
        let rec = SectionRecord {
            key: cur.key.clone(),
            heading: cur.heading.clone(),
            body: old.body.clone(),
            order: cur.order,
            removed: false,
            revision: cur.revision + 1,
        };
        tx.put_section(&rec)?;
        tx.log(
            "restore",
            vec![cur.key.clone()],
            &format!("{} ← revision {revision}", cur.heading),
        )?;
        Ok(RestoreOutcome {
            id: cur.key.clone(),
            heading: cur.heading.clone(),
            from: if cur.removed { "removed" } else { "live" },
            to: "live",
        })
    })
}

/// What [`restore_cleared`] brought back.
#[derive(Debug, Clone, Serialize)]
pub struct ClearRestored {
    /// The `clear` event undone.
    pub clear: u64,
    pub entries: usize,
    pub sections: usize,
    /// Entries left removed, each with why (one holding a credential is never written back).
    pub left: Vec<String>,
}

/// Bring back everything the `clear` event `seq` took out that is still where the clear left
/// it: its entries to their files (an archived one to the archive) and its PROJECT sections
/// to their text before the clear (as a new revision each). What a person changed since is
/// left as it is and named in [`ClearRestored::left`].
pub fn restore_cleared(ws: &Workspace, actor: &str, seq: u64) -> Result<Synced<ClearRestored>> {
    ws.write(actor, |tx| {
        let events = tx.store().events_since(seq.saturating_sub(2))?;
        let event = (events.iter())
            .find(|e| e.seq == seq && e.op == "clear")
            .cloned()
            .ok_or_else(|| {
                Error::NotFound(format!(
                    "event {seq} is not a clear; `trilogy log` lists events (op `clear`)"
                ))
            })?;
        // the archive's entries are named by the event just before, written in the same
        // transaction (see `Tx::clear_memory`)
        let archived: Vec<String> = (events.iter())
            .find(|e| e.seq + 1 == seq && e.op == crate::workspace::CLEAR_ARCHIVE && e.at == event.at)
            .map(|e| e.ids.clone())
            .unwrap_or_default();
        let mut out = ClearRestored {
            clear: seq,
            entries: 0,
            sections: 0,
            left: Vec::new(),
        };
        let sections = tx.store().sections()?;
        let named = (event.ids.iter().map(|id| (id, false)))
            .chain(archived.iter().map(|id| (id, true)));
        for (id, to_archive) in named {
            if let Some(mut rec) = tx.store().entry(id)? {
                if rec.state != State::Removed {
                    continue;
                }
                if let Some(f) = crate::secrets::in_record(&rec) {
                    out.left.push(refused(&rec.id, &rec.heading, &f).to_string());
                    continue;
                }
                if to_archive {
                    rec.state = State::Archived;
                    rec.replaced_by = None;
                    rec.superseded_by = None;
                    tx.put_entry(&rec)?;
                    tx.log("restore", vec![rec.id.clone()], &rec.heading)?;
                } else {
                    bring_back(tx, rec)?;
                }
                out.entries += 1;
                continue;
            }
            let Some(s) = sections.iter().find(|s| &s.key == id) else {
                continue;
            };
            // the clear's own revision holds the text it took out; a template the files were
            // started again from in the same instant (a pinned clock) is not that text
            let empty = |body: &str| {
                let probe = SectionRecord {
                    body: body.to_string(),
                    ..s.clone()
                };
                crate::ops::session_block::project_is_empty(std::slice::from_ref(&probe), "")
            };
            let history = tx.store().section_history(&s.key)?;
            let Some(before) = (history.iter().rev())
                .filter(|v| v.at == event.at && v.actor == event.actor)
                .find(|v| !empty(&v.body))
                .map(|v| v.body.clone())
            else {
                continue;
            };
            let now_empty = empty(&s.body);
            if !s.removed && crate::model::trim_blank_lines(&before) == s.text() {
                continue;
            }
            if !s.removed && !now_empty {
                out.left.push(format!(
                    "section `{}` was written since the clear and is kept; its text from before the clear is in `trilogy log --section \"{}\"`",
                    s.heading, s.heading
                ));
                continue;
            }
            if let Some(f) = crate::secrets::find(&before) {
                out.left.push(refused(&s.key, &s.heading, &f).to_string());
                continue;
            }
            tx.put_section(&SectionRecord {
                body: before,
                removed: false,
                revision: s.revision + 1,
                ..s.clone()
            })?;
            out.sections += 1;
        }
        tx.log(
            "restore",
            Vec::new(),
            &format!(
                "{} entries and {} sections from the clear of {}",
                out.entries, out.sections, event.at
            ),
        )?;
        Ok(out)
    })
}
