//! Finding a workspace and opening it: the root by the configured strategy (marker or git,
//! no higher than the ceilings), the settings loaded for it, and the folders where a host
//! keeps its own files. It reads the disk and the environment handed to it; it never writes
//! the memory.

use std::path::{Path, PathBuf};

use crate::config::{Config, RootStrategy};
use crate::error::{Error, Result};

use super::*;

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
    // initialised as `trilogy init` does: the files made, then the store written once
    ws.scaffold().unwrap();
    ws.write("cli", |_| Ok(())).unwrap();
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
        && matches!(located.found, LocatedBy::Repository | LocatedBy::Here)
    {
        located.root = discover_root(&cwd, &first.config, &ceilings);
    }
    let root = if located.found == LocatedBy::Explicit
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
    let mut loaded = load(&args)?;
    let mut ws = Workspace::new(
        root,
        loaded.config.clone(),
        Clock::from_env(env).map_err(Error::bad_input)?,
    );
    ws.settle_lang(&mut loaded.sources, args.user_file.as_deref(), env);
    loaded.config.lang = ws.config.lang;
    Ok((ws, loaded, located))
}
