//! A writer's way through the group commit ([`super::group`] has the protocol): spool the
//! batch, give a long-lived writer of the same settings a moment to apply it
//! ([`super::drain`]), then lead or wait for a leader, and hand back this batch's own outcome
//! once it is durable. It never applies a batch itself but as the leader of a round.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::drain;
use super::group::{
    Outcome, Spooled, fingerprint, json, lead_round, queue_dir, try_lead, write_whole,
};
use super::{CheckpointInput, CheckpointOutcome};
use crate::error::{Error, Result};
use crate::workspace::{Synced, Workspace};

/// Record `input` through the group commit: spool it, then lead or wait for a leader, and
/// return this batch's own outcome once it is durable.
pub fn submit(
    ws: &Workspace,
    actor: &str,
    input: &CheckpointInput,
) -> Result<Synced<CheckpointOutcome>> {
    // `.trilogy/` made here gets its `.gitignore` like anywhere else
    ws.ensure_state_dir()?;
    let dir = queue_dir(ws)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let ticket = new_ticket();
    let spooled = Spooled {
        actor: actor.to_string(),
        now: ws.clock.now(),
        today: ws.clock.today(),
        config: fingerprint(ws),
        input: input.clone(),
    };
    let batch = dir.join(format!("{ticket}.batch"));
    write_whole(&batch, &json(&spooled)?)?;
    let done = dir.join(format!("{ticket}.done"));
    let timeout = Duration::from_millis(ws.config.lock_timeout_ms);
    let started = Instant::now();
    // a long-lived writer of the same settings that heard of the batch applies it with its open
    // store; it is given a moment before this process leads itself
    let mut waiter = drain::nudge(ws, &dir, &ticket);
    let mut pause = Duration::from_micros(500);
    loop {
        if let Some(out) = take_outcome(&done)? {
            return out.into_result();
        }
        if let Some(w) = &waiter {
            let left = drain::GRACE.saturating_sub(started.elapsed());
            // the server answers when it is done; no outcome then (or no word in time): lead
            if left.is_zero() || w.wait(left) {
                if let Some(out) = take_outcome(&done)? {
                    return out.into_result();
                }
                waiter = None;
            }
            continue;
        }
        if let Some(lead) = try_lead(&dir)? {
            // the previous leader may have finished this batch just before letting go
            if let Some(out) = take_outcome(&done)? {
                return out.into_result();
            }
            lead_rounds(ws, &dir, &ticket, actor)?;
            drop(lead);
            let claimed = dir.join(format!("{ticket}.claimed"));
            if !done.exists() && !batch.exists() && !claimed.exists() {
                // someone cleared the queue: never wait for an answer that cannot come
                return Err(Error::Io {
                    path: batch,
                    message: "this checkpoint's batch left the queue without an answer (was .trilogy/queue cleared?); `trilogy log` shows whether it landed, and a retry is safe".into(),
                });
            }
            continue;
        }
        if started.elapsed() >= timeout {
            match std::fs::remove_file(&batch) {
                Ok(()) => {
                    return Err(Error::Busy {
                        path: dir,
                        waited_ms: started.elapsed().as_millis() as u64,
                    });
                }
                // claimed: a leader is applying it, its outcome comes
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&batch, e)),
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(2));
    }
}

fn take_outcome(done: &Path) -> Result<Option<Outcome>> {
    let Some(bytes) = crate::workspace::read_file(done, crate::workspace::MAX_FILE_BYTES)? else {
        return Ok(None);
    };
    let _ = std::fs::remove_file(done);
    let out = serde_json::from_slice(&bytes).map_err(|e| {
        Error::Internal(format!("{}: outcome does not decode: {e}", done.display()))
    })?;
    Ok(Some(out))
}

/// Lead groups until `own` is answered.
fn lead_rounds(ws: &Workspace, dir: &Path, own: &str, actor: &str) -> Result<()> {
    let own_done = dir.join(format!("{own}.done"));
    while !own_done.exists() {
        // nothing of ours is waiting (withdrawn or answered): nothing to lead
        if !lead_round(ws, dir, actor)? {
            break;
        }
    }
    Ok(())
}

fn new_ticket() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = crate::base::clock::wall_ns();
    format!(
        "{nanos:020}-{:010}-{:06}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
