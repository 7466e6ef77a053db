//! A batch's USER.md lines, in the user store's own transaction: written, or checked as the
//! write would be and kept as proposals for the person (`review_mode.user`). The project's
//! part of a batch never shares that transaction.

use crate::config::Mode;
use crate::error::{Error, Result};
use crate::model::user::UserLine;
use crate::workspace::user::ready;
use crate::workspace::{Synced, Workspace};

use super::{CheckpointOutcome, user_lines};

/// Write `lines` into USER.md for `ws`'s user, as `actor`: `Direct` writes them, `Propose`
/// checks them as the write would and keeps them for the person's review. One transaction of
/// the user store; nothing is written when one line fails.
pub fn record(
    ws: &Workspace,
    actor: &str,
    lines: &[UserLine],
    mode: Mode,
) -> Result<Synced<CheckpointOutcome>> {
    let u = ready(ws)?;
    let from = ws.root.display().to_string();
    let mut done = u.write(actor, |tx| {
        let mut out = CheckpointOutcome::default();
        user_lines(tx, lines, mode, &from, &mut out)?;
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
        user_lines(tx, lines, mode, &from, &mut out)?;
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
