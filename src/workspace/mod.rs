//! A workspace: the project root, its `memory/` files and its `.trilogy/` store.
//!
//! Owns root discovery, scaffolding, and the entry points of the sync protocol: [`Workspace::write`]
//! runs an operation inside absorb → apply → project → commit; [`Workspace::read`] serves a
//! read from a read-only snapshot when the files are unchanged, and goes through the write path
//! first when they are not (so every read sees hand edits).

pub mod agents;
mod fence;
mod fsio;
mod open;
pub use fsio::{MAX_FILE_BYTES, read_existing, read_file, read_text_file};
mod locate;
mod reading;
mod scaffold;
mod sync;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::config::{Config, RootStrategy};
use crate::error::{Error, Result};
use crate::model::{FileKind, Lang};
use crate::store::{Reader, Store};

pub use fence::{Fence, beneath, is_under};
pub use fsio::{open_lock_file, write_atomic};
pub use locate::{
    CEILING_VAR, Ceilings, Found, Located, find_memory, holds_memory, lexical, locate, path_of_uri,
    repository_root,
};
pub use scaffold::{
    BOOT_END, BOOT_START, BootOutcome, BootPresence, boot_block, boot_presence, ensure_boot_block,
    ensure_region, remove_boot_block, remove_region, template, with_region, without_region,
};
pub use sync::gitlock::{clear_stale as clear_stale_git_lock, stale_lock as stale_git_lock};
pub use sync::gitop::{PROJECT_DAY_KEY, commit_day, worktrees};
pub use sync::{
    Author, Broken, ClearedCounts, SyncReport, Tx, Written, entry_block, entry_ids, live_entries,
    pending_key, pointer_line, render_file,
};
pub(crate) use sync::{CHECKOUT, CLEAR_ARCHIVE, CLEARED, MERGED};

pub use crate::base::clock::Clock;

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
    /// What happened to the boot block, when it is managed.
    pub boot_block: Option<BootOutcome>,
    /// Where the text of a replaced legacy boot block was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rescued: Option<String>,
}

/// Find the workspace root for `start` with the configured strategy, looking no higher than
/// `ceilings`.
pub fn discover_root(start: &Path, config: &Config, ceilings: &Ceilings) -> PathBuf {
    let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    if config.project_root_strategy == RootStrategy::Marker {
        let markers: Vec<&str> = if config.project_root_markers.is_empty() {
            vec![".git"]
        } else {
            config
                .project_root_markers
                .iter()
                .map(String::as_str)
                .collect()
        };
        for dir in ceilings.walk(&start) {
            if markers.iter().any(|m| dir.join(m).exists()) {
                return dir.to_path_buf();
            }
        }
    }
    start
}

/// Where a surface looks for its workspace (see [`locate`]).
#[derive(Debug, Clone, Default)]
pub struct Wanted<'a> {
    /// `--root`.
    pub explicit: Option<&'a Path>,
    /// The host's project directories and the client's roots, in order.
    pub host: Vec<PathBuf>,
    /// The working directory (a hook's payload `cwd`).
    pub cwd: Option<&'a Path>,
    /// Settings files' unknown keys are skipped, not refused ([`crate::config::LoadArgs::lenient`]):
    /// hooks and the MCP server.
    pub lenient: bool,
}

/// The host project directories named in the environment.
pub fn host_dirs(env: &[(String, String)]) -> Vec<PathBuf> {
    ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"]
        .iter()
        .filter_map(|k| crate::base::env::var(env, k))
        .map(PathBuf::from)
        .collect()
}

/// An initialised workspace in a new temporary folder, for unit tests.
#[cfg(test)]
pub(crate) fn scratch() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(
        dir.path().to_path_buf(),
        Config::default(),
        Clock::default(),
    );
    crate::ops::init(&ws).unwrap();
    (dir, ws)
}

/// Find the root for `start`, load the layered settings (with that root's `trilogy.toml`) and
/// the clock overrides from `env` (`TRILOGY_TODAY`, `TRILOGY_NOW_MS`).
pub fn open_workspace(
    start: &Path,
    env: &[(String, String)],
    overrides: &[String],
) -> Result<(Workspace, crate::config::Loaded)> {
    let wanted = Wanted {
        explicit: Some(start),
        ..Wanted::default()
    };
    open_located(&wanted, env, overrides).map(|(ws, loaded, _)| (ws, loaded))
}

/// Locate the root with the one rule ([`locate`]) — or, with `project_root_strategy =
/// "marker"`, the nearest marker above the working directory — then load the settings.
pub fn open_located(
    wanted: &Wanted,
    env: &[(String, String)],
    overrides: &[String],
) -> Result<(Workspace, crate::config::Loaded, Located)> {
    use crate::config::{LoadArgs, load};
    let mut args = LoadArgs {
        user_file: LoadArgs::default_user_file(env),
        workspace_file: None,
        env: env.to_vec(),
        overrides: overrides.to_vec(),
        lenient: wanted.lenient,
    };
    let first = load(&args)?;
    // a process whose working directory was deleted (a panel started there) still opens the
    // roots it is given
    let cwd = match (wanted.cwd, std::env::current_dir()) {
        (Some(c), _) => c.to_path_buf(),
        (None, Ok(c)) => c,
        (None, Err(e)) => match wanted.explicit {
            Some(root) => root.to_path_buf(),
            None => return Err(Error::io(".", e)),
        },
    };
    let ceilings = Ceilings::from_env(env);
    let mut located = locate(
        wanted.explicit,
        &wanted.host,
        &cwd,
        &first.config.memory_dir_name,
        &ceilings,
    )?;
    if first.config.project_root_strategy == RootStrategy::Marker
        && matches!(located.found, Found::Repository | Found::Here)
    {
        located.root = discover_root(&cwd, &first.config, &ceilings);
    }
    let root = if located.found == Found::Explicit
        && first.config.project_root_strategy == RootStrategy::Marker
    {
        discover_root(&located.root, &first.config, &ceilings)
    } else {
        located.root.clone()
    };
    // the project's own settings are read only from a regular file inside it: a committed
    // `trilogy.toml` linked to a file elsewhere would echo that file in error messages
    let home = crate::base::dirs::home(env);
    // the user memory's folder holds the user's store: a workspace there would share it
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    };
    if let Some(u) = first.config.user.as_ref().filter(|u| same(&root, &u.dir)) {
        return Err(Error::NoProject(format!(
            "{}: this is where your user memory (USER.md) lives, not a project; run trilogy in a project folder, or move the user memory with `user_memory_dir` in your own config file",
            u.dir.display()
        )));
    }
    if let Some(why) = locate::refused_root(&root, home.as_deref()) {
        return Err(Error::NoProject(format!(
            "{}: trilogy keeps no memory in {why}; run it in a project folder (a repository, or a folder of its own), or name one with --root",
            root.display()
        )));
    }
    let ws_file = root.join("trilogy.toml");
    args.workspace_file = Some(if root.exists() {
        beneath(&root, &ws_file)?
    } else {
        ws_file
    });
    let loaded = load(&args)?;
    let ws = Workspace::new(
        root,
        loaded.config.clone(),
        Clock::from_env(env).map_err(Error::bad_input)?,
    );
    Ok((ws, loaded, located))
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
                    config.lang = crate::user::lang_of(&u.dir).unwrap_or(self.config.lang);
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
            (Scope::User, FileKind::Project) => crate::user::FILE,
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
        if self.is_user() {
            std::fs::create_dir_all(&self.root).map_err(|e| Error::io(&self.root, e))?;
        }
        for &f in self.files().iter().filter(|f| **f != FileKind::Archive) {
            let path = self.memory_file(f)?;
            // a store that already knows this file re-renders it; only a new workspace gets templates
            if !path.exists() && !self.store_path().exists() {
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
        let mut out = Scaffolded::default();
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
    pub fn write<R>(
        &self,
        actor: &str,
        op: impl FnMut(&mut Tx) -> Result<R>,
    ) -> Result<Written<R>> {
        self.write_mode(actor, true, op)
    }

    /// [`Workspace::write`], or with `project` false: absorb the files into the store without
    /// writing them (the files that need writing are written by the next command that can).
    fn write_mode<R>(
        &self,
        actor: &str,
        project: bool,
        mut op: impl FnMut(&mut Tx) -> Result<R>,
    ) -> Result<Written<R>> {
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
                return Ok(Written { value, report });
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
