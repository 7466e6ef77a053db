//! The block's text pieces: an entry or section as the block shows it (cutting text to its
//! room and the token estimate are `model::text`'s). Pure string work, no store.

use crate::model::{EntryRecord, SectionRecord};

pub(super) fn section_text(s: &SectionRecord) -> String {
    format!("## {}\n{}", s.heading, s.body)
}

pub(super) fn entries_text(list: &[&EntryRecord]) -> String {
    list.iter()
        .map(|e| {
            if e.body.is_empty() {
                format!("## {}", e.heading)
            } else {
                format!("## {}\n{}", e.heading, e.body)
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}
