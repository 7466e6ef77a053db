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
