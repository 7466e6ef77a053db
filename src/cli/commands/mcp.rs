//! `trilogy mcp`: the MCP tools served on stdio. The server opens its own workspace for each
//! call, so this verb builds none.

use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result};

#[derive(Args, Debug)]
pub struct McpArgs {
    /// The agent session this server belongs to, when the host tells it (its writes are then
    /// not announced back to that session); also read from TRILOGY_AGENT_SESSION
    #[arg(long, value_name = "ID")]
    agent_session: Option<String>,
}

/// Serve until the client closes stdin; `root` and `overrides` are the global options.
pub fn run(a: McpArgs, root: Option<PathBuf>, overrides: Vec<String>) -> Result<()> {
    if let Some(id) = &a.agent_session {
        crate::model::check_actor(id).map_err(|why| {
            Error::bad_input(format!("--agent-session {why}; give the host's session id"))
        })?;
    }
    crate::mcp::serve(root, overrides, a.agent_session)
}
