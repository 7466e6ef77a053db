//! `trilogy checkpoint`: a JSON batch (stdin or a file) or quick flags, recorded in one write.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result};
use crate::ops::{self, CheckpointInput, DecisionInput, ProjectInput, SessionInput};

use super::super::{Context, format};

pub const HELP: &str = r#"Batch shape (all parts optional):
  {"sessions":  [{"done": "...", "area": "...", "open": "...", "next": "..."}],
   "decisions": [{"choice": "...", "over": "...", "because": "...", "topic": "...", "review": "3 months", "supersedes": "..."}],
   "project":   [{"section": "现状", "text": "..."} or {"section": "State", "line": "...", "replaces": "..."}],
   "notes": "what looks stale or wrong, left for the user"}

Examples:
  trilogy checkpoint --session-done "fixed the lock timeout; cargo test passes" --area store
  echo '{"decisions":[{"choice":"redb","over":"sqlite","because":"multi-process writes"}]}' | trilogy checkpoint
  trilogy checkpoint batch.json

Limits: 16 KiB per field (64 characters per area), 256 KiB per PROJECT section text, 512 KiB per call;
a section longer than its injection share is cut when injected, never refused.
Entries are dated today (local clock). A retried identical call writes nothing new."#;

#[derive(Args, Debug)]
pub struct CheckpointArgs {
    /// JSON batch file (`-` for stdin; stdin is read when no quick flag is given)
    file: Option<PathBuf>,
    /// Quick session entry: what is true now and how it was verified
    #[arg(long, value_name = "TEXT")]
    session_done: Option<String>,
    /// Area of the quick session entry
    #[arg(long, value_name = "AREA")]
    area: Option<String>,
    /// What is unfinished (quick session entry)
    #[arg(long, value_name = "TEXT")]
    open: Option<String>,
    /// The next concrete action (quick session entry)
    #[arg(long, value_name = "TEXT")]
    next: Option<String>,
    /// Quick decision: the choice, one line
    #[arg(long, value_name = "CHOICE")]
    decision: Option<String>,
    /// What the decision rejected
    #[arg(long, value_name = "TEXT")]
    over: Option<String>,
    /// The constraint that forced the decision
    #[arg(long, value_name = "TEXT")]
    because: Option<String>,
    /// An earlier decision (id, heading or choice) the quick decision replaces
    #[arg(long, value_name = "DECISION")]
    supersedes: Option<String>,
    /// The question the quick decision answers (one live decision per topic: a new one on a
    /// topic must --supersedes the live one)
    #[arg(long, value_name = "TOPIC", requires = "decision")]
    topic: Option<String>,
    /// When to look at the quick decision (or, without --decision, the --section) again: a
    /// date, `3 months`, `2 weeks`, `3个月后`, `2周后`, `立即`, or a phrase kept as written
    #[arg(long, value_name = "WHEN")]
    review: Option<String>,
    /// PROJECT section for --text or --line
    #[arg(long, value_name = "NAME")]
    section: Option<String>,
    /// New body of --section
    #[arg(long, value_name = "TEXT", requires = "section")]
    text: Option<String>,
    /// One line to add to --section (or to put in place of --replaces)
    #[arg(
        long,
        value_name = "LINE",
        requires = "section",
        conflicts_with = "text"
    )]
    line: Option<String>,
    /// Exact existing line of --section that --line replaces
    #[arg(long, value_name = "LINE", requires = "line")]
    replaces: Option<String>,
    /// Things that look stale or wrong, stored as a report for the user
    #[arg(long, value_name = "TEXT")]
    notes: Option<String>,
    /// Who is writing, as recorded in the event log
    #[arg(long, default_value = "cli")]
    actor: String,
    /// The agent session writing (its own writes are not announced back to it)
    #[arg(long, value_name = "ID", conflicts_with = "actor")]
    agent_session: Option<String>,
}

fn quick_input(a: &CheckpointArgs) -> Option<CheckpointInput> {
    let mut input = CheckpointInput::default();
    if let Some(done) = &a.session_done {
        input.sessions.push(SessionInput {
            done: done.clone(),
            area: a.area.clone(),
            open: a.open.clone(),
            next: a.next.clone(),
        });
    }
    if let Some(choice) = &a.decision {
        input.decisions.push(DecisionInput {
            choice: choice.clone(),
            over: a.over.clone(),
            because: a.because.clone(),
            area: None,
            supersedes: a.supersedes.clone(),
            topic: a.topic.clone(),
            review: a.review.clone(),
        });
    }
    if let Some(section) = &a.section {
        input.project.push(ProjectInput {
            section: section.clone(),
            text: a.text.clone(),
            line: a.line.clone(),
            replaces: a.replaces.clone(),
            review: a.review.clone().filter(|_| a.decision.is_none()),
        });
    }
    input.notes = a.notes.clone();
    let any = !input.sessions.is_empty()
        || !input.decisions.is_empty()
        || !input.project.is_empty()
        || input.notes.is_some();
    any.then_some(input)
}

pub fn run(ctx: &Context, a: CheckpointArgs) -> Result<()> {
    let quick = quick_input(&a);
    let input = match (&a.file, quick) {
        (Some(_), Some(_)) => {
            return Err(Error::bad_input(
                "give a JSON batch file or quick flags, not both",
            ));
        }
        (None, Some(q)) => q,
        (file, None) => {
            let (text, source) = match file {
                Some(p) if p.as_os_str() != "-" => (
                    std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?,
                    p.display().to_string(),
                ),
                _ => {
                    let mut s = String::new();
                    std::io::stdin()
                        .read_to_string(&mut s)
                        .map_err(|e| Error::io("<stdin>", e))?;
                    (s, "stdin".to_string())
                }
            };
            if text.trim().is_empty() {
                return Err(Error::bad_input(format!(
                    "{source}: empty input; pipe a JSON batch or use quick flags (see `trilogy checkpoint --help`)"
                )));
            }
            ops::parse_input(&text, &source)?
        }
    };
    let (flag, value) = match &a.agent_session {
        Some(id) => ("--agent-session", id),
        None => ("--actor", &a.actor),
    };
    crate::model::check_actor(value).map_err(|why| {
        Error::bad_input(format!(
            "{flag} {why}: it is written into the event log as it is; nothing was stored"
        ))
    })?;
    let actor = match &a.agent_session {
        Some(id) => crate::model::agent_actor(id),
        None => a.actor.clone(),
    };
    let out = ops::checkpoint(&ctx.ws, &actor, &input)?;
    for e in &out.value.rules_unrefreshed {
        eprintln!("warning: could not refresh the memory block: {e}");
    }
    format::warn_sync(&out.report);
    format::print(ctx, &out.value, format::checkpoint)
}
