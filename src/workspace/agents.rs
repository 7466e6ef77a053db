//! What trilogy remembers about each agent session (the digest of the block it was shown, the
//! ids injected, the owed reminder), kept outside the store: one small JSON file per session in
//! `.trilogy/agents/`, written whole (temp file, rename) and never synced.
//!
//! A hook runs on every session start, prompt and tool call; recording the session inside a
//! durable store commit cost a read-write open, a commit and a close (seven `fdatasync`s) each
//! time. The record is a cache of what a host was shown: a power cut that loses it costs at most
//! one block shown again, never memory. A read-modify-write of one record is serialised by an
//! advisory lock on `.trilogy/agents/.lock` (two hooks of one session may run at once). Records
//! from older versions, kept in the store's `agent_sessions` table, are still read when a session
//! has no file yet.
//!
//! Beside each record, what the session was given word for word (`<name>.given`): the block
//! each injection gave it and the notices appended to its prompts, for a person to read back.
//! Written only when something is given, never on the hooks' other calls.

use std::path::PathBuf;

use super::Workspace;
use crate::error::{Error, Result};
use crate::model::AgentSession;
use crate::store::Reader;

/// The folder of session records.
fn dir(ws: &Workspace) -> Result<PathBuf> {
    ws.inside(&ws.state_dir().join("agents"))
}

fn file_name(id: &str) -> String {
    format!("{}.json", crate::base::hex::sha1_prefix(id.as_bytes(), 12))
}

/// Held while one session record is read, changed and written back.
pub struct AgentsLock {
    _file: std::fs::File,
}

/// Take the lock of the session records (blocking: a holder only reads and writes one small
/// file). Creates `.trilogy/agents/` when missing.
pub fn lock(ws: &Workspace) -> Result<AgentsLock> {
    ws.ensure_state_dir()?;
    let dir = dir(ws)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let path = dir.join(".lock");
    let file = super::fsio::open_lock_file(&path)?;
    file.lock().map_err(|e| Error::io(&path, e))?;
    Ok(AgentsLock { _file: file })
}

/// The record of session `id`: its file, else what an older version kept in the store.
pub fn load(ws: &Workspace, r: &dyn Reader, id: &str) -> Result<Option<AgentSession>> {
    let path = dir(ws)?.join(file_name(id));
    match super::read_file(&path, super::MAX_FILE_BYTES)? {
        // a record cut short or from another layout is treated as unknown: the session gets
        // the whole block again
        Some(bytes) => Ok(serde_json::from_slice::<AgentSession>(&bytes)
            .ok()
            .filter(|s| s.id == id)),
        None => r.agent_session(id),
    }
}

/// Write the record whole, without syncing it.
pub fn save(ws: &Workspace, st: &AgentSession) -> Result<()> {
    let dir = dir(ws)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let bytes = serde_json::to_vec(st).map_err(|e| Error::Internal(e.to_string()))?;
    let path = dir.join(file_name(&st.id));
    use crate::base::write::{Whole, write_whole};
    write_whole(&path, &bytes, Whole::Private).map_err(|e| Error::io(&path, e))
}

/// Every session known: the files, and the older store records no file replaced.
pub fn list(ws: &Workspace, r: &dyn Reader) -> Result<Vec<AgentSession>> {
    let mut out: Vec<AgentSession> = Vec::new();
    let dir = dir(ws)?;
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.starts_with('.') {
                continue;
            }
            if let Ok(Some(bytes)) = super::read_file(&e.path(), super::MAX_FILE_BYTES)
                && let Ok(s) = serde_json::from_slice::<AgentSession>(&bytes)
            {
                out.push(s);
            }
        }
    }
    for s in r.agent_sessions()? {
        if !out.iter().any(|o| o.id == s.id) {
            out.push(s);
        }
    }
    Ok(out)
}

/// What one session was given, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Given {
    pub id: String,
    pub items: Vec<GivenItem>,
}

/// One thing given to a session: a block or a notice, as the host received it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GivenItem {
    /// RFC 3339.
    pub at: String,
    /// `block` or `notice`.
    pub kind: String,
    /// Why a block was given (`startup`, `resume`, `compact`, `clear`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub text: String,
}

/// Items kept per session besides its first block: a long session keeps its latest.
const GIVEN_KEPT: usize = 40;

fn given_path(ws: &Workspace, id: &str) -> Result<PathBuf> {
    let name = file_name(id);
    let stem = name.strip_suffix(".json").unwrap_or(&name);
    Ok(dir(ws)?.join(format!("{stem}.given")))
}

/// What session `id` was given; `None` when nothing was recorded for it.
pub fn given(ws: &Workspace, id: &str) -> Result<Option<Given>> {
    let path = given_path(ws, id)?;
    Ok(super::read_file(&path, super::MAX_FILE_BYTES)?
        .and_then(|bytes| serde_json::from_slice::<Given>(&bytes).ok())
        .filter(|g| g.id == id))
}

/// Add `item` to what session `id` was given (under [`lock`]); the first block is always
/// kept, and the latest [`GIVEN_KEPT`] items after it.
pub fn give(ws: &Workspace, id: &str, item: GivenItem) -> Result<()> {
    let mut g = given(ws, id)?.unwrap_or_else(|| Given {
        id: id.to_string(),
        items: Vec::new(),
    });
    g.items.push(item);
    g.items = kept(std::mem::take(&mut g.items));
    let path = given_path(ws, id)?;
    let bytes = serde_json::to_vec(&g).map_err(|e| Error::Internal(e.to_string()))?;
    use crate::base::write::{Whole, write_whole};
    write_whole(&path, &bytes, Whole::Private).map_err(|e| Error::io(&path, e))
}

/// The items kept of `items`: the first block, and the latest [`GIVEN_KEPT`].
fn kept(mut items: Vec<GivenItem>) -> Vec<GivenItem> {
    if items.len() <= GIVEN_KEPT + 1 {
        return items;
    }
    let cut = items.len() - GIVEN_KEPT;
    let first = (items.iter().position(|i| i.kind == "block")).filter(|f| *f < cut);
    let mut out: Vec<GivenItem> = first.map(|f| items[f].clone()).into_iter().collect();
    out.extend(items.drain(cut..));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: &str, n: usize) -> GivenItem {
        GivenItem {
            at: format!("2026-12-01T00:00:{n:02}Z"),
            kind: kind.into(),
            source: None,
            text: format!("{kind} {n}"),
        }
    }

    #[test]
    fn a_long_session_keeps_its_first_block_and_its_latest_items() {
        let short: Vec<_> = (0..=GIVEN_KEPT).map(|n| item("notice", n)).collect();
        assert_eq!(kept(short.clone()), short, "nothing dropped under the cap");
        let mut long = vec![item("block", 0)];
        long.extend((1..100).map(|n| item("notice", n)));
        let out = kept(long);
        assert_eq!(out.len(), GIVEN_KEPT + 1);
        assert_eq!(out[0].text, "block 0", "the session's start stays");
        assert_eq!(out[1].text, format!("notice {}", 100 - GIVEN_KEPT));
        assert_eq!(out.last().unwrap().text, "notice 99");
        // no block among them: only the latest
        let notices: Vec<_> = (0..100).map(|n| item("notice", n)).collect();
        assert_eq!(kept(notices).len(), GIVEN_KEPT);
    }
}
