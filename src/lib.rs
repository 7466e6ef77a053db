//! trilogy: project memory for AI coding agents.
//!
//! Three Markdown files per project (`memory/PROJECT.md`, `DECISIONS.md`, `SESSIONS.md`) are
//! deterministic projections of a transactional redb store; edits made to the files are parsed
//! back and merged. Dependencies point down: `base` (every touch point with the operating
//! system; it imports nothing of ours) → `model` → `markdown`/`store` → `workspace` → `ops`
//! → surfaces (`cli`). Library code never prints.

#![forbid(unsafe_code)]

pub mod base;
pub mod config;
pub mod error;
pub mod markdown;
pub mod mcp;
pub mod model;
pub mod schema;
pub mod secrets;
pub mod store;
pub mod user;

pub use error::{Error, ErrorKind, Exit, Result};
pub mod cli;
pub mod hooks;
pub mod index;
pub mod ops;
pub mod recall;
pub mod registry;
pub mod web;
pub mod workspace;

/// Send `tracing` output to stderr, filtered by `TRILOGY_LOG` (default `warn`): the long-running
/// surfaces (the MCP server, whose stdout is its protocol, and the panel's server) log there.
pub fn log_to_stderr() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TRILOGY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
}
