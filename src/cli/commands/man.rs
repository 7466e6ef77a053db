//! `trilogy man`: the man page (roff), generated from the same clap definition that parses the
//! arguments, printed to stdout for the user to put where `man` looks.

use crate::error::{Error, Result};

use super::super::format;

/// The page for `cli`, the whole command tree.
pub fn run(cli: clap::Command) -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cli)
        .render(&mut page)
        .map_err(|e| Error::Internal(format!("rendering the man page: {e}")))?;
    format::emit_bytes(&page);
    Ok(())
}
