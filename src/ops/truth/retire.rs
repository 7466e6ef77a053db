//! Retire: a person marks a decision or a session as no longer true, without a replacement.
//! The entry stays in its file with one marker line (`已失效：YYYY-MM-DD — why` /
//! `Retired: …`), read back from the file like any other line; it is never injected, stays
//! searchable (its hits say `retired`), frees its topic, and `trilogy restore` brings it back.
//! Agents cannot retire: the checkpoint batch has no such field, and a marker line in text an
//! agent writes is escaped. They name what looks wrong in `notes`, which becomes a report
//! with the command for each entry it names.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{EntryRecord, State};
use crate::store::Reader;
use crate::workspace::{Synced, Workspace};

#[derive(Debug, Clone, Serialize)]
pub struct RetireOutcome {
    pub id: String,
    pub heading: String,
    pub file: &'static str,
    /// `YYYY-MM-DD — why`, as the marker line says it.
    pub marker: String,
}

/// Longest reason, in bytes.
const MAX_WHY_BYTES: usize = 1024;

/// Retire the live decision or session whose id starts with `id_prefix` (with `version`,
/// only while it is as that version saw it: see [`crate::ops::version`]).
pub fn retire(
    ws: &Workspace,
    actor: &str,
    id_prefix: &str,
    why: &str,
    version: Option<&str>,
) -> Result<Synced<RetireOutcome>> {
    ws.require_memory()?;
    let why = why.trim();
    if why.is_empty() {
        return Err(Error::bad_input(
            "--why is empty: say in a few words why the entry is no longer true (it is written beside it)",
        ));
    }
    if why.contains(['\n', '\r']) || why.len() > MAX_WHY_BYTES {
        return Err(Error::bad_input(format!(
            "--why must be one line of at most {MAX_WHY_BYTES} bytes"
        )));
    }
    if let Some(f) = crate::secrets::find(why) {
        return Err(Error::bad_input(format!(
            "refused: --why column {} looks like {} ({}); memory files are committed to git: say why without the secret",
            f.column, f.kind, f.masked
        )));
    }
    let prefix = crate::ops::restore::id_prefix_checked(id_prefix)?;
    let marker = format!("{} — {why}", ws.clock.today().format("%Y-%m-%d"));
    ws.write(actor, |tx| {
        let mut rec = crate::ops::restore::entry_by_prefix(tx.store(), prefix)?;
        crate::ops::version::check_entry(tx.store(), &rec.id, version)?;
        match rec.state {
            State::Live => {}
            State::Archived => {
                return Err(Error::bad_input(format!(
                    "entry {} ({}) is in the archive, which is never injected: nothing to retire",
                    rec.id, rec.heading
                )));
            }
            other => {
                return Err(Error::bad_input(format!(
                    "entry {} ({}) is {}, not live: only a live entry can be retired",
                    rec.id,
                    rec.heading,
                    other.as_str()
                )));
            }
        }
        let file = rec.file().map_or("", |f| f.file_name());
        rec.state = State::Retired;
        rec.superseded_by = Some(marker.clone());
        tx.put_entry(&rec)?;
        tx.log(
            "retire",
            vec![rec.id.clone()],
            &format!("{file}: {} — {why}", rec.heading),
        )?;
        Ok(RetireOutcome {
            id: rec.id,
            heading: rec.heading,
            file,
            marker: marker.clone(),
        })
    })
}

/// The live entries a report's text names, by id (a whole 12-character id, or a prefix of at
/// least 8 that is unique) or by whole heading, each with the command that retires it: what
/// a report built from an agent's `notes` lists for a person.
pub fn named_in(r: &dyn Reader, text: &str) -> Result<Vec<(String, String)>> {
    let live: Vec<EntryRecord> = r
        .all_entries()?
        .into_iter()
        .filter(|e| e.state == State::Live && e.file().is_some())
        .collect();
    let mut out: Vec<(String, String)> = Vec::new();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_ascii_hexdigit())
        .filter(|w| w.len() >= 8)
        .collect();
    for e in &live {
        let by_id = words.iter().any(|w| {
            e.id.starts_with(w) && live.iter().filter(|x| x.id.starts_with(w)).count() == 1
        });
        if (by_id || text.contains(e.heading.as_str())) && !out.iter().any(|(id, _)| id == &e.id) {
            out.push((e.id.clone(), e.heading.clone()));
        }
    }
    Ok(out)
}
