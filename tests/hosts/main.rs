//! What the agents' hosts drive: the hooks and the session-start block, installs into the
//! hosts' settings, the MCP server, the command line and reading.

#[path = "../common/mod.rs"]
mod common;

mod block_budget;
mod cli;
mod dsh_hook;
mod first_hour;
mod help_topics;
mod hooks;
mod host_command_lines;
mod install_config;
mod install_hosts;
mod mcp;
mod new_user_trips;
mod notices;
mod original_habits;
mod project_location;
mod read;
mod read_request;
mod rules_file;
