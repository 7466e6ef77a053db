//! Repairs `doctor --fix` makes to the store: a damaged store is kept aside, never deleted,
//! and rebuilt from the Markdown with what history the damaged copy still gives.

use std::path::Path;

use crate::error::{Error, Result};
use crate::workspace::Workspace;

/// `path` renamed to `<path>.damaged-<UTC time>` (never deleted); returns the new name.
pub(super) fn set_aside(path: &Path) -> Result<std::path::PathBuf> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut aside = path.with_file_name(format!("{name}.damaged-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = path.with_file_name(format!("{name}.damaged-{stamp}-{n}"));
    }
    std::fs::rename(path, &aside).map_err(|e| Error::io(path, e))?;
    Ok(aside)
}

/// `--fix` for the damaged store at `store_path`: set aside and rebuilt (see
/// [`rebuild_store`]), unless another process has it open — that process may be writing it,
/// so it is left where it is. Returns what was done, and whether there is a usable store now.
pub(super) fn fix_damaged(ws: &Workspace, store_path: &Path) -> Result<(Vec<String>, bool)> {
    if crate::store::held_open(store_path) {
        let left = format!(
            "left {} where it is: another process has it open (an MCP server, the panel, a command still running); stop it, then run `trilogy doctor --fix` again",
            store_path.display()
        );
        return Ok((vec![left], false));
    }
    Ok((rebuild_store(ws, store_path)?, true))
}

/// Keep the damaged store aside, rebuild the store from the Markdown, and fold into it what
/// history can still be read from the damaged copy. Returns what was done, and what was lost.
fn rebuild_store(ws: &Workspace, store_path: &Path) -> Result<Vec<String>> {
    let mut fixed = Vec::new();
    let aside = set_aside(store_path)?;
    fixed.push(format!(
        "kept the damaged store as {} (delete it once you are satisfied)",
        aside.display()
    ));
    let scratch = ws
        .state_dir()
        .join(format!("salvage-{}.redb", std::process::id()));
    let salvage = crate::store::salvage(&aside, &scratch);
    let merged = ws.write("doctor", |tx| tx.store().merge_salvage(&salvage));
    let merged = match merged {
        Ok(m) => Some(m.value),
        Err(e) => {
            fixed.push(format!("could not fold the recovered history in: {e}"));
            ws.write("doctor", |_| Ok(()))?;
            None
        }
    };
    fixed.push("rebuilt the store from the Markdown".into());
    if let Some(m) = merged {
        fixed.push(format!(
            "recovered from the damaged store: {} entries no longer in the Markdown (restorable), the provenance of {} entries, {} section revisions, {} events, {} notes, {} proposals",
            m.entries, m.provenance, m.section_revisions, m.events, m.reports, m.proposals
        ));
    }
    for lost in &salvage.lost {
        fixed.push(format!("could not recover: {lost}"));
    }
    Ok(fixed)
}
