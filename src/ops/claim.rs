//! Which host session an MCP write belongs to. A host starts its MCP server without naming
//! the session it serves, so what the server records carries no session; the host's tool hook
//! does name it, and the tool's answer names the entries written. Those entries — written by
//! an MCP server since the session's turn began, and tied to no session yet — get the session
//! in their provenance, so `sessions show`, the panel and recall's "who said this" name it.
//!
//! Must not: touch an entry a person, the CLI or another session's process wrote, one already
//! tied to a session, or anything in the files (provenance is the store's alone).

use std::collections::BTreeSet;

use crate::error::Result;
use crate::store::Reader;
use crate::workspace::{Workspace, agents};

/// The actor of the entries an MCP server writes for a session it cannot name.
const MCP: &str = "mcp";

/// Tie to session `id` of `host` the entries its MCP server wrote this turn: those `named`
/// (by the tool's answer), or, when the answer named none, every one written since the turn
/// began. Returns the entries tied.
pub fn claim(ws: &Workspace, host: &str, id: &str, named: &[String]) -> Result<Vec<String>> {
    let candidates = ws
        .read(|r| {
            let Some(st) = agents::load(ws, r, id)? else {
                return Ok(BTreeSet::new());
            };
            let mut ids = BTreeSet::new();
            for e in r.events_since(st.turn_start_event)? {
                if e.actor == MCP {
                    ids.extend(e.ids);
                }
            }
            if !named.is_empty() {
                ids.retain(|i| named.contains(i));
            }
            Ok(ids)
        })?
        .value;
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let tied = ws.write(&format!("hook:{host}"), |tx| {
        let mut tied = Vec::new();
        for entry in &candidates {
            let Some(mut e) = tx.store().entry(entry)? else {
                continue;
            };
            if e.actor != MCP || e.origin.agent_session.is_some() {
                continue;
            }
            e.origin.agent_session = Some(id.to_string());
            tx.put_provenance(&e)?;
            tied.push(e.id);
        }
        Ok(tied)
    })?;
    Ok(tied.value)
}
