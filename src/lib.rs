//! trilogy: project memory for AI coding agents.
//!
//! Three Markdown files per project (`memory/PROJECT.md`, `DECISIONS.md`, `SESSIONS.md`) are
//! deterministic projections of a transactional redb store; edits made to the files are parsed
//! back and merged. Library code never prints.
//!
//! # The rooms, from the foundation up
//!
//! Each room imports only the rooms before it, and no two modules import each other (a facade
//! and its own children aside); `tests/repo/layers.rs` reads every import and says where the
//! code is not there yet.
//!
//! - `base`: every touch point with the operating system (the user's folders, whole-file
//!   writes, the regular-file fence, locks, process liveness, the clock, digests) and the fault
//!   points the crash tests use (compiled only with the `faults` feature). Imports nothing of
//!   ours.
//! - `error`, `secrets`, `model`, `config`, `schema`: pure types and rules: entries, sections,
//!   areas, hosts, settings, the credential scan.
//! - `markdown` (render, parse, merge), `store` (the only room naming redb), `index` (the only
//!   one naming tantivy).
//! - `workspace`: where memory lives, its lock and the sync protocol; the user's own memory
//!   (USER.md) is a workspace of the user scope (`workspace/user.rs`).
//! - `recall` (the hosts' transcripts and their index), `registry` (the workspaces this person
//!   has, for the panel and `trilogy agent`): built on workspaces, below every use case.
//! - `ops`: one module per use case; the only callers of transactions.
//! - Surfaces: `cli`, `hooks`, `mcp`, `web`: parse input, call `ops`, format the answer.
//!
//! # A checkpoint, from the command line to the store's commit
//!
//! 1. `main` calls `cli::run`, which parses the arguments (clap, only in `cli/`), matches the
//!    verb once and builds its `Context` (`cli/context.rs`): the environment snapshot, the
//!    settings, the workspace found from the working directory (`workspace/locate.rs`).
//! 2. `cli/commands/checkpoint.rs` reads the batch (`ops::parse_input`) and calls
//!    `ops::checkpoint`, which checks it whole before anything is written
//!    (`ops/checkpoint/validate.rs`: schema, sizes, credentials).
//! 3. `ops/checkpoint/submit.rs` drops the batch into `.trilogy/queue/` and either waits for
//!    the process that leads or leads itself: `lead_round` (`ops/checkpoint/group.rs`) claims
//!    the waiting batches and applies them in one `Workspace::write`.
//! 4. `Workspace::write` (`workspace/mod.rs`) opens the store's write transaction as a `Tx` and
//!    first absorbs what people and git changed in the files (`workspace/sync/absorb.rs`:
//!    parse, three-way diff against the version trilogy last wrote, events in the log).
//! 5. Each batch is applied under its own author (`Tx::as_author`: actor, time, session), into
//!    the store's tables through `store`.
//! 6. `Tx::finish` (`workspace/sync/project.rs`) renders every changed file (`markdown`), holds
//!    git's index lock while it swaps them in (`workspace/sync/gitlock.rs`), commits the store
//!    durably, and each waiting writer reads its own outcome.
//! 7. Back in `ops::checkpoint`, a call that wrote something refreshes the block in each
//!    rules file that holds it (`ops/regions.rs`: hosts without hooks re-read that file every
//!    turn); the command prints the outcome, warning of a rules file it could not refresh.
//!
//! # A Claude Code session start, to the printed block
//!
//! 1. Claude Code runs `trilogy hook claude session-start` (the line `trilogy install claude`
//!    wrote into its settings) with its JSON on stdin.
//! 2. `cli/commands/hook.rs` hands stdin to `hooks::run`, which reads the JSON through the
//!    host's dialect (`hooks/dialect/claude.rs`) into a call and an `Event`.
//! 3. The one set of session rules (`hooks/session.rs`) finds the workspace from the payload,
//!    and asks `ops::agent::inject` for the block within the host's limits
//!    (`model::host::Host::limits`).
//! 4. `ops/agent.rs` reads the store in one snapshot (`Workspace::read`, which brings hand
//!    edits in first when the files differ from what the store wrote) and assembles the block
//!    (`ops/session_block/`: the budget shared out in `alloc.rs`, cut to fit in `assemble.rs`,
//!    written in `render.rs`), noting in the session's record what it was given.
//! 5. The dialect answers in Claude Code's form (`hookSpecificOutput.additionalContext`). A
//!    hook never fails the host: whatever goes wrong, it prints nothing and leaves a line in
//!    `.trilogy/hooks.log`.

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
