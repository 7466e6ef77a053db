//! `trilogy inject`: the session-start block an agent sees, with its ledger, printed as a
//! host's hooks would give it.

use clap::Args;

use crate::error::{Error, Result};
use crate::model::host::{Host, HostLimits};
use crate::ops::agent::{self, Source};

use super::super::{Context, format};

#[derive(Args, Debug)]
pub struct InjectArgs {
    /// Agent session id: the block is printed only when that session does not have it yet
    #[arg(long)]
    session: Option<String>,
    /// Why the block is asked for: startup, resume, clear or compact (compact and clear always re-inject)
    #[arg(long, default_value = "startup")]
    source: String,
    /// The model's context window in tokens (the budget is at most 16% of it)
    #[arg(long, value_name = "N")]
    window_tokens: Option<u64>,
    /// Characters the host keeps of the block (Claude Code keeps 10000)
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
    /// Host name recorded for the session; claude, codex and gemini also get that host's cap
    /// on the block (Claude Code keeps 10000 characters, Codex 10000 bytes)
    #[arg(long, default_value = "cli")]
    host: String,
}

pub fn run(ctx: &Context, a: InjectArgs) -> Result<()> {
    let source = Source::parse(&a.source).ok_or_else(|| {
        Error::bad_input(format!(
            "--source `{}`: use startup, resume, clear or compact",
            a.source
        ))
    })?;
    ctx.ws.require_memory()?;
    // a host with hooks gets the block as its hooks would give it (its caps; --max-chars
    // takes the place of its character cap, and a byte cap stays)
    let host = Host::parse(&a.host).map(Host::limits).unwrap_or_default();
    let limits = HostLimits {
        window_tokens: a.window_tokens,
        char_cap: a.max_chars.or(host.char_cap),
        ..host
    };
    let inj = agent::inject(&ctx.ws, &a.host, a.session.as_deref(), source, limits)?;
    format::print(ctx, &inj, |i| {
        if i.injected {
            i.block.text.clone()
        } else {
            i.notice.clone().unwrap_or_default()
        }
    })
}
