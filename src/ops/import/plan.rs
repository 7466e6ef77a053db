//! The mapping every importer produces — pieces of the source, each with where it goes — and
//! the one routine that weighs a plan against the store: the dry run reads with it, the real
//! run writes with it, so the preview is exactly what the import does.
//!
//! A PROJECT piece is a chunk of text added to a section unless the section already holds it;
//! a decision or session is an entry dated by the source (never today), so its content id is
//! the same on every later run and an entry the store knows (in any state) is not added again.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::markdown::{one_line, safe_body};
use crate::model::{
    CATCH_ALL_AREA, EntryKind, EntryRecord, Lang, SectionRecord, State, decision_heading,
    is_empty_body, labels, section_heading, session_heading,
};
use crate::ops::MAX_SECTION_BYTES;
use crate::store::Reader;
use crate::workspace::Tx;

/// Something of the source left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skip {
    /// File (and `:line`) in the source, relative to PATH.
    pub from: String,
    pub reason: String,
}

/// What becomes of a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    Live,
    /// Superseded by the piece whose `handle` this names (or by something not imported).
    Superseded(Option<String>),
    /// In the store only, restorable (a source's expired entry).
    Archived,
}

/// A line of a decision or session beyond its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// The source's semantic key (one live truth per key).
    Topic(String),
    Tags(Vec<String>),
    /// When the source says to look at it again, as it wrote it.
    VerifyWhen(String),
    /// Verbatim.
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionPlan {
    pub date: NaiveDate,
    pub choice: String,
    pub over: Option<String>,
    pub because: Option<String>,
    pub lines: Vec<Line>,
    pub fate: Fate,
    /// The source's id for it, for `Fate::Superseded` links.
    pub handle: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPlan {
    pub date: NaiveDate,
    pub done: String,
    pub open: Option<String>,
    pub next: Option<String>,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Text added to PROJECT section `slot` (0..5).
    Section {
        slot: usize,
        text: String,
    },
    Decision(DecisionPlan),
    Session(SessionPlan),
}

/// One piece of the source and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// `file:line` in the source.
    pub from: String,
    pub target: Target,
}

/// An importer's whole mapping.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub pieces: Vec<Piece>,
    pub skipped: Vec<Skip>,
}

impl Plan {
    pub fn section(&mut self, from: String, slot: usize, text: &str) {
        let text = text.trim_end();
        if !text.trim().is_empty() {
            self.pieces.push(Piece {
                from,
                target: Target::Section {
                    slot,
                    text: text.to_string(),
                },
            });
        }
    }

    pub fn skip(&mut self, from: impl Into<String>, reason: impl Into<String>) {
        self.skipped.push(Skip {
            from: from.into(),
            reason: reason.into(),
        });
    }
}

/// One piece as the preview and the result show it.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    pub from: String,
    /// `PROJECT.md › 这是什么`, `DECISIONS.md`, `SESSIONS.md`.
    pub to: String,
    /// The entry heading, or the section text's first line.
    pub text: String,
    /// `live`, `superseded` or `archived` (entries only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'static str>,
    /// `add` (new), `present` (already there), `removed-here` (known, removed: restorable).
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

fn field(v: &str) -> String {
    crate::markdown::normalize_newlines(v).trim().to_string()
}

fn line_text(l: &Line, lang: Lang) -> String {
    let (topic, tags, verify) = match lang {
        Lang::Zh => ("主题：", "标签：", "复核时机："),
        Lang::En => ("Topic: ", "Tags: ", "Verify when: "),
    };
    match l {
        Line::Topic(t) => format!("{topic}{}", one_line(t)),
        Line::Tags(t) => format!("{tags}{}", t.join(", ")),
        Line::VerifyWhen(t) => format!("{verify}{}", one_line(t)),
        Line::Text(t) => field(t),
    }
}

fn body_of(fields: &[(&str, Option<&str>)], lines: &[Line], lang: Lang) -> String {
    let mut out: Vec<String> = fields
        .iter()
        .filter_map(|(label, v)| {
            let v = field((*v)?);
            (!v.is_empty()).then(|| format!("{label}{v}"))
        })
        .collect();
    out.extend(
        lines
            .iter()
            .map(|l| line_text(l, lang))
            .filter(|l| !l.is_empty()),
    );
    // a last line that reads like a state marker would be taken for one
    crate::model::escape_marker(safe_body(&out.join("\n")))
}

/// The heading and body an entry piece is stored as.
pub fn entry_text(t: &Target, lang: Lang) -> Option<(EntryKind, String, String)> {
    let l = labels(lang);
    match t {
        Target::Section { .. } => None,
        Target::Decision(d) => {
            let title = one_line(d.choice.lines().next().unwrap_or(""));
            let body = body_of(
                &[
                    (l.chose, Some(&d.choice)),
                    (l.over, d.over.as_deref()),
                    (l.because, d.because.as_deref()),
                ],
                &d.lines,
                lang,
            );
            Some((EntryKind::Decision, decision_heading(d.date, &title), body))
        }
        Target::Session(s) => {
            let mut done = field(&s.done);
            if !super::super::checkpoint::has_verification(&done) {
                done.push_str(l.unverified);
            }
            let body = body_of(
                &[
                    (l.done, Some(&done)),
                    (l.open, s.open.as_deref()),
                    (l.next, s.next.as_deref()),
                ],
                &s.lines,
                lang,
            );
            Some((
                EntryKind::Session,
                session_heading(s.date, CATCH_ALL_AREA),
                body,
            ))
        }
    }
}

/// What a plan changes in a store.
#[derive(Debug, Default)]
pub struct Changes {
    /// Section slot → its new text (only sections that change).
    pub sections: BTreeMap<usize, String>,
    /// New entries: kind, heading, body, state, superseded-by heading.
    pub entries: Vec<(EntryKind, String, String, State, Option<String>)>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty() && self.entries.is_empty()
    }
}

/// A PROJECT section's text as an import grows it, its lines indexed by content: whether a
/// chunk is already there (as whole lines, in a row) is found without scanning the text, so an
/// import of tens of thousands of pieces stays linear.
#[derive(Default)]
struct Grown {
    text: String,
    lines: Vec<String>,
    at: HashMap<String, Vec<usize>>,
    changed: bool,
}

impl Grown {
    fn new(text: String) -> Grown {
        let mut g = Grown::default();
        if !text.is_empty() {
            g.index(&text);
        }
        g.text = text;
        g
    }

    fn index(&mut self, text: &str) {
        for l in text.split('\n') {
            self.at
                .entry(l.to_string())
                .or_default()
                .push(self.lines.len());
            self.lines.push(l.to_string());
        }
    }

    /// Whether `chunk`'s lines stand in the text, whole and in a row: looked for only where its
    /// rarest line is (a line of it the text lacks settles it at once).
    fn contains(&self, chunk: &str) -> bool {
        let want: Vec<&str> = chunk.split('\n').collect();
        let mut rarest: Option<(usize, &Vec<usize>)> = None;
        for (k, l) in want.iter().enumerate() {
            let Some(places) = self.at.get(*l) else {
                return false;
            };
            if rarest.is_none_or(|(_, r)| places.len() < r.len()) {
                rarest = Some((k, places));
            }
        }
        let Some((k, places)) = rarest else {
            return false;
        };
        places.iter().filter_map(|q| q.checked_sub(k)).any(|p| {
            p + want.len() <= self.lines.len()
                && want
                    .iter()
                    .enumerate()
                    .all(|(i, l)| self.lines[p + i] == *l)
        })
    }

    /// Add `chunk` at the end: on the next line when both are items of one list, else after a
    /// blank line.
    fn push(&mut self, chunk: &str) {
        if !self.text.is_empty() {
            let item =
                |l: &str| crate::ops::import::text::strip_marker(l).len() != l.trim_start().len();
            let last = self.text.lines().next_back().unwrap_or("");
            let next = chunk.lines().next().unwrap_or("");
            if item(last) && item(next) {
                self.text.push('\n');
            } else {
                self.text.push_str("\n\n");
                self.index("");
            }
        }
        self.text.push_str(chunk);
        self.index(chunk);
        self.changed = true;
    }
}

/// Weigh `plan` against the store `r` (`None`: no memory yet): what each piece would do.
pub fn weigh(r: Option<&dyn Reader>, plan: &Plan, lang: Lang) -> Result<(Vec<Item>, Changes)> {
    let sections: Vec<SectionRecord> = match r {
        Some(r) => r.sections()?,
        None => Vec::new(),
    };
    let mut texts: BTreeMap<usize, Grown> = BTreeMap::new();
    let mut changes = Changes::default();
    let mut items = Vec::new();
    // headings by source handle, for superseded links
    let mut handles: HashMap<String, String> = HashMap::new();
    for p in &plan.pieces {
        if let (Target::Decision(d), Some((_, heading, _))) =
            (&p.target, entry_text(&p.target, lang))
            && let Some(h) = &d.handle
        {
            handles.insert(h.clone(), heading);
        }
    }
    let mut seen_ids: HashSet<String> = HashSet::new();
    for p in &plan.pieces {
        match &p.target {
            Target::Section { slot, text } => {
                let key = format!("{}", slot + 1);
                let cur = texts.entry(*slot).or_insert_with(|| {
                    Grown::new(
                        sections
                            .iter()
                            .find(|s| s.key == key && !s.removed && !is_empty_body(&s.body))
                            .map(|s| s.text().to_string())
                            .unwrap_or_default(),
                    )
                });
                let present = cur.contains(text);
                if !present {
                    cur.push(text);
                }
                items.push(Item {
                    from: p.from.clone(),
                    to: format!("PROJECT.md › {}", section_heading(*slot, lang)),
                    text: first_line(text),
                    state: None,
                    status: if present { "present" } else { "add" },
                    id: None,
                });
            }
            t => {
                let Some((kind, heading, body)) = entry_text(t, lang) else {
                    continue;
                };
                let id = crate::model::entry_id(kind, &heading, &body);
                let (state, by) = match t {
                    Target::Decision(d) => match &d.fate {
                        Fate::Live => (State::Live, None),
                        Fate::Superseded(h) => (
                            State::Superseded,
                            h.as_ref()
                                .map(|h| handles.get(h).cloned().unwrap_or(h.clone())),
                        ),
                        Fate::Archived => (State::Archived, None),
                    },
                    _ => (State::Live, None),
                };
                let known = match r {
                    Some(r) => r.entry(&id)?,
                    None => None,
                };
                let status = match &known {
                    _ if seen_ids.contains(id.as_str()) => "present",
                    Some(e) if matches!(e.state, State::Removed | State::Replaced) => {
                        "removed-here"
                    }
                    Some(_) => "present",
                    None => "add",
                };
                if status == "add" {
                    changes
                        .entries
                        .push((kind, heading.clone(), body, state, by));
                }
                seen_ids.insert(id.clone());
                items.push(Item {
                    from: p.from.clone(),
                    to: match kind {
                        EntryKind::Decision => "DECISIONS.md".into(),
                        EntryKind::Session => "SESSIONS.md".into(),
                    },
                    text: heading,
                    state: Some(match state {
                        State::Superseded => "superseded",
                        State::Archived => "archived",
                        _ => "live",
                    }),
                    status,
                    id: Some(id),
                });
            }
        }
    }
    for (slot, grown) in texts {
        if grown.changed {
            changes.sections.insert(slot, grown.text);
        }
    }
    for (slot, text) in &changes.sections {
        if text.len() > MAX_SECTION_BYTES {
            return Err(Error::bad_input(format!(
                "PROJECT section `{}` would hold {} bytes, over the {MAX_SECTION_BYTES}-byte limit; import less into it or trim the source (nothing was imported)",
                section_heading(*slot, lang),
                text.len()
            )));
        }
    }
    Ok((items, changes))
}

fn first_line(text: &str) -> String {
    let l = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let l = l.trim();
    match l.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &l[..i]),
        None => l.to_string(),
    }
}

/// Write what [`weigh`] found into the transaction. Returns the number of entries added.
pub fn apply(tx: &mut Tx, changes: &Changes) -> Result<usize> {
    let lang = tx.lang();
    let sections = tx.store().sections()?;
    for (slot, text) in &changes.sections {
        let key = format!("{}", slot + 1);
        let current = sections.iter().find(|s| s.key == key).cloned();
        let order = match &current {
            Some(c) => c.order,
            None => super::super::checkpoint::canonical_place(tx, &sections, &key)?,
        };
        let heading = current.as_ref().map_or_else(
            || section_heading(*slot, lang).to_string(),
            |c| c.heading.clone(),
        );
        let rec = SectionRecord {
            key: key.clone(),
            heading: heading.clone(),
            body: format!("\n{}", safe_body(text)),
            order,
            removed: false,
            revision: current.as_ref().map_or(1, |c| c.revision + 1),
        };
        tx.put_section(&rec)?;
        tx.log("import-section", vec![key], &heading)?;
    }
    let mut added = 0;
    let mut sessions = false;
    for (kind, heading, body, state, by) in &changes.entries {
        let mut rec: EntryRecord = tx.new_entry(*kind, heading.clone(), body.clone())?;
        if tx.store().entry(&rec.id)?.is_some() {
            continue;
        }
        rec.state = *state;
        rec.superseded_by = by.clone();
        tx.put_entry(&rec)?;
        let file = match kind {
            EntryKind::Decision => "DECISIONS.md",
            EntryKind::Session => "SESSIONS.md",
        };
        tx.log(
            "import",
            vec![rec.id.clone()],
            &format!("{file}: {heading} ({})", state.as_str()),
        )?;
        sessions |= *kind == EntryKind::Session;
        added += 1;
    }
    if sessions && let Some(cap) = tx.ws.config.archive_cap() {
        crate::ops::archive_overflow(tx, cap, tx.ws.config.archive_batch())?;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn entries_take_the_source_date_and_labels() {
        let t = Target::Decision(DecisionPlan {
            date: day("2025-03-01"),
            choice: "Use SQLite".into(),
            over: Some("JSON files".into()),
            because: None,
            lines: vec![
                Line::Topic("storage".into()),
                Line::VerifyWhen("3个月后".into()),
            ],
            fate: Fate::Live,
            handle: None,
        });
        let (_, h, b) = entry_text(&t, Lang::En).unwrap();
        assert_eq!(h, "2025-03-01 — Use SQLite");
        assert_eq!(
            b,
            "Chose: Use SQLite\nOver: JSON files\nTopic: storage\nVerify when: 3个月后"
        );
        let s = Target::Session(SessionPlan {
            date: day("2025-03-02"),
            done: "wrote it".into(),
            open: None,
            next: Some("ship".into()),
            lines: vec![],
        });
        let (_, h, b) = entry_text(&s, Lang::Zh).unwrap();
        assert_eq!(h, "2025-03-02");
        assert_eq!(b, "完成：wrote it（未验证）\n下一步：ship");
    }

    #[test]
    fn a_chunk_is_present_only_as_whole_lines_in_a_row() {
        let mut g = Grown::new("intro\n\n```sh\ncargo test\n```".into());
        assert!(g.contains("```sh\ncargo test\n```"));
        assert!(g.contains("cargo test"));
        assert!(!g.contains("cargo"), "part of a line");
        assert!(!g.contains("intro\ncargo test"), "lines not in a row");
        g.push("```sh\ncargo build\n```");
        assert!(g.contains("```\n\n```sh\ncargo build"));
        assert!(!g.contains("```sh\ncargo build\ncargo test"));
        assert_eq!(
            g.text,
            "intro\n\n```sh\ncargo test\n```\n\n```sh\ncargo build\n```"
        );
    }

    #[test]
    fn a_chunk_already_in_a_section_is_not_added_twice() {
        let mut plan = Plan::default();
        plan.section("a.md:1".into(), 0, "- one");
        plan.section("b.md:1".into(), 0, "- one");
        plan.section("b.md:2".into(), 0, "- two");
        let (items, ch) = weigh(None, &plan, Lang::Zh).unwrap();
        let st: Vec<&str> = items.iter().map(|i| i.status).collect();
        assert_eq!(st, vec!["add", "present", "add"]);
        assert_eq!(ch.sections[&0], "- one\n- two");
        assert_eq!(items[0].to, "PROJECT.md › 这是什么");
    }
}
