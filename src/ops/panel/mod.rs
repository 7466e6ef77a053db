//! What the memory panel asks that no other surface does, answered from one read of the
//! store each: a file's entries as cards (each with its version, provenance and what names
//! it), PROJECT.md's sections and one section's revisions, where an entry stands now, what
//! waits for a person and how far PROJECT.md lags, restorable entries and sessions per week.
//!
//! Each answer is a typed value that serializes to the panel's JSON; reading the request and
//! shaping the HTTP answer is the panel's (`web`). Every answer is a read (which, like every
//! read, takes in a hand edit first); the panel's fixes are [`super::fix`],
//! [`super::restore`] and [`super::proposals`], as everyone's are.

mod attention;
mod cards;
mod history;

pub use attention::{Attention, Lags, attention, change, lag, take_in_edits};
pub use cards::{
    Card, Page, Place, Revision, Revisions, SectionCard, Sections, current, entries, place,
    revisions, section_heading, sections,
};
pub use history::{History, Restorable, Review, ReviewReport, Week, history, review, weeks};
