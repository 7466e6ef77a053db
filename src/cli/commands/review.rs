//! `trilogy review`: the person's side of the gate — list what agents proposed and the reports
//! they left, show one, accept (as written, edited in `$EDITOR`, or with `--text`), reject
//! with a reason, close a report.

use clap::{Args, Subcommand};

use crate::error::{Error, Result};
use crate::model::Proposal;
use crate::ops::{self, proposals};

use super::super::{Context, format};

pub const HELP: &str = "\
Where `review_mode` says `propose` (e.g. `[review_mode] decisions = \"propose\"` in
trilogy.toml), an agent's checkpoint of that kind is checked as a direct write and kept as a
proposal: not in the memory files, not in the block as fact. This is a workflow gate, not a
security boundary: an agent's file tools can edit the memory files as a person can. Lines an
agent proposes for USER.md (your memory in every project) can come from any repository's
agent: `--all` leaves them for you to name (`--user`, or their id).

Examples:
  trilogy review list                 pending proposals and open reports
  trilogy review show p1a2b3c         one proposal, whole
  trilogy review accept p1a2b3c       write it as the agent's checkpoint would have
  trilogy review accept p1a2 --edit   change its text in $EDITOR first
  trilogy review accept --all         accept this workspace's pending proposals, oldest first
  trilogy review accept --user        accept the pending USER.md lines (any repository's agents'),
                                      each shown with the repository and session it came from
  trilogy review reject p1a2 --why \"we keep the old cache\"
  trilogy review close 3              mark report #3 as dealt with";

#[derive(Args, Debug)]
pub struct ReviewArgs {
    #[command(subcommand)]
    cmd: Option<ReviewCmd>,
}

#[derive(Subcommand, Debug)]
enum ReviewCmd {
    /// Pending proposals and open reports (--all: accepted and rejected ones, closed reports)
    List {
        #[arg(long)]
        all: bool,
    },
    /// One proposal, whole
    Show { id: String },
    /// Write a proposal as a direct write would have (its date kept, you as the actor)
    Accept {
        /// The proposal's id (or its first characters)
        #[arg(required_unless_present_any = ["all", "user"])]
        id: Option<String>,
        /// Accept this workspace's pending proposals, oldest first (USER.md lines only with --user)
        #[arg(long, conflicts_with_all = ["id", "edit", "text"])]
        all: bool,
        /// Accept the pending USER.md lines, from whichever repository's agent proposed them
        #[arg(long, conflicts_with_all = ["id", "edit", "text"])]
        user: bool,
        /// Edit its text (a choice, a Done, a PROJECT line) in $EDITOR first
        #[arg(long, conflicts_with = "text")]
        edit: bool,
        /// Its text replaced by this (a choice, a Done, a PROJECT line or section text)
        #[arg(long)]
        text: Option<String>,
    },
    /// Keep a proposal as rejected (it is never written; `list --all` shows it)
    Reject {
        id: String,
        /// Why, for the log and for the agent that proposes it again
        #[arg(long)]
        why: Option<String>,
    },
    /// Mark report N as dealt with
    Close { n: u64 },
}

fn line(p: &Proposal) -> String {
    let first = p.text.lines().next().unwrap_or_default();
    let times = if p.count > 1 {
        format!(" ×{}", p.count)
    } else {
        String::new()
    };
    let problem = p
        .problem
        .as_deref()
        .map(|w| format!("\n    not accepted last time: {w}"))
        .unwrap_or_default();
    // a USER.md line can come from any repository: where from is said beside it
    let from = match p.kind {
        crate::model::ProposalKind::User => proposals::origin(p)
            .map(|o| format!("\n    from {o}"))
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!(
        "{}  {:<8} {}{times}  (proposed {}{}){from}{problem}",
        p.id,
        p.kind.as_str(),
        first,
        p.date,
        match p.state {
            crate::model::ProposalState::Pending => String::new(),
            s => format!(", {}", s.as_str()),
        }
    )
}

/// An accepted proposal in a line (with where a USER.md line came from).
fn accepted(a: &proposals::Accepted) -> String {
    let mut s = format!("accepted {}: {}", a.id, a.written.join("; "));
    if a.kind == "user" {
        s.push_str(&format!(" — {}", a.text));
        if let Some(from) = proposals::origin_of(a.repository.as_deref(), a.session.as_deref()) {
            s.push_str(&format!(" (from {from})"));
        }
    }
    s
}

/// The main text of a proposal, for `--edit`.
fn main_text(p: &Proposal) -> String {
    let v: serde_json::Value = serde_json::from_str(&p.item).unwrap_or_default();
    ["choice", "done", "line", "text"]
        .iter()
        .find_map(|k| v.get(*k).and_then(|x| x.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// Run `$EDITOR` (else `vi`) on `path`; `instead` says what to do when it cannot start,
/// `after` what became of the work when it fails.
pub(super) fn run_editor(path: &std::path::Path, instead: &str, after: &str) -> Result<()> {
    let editor = std::env::var("EDITOR").unwrap_or_else(|_| "vi".into());
    let mut parts = editor.split_whitespace();
    let program = parts.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(parts)
        .arg(path)
        .status()
        .map_err(|e| {
            Error::bad_input(format!(
                "could not start the editor `{editor}`: {e}; set $EDITOR, or {instead}"
            ))
        })?;
    if !status.success() {
        return Err(Error::bad_input(format!(
            "the editor `{editor}` exited with {status}; {after}"
        )));
    }
    Ok(())
}

/// Open `$EDITOR` (else `vi`) on `text`; what was saved, trimmed.
fn edit(text: &str) -> Result<String> {
    let dir = tempfile::tempdir().map_err(|e| Error::Internal(e.to_string()))?;
    let path = dir.path().join("proposal.md");
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    run_editor(&path, "give --text", "nothing was accepted")?;
    let out = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let out = out.trim().to_string();
    if out.is_empty() {
        return Err(Error::bad_input("the text is empty; nothing was accepted"));
    }
    Ok(out)
}

pub fn run(ctx: &Context, a: ReviewArgs) -> Result<()> {
    match a.cmd.unwrap_or(ReviewCmd::List { all: false }) {
        ReviewCmd::List { all } => {
            let l = proposals::list(&ctx.ws, all)?;
            format::print(ctx, &l, |l| {
                let mut out = Vec::new();
                if l.proposals.is_empty() && l.reports.is_empty() {
                    return "(nothing waits for review)".into();
                }
                if !l.proposals.is_empty() {
                    out.push(format!("proposals ({}):", l.proposals.len()));
                    out.extend(l.proposals.iter().map(|p| format!("  {}", line(p))));
                    out.push("  accept: trilogy review accept ID · reject: trilogy review reject ID --why …".into());
                }
                if !l.reports.is_empty() {
                    out.push(format!("reports ({}):", l.reports.len()));
                    for r in &l.reports {
                        let first = r.text.lines().next().unwrap_or_default();
                        out.push(format!("  #{} {}  {first}", r.seq, r.at));
                    }
                    out.push("  close: trilogy review close N".into());
                }
                out.join("\n")
            })
        }
        ReviewCmd::Show { id } => {
            let p = proposals::show(&ctx.ws, &id)?;
            format::print(ctx, &p, |p| {
                format!(
                    "{}\nproposed by {}{}\n\n{}",
                    line(p),
                    p.proposers.join(", "),
                    p.why
                        .as_deref()
                        .map(|w| format!("\nrejected: {w}"))
                        .unwrap_or_default(),
                    p.text
                )
            })
        }
        ReviewCmd::Accept { all, user, .. } if all || user => accept_many(ctx, all, user),
        ReviewCmd::Accept {
            id, edit: e, text, ..
        } => {
            let id = id.unwrap_or_default();
            let text = match (e, text) {
                (true, _) => Some(edit(&main_text(&proposals::show(&ctx.ws, &id)?))?),
                (false, t) => t,
            };
            let w = proposals::accept(&ctx.ws, "cli", &id, text.as_deref())?;
            format::warn_sync(&w.report);
            format::print(ctx, &w.value, |a| {
                let mut s = accepted(a);
                for warning in &a.warnings {
                    s.push_str(&format!("\nwarning: {warning}"));
                }
                s
            })
        }
        ReviewCmd::Reject { id, why } => {
            let p = proposals::reject(&ctx.ws, "cli", &id, why.as_deref())?;
            format::print(ctx, &p, |p| {
                format!(
                    "rejected {} (kept, never written): {}",
                    p.id,
                    p.text.lines().next().unwrap_or_default()
                )
            })
        }
        ReviewCmd::Close { n } => {
            let r = ops::close_report(&ctx.ws, "cli", n)?;
            format::print(ctx, &r, format::closed_report)
        }
    }
}

/// `accept --all` (this workspace's pending proposals) and `--user` (the pending USER.md
/// lines), oldest first; USER.md lines not asked for are named, with where they came from.
fn accept_many(ctx: &Context, all: bool, user: bool) -> Result<()> {
    let (take, unnamed) = proposals::pending_to_accept(&ctx.ws, all, user)?;
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for p in take {
        match proposals::accept(&ctx.ws, "cli", &p.id, None) {
            Ok(w) => {
                format::warn_sync(&w.report);
                done.push(w.value);
            }
            Err(e) => failed.push(serde_json::json!({"id": p.id, "error": e.to_string()})),
        }
    }
    let not_named: Vec<serde_json::Value> = (unnamed.iter())
        .map(|p| {
            serde_json::json!({
                "id": p.id,
                "text": p.text.lines().next().unwrap_or_default(),
                "repository": ops::proposed_from(p),
                "session": p.session,
            })
        })
        .collect();
    let v = serde_json::json!({"accepted": done, "left_pending": failed, "user_not_accepted": not_named});
    format::print(ctx, &v, |_| {
        let mut out: Vec<String> = done.iter().map(accepted).collect();
        out.extend(
            failed
                .iter()
                .map(|f| format!("left pending {}: {}", f["id"], f["error"])),
        );
        if !unnamed.is_empty() {
            out.push(format!(
                "not accepted: {} USER.md line(s) proposed by agents (your memory in every project); read each, then `trilogy review accept ID` or `trilogy review accept --user`:",
                unnamed.len()
            ));
            out.extend(unnamed.iter().map(|p| format!("  {}", line(p))));
        }
        if out.is_empty() {
            out.push("(no pending proposals)".into());
        }
        out.join("\n")
    })?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::bad_input(format!(
            "{} proposal(s) left pending",
            failed.len()
        )))
    }
}
