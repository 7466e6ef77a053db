//! `trilogy export`: the memory files written as one JSON bundle (the original plugin's format).

use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result};
use crate::ops::bundle;

use super::super::{Context, format};

pub const HELP: &str = "\
Write the workspace's memory files as one JSON bundle, in the original dsh-trilogy plugin's
shape: {\"kind\": \"dsh-trilogy/memory-bundle\", \"version\": 1, \"exportedAt\", \"root\",
\"files\": {\"PROJECT.md\": \"…\", …}}. Only files that exist are included (the archive too).
The original plugin imports it, and so does `trilogy import`.

Examples:
  trilogy export > memory.json
  trilogy export --out ../backup/app-memory-2026-05-01.json";

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Write the bundle to this file (atomically) instead of stdout
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Your user memory (USER.md and its proposals) instead of the workspace's; a workspace
    /// bundle never holds it
    #[arg(long)]
    user: bool,
}

pub fn run(ctx: &Context, a: ExportArgs) -> Result<()> {
    let b = match a.user {
        true => bundle::export(crate::workspace::user::ready(&ctx.ws)?)?,
        false => bundle::export(&ctx.ws)?,
    };
    let text = serde_json::to_string_pretty(&b)
        .map_err(|e| Error::Internal(format!("bundle json: {e}")))?
        + "\n";
    let Some(out) = a.out else {
        format::emit_bytes(text.as_bytes());
        return Ok(());
    };
    crate::workspace::write_atomic(&out, text.as_bytes())?;
    let summary = serde_json::json!({
        "out": out.display().to_string(),
        "files": b.files.keys().collect::<Vec<_>>(),
        "bytes": text.len(),
    });
    format::print(ctx, &summary, |_| {
        format!(
            "wrote {} ({}; {} bytes)",
            out.display(),
            b.files.keys().cloned().collect::<Vec<_>>().join(", "),
            text.len()
        )
    })
}
