//! End to end with the real programs, run only when named (`cargo test --test e2e`;
//! `tests/e2e/run` installs them): the agent CLIs, DeepSeek Harness, headless Chromium for the
//! panel and the MCP clients.

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod dsh;
mod harness;
mod hosts;
mod kit_memory;
mod mcp;
