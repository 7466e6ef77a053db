//! Pure types of the memory: files, entry kinds and states, PROJECT sections, areas, labels,
//! content-addressed ids, and the records the store keeps.
//!
//! An entry is its heading line plus its body, kept verbatim as Markdown: fields such as
//! Done/Open/Next are *views* read out of the body, so text nobody can place in a field is
//! never dropped. Nothing here does I/O or knows about redb, comrak or the clock.

mod clash;
pub mod host;
mod proposal;
pub mod text;
pub use clash::SectionClash;
pub use proposal::{Proposal, ProposalKind, ProposalState};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};
use unicode_normalization::UnicodeNormalization;

/// The catch-all area; never written into a heading.
pub const CATCH_ALL_AREA: &str = "通用";
/// Named areas allowed besides the catch-all.
pub const MAX_NAMED_AREAS: usize = 4;
/// Longest area name a checkpoint accepts (characters): an area is a word or two.
pub const MAX_AREA_CHARS: usize = 64;

/// Language of headings, labels and template prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Chinese: what the original plugin writes; the default.
    #[default]
    Zh,
    /// English (also the legacy forms).
    En,
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }
}

/// The four projected files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FileKind {
    Project,
    Decisions,
    Sessions,
    Archive,
}

impl FileKind {
    pub const ALL: [FileKind; 4] = [
        FileKind::Project,
        FileKind::Decisions,
        FileKind::Sessions,
        FileKind::Archive,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            FileKind::Project => "PROJECT.md",
            FileKind::Decisions => "DECISIONS.md",
            FileKind::Sessions => "SESSIONS.md",
            FileKind::Archive => "SESSIONS-archive.md",
        }
    }

    /// Parse a file name as a user would type it (`SESSIONS.md`, `sessions`, `archive`).
    pub fn from_name(name: &str) -> Option<FileKind> {
        let n = name.trim().to_lowercase();
        let n = n.strip_suffix(".md").unwrap_or(&n);
        match n {
            "project" => Some(FileKind::Project),
            "decisions" => Some(FileKind::Decisions),
            "sessions" => Some(FileKind::Sessions),
            "sessions-archive" | "archive" => Some(FileKind::Archive),
            _ => None,
        }
    }

    /// Stable one-byte code used in store keys.
    pub fn code(self) -> u8 {
        match self {
            FileKind::Project => 1,
            FileKind::Decisions => 2,
            FileKind::Sessions => 3,
            FileKind::Archive => 4,
        }
    }
}

/// Kind of an append-only entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Session,
    Decision,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Session => "session",
            EntryKind::Decision => "decision",
        }
    }
}

/// Lifecycle of an entry. Nothing is physically deleted by normal operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// In SESSIONS.md or DECISIONS.md.
    Live,
    /// Moved to SESSIONS-archive.md.
    Archived,
    /// A decision replaced by a later one: still in DECISIONS.md, marked, not injected.
    Superseded,
    /// An entry edited by hand: the edited text is a new entry, this is the old one.
    Replaced,
    /// Deleted from a file by hand; restorable.
    Removed,
    /// No longer true, by a person's word (`trilogy retire`): still in its file, marked with
    /// the date and why, not injected, restorable.
    Retired,
    /// Taken out of the files by a branch switch: it belongs to the branch whose file last held
    /// it (named in `superseded_by`), is neither live here nor removed, and is live again when
    /// that branch is checked out.
    Elsewhere,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Live => "live",
            State::Archived => "archived",
            State::Superseded => "superseded",
            State::Replaced => "replaced",
            State::Removed => "removed",
            State::Retired => "retired",
            State::Elsewhere => "elsewhere",
        }
    }

    /// The file an entry of `kind` in this state is rendered into, if any.
    pub fn file(self, kind: EntryKind) -> Option<FileKind> {
        match (kind, self) {
            (EntryKind::Session, State::Live | State::Retired) => Some(FileKind::Sessions),
            (EntryKind::Session, State::Archived) => Some(FileKind::Archive),
            (EntryKind::Decision, State::Live | State::Superseded | State::Retired) => {
                Some(FileKind::Decisions)
            }
            _ => None,
        }
    }
}

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

/// Field labels, as written.
pub struct Labels {
    pub done: &'static str,
    pub open: &'static str,
    pub next: &'static str,
    pub chose: &'static str,
    pub over: &'static str,
    pub because: &'static str,
    pub superseded: &'static str,
    /// The last line of a retired entry, before `YYYY-MM-DD — why`.
    pub retired: &'static str,
    pub unverified: &'static str,
}

pub fn labels(lang: Lang) -> &'static Labels {
    const ZH: Labels = Labels {
        done: "完成：",
        open: "未完成：",
        next: "下一步：",
        chose: "选择：",
        over: "放弃：",
        because: "因为：",
        superseded: "已被取代：",
        retired: "已失效：",
        unverified: "（未验证）",
    };
    const EN: Labels = Labels {
        done: "Done: ",
        open: "Open: ",
        next: "Next: ",
        chose: "Chose: ",
        over: "Over: ",
        because: "Because: ",
        superseded: "Superseded by: ",
        retired: "Retired: ",
        unverified: " (unverified)",
    };
    match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    }
}

/// Starts of the marker lines trilogy reads a state from (the last line of an entry).
pub const MARKER_PREFIXES: [&str; 4] = ["已被取代：", "Superseded by:", "已失效：", "Retired:"];

/// `body` with a last line that would read as a state marker escaped (`\` before it): text
/// an agent or an import wrote never marks its entry superseded or retired.
pub fn escape_marker(mut body: String) -> String {
    // the last line, which is the whole body when it has one line
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    if MARKER_PREFIXES.iter().any(|p| body[start..].starts_with(p)) {
        body.insert(start, '\\');
    }
    body
}

/// Short content-addressed id of an entry: SHA-1 of kind, heading and body.
pub fn entry_id(kind: EntryKind, heading: &str, body: &str) -> String {
    let mut h = Sha1::new();
    h.update(kind.as_str().as_bytes());
    h.update(b"\n");
    h.update(heading.as_bytes());
    h.update(b"\n");
    h.update(body.as_bytes());
    let digest = h.finalize();
    crate::base::hex::lower(&digest[..6])
}

/// Date at the start of a heading (`2026-01-02 · area`, `2026-01-02 — title`).
pub fn heading_date(heading: &str) -> Option<NaiveDate> {
    let head = heading.trim_start().get(..10)?;
    NaiveDate::parse_from_str(head, "%Y-%m-%d").ok()
}

/// Area of a session heading: the text after `·` following the first token, else `通用`.
pub fn heading_area(heading: &str) -> String {
    let h = heading.trim();
    let token_end = h
        .find(|c: char| c.is_whitespace() || c == '·')
        .unwrap_or(h.len());
    let rest = h[token_end..].trim_start();
    match rest.strip_prefix('·') {
        Some(area) if !area.trim().is_empty() => area_name(area),
        _ => CATCH_ALL_AREA.to_string(),
    }
}

/// An area name as it is recorded and compared: whitespace runs collapsed to one space, and
/// Unicode NFC, so `café` typed as `e` + combining accent is the same area as `café`.
pub fn area_name(raw: &str) -> String {
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .nfc()
        .collect()
}

/// Longest topic, in characters.
pub const MAX_TOPIC_CHARS: usize = 80;

/// Result of folding a requested area into the closed set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AreaChoice {
    /// The area to write (`通用` means no tag).
    pub area: String,
    /// Set when the request was folded into `通用` because the set is full.
    pub folded: bool,
}

/// Fold a requested area into the closed set: reuse a known spelling case-insensitively (after
/// NFC, see [`area_name`]), add a new one while fewer than four are named, otherwise fold into
/// `通用`.
pub fn normalize_area(requested: Option<&str>, known: &mut Vec<String>) -> AreaChoice {
    let collapsed = area_name(requested.unwrap_or(""));
    if collapsed.is_empty() || collapsed == CATCH_ALL_AREA {
        return AreaChoice {
            area: CATCH_ALL_AREA.into(),
            folded: false,
        };
    }
    let lower = collapsed.to_lowercase();
    if let Some(k) = known.iter().find(|k| area_name(k).to_lowercase() == lower) {
        return AreaChoice {
            area: area_name(k),
            folded: false,
        };
    }
    let named = known.iter().filter(|k| *k != CATCH_ALL_AREA).count();
    if named >= MAX_NAMED_AREAS {
        return AreaChoice {
            area: CATCH_ALL_AREA.into(),
            folded: true,
        };
    }
    known.push(collapsed.clone());
    AreaChoice {
        area: collapsed,
        folded: false,
    }
}

/// Parse a day given as `YYYY-MM-DD`; `label` names where it came from (`--since`,
/// `TRILOGY_TODAY`, `` `until` ``) in the error.
pub fn parse_day(label: &str, value: &str) -> crate::error::Result<NaiveDate> {
    crate::base::clock::parse_day(label, value).map_err(crate::error::Error::bad_input)
}

/// Session heading text for a date and area.
pub fn session_heading(date: NaiveDate, area: &str) -> String {
    if area == CATCH_ALL_AREA {
        date.format("%Y-%m-%d").to_string()
    } else {
        format!("{} · {}", date.format("%Y-%m-%d"), area)
    }
}

/// Decision heading text for a date and choice.
pub fn decision_heading(date: NaiveDate, choice: &str) -> String {
    format!("{} — {}", date.format("%Y-%m-%d"), choice)
}

/// Done/Open/Next (or Chose/Over/Because) read out of an entry body; `extra` is the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chose: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// A decision's topic: one live decision per topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// When to look at it again: a date, or a phrase that never comes due.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub extra: String,
}

/// Read labelled fields out of a body, accepting both label sets, with or without a space
/// after the colon. Continuation lines belong to the field above until a blank line.
pub fn read_fields(body: &str) -> Fields {
    const LABELS: [(&str, usize); 18] = [
        ("完成", 0),
        ("未完成", 1),
        ("下一步", 2),
        ("选择", 3),
        ("放弃", 4),
        ("因为", 5),
        ("区域", 6),
        ("主题", 7),
        ("复核", 8),
        ("done", 0),
        ("open", 1),
        ("next", 2),
        ("chose", 3),
        ("over", 4),
        ("because", 5),
        ("area", 6),
        ("topic", 7),
        ("review", 8),
    ];
    let mut slots: [Option<String>; 9] = Default::default();
    let mut extra: Vec<&str> = Vec::new();
    let mut current: Option<usize> = None;
    for line in body.lines() {
        let found = LABELS.iter().find_map(|(label, slot)| {
            let head = line.get(..label.len())?;
            if !head.eq_ignore_ascii_case(label) {
                return None;
            }
            let rest = &line[label.len()..];
            let rest = rest.strip_prefix('：').or_else(|| rest.strip_prefix(':'))?;
            Some((*slot, rest.trim_start().to_string()))
        });
        match found {
            Some((slot, value)) if slots[slot].is_none() => {
                slots[slot] = Some(value);
                current = Some(slot);
            }
            _ if line.trim().is_empty() => {
                current = None;
                extra.push(line);
            }
            _ => match current {
                Some(slot) => {
                    let v = slots[slot].get_or_insert_with(String::new);
                    v.push('\n');
                    v.push_str(line);
                }
                None => extra.push(line),
            },
        }
    }
    let [done, open, next, chose, over, because, area, topic, review] = slots;
    Fields {
        done,
        open,
        next,
        chose,
        over,
        because,
        area,
        topic,
        review,
        extra: extra.join("\n").trim().to_string(),
    }
}

/// Where an entry came from, kept in the store only (never rendered).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The agent host's session id, when an agent wrote it.
    pub agent_session: Option<String>,
    /// Git branch checked out when it was written.
    pub branch: Option<String>,
}

/// An append-only entry as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRecord {
    pub id: String,
    pub kind: EntryKind,
    /// Heading text after `## `.
    pub heading: String,
    /// Body lines after the heading, verbatim, trailing whitespace trimmed.
    pub body: String,
    pub state: State,
    /// Insertion sequence; orders entries of one date (higher = newer = higher in the file).
    pub seq: u64,
    /// Date used for ordering: the heading's date, or the neighbour's for an undated entry.
    #[serde(with = "days_from_ce")]
    pub sort_date: NaiveDate,
    /// For a superseded decision: heading of the decision that replaced it. For a retired
    /// entry: `YYYY-MM-DD — why` (its marker line after the label). For an entry elsewhere:
    /// the git head (`ref: refs/heads/NAME` or a commit id) whose file last held it.
    pub superseded_by: Option<String>,
    /// For a replaced entry: the id of the entry that replaced it.
    pub replaced_by: Option<String>,
    /// RFC 3339 time the store first saw it.
    pub created_at: String,
    pub actor: String,
    pub origin: Origin,
}

impl EntryRecord {
    /// The file this entry is rendered into, if any.
    pub fn file(&self) -> Option<FileKind> {
        self.state.file(self.kind)
    }

    pub fn date(&self) -> Option<NaiveDate> {
        heading_date(&self.heading)
    }

    /// A session's area is in its heading; a decision's in its `区域：` / `Area:` line.
    pub fn area(&self) -> String {
        match self.kind {
            EntryKind::Session => heading_area(&self.heading),
            EntryKind::Decision => read_fields(&self.body)
                .area
                .map(|a| area_name(&a))
                .filter(|a| !a.is_empty())
                .unwrap_or_else(|| CATCH_ALL_AREA.to_string()),
        }
    }
}

impl crate::secrets::Headed for EntryRecord {
    fn heading(&self) -> &str {
        &self.heading
    }
    fn body(&self) -> &str {
        &self.body
    }
}

/// A date stored as days since 0001-01-01 (compact and quick to decode).
mod days_from_ce {
    use chrono::{Datelike, NaiveDate};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(d.num_days_from_ce())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDate, D::Error> {
        let days = i32::deserialize(d)?;
        NaiveDate::from_num_days_from_ce_opt(days)
            .ok_or_else(|| serde::de::Error::custom(format!("day {days} is out of range")))
    }
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

/// One line of the append-only event log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    /// RFC 3339.
    pub at: String,
    /// `cli`, `file-edit`, `mcp`, `hook:<session>`, …
    pub actor: String,
    /// `add`, `remove`, `replace`, `archive`, `restore`, `supersede`, `section`, `import`, …
    pub op: String,
    pub ids: Vec<String>,
    /// One human line: heading or section name.
    pub detail: String,
}

/// A `notes` report left for the user by a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub seq: u64,
    pub at: String,
    pub actor: String,
    pub text: String,
    pub open: bool,
}

/// Stat and hash of a file as trilogy last wrote (or absorbed) it.
#[derive(Debug, Clone, Eq, Serialize, Deserialize, Default)]
pub struct FileStamp {
    pub sha1: String,
    pub len: u64,
    pub mtime_ns: i128,
    pub ino: u64,
    /// Unix milliseconds read from the clock before the bytes were read or written (not
    /// stored: the store keeps it as the stamp's time). A stamp vouches for the file only when
    /// this is past the racy window of its mtime; a clock read *before* the I/O can only err
    /// towards distrust, however long the process is descheduled afterwards.
    #[serde(skip)]
    pub taken_ms: u64,
}

/// Two stamps describe the same file state whenever they were taken.
impl PartialEq for FileStamp {
    fn eq(&self, other: &FileStamp) -> bool {
        self.sha1 == other.sha1
            && self.len == other.len
            && self.mtime_ns == other.mtime_ns
            && self.ino == other.ino
    }
}

/// What each injection cap left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    pub sections_cut: Vec<String>,
    /// Live decisions left out: the block shows the newest ones whole, so these are the
    /// newest live decision not shown (`decisions_from`) and every live decision older than it.
    pub decisions: u64,
    pub decisions_from: Option<String>,
    pub sessions: Vec<String>,
}

/// What trilogy remembers about one agent session (keyed by the host's session id).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSession {
    pub id: String,
    /// `claude`, `codex`, `cli`.
    pub host: String,
    pub started_at: String,
    /// SHA-1 of the last block injected, and when, and why (`startup`, `compact`, …).
    pub digest: Option<String>,
    pub injected_at: Option<String>,
    pub source: Option<String>,
    pub injections: u32,
    /// Entries in the last block, and what its caps left out.
    pub injected_ids: Vec<String>,
    pub dropped: Dropped,
    /// Last event the session has seen (its block, or a notice, covered everything up to it).
    pub seen_event: u64,
    /// Changes announced to it by notices so far.
    pub announced: u64,
    /// Events written for this session by a process that could not name it (its MCP server),
    /// recognised when the host reports the tool call; never announced back to it.
    pub own_events: Vec<u64>,
    /// Event sequence at the start of the current turn.
    pub turn_start_event: u64,
    pub work_this_turn: bool,
    pub wrote_this_turn: bool,
    /// A PostToolUse hook reached us, so the transcript fallback is not needed.
    pub post_tool_seen: bool,
    pub nudge_owed: bool,
    pub nudges: u32,
    /// Unix milliseconds of the last nudge scheduled (0: none).
    pub last_nudge_ms: i64,
    pub ended_at: Option<String>,
    /// Sibling work trees' entries the session has been shown (its block, or a notice).
    #[serde(default)]
    pub siblings_seen: Vec<String>,
    /// The user store's last event the session has seen (`None`: it never saw the user memory).
    #[serde(default)]
    pub user_seen: Option<u64>,
}

impl AgentSession {
    /// The actor name this session's own writes carry in the event log.
    pub fn actor(&self) -> String {
        agent_actor(&self.id)
    }
}

/// Actor name of writes made by agent session `id`.
/// The agent session an actor names (`agent:<id>` → `<id>`), the inverse of [`agent_actor`].
pub fn actor_session(actor: &str) -> Option<String> {
    actor.strip_prefix("agent:").map(str::to_string)
}

pub fn agent_actor(id: &str) -> String {
    match check_actor(id) {
        Ok(()) => format!("agent:{id}"),
        // a host's session id that could not go into the log as it is: a stable stand-in
        Err(_) => format!("agent:{}", &crate::base::hex::sha1(id.as_bytes())[..16]),
    }
}

/// Longest actor or agent session id kept in the event log, in bytes.
pub const MAX_ACTOR: usize = 128;

/// Whether `s` may name who writes in the event log: short, printable, no spaces, and nothing
/// that looks like a credential (the log is shown to people and agents alike).
pub fn check_actor(s: &str) -> std::result::Result<(), String> {
    if s.is_empty() {
        return Err("is empty".into());
    }
    if s.len() > MAX_ACTOR {
        return Err(format!("is {} bytes; at most {MAX_ACTOR}", s.len()));
    }
    if let Some(c) = s.chars().find(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "holds U+{:04X}; use letters, digits and punctuation without spaces",
            u32::from(c)
        ));
    }
    if let Some(f) = crate::secrets::find(s) {
        return Err(format!("looks like {} ({})", f.kind, f.masked));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_line_in_written_text_is_escaped_even_when_it_is_the_only_line() {
        assert_eq!(
            escape_marker("Retired: 2026-01-01 — x".into()),
            "\\Retired: 2026-01-01 — x"
        );
        assert_eq!(
            escape_marker("Done: a\n已失效：x".into()),
            "Done: a\n\\已失效：x"
        );
        assert_eq!(escape_marker("Done: a\nb".into()), "Done: a\nb");
    }

    #[test]
    fn area_parses_with_or_without_spaces_around_dot() {
        assert_eq!(heading_area("2026-01-02 · 网络"), "网络");
        assert_eq!(heading_area("2026-01-02·网络"), "网络");
        assert_eq!(heading_area("2026-01-02"), CATCH_ALL_AREA);
        assert_eq!(heading_area("2026-01-02 — title"), CATCH_ALL_AREA);
    }

    #[test]
    fn fifth_area_folds_and_known_area_is_reused_case_insensitively() {
        let mut known = vec!["A".to_string(), "b".into(), "c".into()];
        assert_eq!(normalize_area(Some("d"), &mut known).area, "d");
        let fifth = normalize_area(Some("e"), &mut known);
        assert_eq!(fifth.area, CATCH_ALL_AREA);
        assert!(fifth.folded);
        assert_eq!(normalize_area(Some("  a "), &mut known).area, "A");
        assert_eq!(normalize_area(Some(""), &mut known).area, CATCH_ALL_AREA);
        assert_eq!(
            normalize_area(Some("通用"), &mut known).area,
            CATCH_ALL_AREA
        );
    }

    #[test]
    fn an_nfd_spelling_is_the_same_area() {
        let nfc = "caf\u{e9}";
        let nfd = "cafe\u{301}";
        assert_eq!(heading_area(&format!("2026-01-02 · {nfd}")), nfc);
        let mut known = vec![nfc.to_string()];
        let choice = normalize_area(Some(nfd), &mut known);
        assert_eq!(choice.area, nfc);
        assert_eq!(known.len(), 1, "no look-alike area added");
        // a new area is recorded composed
        let mut known = Vec::new();
        assert_eq!(normalize_area(Some(nfd), &mut known).area, nfc);
        assert_eq!(known, [nfc]);
        // and an older hand-written NFD spelling still matches, recorded composed
        let mut known = vec![nfd.to_string()];
        assert_eq!(
            normalize_area(Some(&nfc.to_uppercase()), &mut known).area,
            nfc
        );
    }

    #[test]
    fn fields_read_both_label_sets() {
        let f = read_fields("完成：did it\nmore\n未完成：x\nDone: ignored twice\n\nprose");
        assert_eq!(f.done.as_deref(), Some("did it\nmore"));
        assert_eq!(f.open.as_deref(), Some("x\nDone: ignored twice"));
        assert_eq!(f.extra, "prose");
        let f = read_fields("Chose: x\nBecause: y\nArea: infra");
        assert_eq!(
            f.because.as_deref(),
            Some("y"),
            "the area is not part of the reason"
        );
        assert_eq!(f.area.as_deref(), Some("infra"));
        let f = read_fields("Done:a\nNext: b");
        assert_eq!(f.done.as_deref(), Some("a"));
        assert_eq!(f.next.as_deref(), Some("b"));
    }

    #[test]
    fn blank_lines_are_trimmed_but_indentation_kept() {
        assert_eq!(trim_blank_lines("\n  \n    code\nx  \n\n"), "    code\nx");
        assert_eq!(trim_blank_lines(""), "");
    }

    #[test]
    fn section_names_match_both_languages() {
        assert_eq!(section_slot("state"), Some(3));
        assert_eq!(section_slot(" 现状 "), Some(3));
        assert_eq!(section_slot("nope"), None);
        assert_eq!(section_key("Traps"), "5");
    }
}
