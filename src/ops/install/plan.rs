//! All or nothing: `install` and `uninstall` first work out every file's new bytes in memory
//! (a [`Plan`]), then check every file they would write — a regular file or one to create,
//! not read-only, a symlinked settings file only when it leads to a regular file the user owns
//! (written through, so the link stays) — and only then write them, each atomically. A write
//! that fails puts back the files already written.
//!
//! Reading goes through the workspace fence ([`read_text`]): never waiting on a FIFO, regular
//! files only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::FileChange;
use super::record::{Made, Record};
use crate::error::{Error, Result};
use crate::workspace::{MAX_FILE_BYTES, write_atomic};

/// The text of the file at `path`; `None` when it does not exist.
pub(super) fn read_text(path: &Path) -> Result<Option<String>> {
    crate::workspace::read_text_file(path, MAX_FILE_BYTES)
}

fn refused(path: &Path, why: &str) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: format!("{why}; nothing was changed"),
    }
}

/// One file of the plan: what it holds now and what it gets.
#[derive(Debug, Clone)]
pub(super) struct Step {
    pub path: PathBuf,
    pub before: Option<String>,
    /// `None`: the file goes.
    pub after: Option<String>,
    /// Said beside the file in the report (a user's own entry kept).
    pub note: Option<String>,
}

impl Step {
    fn changes(&self) -> bool {
        self.before != self.after
    }

    fn action(&self) -> &'static str {
        match (&self.before, &self.after) {
            _ if !self.changes() => "unchanged",
            (None, _) => "created",
            (Some(_), None) => "removed",
            (Some(_), Some(_)) => "updated",
        }
    }
}

/// Every file change of one install or uninstall, not yet written.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Texts that stand in for the files on disk (a plan worked out over another's result).
    overlay: BTreeMap<PathBuf, Option<String>>,
    pub steps: Vec<Step>,
    /// Folders to create, outermost first.
    make: Vec<PathBuf>,
    /// Folders to remove when they are left empty, deepest first.
    pub drop_dirs: Vec<PathBuf>,
}

impl Plan {
    /// A plan that reads the files as `other` leaves them.
    pub fn over(other: &Plan) -> Plan {
        let mut overlay = other.overlay.clone();
        for s in &other.steps {
            overlay.insert(s.path.clone(), s.after.clone());
        }
        Plan {
            overlay,
            ..Plan::default()
        }
    }

    /// The text of `path` as this plan sees it.
    pub fn read(&self, path: &Path) -> Result<Option<String>> {
        match self.overlay.get(path) {
            Some(text) => Ok(text.clone()),
            None => read_text(path),
        }
    }

    /// `path` goes from `before` to `after`. A file that did not exist is noted, with the
    /// folders it needs.
    pub fn put(
        &mut self,
        path: &Path,
        before: Option<String>,
        after: Option<String>,
        rec: &mut Record,
    ) {
        if before.is_none() && after.is_some() {
            rec.note(Made::File, path, "");
            if let Some(dir) = path.parent() {
                self.make_dirs(dir, rec);
            }
        }
        self.change(path, before, after);
    }

    /// `path` goes from `before` to `after` (`None`: removed); nothing is noted.
    pub fn change(&mut self, path: &Path, before: Option<String>, after: Option<String>) {
        self.steps.push(Step {
            path: path.to_path_buf(),
            before,
            after,
            note: None,
        });
    }

    /// Say `note` beside the last file put.
    pub fn note(&mut self, note: String) {
        if let Some(s) = self.steps.last_mut() {
            s.note = Some(note);
        }
    }

    /// Create the folders of `dir` that are missing, noting each one for uninstall.
    fn make_dirs(&mut self, dir: &Path, rec: &mut Record) {
        let mut missing: Vec<PathBuf> = dir
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        for d in missing {
            if !self.make.contains(&d) {
                rec.note(Made::Dir, &d, "");
                self.make.push(d);
            }
        }
    }

    /// Check every file this plan changes; the paths to write, in step order.
    pub fn check(&self) -> Result<Vec<PathBuf>> {
        self.steps
            .iter()
            .map(|s| {
                if s.changes() {
                    writable(&s.path, s.after.is_none())
                } else {
                    Ok(s.path.clone())
                }
            })
            .collect()
    }

    /// Write every change (through the paths [`Plan::check`] gave), putting back what was
    /// written when one fails; then the folders left empty go.
    pub fn apply(self, targets: &[PathBuf]) -> Result<Vec<FileChange>> {
        let mut made = Vec::new();
        let mut done: Vec<(&Step, &PathBuf)> = Vec::new();
        let mut result = Ok(());
        for d in &self.make {
            match std::fs::create_dir(d) {
                Ok(()) => made.push(d),
                // made meanwhile by someone else: theirs, and kept
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    result = Err(Error::io(d, e));
                    break;
                }
            }
        }
        for (step, target) in self.steps.iter().zip(targets).filter(|(s, _)| s.changes()) {
            if result.is_err() {
                break;
            }
            result = write(target, step.after.as_deref());
            if result.is_ok() {
                done.push((step, target));
                if done.len() == 1 {
                    crate::base::fault::crash_point("install-after-first-file");
                }
            }
        }
        if let Err(e) = result {
            for (step, target) in done.into_iter().rev() {
                let _ = write(target, step.before.as_deref());
            }
            for d in made.into_iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
            return Err(e);
        }
        for d in &self.drop_dirs {
            // fails, as it should, when anything is left in it
            let _ = std::fs::remove_dir(d);
        }
        Ok(self
            .steps
            .iter()
            .map(|s| FileChange {
                path: s.path.display().to_string(),
                action: s.action(),
                note: s.note.clone(),
            })
            .collect())
    }
}

/// Put `text` at `target`, or remove it (`None`).
fn write(target: &Path, text: Option<&str>) -> Result<()> {
    match text {
        Some(t) => write_atomic(target, t.as_bytes()),
        None => match std::fs::remove_file(target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(target, e)),
            _ => Ok(()),
        },
    }
}

/// Where a change of `path` is written, or why it is refused: a symlink is written through
/// when it leads to a regular file the user owns (and never removed), a read-only file is
/// left alone, anything but a regular file is refused.
fn writable(path: &Path, remove: bool) -> Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let (target, meta) = if meta.file_type().is_symlink() {
        let Ok(target) = std::fs::canonicalize(path) else {
            return Err(refused(
                path,
                "is a symbolic link to nothing; point it at your settings file or remove it",
            ));
        };
        let tmeta = std::fs::metadata(&target).map_err(|e| Error::io(&target, e))?;
        let mine = crate::base::stat::owned_by_me(&tmeta);
        if !tmeta.is_file() || !mine {
            return Err(refused(
                path,
                &format!(
                    "is a symbolic link to {}, which is not a regular file of yours; \
                     make the change there yourself, or replace the link with a copy",
                    target.display()
                ),
            ));
        }
        if remove {
            return Err(refused(
                path,
                &format!(
                    "is now a symbolic link to {}; install created it as a file, so remove it yourself",
                    target.display()
                ),
            ));
        }
        (target, tmeta)
    } else {
        (path.to_path_buf(), meta)
    };
    if !meta.is_file() {
        return Err(refused(
            path,
            "is not a regular file (a FIFO, a device or a folder)",
        ));
    }
    if !crate::base::stat::owner_may_write(&meta) {
        return Err(refused(
            &target,
            &format!(
                "is read-only (mode {:o}): trilogy does not change a file you protected; \
                 make it writable (chmod u+w) and run this again",
                crate::base::stat::mode(&meta) & 0o777
            ),
        ));
    }
    Ok(target)
}
