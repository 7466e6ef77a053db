//! A workspace: the project root, its `memory/` files and its `.trilogy/` store.
//!
//! Owns root discovery, scaffolding, and the entry points of the sync protocol: [`Workspace::write`]
//! runs an operation inside absorb → apply → project → commit; [`Workspace::read`] serves a
//! read from a read-only snapshot when the files are unchanged, and goes through the write path
//! first when they are not (so every read sees hand edits).

pub mod agents;
mod discover;
mod fence;
mod fsio;
mod lang;
mod open;
mod places;
pub use fsio::{
    MAX_FILE_BYTES, MAX_STREAMED_BYTES, hash_stamped, read_existing, read_file, read_text_file,
};
mod locate;
mod reading;
mod scaffold;
mod sync;
pub mod user;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::{FileKind, Lang};
use crate::store::{Reader, Store};

pub use fence::{Fence, beneath, is_under};
pub use fsio::{open_lock_file, write_atomic, write_atomic_spliced};

pub use locate::{
    CEILING_VAR, Ceilings, Located, LocatedBy, find_memory, holds_memory, lexical, locate,
    path_of_uri, repository_root,
};

pub use scaffold::{
    BOOT_END, BOOT_START, BootOutcome, BootPresence, boot_block, boot_presence, ensure_boot_block,
    ensure_region, remove_boot_block, remove_region, template, with_region, without_region,
};
pub use sync::gitlock::{
    clear_stale as clear_stale_git_lock, stale_lock as stale_git_lock, while_git_waits,
};
pub use sync::gitop::{PROJECT_DAY_KEY, commit_day, repository_config, worktrees};

pub use sync::{
    Author, Broken, ClearedCounts, SyncReport, Synced, Tx, check_in_chunks, entry_ids, file_head,
    live_entries, pending_key, render_file,
};
pub(crate) use sync::{CHECKOUT, CLEAR_ARCHIVE, CLEARED, MERGED};

pub use crate::base::clock::Clock;
#[cfg(test)]
pub(crate) use discover::scratch;
pub use discover::{Wanted, discover_root, host_dirs, open_located, open_workspace};

/// Which memory a [`Workspace`] value holds: a project's three files, or the user's `USER.md`
/// (one file, sections like PROJECT.md's, outside any repository). One machinery serves both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Workspace,
    User,
}

/// The memory files of the user scope.
const USER_FILES: [FileKind; 1] = [FileKind::Project];

/// An opened workspace.
pub struct Workspace {
    pub root: PathBuf,
    pub config: Config,
    pub clock: Clock,
    pub scope: Scope,
    /// The user scope, opened once when first asked for.
    user: OnceLock<Option<Arc<Workspace>>>,
    store: OnceLock<Store>,
    /// Held while the store is opened for writing, so two threads (a server's tool call and its
    /// drain) never open two handles on one file in one process.
    opening: Mutex<()>,
    /// The root canonicalised once, resolving every path trilogy touches inside it.
    fence: OnceLock<Fence>,
    /// The search index, kept open by a long-lived process (the MCP server).
    index: Mutex<Option<Arc<crate::index::SearchIndex>>>,
    /// Told `(what, done, total)` while a store is rebuilt from the Markdown (a fresh clone)
    /// or the search index is built.
    progress: Mutex<Option<ProgressFn>>,
}

/// A `(what, done, total)` progress callback.
pub type ProgressFn = Box<dyn FnMut(&'static str, usize, usize) + Send>;

/// What scaffolding created.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Scaffolded {
    /// Memory files created from templates.
    pub created: Vec<String>,
    /// Memory files that were missing and are written again from what the store keeps.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
    /// Memory files already there, left as they were.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
    /// What happened to the boot block, when it is managed.
    pub boot_block: Option<BootOutcome>,
    /// Where the text of a replaced legacy boot block was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rescued: Option<String>,
}

/// A store is opened for writing only as a file of its own: a second hard link would write
/// into another file too ([`Store::open`] refuses anything but a regular file).
fn own_store(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if crate::base::stat::links(&meta) > 1 => Err(Error::Io {
            path: path.to_path_buf(),
            message: "the store has more than one hard link, so writing it would change another file too; make it a file of its own (cp it beside and move the copy over it)".into(),
        }),
        _ => Ok(()),
    }
}

impl Workspace {
    pub fn new(root: PathBuf, config: Config, clock: Clock) -> Workspace {
        Workspace {
            root,
            config,
            clock,
            scope: Scope::Workspace,
            user: OnceLock::new(),
            store: OnceLock::new(),
            opening: Mutex::new(()),
            fence: OnceLock::new(),
            index: Mutex::new(None),
            progress: Mutex::new(None),
        }
    }

    /// Report the progress of rebuilding the store from the Markdown, or of building the search
    /// index, to `f` (a surface's progress bar).
    pub fn on_progress(&self, f: ProgressFn) {
        *self.progress.lock().unwrap_or_else(|p| p.into_inner()) = Some(f);
    }

    pub(crate) fn progress(&self, what: &'static str, done: usize, total: usize) {
        if let Some(f) = self
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            f(what, done, total);
        }
    }

    /// The search index, opened (and checked, or rebuilt) once per workspace value.
    pub fn search_index(&self) -> Result<Arc<crate::index::SearchIndex>> {
        let mut held = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = held.as_ref() {
            return Ok(i.clone());
        }
        let i = Arc::new(crate::index::SearchIndex::open(
            &self.inside(&self.index_dir())?,
        )?);
        *held = Some(i.clone());
        Ok(i)
    }

    /// Drop the held search index (it failed: the next use opens it again, rebuilding it
    /// when it is broken).
    pub fn forget_search_index(&self) {
        *self.index.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    pub fn lang(&self) -> Lang {
        self.config.lang
    }

    /// The user scope's memory at `dir`, with settings from the user's layers only.
    pub fn user_at(dir: PathBuf, config: Config, clock: Clock) -> Workspace {
        let mut ws = Workspace::new(dir, config, clock);
        ws.scope = Scope::User;
        let _ = ws.user.set(None);
        ws
    }

    /// The user's memory (`USER.md`), as configured by the user's own layers; `None` in the
    /// user scope itself, or where no user data folder is known.
    pub fn user_scope(&self) -> Option<&Workspace> {
        self.user
            .get_or_init(|| {
                let u = self.config.user.as_ref()?;
                let mut config = (*u.config).clone();
                if !u.lang_set {
                    config.lang = user::lang_of(&u.dir).unwrap_or(self.config.lang);
                }
                config.user = None;
                Some(Arc::new(Workspace::user_at(
                    u.dir.clone(),
                    config,
                    self.clock.clone(),
                )))
            })
            .as_deref()
    }

    pub fn is_user(&self) -> bool {
        self.scope == Scope::User
    }
}

impl Workspace {
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.config.lock_timeout_ms)
    }

    /// True when the memory folder holds at least one of the three main files.
    pub fn has_memory(&self) -> bool {
        (self.files().iter())
            .filter(|f| **f != FileKind::Archive)
            .any(|f| self.file_path(*f).exists())
    }

    /// True when the memory was cleared (`trilogy clear`) and no command has started the files
    /// again since. A workspace without a store was never cleared.
    pub fn cleared(&self) -> Result<bool> {
        if !self.store_path().exists() {
            return Ok(false);
        }
        let flag = |r: &dyn Reader| r.meta(sync::CLEARED);
        let v = match self.store.get() {
            Some(s) => flag(&s.read()?)?,
            None => match Store::open_read_only(&self.inside(&self.store_path())?) {
                Ok(ro) => flag(&ro.read()?)?,
                Err(_) => flag(&self.rw_store()?.read()?)?,
            },
        };
        Ok(v == 1)
    }

    /// Error for commands that need an existing memory folder.
    pub fn require_memory(&self) -> Result<()> {
        if self.has_memory() || self.store_path().exists() {
            Ok(())
        } else {
            Err(Error::NotFound(format!(
                "no trilogy memory at {}; run `trilogy init` there first (or pass --root)",
                self.memory_dir().display()
            )))
        }
    }

    /// Create the memory folder and any missing file from the templates (never overwriting),
    /// and write the boot block when configured.
    pub fn scaffold(&self) -> Result<Scaffolded> {
        // every template is read before anything is written: a bad one changes nothing
        let mut missing = Vec::new();
        let mut out = Scaffolded::default();
        if self.is_user() {
            std::fs::create_dir_all(&self.root).map_err(|e| Error::io(&self.root, e))?;
        }
        let store = self.store_path().exists();
        // a cleared store starts its files from the templates again, at the next sync
        let cleared = store && self.cleared()?;
        for &f in self.files().iter().filter(|f| **f != FileKind::Archive) {
            let path = self.memory_file(f)?;
            let name = self.file_name(f).to_string();
            if path.exists() {
                out.kept.push(name);
            } else if cleared {
                out.created.push(name);
            } else if store {
                // a store that already knows this file re-renders it at the next sync
                out.restored.push(name);
            } else {
                missing.push((f, path, self.file_template(f)?));
            }
        }
        let block = if self.config.write_boot_block && !self.is_user() {
            Some(self.boot_block_text()?)
        } else {
            None
        };
        let dir = self.memory_dir();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        for (f, path, text) in missing {
            fsio::write_atomic(&path, text.as_bytes())?;
            out.created.push(self.file_name(f).to_string());
        }
        if let Some(block) = block
            && !self.pointed_by_host()
        {
            let path = self.inside(&self.root.join(&self.config.boot_block_file))?;
            self.ensure_state_dir()?;
            let rescue_dir = self.rescue_dir()?;
            let (outcome, rescued) = ensure_boot_block(&path, &block, &rescue_dir)?;
            out.boot_block = Some(outcome);
            out.rescued = rescued.map(|p| p.display().to_string());
        }
        Ok(out)
    }

    /// True when `boot_block_file` has no boot block yet and a host's own pointer file
    /// (`CLAUDE.md`, `GEMINI.md`, written by `install`) has one: one pointer per host is
    /// enough, so scaffolding adds none of its own.
    fn pointed_by_host(&self) -> bool {
        // a file that is no plain file inside the workspace holds no pointer of ours
        let has_block = |name: &str| {
            self.inside(&self.root.join(name)).is_ok_and(|path| {
                fsio::read_file(&path, MAX_FILE_BYTES).is_ok_and(|t| {
                    t.is_some_and(|t| String::from_utf8_lossy(&t).contains(BOOT_START))
                })
            })
        };
        !has_block(&self.config.boot_block_file)
            && ["CLAUDE.md", "GEMINI.md"]
                .iter()
                .any(|f| *f != self.config.boot_block_file && has_block(f))
    }

    pub(crate) fn ensure_state_dir(&self) -> Result<()> {
        let dir = self.inside(&self.state_dir())?;
        if !dir.exists() {
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let gi = dir.join(".gitignore");
            fsio::write_atomic(&gi, b"*\n")?;
        }
        Ok(())
    }

    fn rw_store(&self) -> Result<&Store> {
        if let Some(s) = self.store.get() {
            return Ok(s);
        }
        let _opening = self
            .opening
            .lock()
            .map_err(|_| Error::Internal("store open lock".into()))?;
        if let Some(s) = self.store.get() {
            return Ok(s);
        }
        self.ensure_state_dir()?;
        let path = self.inside(&self.store_path())?;
        own_store(&path)?;
        let s = Store::open(&path, self.timeout())?;
        Ok(self.store.get_or_init(|| s))
    }

    /// Run `op` inside the sync protocol. On error nothing is changed, in the store or the files.
    ///
    /// When a memory file changes on disk between absorbing it and writing it, the transaction
    /// is dropped before any file is written and the whole command runs again on the new bytes.
    pub fn write<R>(&self, actor: &str, op: impl FnMut(&mut Tx) -> Result<R>) -> Result<Synced<R>> {
        self.write_mode(actor, true, op)
    }

    /// [`Workspace::write`], or with `project` false: absorb the files into the store without
    /// writing them (the files that need writing are written by the next command that can).
    fn write_mode<R>(
        &self,
        actor: &str,
        project: bool,
        mut op: impl FnMut(&mut Tx) -> Result<R>,
    ) -> Result<Synced<R>> {
        // a save in flight (a file just emptied, or cut mid-line) is let finish before the lock
        // is taken, so the finished save is what gets absorbed
        let paths: Vec<PathBuf> = (self.files().iter())
            .filter_map(|f| self.memory_file(*f).ok())
            .collect();
        fsio::wait_settled(&paths, fsio::SETTLE_LIMIT);
        let store = self.rw_store()?;
        let started = std::time::Instant::now();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let wtx = store.write(self.timeout())?;
            let mut tx = Tx::new(self, wtx, actor);
            tx.project = project;
            tx.absorb(self.files(), attempts == 1)?;
            let value = op(&mut tx)?;
            if let Some(report) = tx.finish()? {
                return Ok(Synced { value, report });
            }
            // someone is saving the files right now: let them finish, within the lock timeout
            if started.elapsed() >= self.timeout() {
                return Err(Error::FilesChanging {
                    path: self.memory_dir(),
                    attempts,
                });
            }
            std::thread::sleep(Duration::from_millis((2 + attempts as u64 * 3).min(40)));
            fsio::wait_settled(&paths, fsio::SETTLE_LIMIT);
        }
    }
}
