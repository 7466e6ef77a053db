//! End to end with the real programs, behind the `e2e` feature (`tests/e2e/run` installs them):
//! the agent CLIs, DeepSeek Harness and headless Chromium for the panel.

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod dsh;
mod harness;
mod hosts;
mod kit_memory;
mod mcp;
