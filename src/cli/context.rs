//! The [`Context`] a workspace command runs in: the process environment taken once, the loaded
//! configuration, the opened workspace and the output options. Built once per command, before
//! it runs; commands that need no workspace (`hook`, `mcp`, `serve`, `completions`, …) never
//! build one. It opens and reports; it does no command's work.

use crate::config::{self, LoadArgs};
use crate::error::{Error, Result};
use crate::workspace::{self, Clock, Workspace};

use super::progress;

/// Everything a workspace command needs from its surroundings.
pub struct Context {
    /// `--json`: print the serde form of each value instead of its human text.
    pub json: bool,
    /// The process environment, taken once.
    pub vars: Vec<(String, String)>,
    /// The effective configuration and where each value came from.
    pub loaded: config::Loaded,
    /// The workspace the command works on.
    pub ws: Workspace,
}

impl Context {
    /// The workspace at `--root` (or found from the current directory) with its configuration
    /// and the `--set` overrides; warns about unknown settings and shows a bar while a fresh
    /// clone's first command rebuilds the store.
    pub fn open(root: Option<&std::path::Path>, overrides: &[String], json: bool) -> Result<Self> {
        let vars = crate::base::env::snapshot();
        let wanted = workspace::Wanted {
            explicit: root,
            host: workspace::host_dirs(&vars),
            cwd: None,
            lenient: false,
        };
        let (ws, loaded, _) = workspace::open_located(&wanted, &vars, overrides)?;
        for key in &loaded.config.ignored {
            eprintln!(
                "trilogy: warning: setting {key} is unknown to this trilogy (perhaps from a newer one) and was ignored"
            );
        }
        // a fresh clone's first command rebuilds the store from the Markdown, its first search
        // the index: show how far it is
        let mut bar = progress::Bar::stderr("reading the memory files", json);
        ws.on_progress(Box::new(move |what, done, total| {
            bar.update_as(what, done, total)
        }));
        Ok(Context {
            json,
            vars,
            loaded,
            ws,
        })
    }

    /// Outside any workspace (your home folder, a folder trilogy keeps no memory in): your own
    /// settings, no project's, on the current directory.
    pub fn user_only(overrides: &[String], json: bool) -> Result<Self> {
        let vars = crate::base::env::snapshot();
        let loaded = config::load(&LoadArgs {
            user_file: LoadArgs::default_user_file(&vars),
            workspace_file: None,
            env: vars.clone(),
            overrides: overrides.to_vec(),
            lenient: false,
        })?;
        let clock = Clock::from_env(&vars).map_err(Error::bad_input)?;
        let here = std::env::current_dir().unwrap_or_default();
        let ws = Workspace::new(here, loaded.config.clone(), clock);
        Ok(Context {
            json,
            vars,
            loaded,
            ws,
        })
    }
}
