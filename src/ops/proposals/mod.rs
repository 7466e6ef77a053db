//! A person's gate (`trilogy review`): the proposals agents made where `review_mode` says
//! `propose`, and the reports they left with `notes`, listed together; a proposal accepted is
//! written exactly as the direct write would have been (its proposal date, the person as
//! actor, the proposing session in its provenance), every check of a direct write run again;
//! one rejected is kept, marked, never written. Only people come here: the MCP tool that accepts
//! (`memory_review`) does so only on the answer a person gave in their client's prompt.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{Origin, Proposal, ProposalKind, ProposalState, Report};
use crate::ops::{
    CheckpointInput, DecisionInput, ProjectInput, SessionInput, apply_direct, validate,
};
use crate::store::Reader;
use crate::workspace::{Author, Synced, Tx, Workspace};

/// What `review list` shows.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub proposals: Vec<Proposal>,
    pub reports: Vec<Report>,
}

/// Pending proposals (all of them with `all`) and open reports; the user memory's proposals
/// (kind `user`, kept in the user store) beside the workspace's own.
pub fn list(ws: &Workspace, all: bool) -> Result<Listing> {
    let wanted = |p: &Proposal| all || p.state == ProposalState::Pending;
    let mut listing = Listing {
        proposals: Vec::new(),
        reports: Vec::new(),
    };
    // outside a workspace with memory the user memory's proposals are still listed
    let user = user_store(ws);
    if has_store(ws) || user.is_none() {
        listing = ws
            .read(|r| {
                let proposals = (r.proposals()?.into_iter()).filter(wanted).collect();
                let reports = (r.reports()?.into_iter())
                    .filter(|x| all || x.open)
                    .collect();
                Ok(Listing { proposals, reports })
            })?
            .value;
    }
    if let Some(u) = user {
        let theirs = u.read(|r| r.proposals())?.value;
        listing.proposals.extend(theirs.into_iter().filter(wanted));
    }
    (listing.proposals).sort_by(|a, b| a.proposed_at.cmp(&b.proposed_at).then(a.id.cmp(&b.id)));
    Ok(listing)
}

/// The user scope, when its store exists.
fn user_store(ws: &Workspace) -> Option<&Workspace> {
    ws.user_scope().filter(|u| u.store_path().exists())
}

/// Whether `ws` has memory of its own to look in.
fn has_store(ws: &Workspace) -> bool {
    !ws.is_user() && (ws.has_memory() || ws.store_path().exists())
}

/// The scope holding proposal `id` (the workspace, else the user memory), and the proposal.
fn scope_of<'w>(ws: &'w Workspace, id: &str) -> Result<(&'w Workspace, Proposal)> {
    let in_user = |u: &'w Workspace| u.read(|r| find(r, id)).map(|p| (u, p.value));
    if !has_store(ws) {
        return match user_store(ws) {
            Some(u) => in_user(u),
            None => {
                ws.require_memory()?;
                Err(Error::NotFound(format!("no proposal `{id}`")))
            }
        };
    }
    match ws.read(|r| find(r, id)) {
        Ok(p) => Ok((ws, p.value)),
        Err(Error::NotFound(why)) => user_store(ws)
            .and_then(|u| in_user(u).ok())
            .ok_or(Error::NotFound(why)),
        Err(e) => Err(e),
    }
}

/// The one proposal whose id starts with `prefix`.
fn find(r: &dyn Reader, prefix: &str) -> Result<Proposal> {
    let prefix = prefix.trim();
    if prefix.len() < 4 {
        return Err(Error::bad_input(format!(
            "proposal id `{prefix}` is too short; give at least 4 characters of an id from `trilogy review list`"
        )));
    }
    if let Some(p) = r.proposal(prefix)? {
        return Ok(p);
    }
    let mut hits: Vec<Proposal> = (r.proposals()?.into_iter())
        .filter(|p| p.id.starts_with(prefix))
        .collect();
    match hits.len() {
        0 => Err(Error::NotFound(format!(
            "no proposal `{prefix}`; `trilogy review list --all` lists them"
        ))),
        1 => Ok(hits.remove(0)),
        n => Err(Error::bad_input(format!(
            "proposal id `{prefix}` matches {n} proposals; give more characters"
        ))),
    }
}

/// One proposal.
pub fn show(ws: &Workspace, id: &str) -> Result<Proposal> {
    scope_of(ws, id).map(|(_, p)| p)
}

/// What accepting did.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub id: String,
    pub kind: &'static str,
    /// `FILE: heading` per item written.
    pub written: Vec<String>,
    pub entries: Vec<String>,
    pub warnings: Vec<String>,
    /// What was proposed, in a line (the proposal's first line).
    pub text: String,
    /// Where a USER.md line came from: the repository and the agent session that proposed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Where a proposal came from, for a person deciding on it: `repository R, session S` (a
/// USER.md line names its repository; any proposal its session when known).
pub fn origin(p: &Proposal) -> Option<String> {
    origin_of(crate::ops::proposed_from(p), p.session.as_deref())
}

/// [`origin`] from its parts.
pub fn origin_of(repository: Option<&str>, session: Option<&str>) -> Option<String> {
    let parts: Vec<String> = [
        repository.map(|r| format!("repository {r}")),
        session.map(|s| format!("session {s}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The pending proposals `review accept --all` (`workspace`) and `--user` (`user`) take:
/// the workspace's own, and USER.md lines only when asked for by name. The second list holds
/// the USER.md lines left for the person to name.
pub fn pending_to_accept(
    ws: &Workspace,
    workspace: bool,
    user: bool,
) -> Result<(Vec<Proposal>, Vec<Proposal>)> {
    let pending = list(ws, false)?.proposals;
    let (theirs, ours): (Vec<Proposal>, Vec<Proposal>) =
        (pending.into_iter()).partition(|p| p.kind == ProposalKind::User);
    let mut take = match workspace {
        true => ours,
        false => Vec::new(),
    };
    match user {
        true => {
            take.extend(theirs);
            take.sort_by(|a, b| a.proposed_at.cmp(&b.proposed_at).then(a.id.cmp(&b.id)));
            Ok((take, Vec::new()))
        }
        false => Ok((take, theirs)),
    }
}

/// The checkpoint a proposal makes, its main text replaced by `text` when given (a choice,
/// a Done, a PROJECT line or section text).
fn input_of(p: &Proposal, text: Option<&str>) -> Result<CheckpointInput> {
    let bad = |e: serde_json::Error| {
        Error::Internal(format!(
            "proposal {}: its stored item does not read: {e}",
            p.id
        ))
    };
    let mut input = CheckpointInput::default();
    match p.kind {
        ProposalKind::Session => {
            let mut s: SessionInput = serde_json::from_str(&p.item).map_err(bad)?;
            if let Some(t) = text {
                s.done = t.to_string();
            }
            input.sessions.push(s);
        }
        ProposalKind::Decision => {
            let mut d: DecisionInput = serde_json::from_str(&p.item).map_err(bad)?;
            if let Some(t) = text {
                d.choice = t.to_string();
            }
            input.decisions.push(d);
        }
        ProposalKind::Project => {
            let mut e: ProjectInput = serde_json::from_str(&p.item).map_err(bad)?;
            match (text, e.text.is_some()) {
                (Some(t), true) => e.text = Some(t.to_string()),
                (Some(t), false) => e.line = Some(t.to_string()),
                (None, _) => {}
            }
            input.project.push(e);
        }
        ProposalKind::User => {
            let mut l: crate::model::user::UserLine = serde_json::from_str(&p.item).map_err(bad)?;
            if let Some(t) = text {
                l.line = t.to_string();
            }
            input.user.push(l);
        }
    }
    Ok(input)
}

/// Accept proposal `id` (with its main text replaced by `text`): written as a direct write,
/// in one transaction. A check that fails leaves it pending, with the reason kept on it.
pub fn accept(
    ws: &Workspace,
    actor: &str,
    id: &str,
    text: Option<&str>,
) -> Result<Synced<Accepted>> {
    let (ws, p) = scope_of(ws, id)?;
    if p.state != ProposalState::Pending {
        return Err(Error::bad_input(format!(
            "proposal {} is {} already; `trilogy review list --all` shows it",
            p.id,
            p.state.as_str()
        )));
    }
    let input = input_of(&p, text)?;
    let date = chrono::NaiveDate::parse_from_str(&p.date, "%Y-%m-%d")
        .map_err(|e| Error::Internal(format!("proposal {}: date `{}`: {e}", p.id, p.date)))?;
    let attempt = validate(&input).and_then(|()| {
        ws.write(actor, |tx| {
            let mut p = find(tx.store(), &p.id)?;
            if p.state != ProposalState::Pending {
                return Err(Error::Conflict(format!(
                    "proposal {} was {} meanwhile",
                    p.id,
                    p.state.as_str()
                )));
            }
            let out = apply_accepted(tx, &p, &input, date)?;
            p.state = ProposalState::Accepted;
            p.problem = None;
            p.decided_at = Some(tx.author().now.clone());
            p.decided_by = Some(actor.to_string());
            p.entries = out.ids.clone();
            tx.put_proposal(&p)?;
            tx.log("accept", vec![p.id.clone()], &out.written.join("; "))?;
            Ok(Accepted {
                id: p.id.clone(),
                kind: p.kind.as_str(),
                written: out.written,
                entries: out.ids,
                warnings: out.warnings,
                text: p.text.lines().next().unwrap_or_default().to_string(),
                repository: crate::ops::proposed_from(&p).map(str::to_string),
                session: p.session.clone(),
            })
        })
    });
    match attempt {
        Ok(done) => Ok(done),
        Err(e) => {
            // the reason stays on the proposal, which stays pending
            let why = e.to_string();
            let _ = ws.write(actor, |tx| {
                let mut p = find(tx.store(), &p.id)?;
                if p.state == ProposalState::Pending && p.problem.as_deref() != Some(&why) {
                    p.problem = Some(why.clone());
                    tx.put_proposal(&p)?;
                }
                Ok(())
            });
            Err(Error::bad_input(format!(
                "proposal {} not accepted, left pending: {why}",
                p.id
            )))
        }
    }
}

/// Write accepted proposal `p` (its batch `input`) as the direct write would have been: on its
/// date, under the session and branch that proposed it.
fn apply_accepted(
    tx: &mut Tx,
    p: &Proposal,
    input: &CheckpointInput,
    date: chrono::NaiveDate,
) -> Result<crate::ops::CheckpointOutcome> {
    let proposer = Author {
        today: date,
        origin: Origin {
            agent_session: p.session.clone(),
            branch: p.branch.clone(),
        },
        ..tx.author().clone()
    };
    tx.as_author(proposer, |tx| match p.kind {
        // a line of the user memory, written in its own store as `user add` writes it
        ProposalKind::User => {
            let mut out = crate::ops::CheckpointOutcome::default();
            crate::ops::user_lines(tx, &input.user, crate::config::Mode::Direct, "", &mut out)?;
            Ok(out)
        }
        _ => apply_direct(tx, input),
    })
}

/// Reject proposal `id`: kept in the store as rejected, with why; never written.
pub fn reject(ws: &Workspace, actor: &str, id: &str, why: Option<&str>) -> Result<Proposal> {
    let (ws, _) = scope_of(ws, id)?;
    ws.write(actor, |tx| {
        let mut p = find(tx.store(), id)?;
        if p.state != ProposalState::Pending {
            return Err(Error::bad_input(format!(
                "proposal {} is {} already",
                p.id,
                p.state.as_str()
            )));
        }
        p.state = ProposalState::Rejected;
        p.why = why
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::to_string);
        p.decided_at = Some(tx.author().now.clone());
        p.decided_by = Some(actor.to_string());
        tx.put_proposal(&p)?;
        let first = p.text.lines().next().unwrap_or_default();
        let detail = match &p.why {
            Some(w) => format!("{} {first} — {w}", p.kind.as_str()),
            None => format!("{} {first}", p.kind.as_str()),
        };
        tx.log("reject", vec![p.id.clone()], &detail)?;
        Ok(p)
    })
    .map(|w| w.value)
}
