//! A branch switch is a checkout, not an edit. When the work tree's git head names another
//! branch (or commit) than when trilogy last looked at the files, the store follows the files
//! without reading the difference as a person's deletions: entries the new branch's files lack
//! become `elsewhere` (they stay with the branch whose file held them, are neither live nor
//! removed, and nothing counts them as restorable), entries its files hold come back as they
//! are there, and every change is logged by the checkout, so live sessions are not told that
//! memory changed. A pull, reset or merge on the same branch stays an edit.

use crate::error::Result;
use crate::model::State;
use crate::store::Reader;

use super::{Tx, gitop};

/// How many entries a switch moved: out of the files, back into them, removed on return.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Moves {
    pub away: usize,
    pub back: usize,
    pub gone: usize,
}

/// Whether the files last looked at under git head `last` and now under `now` saw a branch
/// switch: both name a branch, and not the same one. A detached HEAD moves with every commit,
/// so a change into, out of or within it is an edit.
pub(super) fn is_switch(last: &str, now: &str) -> bool {
    last != now && gitop::branch_of(last).is_some() && gitop::branch_of(now).is_some()
}

impl Tx<'_> {
    /// After the files of a switch were absorbed: an entry that belongs to the branch now
    /// checked out but that its files no longer hold (the branch moved on elsewhere, or a forced
    /// checkout dropped it before it was committed) is removed, restorable, as an edit of that
    /// branch would have done; then one line of the report says what the switch did.
    pub(super) fn settle_switch(&mut self) -> Result<()> {
        let Some(now) = self.git.head.clone() else {
            return Ok(());
        };
        let label = gitop::branch_of(&now).unwrap_or_default();
        if self.store.elsewhere_count()? > 0 {
            let stranded: Vec<_> = (self.store.all_entries()?.into_iter())
                .filter(|e| e.state == State::Elsewhere && e.superseded_by.as_ref() == Some(&now))
                .collect();
            for mut rec in stranded {
                rec.state = State::Removed;
                rec.superseded_by = None;
                self.put_entry(&rec)?;
                let detail = format!(
                    "{} (not in the files of {label} when it was checked out again)",
                    rec.heading
                );
                self.log("remove", vec![rec.id.clone()], &detail)?;
                self.git.moves_of_switch.gone += 1;
            }
        }
        let m = self.git.moves_of_switch;
        if m.away + m.back + m.gone == 0 {
            return Ok(());
        }
        let from = self.git.switched_from.as_deref().and_then(gitop::branch_of);
        self.report.absorbed.push(format!(
            "checkout {} → {label}: {} entries now on the other branch only, {} back in the files{}",
            from.unwrap_or_default(),
            m.away,
            m.back,
            match m.gone {
                0 => String::new(),
                n => format!(", {n} no longer in {label}'s files (restorable)"),
            }
        ));
        Ok(())
    }
}
