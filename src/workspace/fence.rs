//! The workspace fence: every path trilogy reads or writes inside a project is resolved here,
//! one component at a time, so a symlink is followed only while it stays inside the root.
//!
//! A cloned repository is untrusted input: a committed `AGENTS.md → ~/.ssh/id_ed25519`, a
//! `memory/` or `.trilogy/` linked to another folder, or `hooks.log → ~/.bashrc` must never
//! make trilogy read or write outside the project. This module only resolves and checks; it
//! never creates or writes anything.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// Symlink hops followed before a path is refused as a loop.
const MAX_HOPS: usize = 40;

/// Resolve `path`, which must name something under `root`, to a path without symlinks whose
/// every existing component lies inside the (canonical) root. Components that do not exist yet
/// are appended as they are (they will be created inside the last existing directory).
///
/// Refused, with the link and its target named: a symlink leading outside the root, a dangling
/// symlink (writing through it would create a file wherever it points), a loop, and a path that
/// is not under `root` or climbs out with `..`.
pub fn beneath(root: &Path, path: &Path) -> Result<PathBuf> {
    Fence::new(root)?.resolve(path)
}

/// A workspace root, canonicalised once, that resolves paths under it (see [`beneath`]).
#[derive(Debug, Clone)]
pub struct Fence {
    root: PathBuf,
    canon: PathBuf,
}

impl Fence {
    pub fn new(root: &Path) -> Result<Fence> {
        let canon = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
        Ok(Fence {
            root: root.to_path_buf(),
            canon,
        })
    }

    /// [`beneath`] for this root.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf> {
        resolve(&self.root, &self.canon, path)
    }
}

fn resolve(root: &Path, canon_root: &Path, path: &Path) -> Result<PathBuf> {
    let rel = match path.strip_prefix(root) {
        Ok(r) => r.to_path_buf(),
        Err(_) => match path.strip_prefix(canon_root) {
            Ok(r) => r.to_path_buf(),
            Err(_) => {
                return Err(escape(
                    path,
                    &format!("is not inside the workspace {}", root.display()),
                ));
            }
        },
    };
    let mut pending: Vec<std::ffi::OsString> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => pending.push(n.to_os_string()),
            Component::CurDir => {}
            _ => {
                return Err(escape(
                    path,
                    "climbs out of the workspace (`..` or an absolute part); use a path inside it",
                ));
            }
        }
    }
    pending.reverse();
    let mut cur = canon_root.to_path_buf();
    let mut hops = 0;
    while let Some(name) = pending.pop() {
        let next = cur.join(&name);
        let meta = match std::fs::symlink_metadata(&next) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // nothing here yet: the rest is created under `cur`, which is inside the root
                cur = next;
                while let Some(n) = pending.pop() {
                    cur.push(n);
                }
                return Ok(cur);
            }
            Err(e) => return Err(Error::io(&next, e)),
        };
        if !meta.file_type().is_symlink() {
            cur = next;
            continue;
        }
        hops += 1;
        if hops > MAX_HOPS {
            return Err(escape(
                path,
                "has too many levels of symlinks; replace the links with the files",
            ));
        }
        let target = std::fs::read_link(&next).map_err(|e| Error::io(&next, e))?;
        let resolved = match std::fs::canonicalize(&next) {
            Ok(t) => t,
            Err(_) => {
                return Err(escape(
                    &next,
                    &format!(
                        "is a symlink to {}, which does not exist; trilogy does not create files through links (replace the link with the file itself)",
                        target.display()
                    ),
                ));
            }
        };
        if !resolved.starts_with(canon_root) {
            return Err(escape(
                &next,
                &format!(
                    "is a symlink to {}, outside the workspace {}; trilogy refuses to read or write through it (replace the link with the file itself)",
                    resolved.display(),
                    canon_root.display()
                ),
            ));
        }
        // canonicalize resolved every link below it, and the result is inside the root
        cur = resolved;
    }
    Ok(cur)
}

/// True when `path` lies under `root` (lexically, after making both absolute): such a path is
/// the workspace's to fence; a path elsewhere was named by the user explicitly.
pub fn is_under(root: &Path, path: &Path) -> bool {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (root, path) = (abs(root), abs(path));
    if path.starts_with(&root) {
        return true;
    }
    match std::fs::canonicalize(&root) {
        Ok(c) => path.starts_with(c),
        Err(_) => false,
    }
}

fn escape(path: &Path, why: &str) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        message: why.to_string(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_inside_the_root_are_followed_and_links_out_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/real.md"), "x").unwrap();
        symlink("docs/real.md", root.join("inside.md")).unwrap();
        symlink(outside.path(), root.join("memory")).unwrap();
        symlink(outside.path().join("secret"), root.join("AGENTS.md")).unwrap();
        std::fs::write(outside.path().join("secret"), "key").unwrap();

        let canon = std::fs::canonicalize(root).unwrap();
        assert_eq!(
            beneath(root, &root.join("inside.md")).unwrap(),
            canon.join("docs/real.md")
        );
        assert_eq!(
            beneath(root, &root.join("new/dir/file.md")).unwrap(),
            canon.join("new/dir/file.md")
        );
        let e = beneath(root, &root.join("memory/SESSIONS.md"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside the workspace"), "{e}");
        let e = beneath(root, &root.join("AGENTS.md"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside the workspace"), "{e}");
        let e = beneath(root, &root.join("../x")).unwrap_err().to_string();
        assert!(e.contains("climbs out"), "{e}");
    }

    #[test]
    fn dangling_and_looping_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        symlink("nowhere.md", root.join("dangling.md")).unwrap();
        symlink("b", root.join("a")).unwrap();
        symlink("a", root.join("b")).unwrap();
        let e = beneath(root, &root.join("dangling.md"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(beneath(root, &root.join("a/x")).is_err());
    }
}
