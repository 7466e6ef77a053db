//! What people and agents do with the user memory (USER.md, the user scope of
//! `workspace::user`): a person writes a line directly (`trilogy user`, or the file); an
//! agent's `memory_checkpoint` `user` lines become proposals kept in the user store unless the
//! person's `review_mode.user` says `direct` (`checkpoint/user.rs`), shown by `trilogy review`
//! in every workspace. It is looked at whole, and a live session is told what changed in it.
//! Every session-start block carries it (`session_block/user.rs`), never the copies of the block
//! written into committed files.

use serde::Serialize;

use crate::config::Mode;
use crate::error::Result;
use crate::model::user::UserLine;
use crate::model::{Event, FileKind, Lang};
use crate::ops::CheckpointOutcome;
use crate::workspace::user::ready;
use crate::workspace::{Synced, Workspace};

/// A person's line: written at once.
pub fn add(ws: &Workspace, actor: &str, line: &UserLine) -> Result<Synced<CheckpointOutcome>> {
    crate::ops::validate(&crate::ops::CheckpointInput {
        user: vec![line.clone()],
        ..Default::default()
    })?;
    super::checkpoint::user::record(ws, actor, std::slice::from_ref(line), Mode::Direct)
}

/// USER.md as `trilogy user show` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    pub path: String,
    pub lang: Lang,
    pub bytes: u64,
    pub sections: Vec<ShownSection>,
    /// User proposals waiting for the person.
    pub pending: u64,
    /// Why the file could not be read as it is now (its last good version is shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unparseable: Option<String>,
    /// Sections left out of every block: they hold what looks like a credential.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShownSection {
    pub heading: String,
    /// Its lines; none while it says "nothing yet".
    pub lines: Vec<String>,
}

/// The user memory (made from its template on first use).
pub fn show(ws: &Workspace) -> Result<Shown> {
    let u = ready(ws)?;
    let w = u.read(|r| {
        let sections = (r.sections()?.into_iter())
            .filter(|s| !s.removed)
            .map(|s| ShownSection {
                heading: s.heading.clone(),
                // a credential in it masked, as `read` shows it
                lines: match crate::model::is_empty_body(s.text()) {
                    true => Vec::new(),
                    false => (crate::secrets::masked(s.text()).lines())
                        .map(str::to_string)
                        .collect(),
                },
            })
            .collect();
        let withheld = (r.sections()?.iter())
            .filter(|s| !s.removed && crate::secrets::in_record(s).is_some())
            .map(|s| s.heading.clone())
            .collect();
        Ok((
            sections,
            r.stamp(FileKind::Project)?.map_or(0, |s| s.len),
            r.pending_proposals()?,
            withheld,
        ))
    })?;
    let (sections, bytes, pending, withheld) = w.value;
    Ok(Shown {
        path: u.file_path(FileKind::Project).display().to_string(),
        lang: u.lang(),
        bytes,
        sections,
        pending,
        unparseable: w
            .report
            .unparseable
            .first()
            .map(|b| format!("line {}: {}", b.line, b.reason)),
        withheld,
    })
}

/// What changed in the user memory since the session last saw it (`seen`, moved to now), as
/// a notice in `ws`'s language; `None` when nothing did (or the user memory is off). A session
/// that never saw the user memory is told nothing the first time, only from then on.
pub fn notice(ws: &Workspace, seen: &mut Option<u64>, own_actor: &str) -> Option<String> {
    if !ws.config.inject_user_memory {
        return None;
    }
    let u = ws.user_scope()?;
    if !u.store_path().exists() {
        return None;
    }
    let lang = ws.lang();
    let since = *seen;
    let read = u.read(|r| {
        let last = r.last_event_seq()?;
        let Some(since) = since else {
            return Ok((last, None));
        };
        let events: Vec<Event> = (r.events_since(since)?.into_iter())
            .filter(|e| e.actor != own_actor)
            .filter(|e| {
                !matches!(
                    e.op.as_str(),
                    "report" | "kept" | "propose" | "propose-again" | "reject" | "accept"
                )
            })
            // a section of USER.md, not of PROJECT.md
            .map(|mut e| {
                if e.op.starts_with("section") {
                    e.op = format!("user-{}", e.op);
                }
                e
            })
            .collect();
        if events.is_empty() {
            return Ok((last, None));
        }
        let head = match lang {
            Lang::Zh => "用户记忆（USER.md，所有项目共用）有变化：",
            Lang::En => "The user memory (USER.md, shared by every project) changed:",
        };
        let text = crate::ops::truth::notice::render(r, lang, head, &events)?;
        Ok((last, text))
    });
    match read {
        Ok(w) => {
            *seen = Some(w.value.0);
            w.value.1
        }
        Err(e) => {
            tracing::warn!("user memory notice left out: {e}");
            None
        }
    }
}
