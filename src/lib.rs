//! trilogy: project memory for AI coding agents.
//!
//! Three Markdown files per project (`memory/PROJECT.md`, `DECISIONS.md`, `SESSIONS.md`) are
//! deterministic projections of a transactional redb store; edits made to the files are parsed
//! back and merged. Dependencies point down: `model` → `markdown`/`store` → `workspace` → `ops`
//! → surfaces (`cli`). Library code never prints.

#![forbid(unsafe_code)]

pub mod config;
pub mod error;
pub mod markdown;
pub mod mcp;
pub mod model;
pub mod schema;
pub mod secrets;
pub mod store;

pub use error::{Error, ErrorKind, Result};
pub mod cli;
pub mod hooks;
pub mod index;
pub mod ops;
pub mod registry;
pub mod web;
pub mod workspace;
