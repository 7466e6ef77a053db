//! Saves that land after trilogy replaced a file. A program that writes a memory file in several
//! `write()` calls with pauses between them, or holds it open, goes on writing into the inode
//! trilogy swapped out; those bytes would vanish with it.
//!
//! So when trilogy replaces a file that someone else saved moments before, the displaced inode
//! is not deleted: it is moved to `.trilogy/displaced/`, named after the stat it had when it was
//! absorbed. Each later write command looks there first. Bytes written into a displaced file
//! since are absorbed as additions only: an entry it holds that the store lacks is added, one the
//! store marked removed or replaced is live again; a PROJECT.md line it added against the copy
//! it was made from is added to its section. Nothing is ever removed on its evidence (it is an
//! older version of the file). After a grace period an unchanged displaced file is deleted.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::markdown;
use crate::model::{FileKind, FileStamp, State};
use crate::store::Reader;

use super::super::Workspace;
use super::Tx;
use super::items::items_of;

/// Appended to the log lines of entries taken from a late save.
pub(super) const LATE: &str = " (saved after trilogy replaced the file)";

/// How long a displaced version is kept for a writer that still holds it.
const GRACE: Duration = Duration::from_secs(120);

fn dir(ws: &Workspace) -> Result<PathBuf> {
    ws.inside(&ws.state_dir().join("displaced"))
}

fn name(f: FileKind, len: u64, mtime_ns: i128) -> String {
    format!("{}.{len}.{mtime_ns}", f.file_name())
}

/// `(file, len, mtime)` from a displaced file's name.
fn parse_name(name: &str) -> Option<(FileKind, u64, i128)> {
    let (rest, mtime) = name.rsplit_once('.')?;
    let (file, len) = rest.rsplit_once('.')?;
    let f = FileKind::ALL.into_iter().find(|f| f.file_name() == file)?;
    Some((f, len.parse().ok()?, mtime.parse().ok()?))
}

/// Whether a displaced version saved by someone else is kept: a program that saves in steps
/// can pause for a while between them, so anything saved within the last ten seconds is.
pub(super) fn worth_keeping(st: &FileStamp) -> bool {
    super::fsio::modified_within(st, 10_000_000_000)
}

/// Where the version of `f` displaced with stat `st` is kept.
pub(super) fn displaced_path(ws: &Workspace, f: FileKind, st: &FileStamp) -> Result<PathBuf> {
    let d = dir(ws)?;
    std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
    Ok(d.join(name(f, st.len, st.mtime_ns)))
}

/// Whether a displaced version was written since it was displaced: a read must then go
/// through the write path, which takes what it adds, rather than serve the store as it is.
pub(in crate::workspace) fn waiting(ws: &Workspace) -> bool {
    let Ok(Ok(rd)) = dir(ws).map(std::fs::read_dir) else {
        return false;
    };
    rd.flatten().any(|e| {
        let Some((_, len, was)) = parse_name(&e.file_name().to_string_lossy()) else {
            return false;
        };
        std::fs::symlink_metadata(e.path()).is_ok_and(|m| {
            m.is_file() && (m.len() != len || crate::base::stat::mtime_ns(&m) != was)
        })
    })
}

impl Tx<'_> {
    /// Absorb what was written into displaced versions since they were displaced, and delete
    /// the ones whose grace period is over.
    pub(super) fn absorb_late_saves(&mut self) -> Result<()> {
        let d = dir(self.ws)?;
        let Ok(rd) = std::fs::read_dir(&d) else {
            return Ok(());
        };
        let now = std::time::SystemTime::now();
        for e in rd.flatten() {
            let file_name = e.file_name().to_string_lossy().into_owned();
            let Some((f, len, mtime_ns)) = parse_name(&file_name) else {
                continue;
            };
            let path = e.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let m = crate::base::stat::mtime_ns(&meta);
            if meta.len() == len && m == mtime_ns {
                let old = meta
                    .modified()
                    .ok()
                    .and_then(|t| now.duration_since(t).ok())
                    .is_some_and(|age| age > GRACE);
                if old {
                    let _ = std::fs::remove_file(&path);
                }
                continue;
            }
            // written since it was displaced: take what it adds, then remember its new stat
            let bytes = super::fsio::read_existing(&path, super::fsio::MAX_FILE_BYTES)?;
            let next = d.join(name(f, meta.len(), m));
            self.absorb_additions(f, &bytes, &path)?;
            self.files.late_taken.push((path, next));
        }
        Ok(())
    }

    /// Once the transaction that took them is committed, each displaced version taken is named
    /// after the stat it was read with, so the next command sees it unchanged. One whose
    /// renaming fails is taken again by the next command, which finds nothing new in it.
    pub(super) fn name_late_taken(taken: Vec<(PathBuf, PathBuf)>) {
        for (from, to) in taken {
            if let Err(e) = std::fs::rename(&from, &to) {
                tracing::debug!("{}: {e}", from.display());
            }
        }
    }

    /// Add the entries of `bytes` (a version of `f`) that the store lacks or no longer shows.
    fn absorb_additions(
        &mut self,
        f: FileKind,
        bytes: &[u8],
        from: &std::path::Path,
    ) -> Result<()> {
        let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
        let parsed = match markdown::parse_bytes(bytes, strip) {
            Ok(p) if f == FileKind::Project => {
                // PROJECT sections are edited in place: the lines it added are taken in
                let file_edit = self.author.as_actor("file-edit");
                let taken = self.as_author(file_edit, |tx| tx.absorb_late_sections(&p.doc))?;
                if taken > 0 {
                    self.report.absorbed.push(format!(
                        "{}: {taken} lines saved after trilogy replaced the file were kept",
                        self.ws.file_name(f)
                    ));
                }
                self.changed = true;
                return Ok(());
            }
            Ok(p) => p,
            // a version that does not parse is kept whole for the person to look at
            _ => {
                let rescue = self.ws.rescue_dir()?;
                let to = super::fsio::rescue_path(&rescue, Path::new(f.file_name()), Some("late"))?;
                std::fs::copy(from, &to).map_err(|e| Error::io(&to, e))?;
                self.report.absorbed.push(format!(
                    "{}: a save written after trilogy replaced the file was kept at {}",
                    self.ws.file_name(f),
                    to.display()
                ));
                self.changed = true;
                return Ok(());
            }
        };
        let file_edit = self.author.as_actor("file-edit");
        let kept = self.as_author(file_edit, |tx| {
            let mut kept = 0;
            for item in items_of(f, &parsed.doc, tx.author.today) {
                match tx.store.entry(&item.id)? {
                    None => {
                        let rec = tx.entry_of(&item)?;
                        tx.put_entry(&rec)?;
                        tx.log(
                            "add",
                            vec![rec.id.clone()],
                            &format!("{}: {}{LATE}", tx.ws.file_name(f), rec.heading),
                        )?;
                        kept += 1;
                    }
                    Some(rec) if matches!(rec.state, State::Removed | State::Replaced) => {
                        tx.take_state(f, rec, &item, LATE)?;
                        kept += 1;
                    }
                    Some(_) => {}
                }
            }
            Ok::<_, Error>(kept)
        })?;
        if kept > 0 {
            self.report.absorbed.push(format!(
                "{}: {kept} entries saved after trilogy replaced the file were kept",
                self.ws.file_name(f)
            ));
        }
        self.changed = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displaced_names_carry_the_stat_they_were_absorbed_with() {
        let n = name(FileKind::Archive, 1234, 1_700_000_000_123_456_789);
        assert_eq!(
            parse_name(&n),
            Some((FileKind::Archive, 1234, 1_700_000_000_123_456_789))
        );
        assert_eq!(parse_name("SESSIONS.md"), None);
        assert_eq!(parse_name("notes.txt.1.2"), None);
    }
}
