//! The gate inside `checkpoint`: where `review_mode` says `propose` for a kind, its items are
//! checked exactly as a direct write checks them (schema and secrets before the transaction;
//! topics, `supersedes` and `replaces` here, against the store as it is) and then kept as
//! proposals instead of written. The same proposal made again raises its count — unless it is
//! a retry: the same proposer on the same day — and never adds a copy.

use crate::config::{Mode, ReviewMode};
use crate::error::Result;
use crate::model::{Proposal, ProposalKind, ProposalState, normalize_area, session_heading};
use crate::store::Reader;
use crate::workspace::Tx;

use crate::model::user::UserLine;

use super::{CheckpointInput, CheckpointOutcome, ProjectInput, edit_section};

/// Split a batch by the gate: what is written now, and what is proposed.
pub(super) fn split(
    input: &CheckpointInput,
    mode: &ReviewMode,
) -> (CheckpointInput, CheckpointInput) {
    let mut direct = input.clone();
    let mut proposed = CheckpointInput::default();
    if mode.sessions == Mode::Propose {
        proposed.sessions = std::mem::take(&mut direct.sessions);
    }
    if mode.decisions == Mode::Propose {
        proposed.decisions = std::mem::take(&mut direct.decisions);
    }
    if mode.project == Mode::Propose {
        proposed.project = std::mem::take(&mut direct.project);
    }
    (direct, proposed)
}

/// A proposal checked and made ready, not yet stored.
pub(super) struct Staged {
    kind: ProposalKind,
    item: String,
    text: String,
}

/// Check every proposed item as a direct write would, without writing anything.
pub(super) fn stage(tx: &mut Tx, input: &CheckpointInput) -> Result<Vec<Staged>> {
    let lang = tx.lang();
    let mut out = Vec::new();
    let mut known = super::known_areas(tx)?;
    for s in &input.sessions {
        let area = normalize_area(s.area.as_deref(), &mut known).area;
        let (body, _) = super::session_body(s, lang);
        out.push(Staged {
            kind: ProposalKind::Session,
            item: to_json(s),
            text: format!("## {}\n{body}", session_heading(tx.author().today, &area)),
        });
    }
    let planned = super::plan_decisions(tx, &input.decisions)?;
    for (d, (heading, body, _)) in input.decisions.iter().zip(planned) {
        out.push(Staged {
            kind: ProposalKind::Decision,
            item: to_json(d),
            text: format!("## {heading}\n{body}"),
        });
    }
    for (i, p) in input.project.iter().enumerate() {
        let mut scratch = CheckpointOutcome::default();
        edit_section(tx, i, p, &mut scratch, true)?;
        let what = match (&p.text, &p.line, &p.replaces) {
            (Some(t), _, _) => {
                format!("PROJECT.md § {}: the whole section becomes\n{t}", p.section)
            }
            (None, Some(l), Some(r)) => format!("PROJECT.md § {}: `{r}` becomes `{l}`", p.section),
            (None, Some(l), None) => format!("PROJECT.md § {}: add `{l}`", p.section),
            _ => format!("PROJECT.md § {}", p.section),
        };
        out.push(Staged {
            kind: ProposalKind::Project,
            item: to_json(p),
            text: what,
        });
    }
    Ok(out)
}

/// USER.md lines, inside the user scope's transaction: written (`direct`), or checked exactly
/// as the write would be and kept as proposals of kind `user` (`from`: the workspace they
/// came from, shown to the person).
pub(crate) fn user_lines(
    tx: &mut Tx,
    lines: &[UserLine],
    mode: Mode,
    from: &str,
    out: &mut CheckpointOutcome,
) -> Result<()> {
    for (i, l) in lines.iter().enumerate() {
        let edit = as_edit(l);
        if mode == Mode::Direct {
            edit_section(tx, i, &edit, out, false)?;
            continue;
        }
        let mut scratch = CheckpointOutcome::default();
        edit_section(tx, i, &edit, &mut scratch, true)?;
        let what = match &l.replaces {
            Some(r) => format!("USER.md § {}: `{r}` becomes `{}`", l.section.trim(), l.line),
            None => format!("USER.md § {}: add `{}`", l.section.trim(), l.line),
        };
        out_stage(tx, l, format!("{what}\n{FROM}{from}"), out)?;
    }
    Ok(())
}

/// How a USER.md proposal's text names the repository it came from, on its last line.
const FROM: &str = "from ";

/// The repository a USER.md proposal came from, as its text names it.
pub fn proposed_from(p: &Proposal) -> Option<&str> {
    if p.kind != ProposalKind::User {
        return None;
    }
    p.text.lines().last()?.strip_prefix(FROM)
}

fn out_stage(tx: &mut Tx, l: &UserLine, text: String, out: &mut CheckpointOutcome) -> Result<()> {
    let staged = Staged {
        kind: ProposalKind::User,
        item: to_json(l),
        text,
    };
    keep(tx, vec![staged], out)
}

/// The PROJECT-style edit a USER.md line makes.
fn as_edit(l: &UserLine) -> ProjectInput {
    ProjectInput {
        section: l.section.clone(),
        line: Some(l.line.trim().to_string()),
        replaces: l.replaces.clone(),
        ..ProjectInput::default()
    }
}

/// Keep the staged proposals: new ones pending, a repeat counted once per proposer and day.
pub(super) fn keep(tx: &mut Tx, staged: Vec<Staged>, out: &mut CheckpointOutcome) -> Result<()> {
    let proposer = format!("{}@{}", tx.author().actor, tx.author().today);
    for s in staged {
        let id = proposal_id(s.kind, &s.item);
        let (p, op) = match tx.store().proposal(&id)? {
            Some(mut p) => {
                let again = !p.proposers.contains(&proposer);
                if again {
                    p.proposers.push(proposer.clone());
                    p.count += 1;
                    p.last_at = tx.author().now.clone();
                }
                match p.state {
                    ProposalState::Rejected => out.warnings.push(format!(
                        "proposal {id} was rejected by a person{}; it stays rejected (proposed {} times)",
                        p.why.as_deref().map(|w| format!(": {w}")).unwrap_or_default(),
                        p.count
                    )),
                    ProposalState::Accepted => out
                        .warnings
                        .push(format!("proposal {id} was accepted already; nothing new")),
                    ProposalState::Pending => {}
                }
                (p, again.then_some("propose-again"))
            }
            None => {
                let p = Proposal {
                    id: id.clone(),
                    kind: s.kind,
                    item: s.item,
                    text: s.text,
                    count: 1,
                    proposed_at: tx.author().now.clone(),
                    last_at: tx.author().now.clone(),
                    date: tx.author().today.to_string(),
                    proposers: vec![proposer.clone()],
                    session: tx.author().origin.agent_session.clone(),
                    branch: tx.author().origin.branch.clone(),
                    state: ProposalState::Pending,
                    why: None,
                    problem: None,
                    decided_at: None,
                    decided_by: None,
                    entries: Vec::new(),
                };
                (p, Some("propose"))
            }
        };
        if let Some(op) = op {
            tx.put_proposal(&p)?;
            let first_line = p.text.lines().next().unwrap_or_default().to_string();
            tx.log(
                op,
                vec![id.clone()],
                &format!("{} ×{}: {first_line}", p.kind.as_str(), p.count),
            )?;
        }
        out.proposed.push(id);
    }
    Ok(())
}

/// A proposal's id: the same kind and item give the same id.
pub fn proposal_id(kind: ProposalKind, item: &str) -> String {
    let hex = crate::base::hex::sha1(format!("{}\n{item}", kind.as_str()).as_bytes());
    format!("p{}", &hex[..11])
}

/// A checkpoint item as JSON (a stored proposal's `item`).
fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
