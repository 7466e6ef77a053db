//! Reading a source folder that may be hostile: nothing outside PATH is read (no symbolic link
//! is followed, no `..` is walked), only regular files are opened (a FIFO, a socket or a device
//! is noted and skipped, never waited on), each file and the whole read are capped, and every
//! file read is checked for credentials before anything is planned from it.
//!
//! Owns the file system side of an import; it never writes.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use chrono::NaiveDate;

use super::plan::Skip;
use crate::error::{Error, Result};

/// Largest source file read; a bigger one is skipped with a note.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most files one import reads.
pub const MAX_FILES: usize = 5_000;
/// Most bytes one import reads, all files together.
pub const MAX_TOTAL_BYTES: u64 = 32 * 1024 * 1024;
/// Deepest folder walked below PATH.
pub const MAX_DEPTH: usize = 12;

/// One source file, read and checked.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to PATH, with `/` separators (how previews and errors name it).
    pub rel: String,
    /// The text, LF line endings, without a BOM.
    pub text: String,
    /// The local date of its last modification (the date of what it holds, when it says none).
    pub mtime: Option<NaiveDate>,
}

/// What a folder listing found: regular files and folders (symbolic links and special files
/// are noted as skipped, never listed).
#[derive(Debug, Default)]
pub struct Listing {
    pub files: Vec<String>,
    pub dirs: Vec<String>,
}

/// A read-only view of PATH.
#[derive(Debug)]
pub struct Reading {
    root: PathBuf,
    /// Files and folders left out, with the reason.
    pub skipped: Vec<Skip>,
    files: usize,
    bytes: u64,
}

impl Reading {
    /// PATH as the user gave it (PATH itself may be a symbolic link: the user named it).
    pub fn new(root: &Path) -> Result<Reading> {
        let root = std::fs::canonicalize(root).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::bad_input(format!(
                "{}: no such file or folder; give the source's folder (or file) as PATH",
                root.display()
            )),
            _ => Error::io(root, e),
        })?;
        Ok(Reading {
            root,
            skipped: Vec::new(),
            files: 0,
            bytes: 0,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `rel` is on disk (for messages).
    pub fn shown(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    fn skip(&mut self, rel: &str, reason: impl Into<String>) {
        self.skipped.push(Skip {
            from: rel.to_string(),
            reason: reason.into(),
        });
    }

    /// The path of `rel` when every step of it stays inside PATH and none is a symbolic link;
    /// otherwise the reason it is refused.
    fn inside(&self, rel: &str) -> std::result::Result<PathBuf, String> {
        let mut at = self.root.clone();
        for c in Path::new(rel).components() {
            match c {
                Component::Normal(n) => {
                    at.push(n);
                    match std::fs::symlink_metadata(&at) {
                        Ok(m) if m.file_type().is_symlink() => {
                            return Err("a symbolic link: not followed".into());
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            return Err("missing".into());
                        }
                        Err(e) => return Err(format!("cannot be read ({e})")),
                    }
                }
                Component::CurDir => {}
                _ => return Err("points outside PATH: not read".into()),
            }
        }
        Ok(at)
    }

    /// The regular files and folders directly in folder `rel` (`""` is PATH), sorted; links,
    /// FIFOs, sockets and devices are noted as skipped.
    pub fn list(&mut self, rel: &str) -> Result<Listing> {
        let dir = match self.inside(rel) {
            Ok(d) => d,
            Err(why) => {
                self.skip(rel, why);
                return Ok(Listing::default());
            }
        };
        let mut names: Vec<(String, std::fs::FileType)> = Vec::new();
        let rd = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        for e in rd {
            let e = e.map_err(|e| Error::io(&dir, e))?;
            let ft = e.file_type().map_err(|err| Error::io(e.path(), err))?;
            names.push((e.file_name().to_string_lossy().into_owned(), ft));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Listing::default();
        for (name, ft) in names {
            let child = join(rel, &name);
            if ft.is_symlink() {
                self.skip(&child, "a symbolic link: not followed");
            } else if ft.is_dir() {
                out.dirs.push(child);
            } else if ft.is_file() {
                out.files.push(child);
            } else {
                self.skip(&child, special(&ft));
            }
        }
        Ok(out)
    }

    /// Every regular file under folder `rel`, depth first, down to [`MAX_DEPTH`]; folders whose
    /// name starts with `.` are noted and left out.
    pub fn walk(&mut self, rel: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let mut stack = vec![(rel.to_string(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let l = self.list(&dir)?;
            out.extend(l.files);
            for d in l.dirs.into_iter().rev() {
                let name = d.rsplit('/').next().unwrap_or(&d);
                if name.starts_with('.') {
                    self.skip(&d, "a hidden folder: not read");
                } else if depth + 1 > MAX_DEPTH {
                    self.skip(&d, format!("deeper than {MAX_DEPTH} folders: not read"));
                } else {
                    stack.push((d, depth + 1));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Read the regular file `rel`: `None` (with a note) when it is missing, a link, not a
    /// regular file or over [`MAX_FILE_BYTES`]. Not UTF-8 or holding a credential is an error
    /// naming the file and line: nothing is imported then.
    pub fn read(&mut self, rel: &str) -> Result<Option<SourceFile>> {
        let path = match self.inside(rel) {
            Ok(p) => p,
            Err(why) => {
                self.skip(rel, why);
                return Ok(None);
            }
        };
        let Some((bytes, mtime)) = self.read_capped(rel, &path)? else {
            return Ok(None);
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            Error::bad_input(format!(
                "{}: line {line}: not UTF-8 text; save the file as UTF-8 (nothing was imported)",
                path.display()
            ))
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let text = crate::markdown::normalize_newlines(text).into_owned();
        if let Some(s) = crate::secrets::find(&text) {
            return Err(Error::bad_input(format!(
                "{}: line {}: looks like {} ({}); take it out of the source before importing: memory files are committed and injected into every session (nothing was imported)",
                path.display(),
                s.line,
                s.kind,
                s.masked
            )));
        }
        Ok(Some(SourceFile {
            rel: rel.to_string(),
            text,
            mtime,
        }))
    }

    fn read_capped(
        &mut self,
        rel: &str,
        path: &Path,
    ) -> Result<Option<(Vec<u8>, Option<NaiveDate>)>> {
        // no link at the last step either, and never wait on a FIFO swapped in since the check
        let f = match crate::base::fence::open_read_here(path) {
            Ok(f) => f,
            Err(e) => {
                self.skip(rel, format!("cannot be opened ({e})"));
                return Ok(None);
            }
        };
        let meta = f.metadata().map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            self.skip(rel, special(&meta.file_type()));
            return Ok(None);
        }
        if meta.len() > MAX_FILE_BYTES {
            self.skip(
                rel,
                format!(
                    "{} bytes, over the {MAX_FILE_BYTES}-byte limit for one source file: not read",
                    meta.len()
                ),
            );
            return Ok(None);
        }
        self.files += 1;
        if self.files > MAX_FILES {
            return Err(Error::bad_input(format!(
                "{}: more than {MAX_FILES} files to read; point PATH at the memory folder itself (nothing was imported)",
                self.root.display()
            )));
        }
        let mut buf = Vec::new();
        // the file may be growing: the cap holds whatever its length is now
        f.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(path, e))?;
        if buf.len() as u64 > MAX_FILE_BYTES {
            self.skip(
                rel,
                format!("over the {MAX_FILE_BYTES}-byte limit for one source file: not read"),
            );
            return Ok(None);
        }
        self.bytes += buf.len() as u64;
        if self.bytes > MAX_TOTAL_BYTES {
            return Err(Error::bad_input(format!(
                "{}: more than {MAX_TOTAL_BYTES} bytes to read; point PATH at the memory folder itself (nothing was imported)",
                self.root.display()
            )));
        }
        let mtime = meta.modified().ok().map(|t| {
            let local: chrono::DateTime<chrono::Local> = t.into();
            local.date_naive()
        });
        Ok(Some((buf, mtime)))
    }
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

fn special(ft: &std::fs::FileType) -> String {
    format!("{}: not read", crate::base::stat::special_kind(*ft))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn nothing_outside_the_folder_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "outside").unwrap();
        std::fs::write(dir.path().join("a.md"), "inside").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("l.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe.md"))
            .status()
            .unwrap();
        assert!(made.success());
        let mut r = Reading::new(dir.path()).unwrap();
        assert_eq!(r.walk("").unwrap(), vec!["a.md".to_string()]);
        assert!(r.read("../x.md").unwrap().is_none());
        assert!(r.read("l.md").unwrap().is_none());
        assert!(r.read("sub/secret.md").unwrap().is_none());
        assert!(r.read("pipe.md").unwrap().is_none());
        assert_eq!(r.read("a.md").unwrap().unwrap().text, "inside");
        let why: Vec<&str> = r.skipped.iter().map(|s| s.reason.as_str()).collect();
        assert!(why.iter().any(|w| w.contains("FIFO")), "{why:?}");
        assert!(why.iter().any(|w| w.contains("outside PATH")), "{why:?}");
        assert!(
            why.iter().filter(|w| w.contains("symbolic link")).count() >= 3,
            "{why:?}"
        );
    }

    #[test]
    fn a_huge_file_is_skipped_unread() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("big.md")).unwrap();
        f.set_len(MAX_FILE_BYTES + 10).unwrap();
        let mut r = Reading::new(dir.path()).unwrap();
        assert!(r.read("big.md").unwrap().is_none());
        assert!(r.skipped[0].reason.contains("limit"), "{:?}", r.skipped);
    }
}
