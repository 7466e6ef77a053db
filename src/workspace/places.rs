//! Where a workspace keeps things: its memory files by scope, the memory folder, the state,
//! rescue and index folders and the store, each resolved inside the fence. It names paths;
//! it never creates or writes them.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::FileKind;

use super::*;

impl Workspace {
    /// The memory files this scope keeps.
    pub fn files(&self) -> &'static [FileKind] {
        match self.scope {
            Scope::Workspace => &FileKind::ALL,
            Scope::User => &USER_FILES,
        }
    }

    /// The name of memory file `f` here (the user scope's sections are `USER.md`).
    pub fn file_name(&self, f: FileKind) -> &'static str {
        match (self.scope, f) {
            (Scope::User, FileKind::Project) => crate::model::user::FILE,
            _ => f.file_name(),
        }
    }

    /// The root as a git work tree: the user scope is never one, whatever folder holds it.
    pub fn git(&self) -> Option<&Path> {
        (self.scope == Scope::Workspace).then_some(self.root.as_path())
    }

    pub fn memory_dir(&self) -> PathBuf {
        match self.scope {
            Scope::Workspace => self.root.join(&self.config.memory_dir_name),
            Scope::User => self.root.clone(),
        }
    }

    pub fn file_path(&self, f: FileKind) -> PathBuf {
        self.memory_dir().join(self.file_name(f))
    }

    /// The fence of this root (see [`beneath`]).
    pub fn fence(&self) -> Result<&Fence> {
        if let Some(f) = self.fence.get() {
            return Ok(f);
        }
        let f = Fence::new(&self.root)?;
        Ok(self.fence.get_or_init(|| f))
    }

    /// `path` (under the root) resolved through the fence: no symlink leads outside the root.
    pub fn inside(&self, path: &Path) -> Result<PathBuf> {
        self.fence()?.resolve(path)
    }

    /// Where memory file `f` really is: resolved through the fence, and refused when it is a
    /// link to another memory file (SESSIONS.md → DECISIONS.md would read sessions as
    /// decisions and write one file's entries into the other).
    pub fn memory_file(&self, f: FileKind) -> Result<PathBuf> {
        let path = self.inside(&self.file_path(f))?;
        let own = self.file_path(f);
        if path.file_name() != own.file_name()
            || std::fs::symlink_metadata(&own).is_ok_and(|m| m.file_type().is_symlink())
        {
            for &g in self.files() {
                if g == f {
                    continue;
                }
                let other = self.inside(&self.file_path(g))?;
                if other == path {
                    return Err(Error::Io {
                        path: own,
                        message: format!(
                            "is a symlink to {}, which is also where {} is; each memory file must be its own file (replace the link with a copy, or delete it and run `trilogy doctor --fix`)",
                            path.display(),
                            self.file_name(g)
                        ),
                    });
                }
            }
        }
        Ok(path)
    }

    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".trilogy")
    }

    /// Where versions taken out of a file are kept for a person to look at, through the fence.
    pub fn rescue_dir(&self) -> Result<PathBuf> {
        self.inside(&self.state_dir().join("rescued"))
    }

    pub fn index_dir(&self) -> PathBuf {
        self.state_dir().join("index")
    }

    pub fn store_path(&self) -> PathBuf {
        self.state_dir().join("store.redb")
    }
}
