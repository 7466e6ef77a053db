//! How current a workspace's memory is, for a page that polls it: a change token that moves
//! with every write, PROJECT.md's lag behind the logs (judged again only when what it depends
//! on moved, [`Lags`]) and the reviews due.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::error::Result;
use crate::ops::session_block::Staleness;
use crate::store::Reader;
use crate::workspace::Workspace;

/// What a judged lag depends on: the store's change counter and identity, PROJECT.md's
/// modification time (Unix ms).
type LagKey = (u64, u64, i64);

/// PROJECT.md's lag per workspace root, kept by a long-lived caller (the panel's server)
/// between requests: judging it scans every entry and may ask git for the file's date, so it
/// is judged again only when the store changed or PROJECT.md was touched.
#[derive(Debug, Default)]
pub struct Lags(Mutex<HashMap<PathBuf, (LagKey, Option<Staleness>)>>);

impl Lags {
    /// PROJECT.md's lag in `ws` as snapshot `r` has it; `project_ms` is the file's mtime.
    fn judged(&self, ws: &Workspace, r: &dyn Reader, project_ms: i64) -> Result<Option<Staleness>> {
        let key = (r.change_seq()?, r.store_id()?, project_ms);
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, lag)) = held.get(&ws.root).filter(|(k, _)| *k == key) {
            return Ok(lag.clone());
        }
        // judged without the lock: another workspace's request need not wait for it
        drop(held);
        let lag = crate::ops::session_block::lag(r, &|| crate::ops::file_date(ws, r))?;
        held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.insert(ws.root.clone(), (key, lag.clone()));
        Ok(lag)
    }
}

/// PROJECT.md's lag behind the logs in `ws` (`project_ms`: its mtime, Unix ms), from `lags`
/// while neither the store nor the file moved.
pub fn lag(ws: &Workspace, lags: &Lags, project_ms: i64) -> Result<Option<Staleness>> {
    ws.read(|r| lags.judged(ws, r, project_ms)).map(|w| w.value)
}

/// What the page's banner is made of, from one snapshot.
#[derive(Debug, Clone)]
pub struct Attention {
    /// Decisions and sections whose review date has come.
    pub due: usize,
    /// PROJECT.md's lag behind the logs (see [`lag`]), whatever the threshold.
    pub stale: Option<Staleness>,
    /// The change token ([`change`]) this was read at.
    pub change: String,
}

/// The reviews due today, PROJECT.md's lag (`project_ms`: its mtime) and the change token.
pub fn attention(ws: &Workspace, lags: &Lags, project_ms: i64) -> Result<Attention> {
    let today = ws.clock.today();
    ws.read(|r| {
        let due = crate::ops::truth::due::due(r, today)?.len();
        let stale = lags.judged(ws, r, project_ms)?;
        Ok(Attention {
            due,
            stale,
            change: token(r)?,
        })
    })
    .map(|w| w.value)
}

/// A token that differs after any write to the store (entries, sections, events, proposals,
/// reports). Reading it takes in a hand edit first, like every read, so an edit made in an
/// editor moves it too.
pub fn change(ws: &Workspace) -> Result<String> {
    ws.read(token).map(|w| w.value)
}

fn token(r: &dyn Reader) -> Result<String> {
    Ok(format!(
        "{}.{}.{}",
        r.store_id()?,
        r.change_seq()?,
        r.last_event_seq()?
    ))
}

/// Let the store take in what changed in the files (a hand edit), as every read does first,
/// so that what is served next from the files is what the store holds.
pub fn take_in_edits(ws: &Workspace) -> Result<()> {
    ws.read(|_| Ok(())).map(|w| w.value)
}
