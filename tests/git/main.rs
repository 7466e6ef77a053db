//! Git as the way memory travels: the merge driver and fresh clones, git beside trilogy's
//! writers, branch switches, sibling worktrees and provenance.

#[path = "../common/mod.rs"]
mod common;

mod anchors;
mod beside_writers;
mod branch_switch;
mod merge_driver;
mod property;
mod provenance;
mod siblings;
mod team;
mod without_git;
