//! Group commit across processes: checkpoints that arrive while another process is writing are
//! applied by that process in its transaction — one absorb, one render, one sync per file, one
//! durable store commit for the whole group — and each writer is told its own outcome.
//!
//! The spool is `.trilogy/queue/`:
//! - a writer validates its batch itself (schema, sizes, secrets: a refusal never leaves its
//!   process), then drops it whole as `<ticket>.batch` — no sync: it is durable only through the
//!   leader's commit, and acknowledged only after it. Tickets are the time of arrival, the
//!   process id and a counter, so names sort first come, first served;
//! - whoever takes the advisory lock on `queue/leader.lock` leads: it claims the oldest batches
//!   (renaming each to `<ticket>.claimed`, up to [`MAX_GROUP`]; batches of a process with
//!   other settings are left for that process to lead), applies them one after another in one
//!   write transaction, commits, then writes each outcome whole as `<ticket>.done` and removes
//!   the claim;
//! - every other writer waits for its `.done` (polling its own file and the lock every
//!   millisecond or two); no batch can be passed over, since every leader takes the oldest
//!   first, and a writer whose batch is still unclaimed when the lock frees leads itself.
//!
//! Per-batch outcomes: a batch that fails while being applied (a `replaces` line not found, a
//! file that does not parse) is dropped from the group with its error and the transaction runs
//! again without it, so one bad batch fails alone; a batch repeated in one group writes nothing
//! new, as a retried checkpoint never does.
//!
//! Crashes: each batch's outcome is stored in the store's `batches` table in the same commit
//! as the batch. A leader killed before its commit leaves its claims in the spool: the next
//! leader applies those of writers still waiting, and drops those of processes that died
//! unanswered (the dead leader's own among them) — a command killed before its commit records
//! nothing, as before. Killed after the commit, the next leader finds the outcomes in the store
//! and hands them out without applying anything twice. A writer that gives up waiting (the lock
//! timeout) withdraws its batch first; if a leader has already claimed it, it waits for that
//! outcome instead, so a writer told "busy" changed nothing.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::{CheckpointInput, CheckpointOutcome, apply};
use crate::base::process::pid_alive;
use crate::error::{Error, ErrorKind, Result};
use crate::workspace::{Author, SyncReport, Synced, Tx, Workspace};

/// Most batches one leader applies in one transaction.
const MAX_GROUP: usize = 64;

/// Spool files older than this are left over by processes long gone, and removed.
const STALE: Duration = Duration::from_secs(3600);

/// One writer's batch, as spooled.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Spooled {
    pub(super) actor: String,
    pub(super) now: String,
    pub(super) today: NaiveDate,
    /// The settings the batch was validated under: a leader applies only batches of its own.
    pub(super) config: String,
    pub(super) input: CheckpointInput,
}

/// One writer's outcome, as handed back.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Outcome {
    Done {
        value: Box<CheckpointOutcome>,
        report: SyncReport,
    },
    Failed {
        kind: String,
        message: String,
    },
}

impl Outcome {
    fn failed(e: &Error) -> Outcome {
        Outcome::Failed {
            kind: e.kind().as_str().to_string(),
            message: e.to_string(),
        }
    }

    pub(super) fn into_result(self) -> Result<Synced<CheckpointOutcome>> {
        match self {
            Outcome::Done { value, report } => Ok(Synced {
                value: *value,
                report,
            }),
            Outcome::Failed { kind, message } => Err(Error::Relayed {
                kind: ErrorKind::from_name(&kind).unwrap_or(ErrorKind::Internal),
                message,
            }),
        }
    }
}

pub(super) fn queue_dir(ws: &Workspace) -> Result<PathBuf> {
    ws.inside(&ws.state_dir().join("queue"))
}

/// The settings a batch is applied under (how long a writer waits is not one of them).
pub(super) fn fingerprint(ws: &Workspace) -> String {
    let mut v = serde_json::to_value(&ws.config).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.remove("lock_timeout_ms");
    }
    let text = v.to_string();
    crate::base::hex::sha1_prefix(format!("{}\n{text}", ws.root.display()).as_bytes(), 10)
}

/// Write `bytes` to `path` whole, without a sync: a batch lost to a power cut was never
/// answered.
pub(super) fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    use crate::base::write::{Whole, write_whole};
    write_whole(path, bytes, Whole::Private).map_err(|e| Error::io(path, e))
}

pub(super) fn json<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(v).map_err(|e| Error::Internal(format!("encode: {e}")))
}

/// The lock a leader holds.
pub(super) struct Leader {
    _file: std::fs::File,
}

pub(super) fn try_lead(dir: &Path) -> Result<Option<Leader>> {
    let path = dir.join("leader.lock");
    let file = crate::workspace::open_lock_file(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Leader { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
    }
}

/// As the leader, claim a group, apply it and write each outcome; false when nothing waited.
pub(super) fn lead_round(ws: &Workspace, dir: &Path, actor: &str) -> Result<bool> {
    let claimed = claim(ws, dir)?;
    if claimed.is_empty() {
        return Ok(false);
    }
    let tickets: Vec<String> = claimed.keys().cloned().collect();
    let outcomes = apply_group(ws, actor, claimed);
    crate::base::fault::gate_point("outcomes");
    for t in &tickets {
        let out = match &outcomes {
            Ok(map) => map.get(t).map(|b| b.to_vec()),
            Err(e) => Some(json(&Outcome::failed(e))?),
        };
        if let Some(bytes) = out {
            write_whole(&dir.join(format!("{t}.done")), &bytes)?;
        }
        let _ = std::fs::remove_file(dir.join(format!("{t}.claimed")));
    }
    Ok(true)
}

/// Claim the oldest waiting batches of this process's settings (and any a dead leader had
/// claimed); leftovers older than an hour are removed.
fn claim(ws: &Workspace, dir: &Path) -> Result<BTreeMap<String, Option<Spooled>>> {
    crate::base::fault::gate_point("drain");
    let mine = fingerprint(ws);
    let mut names: Vec<(String, bool)> = Vec::new();
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(t) = name.strip_suffix(".batch") {
            names.push((t.to_string(), false));
        } else if let Some(t) = name.strip_suffix(".claimed") {
            names.push((t.to_string(), true));
        } else if name.ends_with(".done") || name.ends_with(".tmp") {
            let old = e
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|m| m.elapsed().ok())
                .is_some_and(|age| age > STALE);
            if old {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    names.sort();
    let mut out = BTreeMap::new();
    for (t, was_claimed) in names {
        if out.len() >= MAX_GROUP {
            break;
        }
        let claimed = dir.join(format!("{t}.claimed"));
        if !owner_alive(&t) {
            // its writer died unanswered: like a command killed before its commit, it
            // recorded nothing (applying it later would surprise, and would pile up work
            // on whoever leads next)
            let _ = std::fs::remove_file(dir.join(format!("{t}.batch")));
            let _ = std::fs::remove_file(&claimed);
            continue;
        }
        if !was_claimed {
            let batch = dir.join(format!("{t}.batch"));
            let Ok(Some(bytes)) =
                crate::workspace::read_file(&batch, crate::workspace::MAX_FILE_BYTES)
            else {
                continue;
            };
            let parsed: Option<Spooled> = serde_json::from_slice(&bytes).ok();
            if parsed.as_ref().is_some_and(|p| p.config != mine) {
                continue;
            }
            // withdrawn meanwhile: not ours to apply
            if std::fs::rename(&batch, &claimed).is_err() {
                continue;
            }
            out.insert(t, parsed);
        } else {
            let parsed: Option<Spooled> =
                crate::workspace::read_file(&claimed, crate::workspace::MAX_FILE_BYTES)
                    .ok()
                    .flatten()
                    .and_then(|b| serde_json::from_slice(&b).ok());
            if parsed.as_ref().is_some_and(|p| p.config != mine) {
                continue;
            }
            out.insert(t, parsed);
        }
    }
    Ok(out)
}

/// Apply `batches` in `tx`, each under its own author (the actor, time and session that
/// spooled it): each one's outcome (and whether an earlier leader recorded it). A batch that
/// fails is put in `failed` and fails the transaction.
fn apply_batches(
    tx: &mut Tx,
    batches: &[(String, Spooled)],
    oldest_kept: &str,
    failed: &std::cell::RefCell<Option<(String, Error)>>,
) -> Result<Vec<(String, Vec<u8>, bool)>> {
    let mut outs: Vec<(String, Vec<u8>, bool)> = Vec::new();
    for (t, s) in batches {
        // applied by a leader that died after its commit: hand out what it recorded
        if let Some(saved) = tx.store().batch_outcome(t)? {
            outs.push((t.clone(), saved, true));
            continue;
        }
        // each batch's entries and proposals carry the session that made them
        let branch = tx.author().origin.branch.clone();
        let author = Author::at(&s.actor, s.now.clone(), s.today, branch);
        match tx.as_author(author, |tx| apply(tx, &s.input)) {
            Ok(value) => {
                let bytes = json(&value)?;
                tx.store().put_batch_outcome(t, &bytes)?;
                tx.mark_changed();
                outs.push((t.clone(), bytes, false));
            }
            Err(e) => {
                *failed.borrow_mut() = Some((t.clone(), e));
                return Err(Error::Internal("a batch of the group failed".into()));
            }
        }
    }
    tx.store().prune_batch_outcomes(oldest_kept)?;
    crate::base::fault::gate_point("commit");
    Ok(outs)
}

/// Whether the process that spooled ticket `t` (`<time>-<pid>-<counter>`) still runs.
fn owner_alive(t: &str) -> bool {
    t.split('-').nth(1).is_none_or(pid_alive)
}

/// Apply the claimed batches in one transaction; the outcome of each, by ticket. A batch that
/// fails is answered with its error and the rest run again without it.
fn apply_group(
    ws: &Workspace,
    actor: &str,
    claimed: BTreeMap<String, Option<Spooled>>,
) -> Result<HashMap<String, Vec<u8>>> {
    let mut answers: HashMap<String, Vec<u8>> = HashMap::new();
    let mut batches: Vec<(String, Spooled)> = Vec::new();
    for (t, s) in claimed {
        match s {
            Some(s) => batches.push((t, s)),
            None => {
                let e = Error::Internal(format!("the spooled batch {t} does not decode"));
                answers.insert(t, json(&Outcome::failed(&e))?);
            }
        }
    }
    let oldest_kept = {
        let nanos = crate::base::clock::unix_ns(std::time::SystemTime::now() - STALE);
        format!("{nanos:020}")
    };
    loop {
        if batches.is_empty() {
            return Ok(answers);
        }
        let failed: std::cell::RefCell<Option<(String, Error)>> = Default::default();
        let result = ws.write(actor, |tx| {
            apply_batches(tx, &batches, &oldest_kept, &failed)
        });
        match (result, failed.into_inner()) {
            (Ok(w), _) => {
                for (t, bytes, saved) in w.value {
                    let value: CheckpointOutcome = serde_json::from_slice(&bytes)
                        .map_err(|e| Error::Internal(format!("outcome of {t}: {e}")))?;
                    // an outcome an earlier leader recorded comes without that group's report
                    let report = if saved {
                        SyncReport::default()
                    } else {
                        w.report.clone()
                    };
                    let out = Outcome::Done {
                        value: Box::new(value),
                        report,
                    };
                    answers.insert(t, json(&out)?);
                }
                return Ok(answers);
            }
            (Err(_), Some((t, e))) => {
                answers.insert(t.clone(), json(&Outcome::failed(&e))?);
                batches.retain(|(x, _)| *x != t);
            }
            (Err(e), None) => return Err(e),
        }
    }
}
