//! Where an entry that arrived by a merge was recorded. An entry first read from a version of
//! its file git holds was recorded in another clone or work tree; when that is a sibling work
//! tree of this repository on this machine, its store still knows the entry's provenance
//! (branch, agent session, actor), and the entry takes it from there. The sibling stores are
//! opened read-only — never written, never waited on — only when such an entry arrives, and a
//! store that is missing, a link, damaged or of another schema is passed over. An entry no
//! sibling knows keeps the mark of its arrival (`MERGED`).

use crate::model::{EntryRecord, Origin};
use crate::store::{Reader, Store};

use super::{Tx, gitop};

impl Tx<'_> {
    /// The provenance the sibling store that recorded entry `id` holds for it: (origin, actor).
    pub(super) fn sibling_provenance(&mut self, id: &str) -> Option<(Origin, String)> {
        let stores = self
            .sibling_stores
            .get_or_insert_with(|| open_siblings(self.ws));
        stores.iter().find_map(|s| {
            let rec: EntryRecord = s.read().ok()?.entry(id).ok()??;
            Some((rec.origin, rec.actor))
        })
    }
}

/// The stores of this repository's other work trees, opened read-only.
fn open_siblings(ws: &crate::workspace::Workspace) -> Vec<Store> {
    if !ws.config.sibling_worktrees {
        return Vec::new();
    }
    gitop::worktrees(&ws.root)
        .into_iter()
        .filter_map(|(root, _)| {
            let path = root.join(".trilogy").join("store.redb");
            // a regular file only: a link or a FIFO planted in a sibling is never followed
            let meta = std::fs::symlink_metadata(&path).ok()?;
            let dir = std::fs::symlink_metadata(root.join(".trilogy")).ok()?;
            if !meta.is_file() || !dir.is_dir() {
                return None;
            }
            Store::open_read_only(&path).ok()
        })
        .collect()
}
