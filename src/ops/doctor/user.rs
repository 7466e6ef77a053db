//! The user memory's part of `doctor`: its store and USER.md, looked at as a workspace's are
//! (the store opened read-only first, the file parsed), and with `--fix` a damaged store set
//! aside and rebuilt from USER.md.

use crate::error::Result;
use crate::model::FileKind;
use crate::workspace::Workspace;

use super::{Finding, Level, StoreState, finding, repair, store_state};

/// The user scope, when there is one to look at.
fn scope(ws: &Workspace) -> Option<&Workspace> {
    ws.user_scope()
        .filter(|u| u.has_memory() || u.store_path().exists())
}

/// Settings a workspace's `trilogy.toml` gave for the user memory, which were not taken.
fn refused(ws: &Workspace) -> Vec<Finding> {
    (ws.config.warnings.iter())
        .map(|w| {
            finding(
                Level::Warn,
                "config",
                w.clone(),
                "take the key out of the project's trilogy.toml (set it in your own config file if you meant it)",
            )
        })
        .collect()
}

/// What is wrong with the user memory, or that it is fine; nothing before it is first used.
pub(super) fn check(ws: &Workspace) -> Vec<Finding> {
    let mut out = refused(ws);
    out.extend(check_scope(ws));
    out
}

fn check_scope(ws: &Workspace) -> Vec<Finding> {
    let Some(u) = scope(ws) else {
        return Vec::new();
    };
    let path = u.file_path(FileKind::Project);
    let store = u.store_path();
    match store_state(u, &store) {
        StoreState::Damaged(why) => {
            return vec![finding(
                Level::Error,
                "user",
                format!(
                    "the user memory's store {} is unusable: {why}",
                    store.display()
                ),
                "run `trilogy doctor --fix`: it keeps the damaged store aside and rebuilds it from USER.md",
            )];
        }
        StoreState::Newer(why) => {
            return vec![finding(
                Level::Error,
                "user",
                format!("the user memory's store {}: {why}", store.display()),
                super::NEWER,
            )];
        }
        StoreState::Unusable(why, action) => {
            return vec![finding(Level::Error, "user", why, action)];
        }
        _ => {}
    }
    match u.read(|r| Ok((r.sections()?, r.pending_proposals()?))) {
        Ok(w) => {
            if let Some(b) = w.report.unparseable.first() {
                return vec![finding(
                    Level::Warn,
                    "user",
                    format!(
                        "{} line {} does not parse ({}); sessions are given its last good version",
                        path.display(),
                        b.line,
                        b.reason
                    ),
                    format!("fix {} by hand", path.display()),
                )];
            }
            let (sections, pending) = w.value;
            let leaks: Vec<Finding> = (sections.iter())
                .filter(|s| !s.removed)
                .filter_map(|s| crate::secrets::in_record(s).map(|f| (s, f)))
                .map(|(s, f)| {
                    finding(
                        Level::Error,
                        "user",
                        format!(
                            "{} § {} holds what looks like {} ({}); the section is left out of every block until it is gone",
                            path.display(),
                            s.heading,
                            f.kind,
                            f.masked
                        ),
                        format!("remove it from {} (`trilogy user edit`)", path.display()),
                    )
                })
                .collect();
            if !leaks.is_empty() {
                return leaks;
            }
            let lines: usize = (sections.iter())
                .filter(|s| !s.removed && !crate::model::is_empty_body(s.text()))
                .map(|s| s.text().lines().count())
                .sum();
            match pending {
                0 => Vec::new(),
                n => vec![finding(
                    Level::Ok,
                    "user",
                    format!(
                        "{}: {lines} line(s); {n} proposed line(s) wait for you",
                        path.display()
                    ),
                    "`trilogy review list`",
                )],
            }
        }
        Err(e) => vec![finding(
            Level::Error,
            "user",
            format!("the user memory cannot be read: {e}"),
            format!(
                "fix what the message names, then run `trilogy user` ({})",
                path.display()
            ),
        )],
    }
}

/// With `--fix`: a damaged user store set aside and rebuilt from USER.md (one a newer trilogy
/// wrote is left as it is).
pub(super) fn fix(ws: &Workspace) -> Result<Vec<String>> {
    let Some(u) = scope(ws) else {
        return Ok(Vec::new());
    };
    let store = u.store_path();
    match store_state(u, &store) {
        StoreState::Damaged(_) => repair::fix_damaged(u, &store).map(|(done, _)| done),
        _ => Ok(Vec::new()),
    }
}
