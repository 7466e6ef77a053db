//! `trilogy reports`: the reports left by checkpoint `notes`, listed, or one closed.

use clap::Args;

use crate::error::Result;
use crate::ops;

use super::super::{Context, format};

#[derive(Args, Debug)]
pub struct ReportsArgs {
    /// Include closed reports
    #[arg(long)]
    all: bool,
    /// Mark report N as dealt with
    #[arg(long, value_name = "N")]
    close: Option<u64>,
}

pub fn run(ctx: &Context, a: ReportsArgs) -> Result<()> {
    match a.close {
        Some(n) => {
            let r = ops::close_report(&ctx.ws, "cli", n)?;
            format::print(ctx, &r, format::closed_report)
        }
        None => {
            let list = ops::reports(&ctx.ws, a.all)?;
            format::print(ctx, &list, |l| {
                if l.is_empty() {
                    return "(no open reports)".into();
                }
                l.iter()
                    .map(|r| {
                        format!(
                            "#{} {} {} ({}): {}",
                            r.seq,
                            if r.open { "open  " } else { "closed" },
                            r.at,
                            r.actor,
                            r.text
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
    }
}
