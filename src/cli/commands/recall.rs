//! `trilogy recall`: what was said in this project's agent sessions, found in the hosts' own
//! transcripts; `--status` for how complete the index is, `--forget` to delete it.

use clap::Args;

use crate::error::{Error, Result};
use crate::model::host::Host;
use crate::recall::{self, RecallQuery};

use super::super::{Context, format, progress};

pub const HELP: &str = "\
Searches what you typed and what the agents answered in this workspace's sessions of Claude
Code (~/.claude/projects), Codex (~/.codex/sessions), Gemini CLI (~/.gemini/tmp) and DeepSeek
Harness ($DSH_HOME/sessions) — never tool calls or their output, thinking, compaction
summaries, or trilogy's own blocks and notices. Each hit says where it is: host, session, the
line in its file. The index lives in your cache folder ($XDG_CACHE_HOME/trilogy/recall), never
in the repository; it is built on the first recall and topped up before each one. Secrets are
masked. recall_enabled = false turns it off; recall_hosts picks the hosts.

Examples:
  trilogy recall flaky test tuesday
  trilogy recall 链接 参数 --host codex --since 2026-11-01
  trilogy recall --status
  trilogy recall --forget";

#[derive(Args, Debug)]
pub struct RecallArgs {
    /// Words to find (keywords work best)
    #[arg(required_unless_present_any = ["status", "forget"])]
    query: Vec<String>,
    /// Only what was said on or after this day (YYYY-MM-DD)
    #[arg(long)]
    since: Option<String>,
    /// Only this host's sessions
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Host::recalled().map(Host::as_str)))]
    host: Option<String>,
    /// At most this many hits (default 5, at most 20)
    #[arg(long, default_value_t = 0)]
    limit: usize,
    /// How complete the index is: files found per host, indexed, pending, unreadable
    #[arg(long, conflicts_with_all = ["query", "forget"])]
    status: bool,
    /// Delete this workspace's recall index (the transcripts are not touched)
    #[arg(long, conflicts_with = "query")]
    forget: bool,
}

pub fn run(ctx: &Context, a: RecallArgs) -> Result<()> {
    if a.forget {
        let gone = recall::forget(&ctx.ws)?;
        let v = serde_json::json!({ "deleted": gone });
        return format::print(ctx, &v, |_| match gone {
            true => "deleted this workspace's recall index".into(),
            false => "there was no recall index for this workspace".into(),
        });
    }
    if a.status {
        let s = recall::status(&ctx.ws)?;
        return format::print(ctx, &s, status);
    }
    let q = RecallQuery {
        text: a.query.join(" "),
        since: super::parse_date("since", &a.since)?,
        host: a
            .host
            .as_deref()
            .map(|h| Host::parse(h).ok_or_else(|| Error::bad_input(format!("unknown host `{h}`"))))
            .transpose()?,
        limit: a.limit,
        hosts: Vec::new(),
    };
    let mut bar = progress::Bar::stderr("reading transcripts", ctx.json);
    let out = recall::recall(&ctx.ws, &q, &mut |done, total| bar.update(done, total))?;
    drop(bar);
    format::print(ctx, &out, |o| {
        if o.hits.is_empty() {
            return "nothing said in this workspace's sessions matches".into();
        }
        let mut lines = Vec::new();
        for h in &o.hits {
            lines.push(h.place());
            lines.extend(h.text.lines().map(|l| format!("  > {l}")));
            if let Some(b) = &h.before {
                let first = b.lines().next().unwrap_or_default();
                lines.push(format!("  (before: {first})"));
            }
        }
        lines.join("\n")
    })
}

fn status(s: &recall::Status) -> String {
    let mut out = vec![format!(
        "{} · {} messages · {} bytes{}",
        if s.complete {
            "complete"
        } else {
            "not complete"
        },
        s.messages,
        s.index_bytes,
        s.last_build
            .as_deref()
            .map(|t| format!(" · built {t}"))
            .unwrap_or_default()
    )];
    for h in &s.hosts {
        out.push(format!(
            "  {:<7} found {} · indexed {} · pending {} · unreadable {}",
            h.host, h.found, h.indexed, h.pending, h.unreadable
        ));
    }
    if s.skipped > 0 {
        out.push(format!(
            "  {} line(s) of a shape this trilogy does not know were skipped",
            s.skipped
        ));
    }
    for u in &s.unreadable {
        out.push(format!("  unreadable: {} ({})", u.file, u.why));
    }
    out.push(format!("  index: {}", s.dir));
    out.join("\n")
}
