//! What the memory panel asks that no other surface does, answered from one read of the
//! store each: a file's entries as cards (each with its version, provenance and what names
//! it), PROJECT.md's sections and one section's revisions, where an entry stands now, what
//! waits for a person and how far PROJECT.md lags, restorable entries and sessions per week.
//!
//! Each answer is a typed value that serializes to the panel's JSON; shaping the request
//! and the HTTP answer is the panel's (`web`). Nothing here writes: the panel's fixes are
//! [`super::fix`], [`super::restore`] and [`super::gate`], like everyone's.

mod cards;

pub use cards::{
    Card, Page, Place, Revision, Revisions, SectionCard, Sections, current, entries, place,
    revisions, section_heading, sections,
};
