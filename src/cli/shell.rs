//! `trilogy completions <shell>` and `trilogy man`: the completion script and the man page,
//! generated from the same clap definition that parses the arguments (so they never drift
//! from it), printed to stdout for the user to put where their shell or `man` looks.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::error::{Error, Result};

use super::{Cli, format};

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish
    shell: Shell,
}

pub fn completions(a: &CompletionsArgs) -> Result<()> {
    let mut cmd = Cli::command();
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, name, &mut script);
    format::emit_bytes(&script);
    Ok(())
}

pub fn man() -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| Error::Internal(format!("rendering the man page: {e}")))?;
    format::emit_bytes(&page);
    Ok(())
}
