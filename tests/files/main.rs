//! The Markdown files as a projection of the store: the laws of render and parse, files written
//! by hand or by the original plugin, bad input, the archive, templates, and saves a person or
//! a program makes from an older copy or at a bad moment.

#[path = "../common/mod.rs"]
mod common;

mod archive;
mod archive_chunks;
mod area_names;
mod bad_input;
mod grown_archive;
mod hand_written_files;
mod late_saves;
mod regressions;
mod roundtrip;
#[cfg(unix)]
mod saves_at_bad_moments;
mod section_model;
mod section_race;
mod section_saves;
mod stale_model;
mod stale_saves;
mod sync;
#[cfg(unix)]
mod templates;
