//! `trilogy completions <shell>`: the completion script, generated from the same clap
//! definition that parses the arguments (so it never drifts from it), printed to stdout for
//! the user to put where their shell looks.

use clap::Args;
use clap_complete::Shell;

use crate::error::Result;

use super::super::format;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish
    shell: Shell,
}

/// The script for `a.shell`, generated from `cli`, the whole command tree.
pub fn run(a: CompletionsArgs, mut cli: clap::Command) -> Result<()> {
    let name = cli.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cli, name, &mut script);
    format::emit_bytes(&script);
    Ok(())
}
