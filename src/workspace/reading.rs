//! Reads: from a read-only snapshot when the files are as the store last saw them (or as a
//! read vouched for them since, kept in `.trilogy/settled.json`), else through the write path
//! first, so every read sees hand edits.

use super::*;

impl Workspace {
    /// Run `f` on a consistent snapshot that reflects the files as they are now. The report
    /// names files that do not parse (their last good content is what the store serves).
    pub fn read<R>(&self, f: impl FnOnce(&dyn Reader) -> Result<R>) -> Result<Synced<R>> {
        self.read_mode(None, f)
    }

    /// [`Workspace::read`], except that files which are not as the store would write them are
    /// brought up to date first (absorbed and written, as by any write, with `actor`): for
    /// callers that run often and must leave nothing owed, so their next call reads through
    /// a read-only handle again (hooks).
    pub fn read_settling<R>(
        &self,
        actor: &str,
        f: impl FnOnce(&dyn Reader) -> Result<R>,
    ) -> Result<Synced<R>> {
        self.read_mode(Some(actor), f)
    }

    fn read_mode<R>(
        &self,
        writer: Option<&str>,
        f: impl FnOnce(&dyn Reader) -> Result<R>,
    ) -> Result<Synced<R>> {
        self.require_memory()?;
        // a git index lock a killed trilogy left would stop the person's git commands
        if let Some(root) = self.git() {
            sync::gitlock::clear_stale(root);
        }
        let clean = |value| Synced {
            value,
            report: SyncReport::default(),
        };
        // a one-shot command looks through a read-only handle first (no write lock, no
        // repair); a long-lived process already holds the read-write one
        let mut found = None;
        if self.store.get().is_none()
            && self.store_path().exists()
            && let Ok(ro) = Store::open_read_only(&self.inside(&self.store_path())?)
        {
            let rtx = ro.read()?;
            match self.files_match(&rtx)? {
                Match::Yes => return f(&rtx).map(clean),
                Match::Settle(v) => {
                    let _ = self.save_settled(&v);
                    return f(&rtx).map(clean);
                }
                m => found = Some(m),
            }
        }
        let store = self.rw_store()?;
        let found = match found {
            Some(m) => m,
            None => {
                let rtx = store.read()?;
                match self.files_match(&rtx)? {
                    Match::Yes => return f(&rtx).map(clean),
                    m => m,
                }
            }
        };
        if let Match::Settle(vouched) = &found {
            // the files are as written; keep the stamps a read can now vouch for beside the
            // store (whole, unsynced: losing them costs one hash of each file), so later reads
            // need no hashing and no read-write open
            let _ = self.save_settled(vouched);
            let rtx = store.read()?;
            return f(&rtx).map(clean);
        }
        // a read never writes a memory file (unless asked to settle them): the store takes
        // what changed in them
        let synced = match writer {
            Some(actor) => self.write_mode(actor, true, |_| Ok(()))?,
            None => self.write_mode("cli", false, |_| Ok(()))?,
        };
        let rtx = store.read()?;
        Ok(Synced {
            value: f(&rtx)?,
            report: synced.report,
        })
    }

    /// Where stamps vouched for by a read are kept (see [`Workspace::read`]).
    fn settled_path(&self) -> PathBuf {
        self.state_dir().join("settled.json")
    }

    fn save_settled(&self, vouched: &[(FileKind, crate::model::FileStamp)]) -> Result<()> {
        let list: Vec<Settled> = vouched
            .iter()
            .map(|(f, s)| Settled {
                file: f.code(),
                sha1: s.sha1.clone(),
                len: s.len,
                mtime_ns: s.mtime_ns,
                ino: s.ino,
                taken_ms: s.taken_ms,
            })
            .collect();
        let bytes = serde_json::to_vec(&list).map_err(|e| Error::Internal(e.to_string()))?;
        let path = self.inside(&self.settled_path())?;
        use crate::base::write::{Whole, write_whole};
        write_whole(&path, &bytes, Whole::Private).map_err(|e| Error::io(&path, e))
    }

    fn load_settled(&self) -> Vec<Settled> {
        self.inside(&self.settled_path())
            .ok()
            .and_then(|p| fsio::read_file(&p, fsio::MAX_FILE_BYTES).ok()?)
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Per file of [`FileKind::ALL`], the hash of its bytes when a stat shows the file is as
    /// the store last wrote or read it (its stamp trusted, or vouched for by a read kept in
    /// `settled.json`, read once); `None` when only reading the file would tell.
    pub fn stamped_sha1s(&self, r: &dyn Reader) -> Result<Vec<Option<String>>> {
        let settled = self.load_settled();
        let mut out = Vec::new();
        for f in FileKind::ALL {
            let path = self.memory_file(f)?;
            let known = match r.stamp(f)? {
                Some(s) if fsio::stat_matches(&path, &s, r.stamped_at(f)?) => Some(s),
                Some(s) if settled.iter().any(|v| v.vouches(f, &s, &path)) => Some(s),
                _ => None,
            };
            out.push(known.map(|s| s.sha1));
        }
        Ok(out)
    }

    /// Whether every file is as the store last wrote it (by stat, then by hash).
    fn files_match(&self, r: &dyn Reader) -> Result<Match> {
        if r.meta("absorbed_once")? == 0
            || r.meta("schema_version")? != crate::store::SCHEMA_VERSION
        {
            return Ok(Match::No);
        }
        if sync::late::waiting(self) {
            // a save landed in a version trilogy replaced: the write path takes it
            return Ok(Match::No);
        }
        if let Some(last) = r.git_head()?
            && self
                .git()
                .and_then(sync::gitop::head)
                .is_some_and(|now| now != last)
        {
            // a branch switch since the last look: the write path follows the checkout
            return Ok(Match::No);
        }
        let mut vouched = Vec::new();
        let mut settled: Option<Vec<Settled>> = None;
        let cleared = r.meta(sync::CLEARED)? == 1;
        for &f in self.files() {
            // a file git kept trilogy from writing is written once git is done
            if r.meta(&sync::pending_key(f))? > 0
                && self.git().and_then(sync::gitop::in_progress).is_none()
            {
                return Ok(Match::No);
            }
        }
        for &f in self.files() {
            let path = self.memory_file(f)?;
            if cleared && !path.exists() {
                // cleared on purpose: started again from the templates by the next write
                continue;
            }
            let stamp = r.stamp(f)?;
            let stamped_at = r.stamped_at(f)?;
            match stamp {
                Some(s) if fsio::stat_matches(&path, &s, stamped_at) => continue,
                Some(s)
                    if settled
                        .get_or_insert_with(|| self.load_settled())
                        .iter()
                        .any(|v| v.vouches(f, &s, &path)) =>
                {
                    vouched.push((f, settled_stamp(settled.as_deref(), f)));
                    continue;
                }
                Some(s) => match fsio::hash_stamped(&path)? {
                    Some(disk) if disk.sha1 == s.sha1 => {
                        if fsio::is_racy(&s, stamped_at) && fsio::vouches(&disk) {
                            vouched.push((f, disk));
                        }
                        continue;
                    }
                    _ => return Ok(Match::No),
                },
                None => {
                    let expected = f != FileKind::Archive || r.file_count(FileKind::Archive)? > 0;
                    if expected || path.exists() {
                        return Ok(Match::No);
                    }
                }
            }
        }
        let fresh = vouched.iter().any(|(f, v)| {
            settled
                .as_ref()
                .is_none_or(|s| !s.iter().any(|x| x.is(*f, v)))
        });
        Ok(if fresh {
            Match::Settle(vouched)
        } else {
            Match::Yes
        })
    }
}

/// A stamp a read vouched for (its read began past the racy window of the file's mtime), kept
/// in `.trilogy/settled.json` beside the store's own, racy, stamp of the same bytes.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Settled {
    file: u8,
    sha1: String,
    len: u64,
    mtime_ns: i128,
    ino: u64,
    taken_ms: u64,
}

impl Settled {
    fn stamp(&self) -> crate::model::FileStamp {
        crate::model::FileStamp {
            sha1: self.sha1.clone(),
            len: self.len,
            mtime_ns: self.mtime_ns,
            ino: self.ino,
            taken_ms: self.taken_ms,
        }
    }

    fn is(&self, f: FileKind, s: &crate::model::FileStamp) -> bool {
        self.file == f.code() && self.stamp() == *s
    }

    /// True when this vouches for `f` holding the bytes of the store's stamp `s`: the same
    /// hash, and the file's stat unchanged since a read that can be trusted.
    fn vouches(&self, f: FileKind, s: &crate::model::FileStamp, path: &Path) -> bool {
        self.file == f.code()
            && self.sha1 == s.sha1
            && fsio::vouches(&self.stamp())
            && fsio::stat_equal(path, &self.stamp())
    }
}

fn settled_stamp(settled: Option<&[Settled]>, f: FileKind) -> crate::model::FileStamp {
    settled
        .and_then(|s| s.iter().find(|x| x.file == f.code()))
        .map(Settled::stamp)
        .unwrap_or_default()
}

/// What [`Workspace::files_match`] found.
#[derive(Debug, PartialEq, Eq)]
enum Match {
    /// Every file is as the store last wrote it.
    Yes,
    /// As written, but some stamp was taken too close to its file's mtime to be trusted and
    /// is vouched for by these stamps of a read (kept in `.trilogy/settled.json`).
    Settle(Vec<(FileKind, crate::model::FileStamp)>),
    /// A file changed (or the store needs a migration): absorb first.
    No,
}
