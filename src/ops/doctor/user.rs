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

/// What is wrong with the user memory, or that it is fine; nothing before it is first used.
pub(super) fn check(ws: &Workspace) -> Vec<Finding> {
    let Some(u) = scope(ws) else {
        return Vec::new();
    };
    let path = u.file_path(FileKind::Project);
    let store = u.store_path();
    match store_state(u, &store) {
        StoreState::Damaged(why) | StoreState::Newer(why) => {
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
            let lines: usize = (sections.iter())
                .filter(|s| !s.removed && !crate::model::is_empty_body(s.text()))
                .map(|s| s.text().lines().count())
                .sum();
            let waiting = match pending {
                0 => String::new(),
                n => format!("; {n} proposed line(s) wait for you (`trilogy review list`)"),
            };
            vec![finding(
                Level::Ok,
                "user",
                format!("{}: {lines} line(s){waiting}", path.display()),
                "",
            )]
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

/// With `--fix`: a damaged (or newer) user store set aside and rebuilt from USER.md.
pub(super) fn fix(ws: &Workspace) -> Result<Vec<String>> {
    let Some(u) = scope(ws) else {
        return Ok(Vec::new());
    };
    let store = u.store_path();
    match store_state(u, &store) {
        StoreState::Damaged(_) | StoreState::Newer(_) => repair::rebuild_store(u, &store),
        _ => Ok(Vec::new()),
    }
}
