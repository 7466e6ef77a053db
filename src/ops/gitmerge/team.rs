//! The merge driver for the whole team. `.gitattributes` travels with the repository, the
//! driver's config does not (it lives in each clone's `.git/config`): a teammate's clone would
//! fall back to git's line merge and conflict. So a clone whose `.gitattributes` names
//! `merge=trilogy` and whose git config has no such driver gets it from the next trilogy
//! command: always trilogy's own fixed command line, this binary's path — nothing the
//! repository says is run — written while git's index lock is held, as memory files are.
//!
//! It must not: write `.gitattributes` (that is `install git` or `init`, a person's act), or
//! replace a driver someone configured, whatever it runs.

use std::path::Path;

use crate::workspace::{Workspace, repository_config};

/// Whether this clone merges memory files with trilogy's driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// `.gitattributes` names no `merge=trilogy`, or this is no git work tree.
    NotAsked,
    /// Named, and git has a `merge.trilogy.driver`.
    Configured,
    /// Named, and git has none: it would line-merge memory files and conflict.
    Missing,
}

/// Does `.gitattributes` at `root` give any path `merge=trilogy`?
fn asked(root: &Path) -> bool {
    let attrs = root.join(".gitattributes");
    crate::base::fence::read_small_text(&attrs, 1 << 20).is_some_and(|t| {
        t.lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .any(|l| l.split_whitespace().skip(1).any(|a| a == "merge=trilogy"))
    })
}

/// Does the repository's config file hold a `[merge "trilogy"]` section with a driver?
fn in_config_file(config: &str) -> bool {
    let mut inside = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            let name: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            inside = name.eq_ignore_ascii_case("[merge\"trilogy\"]");
        } else if inside && line.split('=').next().is_some_and(|k| k.trim() == "driver") {
            return true;
        }
    }
    false
}

/// This clone's [`Driver`]: files read first; git is asked only when the repository's own
/// config does not have it (a driver in the user's global config, an included file).
pub fn driver(root: &Path) -> Driver {
    if !asked(root) {
        return Driver::NotAsked;
    }
    let Some(config) = repository_config(root) else {
        return Driver::NotAsked;
    };
    if in_config_file(&config) {
        return Driver::Configured;
    }
    match super::git(root, &["config", "--get", "merge.trilogy.driver"]) {
        Ok(d) if !d.trim().is_empty() => Driver::Configured,
        _ => Driver::Missing,
    }
}

/// This binary, as git should run it: its path, else the name on PATH.
pub fn own_command() -> String {
    std::env::current_exe().map_or_else(|_| "trilogy".into(), |p| p.display().to_string())
}

/// Configure the driver in this clone when `.gitattributes` asks for it and git lacks it.
/// Returns what was done, for the surface to tell; `None` when nothing was needed, or git was
/// busy (the next command does it).
pub fn configure_missing(ws: &Workspace) -> Option<String> {
    let root = ws.git()?;
    if driver(root) != Driver::Missing {
        return None;
    }
    let set = crate::workspace::while_git_waits(root, || super::set_driver(root, &own_command()));
    match set {
        Ok(Ok(())) => Some(format!(
            "set up trilogy's merge driver in this clone ({}/.git/config): .gitattributes names merge=trilogy, so memory files from a pull now merge by entry",
            root.display()
        )),
        Ok(Err(e)) => Some(format!(
            "warning: .gitattributes names merge=trilogy but git has no such driver here, and setting it failed ({e}); run `trilogy install git`"
        )),
        Err(_) => None,
    }
}

/// What git did with the memory file `file` it left unmerged (a path from the workspace
/// root), told by the conflict markers in the work tree: the driver's own (`ours`/`theirs`),
/// git's line merge's, or none (git could not run the driver and kept this side).
pub fn what_git_did(ws: &Workspace, file: &str) -> &'static str {
    let text = ws
        .inside(&ws.root.join(file))
        .ok()
        .and_then(|p| crate::base::fence::read_small_text(&p, crate::workspace::MAX_FILE_BYTES))
        .unwrap_or_default();
    let starts: Vec<&str> = (text.lines())
        .filter(|l| l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>"))
        .collect();
    if starts.is_empty() {
        return "git could not run trilogy's merge driver and kept this side's version only; committing it now drops the other side's entries";
    }
    if starts
        .iter()
        .all(|l| *l == "<<<<<<< ours" || *l == ">>>>>>> theirs")
    {
        return "trilogy's merge driver merged it by entry; conflict markers remain only in the PROJECT sections both sides changed";
    }
    "git merged it line by line (this clone had no trilogy merge driver, or a version did not parse) and left conflict markers where both sides changed it"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_file_is_read_by_section() {
        let yes = "[core]\n\tbare = false\n[merge \"trilogy\"]\n\tname = x\n\tdriver = t merge-driver %O %A %B %P\n";
        assert!(in_config_file(yes));
        let named_only = "[merge \"trilogy\"]\n\tname = x\n[merge \"other\"]\n\tdriver = y\n";
        assert!(!in_config_file(named_only));
        assert!(!in_config_file("[merge \"trilogyx\"]\n\tdriver = y\n"));
    }
}
