//! The panel's server over real HTTP: the original plugin's endpoints, hostile requests, and
//! the panel's view of what the agents see.

#[path = "../common/mod.rs"]
mod common;

mod hostile_requests;
mod panel_api;
mod serve_http;
