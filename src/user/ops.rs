//! What people and agents do with the user memory: write lines (a person directly, an agent
//! as proposals unless the person's `review_mode.user` says `direct`) and look at it.

use serde::Serialize;

use crate::config::Mode;
use crate::error::{Error, Result};
use crate::model::user::UserLine;
use crate::model::{FileKind, Lang};
use crate::ops::CheckpointOutcome;
use crate::workspace::user::ready;
use crate::workspace::{Workspace, Written};

/// Write `lines` into USER.md for `ws`'s user, as `actor`: `Direct` writes them, `Propose`
/// checks them as the write would and keeps them for the person's review. One transaction of
/// the user store; nothing is written when one line fails.
pub fn record(
    ws: &Workspace,
    actor: &str,
    lines: &[UserLine],
    mode: Mode,
) -> Result<Written<CheckpointOutcome>> {
    let u = ready(ws)?;
    let from = ws.root.display().to_string();
    let mut done = u.write(actor, |tx| {
        let mut out = CheckpointOutcome::default();
        crate::ops::user_lines(tx, lines, mode, &from, &mut out)?;
        Ok(out)
    })?;
    let o = &mut done.value;
    o.summary = match (o.written.len(), o.proposed.len()) {
        (0, 0) => "USER.md: nothing new.".to_string(),
        (n, 0) => format!("USER.md: wrote {n} line(s)."),
        (_, n) => format!(
            "USER.md: proposed {n} line(s) for the person's review (review_mode.user: propose); they are not in the user memory until accepted with `trilogy review accept ID`."
        ),
    };
    Ok(done)
}

/// Check `lines` as [`record`] would write them, writing nothing (the transaction is dropped).
pub fn check(ws: &Workspace, actor: &str, lines: &[UserLine], mode: Mode) -> Result<()> {
    let u = ready(ws)?;
    let from = ws.root.display().to_string();
    let checked = u.write(actor, |tx| {
        let mut out = CheckpointOutcome::default();
        crate::ops::user_lines(tx, lines, mode, &from, &mut out)?;
        // dropped, not committed: nothing of it is kept
        Err::<(), _>(Error::Internal(CHECKED.into()))
    });
    match checked {
        Err(Error::Internal(m)) if m == CHECKED => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Ok(()),
    }
}

/// What a check's dropped transaction returns.
const CHECKED: &str = "user lines checked, not written";

/// A person's line: written at once.
pub fn add(ws: &Workspace, actor: &str, line: &UserLine) -> Result<Written<CheckpointOutcome>> {
    crate::ops::validate(&crate::ops::CheckpointInput {
        user: vec![line.clone()],
        ..Default::default()
    })?;
    record(ws, actor, std::slice::from_ref(line), Mode::Direct)
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
