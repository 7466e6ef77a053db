//! What is searchable: the document made of an entry or a PROJECT section, and the changes
//! the index has not applied yet.

use std::collections::{HashMap, HashSet};

use crate::error::Result;
use crate::model::{EntryRecord, FileKind, SectionRecord, State};
use crate::store::Reader;

use chrono::NaiveDate;

/// What is searchable: an entry in a file, or a PROJECT section.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDoc {
    /// `e:<id>`, `s:<section key>` or `p:<file name>` (a file's prose).
    pub key: String,
    pub kind: &'static str,
    pub file: &'static str,
    pub area: String,
    pub state: &'static str,
    pub date: Option<NaiveDate>,
    /// Store order: an entry's insertion sequence (higher = newer); 0 for sections and prose.
    pub seq: u64,
    pub heading: String,
    pub body: String,
}

/// Changes the index has not applied (another process holds its writer, or too few to be
/// worth a commit): a search reads these from the store instead, so no answer is stale.
#[derive(Debug, Default)]
pub struct Pending {
    /// The current version of each pending change that is searchable.
    pub docs: Vec<SearchDoc>,
    /// Every pending key (`e:<id>`, `s:<key>`): what the index holds for them is outdated.
    pub keys: HashSet<String>,
}

impl Pending {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl SearchDoc {
    pub(super) fn of_entry(e: &EntryRecord) -> Option<SearchDoc> {
        let file = e.file()?;
        // a credential written in by hand stays out of the index until it is removed
        if crate::secrets::in_record(e).is_some() {
            return None;
        }
        Some(SearchDoc {
            key: format!("e:{}", e.id),
            kind: e.kind.as_str(),
            file: file.file_name(),
            area: e.area().to_lowercase(),
            state: e.state.as_str(),
            date: e.date(),
            seq: e.seq,
            heading: e.heading.clone(),
            body: e.body.clone(),
        })
    }

    /// The prose a person wrote above a file's entries (all of a file written without
    /// headings): searchable like an entry of that file.
    pub(super) fn of_prose(f: FileKind, preamble: &str) -> Option<SearchDoc> {
        let prose = crate::markdown::prose(preamble);
        if prose.is_empty() || crate::secrets::find(&prose).is_some() {
            return None;
        }
        Some(SearchDoc {
            key: format!("p:{}", f.file_name()),
            kind: "prose",
            file: f.file_name(),
            area: String::new(),
            state: State::Live.as_str(),
            date: None,
            seq: 0,
            heading: f.file_name().to_string(),
            body: prose,
        })
    }

    /// A PROJECT section, unless it holds nothing yet: a section that is still its template's
    /// placeholder (`暂无`, `None yet`) answers no question, and its short heading would
    /// otherwise outrank every entry for a question that starts with the same word.
    pub(super) fn of_section(s: &SectionRecord) -> Option<SearchDoc> {
        let placeholder = matches!(s.text().trim(), "" | "暂无" | "None yet" | "None yet.");
        (!s.removed && !placeholder && crate::secrets::in_record(s).is_none()).then(|| SearchDoc {
            key: format!("s:{}", s.key),
            kind: "section",
            file: FileKind::Project.file_name(),
            area: String::new(),
            state: State::Live.as_str(),
            date: None,
            seq: 0,
            heading: s.heading.clone(),
            body: s.text().to_string(),
        })
    }
}

impl SearchDoc {
    /// What a hit shows of this document: its whole text.
    pub(super) fn text(&self) -> String {
        whole_text(self.kind, &self.heading, &self.body)
    }

    /// See [`recency`].
    pub(super) fn recency(&self) -> u64 {
        recency(self.state, self.date, self.seq)
    }
}

/// State, date and store order in one number, for documents with equal scores: the higher
/// ranks first. Live before superseded and retired before archived, then the later date (undated last),
/// then the later in store order. Bits: state 58–59, days since 0001-01-01 36–57, store
/// order 0–35 (each capped at its width; dates reach past the year 9999).
pub(super) fn recency(state: &str, date: Option<NaiveDate>, seq: u64) -> u64 {
    let state: u64 = if state == State::Live.as_str() {
        2
    } else if state == State::Superseded.as_str() || state == State::Retired.as_str() {
        1
    } else {
        0
    };
    let day = date.map_or(0, |d| super::days(d).clamp(0, (1 << 22) - 1) as u64);
    (state << 58) | (day << 36) | seq.min((1 << 36) - 1)
}

/// The whole text of a document of `kind`: an entry's heading line and body as its file shows
/// them, a PROJECT section's text, a file's prose.
pub(super) fn whole_text(kind: &str, heading: &str, body: &str) -> String {
    match kind {
        "section" | "prose" | "user" => body.to_string(),
        _ if body.is_empty() => format!("## {heading}"),
        _ => format!("## {heading}\n{body}"),
    }
}

/// The current searchable version of `key`, if it is searchable at all.
pub(super) fn load(
    r: &dyn Reader,
    key: &str,
    sections: &HashMap<String, SectionRecord>,
) -> Result<Option<SearchDoc>> {
    if let Some(id) = key.strip_prefix("e:") {
        return Ok(r.entry(id)?.as_ref().and_then(SearchDoc::of_entry));
    }
    if let Some(k) = key.strip_prefix("s:") {
        return Ok(sections.get(k).and_then(SearchDoc::of_section));
    }
    if let Some(name) = key.strip_prefix("p:")
        && let Some(f) = FileKind::from_name(name)
    {
        return Ok(r.preamble(f)?.and_then(|p| SearchDoc::of_prose(f, &p)));
    }
    Ok(None)
}
