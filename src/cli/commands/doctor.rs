//! `trilogy doctor`: the findings about the store, the files, the index and the managed
//! blocks, and with `--fix` what was repaired; an error found exits with the doctor code.

use clap::Args;

use crate::error::{Exit, Result};
use crate::ops;

use super::super::{Context, format};

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Repair what is safe: absorb and re-render the files, rebuild the index, sweep temp files
    #[arg(long)]
    fix: bool,
}

pub fn run(ctx: &Context, a: DoctorArgs) -> Result<()> {
    let report = ops::doctor::doctor(&ctx.ws, &ctx.vars, a.fix)?;
    format::print(ctx, &report, |r| {
        let mut lines: Vec<String> = r.fixed.iter().map(|f| format!("fixed: {f}")).collect();
        if r.worst() == ops::doctor::Level::Ok {
            lines.push("all checks passed".into());
        }
        for f in &r.findings {
            let level = format!("{:?}", f.level).to_lowercase();
            lines.push(format!("{level:<5} {:<13} {}", f.check, f.message));
            if !f.action.is_empty() {
                lines.push(format!("      {:<13} → {}", "", f.action));
            }
        }
        lines.join("\n")
    })?;
    if report.worst() == ops::doctor::Level::Error {
        std::process::exit(Exit::Doctor.code());
    }
    Ok(())
}
