//! PROJECT.md's sections: the five fixed ones in both languages, the empty-section marker, and
//! the record and revisions the store keeps of each.

use super::Lang;

use serde::{Deserialize, Serialize};

/// The five fixed PROJECT sections: current Chinese heading, English heading.
pub const SECTIONS: [(&str, &str); 5] = [
    ("这是什么", "What this is"),
    ("怎么跑和怎么测", "Run and test"),
    ("东西都在哪", "Where things live"),
    ("现状", "State"),
    ("坑", "Traps"),
];

/// Slot (0..5) of a section name in either language, case-insensitive.
pub fn section_slot(name: &str) -> Option<usize> {
    let n = name.trim().to_lowercase();
    SECTIONS
        .iter()
        .position(|(zh, en)| n == *zh || n == en.to_lowercase())
}

/// Heading of section `slot` in `lang`.
pub fn section_heading(slot: usize, lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => SECTIONS[slot].0,
        Lang::En => SECTIONS[slot].1,
    }
}

/// Store key of a PROJECT section: the slot for the five fixed ones, else the heading.
pub fn section_key(heading: &str) -> String {
    match section_slot(heading) {
        Some(slot) => format!("{}", slot + 1),
        None => format!("x:{}", heading.trim().to_lowercase()),
    }
}

/// The list of valid section names, for error messages.
pub fn section_names_help() -> String {
    SECTIONS
        .iter()
        .map(|(zh, en)| format!("{zh} / {en}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The empty-section body.
pub fn empty_marker(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "暂无",
        Lang::En => "None yet",
    }
}

/// True when a section body says "nothing here" (`暂无`, `None yet`, legacy `none yet`, blank).
pub fn is_empty_body(body: &str) -> bool {
    let t = body.trim().to_lowercase();
    t.is_empty() || t == "暂无" || t == "none yet"
}

/// `text` without leading blank lines and trailing whitespace; the first line's indentation
/// is content (an indented code block), so it stays.
pub fn trim_blank_lines(text: &str) -> &str {
    let t = text.trim_end();
    let mut start = 0;
    for line in t.split_inclusive('\n') {
        if line.trim().is_empty() {
            start += line.len();
        } else {
            break;
        }
    }
    &t[start..]
}

/// A PROJECT.md section as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionRecord {
    /// `1`..`5` for the fixed sections, `x:<heading>` for others.
    pub key: String,
    pub heading: String,
    /// Body after the heading line, verbatim (usually starts with a blank line).
    pub body: String,
    /// Position in the file.
    pub order: u32,
    /// Deleted from the file by hand; kept, restorable.
    pub removed: bool,
    /// Revision number, starting at 1.
    pub revision: u64,
}

impl crate::secrets::Headed for SectionRecord {
    fn heading(&self) -> &str {
        &self.heading
    }
    fn body(&self) -> &str {
        &self.body
    }
}

impl SectionRecord {
    /// The body without the blank lines around it (indentation of the first line is kept).
    pub fn text(&self) -> &str {
        trim_blank_lines(&self.body)
    }
}

/// One revision of a section, kept forever.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionRevision {
    pub key: String,
    pub revision: u64,
    pub heading: String,
    pub body: String,
    pub at: String,
    pub actor: String,
}
