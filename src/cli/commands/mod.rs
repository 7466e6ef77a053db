//! One module per top-level verb: each holds its `<Verb>Args` (what clap parses) and its
//! `run`, which turns the arguments into the `ops` call doing the work and hands the result
//! to `format`. A verb module never opens the workspace itself (its [`Context`] is built once
//! by `cli::run`). Where two verbs share one noun they
//! share its code in the verb that owns it: `uninstall` runs `install`'s, `user edit` opens
//! the editor `review` opens.
//!
//! [`Context`]: super::Context

pub mod block;
pub mod checkpoint;
pub mod clear;
pub mod completions;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod due;
pub mod export;
pub mod hook;
pub mod import;
pub mod init;
pub mod inject;
pub mod install;
pub mod log;
pub mod man;
pub mod mcp;
pub mod merge_driver;
pub mod read;
pub mod recall;
pub mod reindex;
pub mod reports;
pub mod resolve;
pub mod restore;
pub mod retire;
pub mod review;
pub mod search;
pub mod serve;
pub mod sessions;
pub mod status;
pub mod uninstall;
pub mod user;

use crate::error::Result;

/// A `--since`/`--until` style flag's day, if given.
fn parse_date(flag: &str, v: &Option<String>) -> Result<Option<chrono::NaiveDate>> {
    v.as_deref()
        .map(|s| crate::model::parse_day(&format!("--{flag}"), s))
        .transpose()
}
