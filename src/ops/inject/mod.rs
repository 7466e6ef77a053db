//! The session-start block (DESIGN §5): ledger, area map, PROJECT with per-section caps,
//! live DECISIONS, recent SESSIONS chosen by area, a footer naming what was left out, the
//! staleness notice and, while PROJECT is empty, the bootstrap instructions.
//!
//! Assembled from the store only. The whole block, footer included, never exceeds the
//! effective budget (bytes, and characters when the host caps them). The archive is never
//! injected. Prose is ours, in both languages; see `texts.rs`.

mod alloc;
mod cut;
mod stale;
mod texts;

use chrono::NaiveDate;
use serde::Serialize;

use crate::base::hex::sha1 as sha1_hex;
use crate::config::Config;
use crate::error::Result;
use crate::model::{Dropped, EntryRecord, FileKind, Lang, SectionRecord, State};
use crate::secrets::{in_entry, in_section};
use crate::store::Reader;

pub(crate) use cut::cut_to;
pub use cut::estimate_tokens;
use cut::{entries_text, section_text};

pub use alloc::{AreaLoad, allocate};
pub use stale::{Staleness, lag, project_is_empty, staleness};
pub use texts::{Texts, texts};

/// Smallest budget ever used, whatever the settings say.
pub const MIN_BUDGET: usize = 2000;
/// Share of the host's context window given to the block (1 token counted as 1 byte).
pub const WINDOW_SHARE: f64 = 0.16;
/// Caps, not quotas: unused share flows to SESSIONS.
pub const PROJECT_SHARE: f64 = 0.35;
pub const DECISIONS_SHARE: f64 = 0.20;
/// The share of the budget the section on sibling work trees may take.
pub const SIBLING_SHARE: f64 = 0.10;

/// The limits a block must fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// UTF-8 bytes.
    pub bytes: usize,
    /// Characters, when the host keeps only so many (Claude Code: 10,000).
    pub chars: Option<usize>,
}

impl Budget {
    /// `max(2000, min(configured, window × 16%))`, then the host's character cap.
    pub fn effective(
        config: &Config,
        window_tokens: Option<u64>,
        host_chars: Option<usize>,
    ) -> Budget {
        let configured = (config.inject_budget_bytes as usize).max(MIN_BUDGET);
        // the host's window, else the configured one
        let window_cap = window_tokens
            .filter(|w| *w > 0)
            .or(config.window_tokens.filter(|w| *w > 0))
            .map(|w| (w as f64 * WINDOW_SHARE) as usize)
            .unwrap_or(configured);
        Budget {
            bytes: configured.min(window_cap).max(MIN_BUDGET),
            chars: host_chars,
        }
    }

    fn fits(&self, text: &str) -> bool {
        text.len() <= self.bytes && self.chars.is_none_or(|c| text.chars().count() <= c)
    }
}

/// What a block holds compared with the files.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Ledger {
    pub budget_bytes: usize,
    pub budget_chars: Option<usize>,
    pub bytes: usize,
    pub chars: usize,
    pub estimated_tokens: usize,
    pub project_bytes_shown: usize,
    pub project_bytes_file: u64,
    pub project_whole: bool,
    pub sections_cut: Vec<String>,
    /// The newest decision is shown cut to its cap (counted in `decisions_shown`).
    pub decision_cut: bool,
    pub decisions_shown: usize,
    /// Bytes the decisions (and DECISIONS.md's prose) take of the block.
    pub decisions_bytes_shown: usize,
    pub decisions_live: usize,
    pub sessions_shown: usize,
    /// Bytes the sessions take of the block.
    pub sessions_bytes_shown: usize,
    pub sessions_live: usize,
    pub archived: u64,
    /// Human phrases for what was left out (also in the footer).
    pub omitted: Vec<String>,
    /// Decisions and sections due for review: listed, and all of them.
    pub due_shown: usize,
    pub due_total: usize,
    /// Entries of sibling work trees named, and the bytes their section takes.
    pub sibling_entries: usize,
    pub sibling_bytes: usize,
    /// Proposals waiting for a person, and open reports (`trilogy review list`).
    pub proposals_pending: u64,
    pub reports_open: usize,
    /// The user memory (USER.md): bytes shown, its size, sections its cap cut or left out,
    /// and whether it was left out whole to make the block fit.
    pub user_bytes_shown: usize,
    pub user_bytes_file: u64,
    pub user_sections_cut: Vec<String>,
    pub user_left_out: bool,
}

/// An assembled block.
#[derive(Debug, Clone, Serialize)]
pub struct Block {
    pub text: String,
    pub digest: String,
    pub ledger: Ledger,
    /// Ids of the entries injected.
    pub ids: Vec<String>,
    pub dropped: Dropped,
    pub project_empty: bool,
    pub stale: Option<Staleness>,
}

struct Parts<'a> {
    t: &'a Texts,
    sections: Vec<(String, String, bool)>,
    decisions_prose: Option<String>,
    decisions: Vec<&'a EntryRecord>,
}

/// Assemble the block for `budget` from a snapshot, without the user memory (the copies of
/// the block written into files never hold it).
pub fn assemble(
    r: &dyn Reader,
    config: &Config,
    today: NaiveDate,
    budget: Budget,
    file_date: &dyn Fn() -> Option<NaiveDate>,
    siblings: &[crate::ops::sibling::SiblingEntry],
) -> Result<Block> {
    assemble_with(r, config, today, budget, file_date, siblings, None)
}

/// [`assemble`], with the user memory's part (see [`crate::user::part`]) after the ledger.
pub fn assemble_with(
    r: &dyn Reader,
    config: &Config,
    today: NaiveDate,
    budget: Budget,
    file_date: &dyn Fn() -> Option<NaiveDate>,
    siblings: &[crate::ops::sibling::SiblingEntry],
    user: Option<&crate::user::Part>,
) -> Result<Block> {
    let lang = config.lang;
    let t = texts(lang);
    // what holds a credential written in by hand is left out (reported by status and doctor)
    let sections: Vec<SectionRecord> = r
        .sections()?
        .into_iter()
        .filter(|s| !s.removed && in_section(s).is_none())
        .collect();
    let mut sessions: Vec<EntryRecord> = r.file_entries(FileKind::Sessions, 0, usize::MAX)?;
    sessions.retain(|e| e.state == State::Live && in_entry(e).is_none());
    let archived = r.file_count(FileKind::Archive)?;
    let areas = super::area_map_of(&sessions, today);

    // PROJECT: every section capped at its share ÷ 5
    // shares are sized against the tighter limit: a host that keeps 10,000 characters gets
    // shares of a 10,000-byte budget (characters never outnumber bytes)
    let sizing = budget.bytes.min(budget.chars.unwrap_or(usize::MAX));
    let project_share = (sizing as f64 * PROJECT_SHARE) as usize;
    let per_section = (project_share / 5).max(400);
    let mut cut_names = Vec::new();
    let mut capped: Vec<(String, String, bool)> = Vec::new();
    // text a person wrote above the sections (or a PROJECT.md with no sections at all) is
    // project memory too: it goes first, under the same cap as a section
    let project_prose = crate::markdown::prose(&r.preamble(FileKind::Project)?.unwrap_or_default());
    let prose_part = (!project_prose.is_empty() && crate::secrets::find(&project_prose).is_none())
        .then(|| (String::new(), project_prose.clone()));
    let parts_of = sections
        .iter()
        .map(|s| (s.heading.clone(), section_text(s)));
    for (heading, whole) in prose_part.into_iter().chain(parts_of) {
        if whole.len() <= per_section {
            capped.push((heading, whole, false));
            continue;
        }
        let marker = t.section_cut(per_section.div_ceil(1024));
        let room = per_section.saturating_sub(marker.len() + 2).max(200);
        let kept = cut_to(&whole, room);
        capped.push((heading.clone(), format!("{kept}\n\n{marker}"), true));
        cut_names.push(if heading.is_empty() {
            "PROJECT.md".to_string()
        } else {
            heading
        });
    }
    let project_empty = project_is_empty(&sections, &project_prose);

    // DECISIONS: live ones, newest first, whole entries within the share; the scan stops at
    // the first one that does not fit (the live count comes from a counter)
    let decisions_share = (sizing as f64 * DECISIONS_SHARE) as usize;
    let mut kept_decisions: Vec<EntryRecord> = Vec::new();
    let mut first_left_out: Option<String> = None;
    let mut used = 0;
    // prose a person wrote in DECISIONS.md (a file of reasons written as text) comes first,
    // when it fits the share
    let decisions_prose =
        crate::markdown::prose(&r.preamble(FileKind::Decisions)?.unwrap_or_default());
    let decisions_prose = (!decisions_prose.is_empty()
        && crate::secrets::find(&decisions_prose).is_none()
        && decisions_prose.len() <= decisions_share)
        .then_some(decisions_prose);
    if let Some(p) = &decisions_prose {
        used += p.len() + 2;
    }
    // the newest live decision is always there: one too large for what is left of the share
    // is cut, like a PROJECT section, to at most half the share, and older ones fill the rest
    let mut newest_cut = false;
    // what is due for review is read in the same pass (and past where it stops)
    let mut due = Vec::new();
    let mut visited = 0usize;
    r.scan_file(FileKind::Decisions, 0, &mut |mut d| {
        visited += 1;
        due.extend(crate::ops::truth::review::due_decision(&d, today));
        if d.state != State::Live || in_entry(&d).is_some() {
            return Ok(true);
        }
        let len = d.heading.len() + d.body.len() + 6;
        if kept_decisions.is_empty() && used + len > decisions_share {
            let cap = (decisions_share / 2).min(decisions_share.saturating_sub(used));
            let marker = t.decision_cut(cap.div_ceil(1024).max(1));
            let room = cap
                .saturating_sub(marker.len() + d.heading.len() + 8)
                .max(200);
            d.body = format!("{}\n\n{marker}", cut_to(&d.body, room));
            used += d.heading.len() + d.body.len() + 6;
            newest_cut = true;
            kept_decisions.push(d);
            return Ok(true);
        }
        if used + len > decisions_share {
            first_left_out = Some(d.id);
            return Ok(false);
        }
        used += len;
        kept_decisions.push(d);
        Ok(true)
    })?;
    // the counter is needed only when the scan stopped early; a full scan counted them
    let decisions_live = match first_left_out {
        Some(_) => (r.live_decisions()? as usize).max(kept_decisions.len() + 1),
        None => kept_decisions.len(),
    };

    if first_left_out.is_some() {
        r.scan_file(FileKind::Decisions, visited, &mut |d| {
            due.extend(crate::ops::truth::review::due_decision(&d, today));
            Ok(true)
        })?;
    }
    crate::ops::truth::review::add_sections(&mut due, &r.sections()?, today);
    let sibling_block =
        crate::ops::sibling::block_text(siblings, lang, (sizing as f64 * SIBLING_SHARE) as usize);
    let stale = staleness(r, config, file_date)?;
    let due_block = crate::ops::truth::review::block_text(&due, lang);
    let parts = Parts {
        t,
        sections: capped,
        decisions_prose,
        decisions: kept_decisions.iter().collect(),
    };
    let wanted = config.session_entries_injected as usize;
    let mut counts = vec![wanted];
    let mut n = wanted;
    while n > 1 {
        n /= 2;
        counts.push(n);
    }
    if wanted > 0 && counts.last() != Some(&1) {
        counts.push(1);
    }
    if counts.last() != Some(&0) {
        counts.push(0);
    }

    let ctx = Ctx {
        config,
        budget,
        lang,
        areas: &areas,
        sessions: &sessions,
        decisions_live,
        kept_decisions: &kept_decisions,
        first_left_out: first_left_out.as_deref(),
        allocatable: pick_sessions(&sessions, &areas, wanted).len(),
        archived,
        project_empty,
        stale: stale.as_ref(),
        due: due_block.as_ref(),
        siblings: sibling_block.as_ref(),
        waiting: (
            r.pending_proposals()? + user.map_or(0, |u| u.pending()),
            r.reports()?.iter().filter(|x| x.open).count(),
        ),
        user,
        cut_names: &cut_names,
        newest_decision_cut: newest_cut,
        user_dropped: false,
        r,
    };
    for n in &counts {
        let picked = pick_sessions(&sessions, &areas, *n);
        if let Some(b) = ctx.render(&parts, Some(&picked), true, None)? {
            return Ok(b);
        }
    }
    // nothing fits with all decisions: drop them, then the user memory, then cut PROJECT's tail
    if let Some(b) = ctx.render(&parts, None, false, None)? {
        return Ok(b);
    }
    let ctx = Ctx {
        user: None,
        user_dropped: ctx.user.is_some_and(|u| !u.text.is_empty()),
        ..ctx
    };
    if ctx.user_dropped
        && let Some(b) = ctx.render(&parts, None, false, None)?
    {
        return Ok(b);
    }
    // PROJECT's room shrinks by at least one byte a round (by an eighth while that is more), so
    // this ends after at most ~8·ln(budget) + 8 renders
    let mut room = budget.bytes;
    while room > 0 {
        room -= (room / 8).max(1);
        if let Some(b) = ctx.render(&parts, None, false, Some(room))? {
            return Ok(b);
        }
        if room < 8 {
            break;
        }
    }
    ctx.minimal()
}

/// The ids of the sessions the area allocation gives `n` slots to, from the live sessions
/// in file order: what the block would show with room for all of them.
pub(crate) fn sessions_chosen(sessions: &[EntryRecord], today: NaiveDate, n: usize) -> Vec<String> {
    let areas = super::area_map_of(sessions, today);
    (pick_sessions(sessions, &areas, n).into_iter())
        .map(|e| e.id.clone())
        .collect()
}

/// Pick `n` sessions by area allocation; returned in file order (newest first).
fn pick_sessions<'a>(
    sessions: &'a [EntryRecord],
    areas: &[super::AreaCount],
    n: usize,
) -> Vec<&'a EntryRecord> {
    let loads: Vec<AreaLoad> = areas
        .iter()
        .map(|a| AreaLoad {
            name: a.area.clone(),
            weight: a.weight,
            entries: a.count,
        })
        .collect();
    let slots = allocate(&loads, n);
    let mut left: std::collections::HashMap<String, usize> = loads
        .iter()
        .zip(slots)
        .map(|(l, s)| (l.name.clone(), s))
        .collect();
    sessions
        .iter()
        .filter(|e| {
            let slot = left.entry(e.area()).or_insert(0);
            if *slot > 0 {
                *slot -= 1;
                true
            } else {
                false
            }
        })
        .collect()
}

struct Ctx<'a> {
    config: &'a Config,
    budget: Budget,
    lang: Lang,
    areas: &'a [super::AreaCount],
    sessions: &'a [EntryRecord],
    decisions_live: usize,
    /// Live decisions that fit the share, newest first, and the newest one that did not.
    kept_decisions: &'a [EntryRecord],
    first_left_out: Option<&'a str>,
    /// How many sessions the area allocation gives at the configured count.
    allocatable: usize,
    archived: u64,
    project_empty: bool,
    stale: Option<&'a Staleness>,
    /// The lines on what is due for review, with how many they list of how many.
    due: Option<&'a (String, usize, usize)>,
    /// The section on what sibling work trees recorded, with how many entries it shows whole
    /// and how many it names in all.
    siblings: Option<&'a (String, usize, usize)>,
    /// Proposals pending and reports open: the ledger's line on what waits for a person.
    waiting: (u64, usize),
    cut_names: &'a [String],
    /// The newest decision is shown cut (it alone is over half the decisions' share).
    newest_decision_cut: bool,
    /// The user memory's part, and whether it was left out to make the block fit.
    user: Option<&'a crate::user::Part>,
    user_dropped: bool,
    r: &'a dyn Reader,
}

impl Ctx<'_> {
    /// True when `shown` is all the area allocation gives at the configured count.
    fn slots_limited(&self, shown: usize) -> bool {
        shown >= self.allocatable
    }

    /// Render one candidate; `None` when it does not fit.
    fn render(
        &self,
        parts: &Parts,
        sessions: Option<&[&EntryRecord]>,
        with_decisions: bool,
        project_room: Option<usize>,
    ) -> Result<Option<Block>> {
        let t = parts.t;
        let mut project = parts
            .sections
            .iter()
            .map(|(_, s, _)| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        let mut project_tail_cut = false;
        if let Some(room) = project_room
            && project.len() > room
        {
            project = format!("{}\n\n{}", cut_to(&project, room), t.truncated);
            project_tail_cut = true;
        }
        let decisions: &[&EntryRecord] = if with_decisions {
            &parts.decisions
        } else {
            &[]
        };
        let sessions = sessions.unwrap_or(&[]);

        let mut omitted = Vec::new();
        let user = self.user.filter(|u| !u.text.is_empty());
        if let Some(u) = user.filter(|u| !u.cut.is_empty()) {
            omitted.push(t.omit_user_sections(&u.cut));
        }
        if self.user_dropped {
            omitted.push(t.omit_user.to_string());
        }
        if !self.cut_names.is_empty() {
            omitted.push(t.omit_sections(self.cut_names));
        }
        if project_tail_cut {
            omitted.push(t.omit_project_tail.to_string());
        }
        let decision_cut = self.newest_decision_cut && !decisions.is_empty();
        if decision_cut {
            omitted.push(t.omit_decision_tail.to_string());
        }
        if decisions.len() < self.decisions_live {
            omitted
                .push(t.omit_decisions(self.decisions_live - decisions.len(), self.decisions_live));
        }
        if sessions.len() < self.sessions.len() {
            let by_count = self.slots_limited(sessions.len());
            omitted.push(t.omit_sessions(
                self.sessions.len() - sessions.len(),
                sessions.len(),
                by_count,
            ));
        }

        let file_len = |f: FileKind| -> Result<u64> { Ok(self.r.stamp(f)?.map_or(0, |s| s.len)) };
        // what each log takes of the block, as written below (a cut decision counts cut)
        let decisions_prose = (parts.decisions_prose.as_ref())
            .filter(|_| with_decisions)
            .map_or(0, |p| p.len() + 2);
        let decisions_bytes = match decisions.is_empty() {
            true => decisions_prose.saturating_sub(2),
            false => decisions_prose + entries_text(decisions).len(),
        };
        let sessions_bytes = match sessions.is_empty() {
            true => 0,
            false => entries_text(sessions).len(),
        };
        let mut ledger = Ledger {
            budget_bytes: self.budget.bytes,
            budget_chars: self.budget.chars,
            project_bytes_shown: project.len(),
            project_bytes_file: file_len(FileKind::Project)?,
            project_whole: self.cut_names.is_empty() && !project_tail_cut,
            sections_cut: self.cut_names.to_vec(),
            decision_cut,
            decisions_shown: decisions.len(),
            decisions_bytes_shown: decisions_bytes,
            decisions_live: self.decisions_live,
            sessions_shown: sessions.len(),
            sessions_bytes_shown: sessions_bytes,
            sessions_live: self.sessions.len(),
            archived: self.archived,
            omitted: omitted.clone(),
            due_shown: self.due.map_or(0, |d| d.1),
            due_total: self.due.map_or(0, |d| d.2),
            sibling_entries: self.siblings.map_or(0, |d| d.2),
            sibling_bytes: self.siblings.map_or(0, |d| d.0.len()),
            proposals_pending: self.waiting.0,
            reports_open: self.waiting.1,
            user_bytes_shown: user.map_or(0, |u| u.text.len()),
            user_bytes_file: self.user.map_or(0, |u| u.file_bytes),
            user_sections_cut: user.map_or(Vec::new(), |u| u.cut.clone()),
            user_left_out: self.user_dropped,
            ..Default::default()
        };

        let mut out = String::new();
        // two passes: the ledger states the final size, which depends on the ledger
        for _ in 0..3 {
            let mut head = vec![t.header.to_string()];
            if !self.areas.is_empty() {
                head.push(super::area_line(self.areas, self.lang));
            }
            head.push(t.ledger_injected(&ledger));
            head.push(t.ledger_files(
                ledger.project_bytes_file,
                file_len(FileKind::Decisions)?,
                self.decisions_live,
                file_len(FileKind::Sessions)?,
                self.sessions.len(),
                self.archived,
            ));
            if !self.config.ignored.is_empty() {
                head.push(t.ignored_settings(&self.config.ignored));
            }
            if !self.config.warnings.is_empty() {
                head.push(t.settings_not_taken(self.config.warnings.len()));
            }
            if ledger.proposals_pending > 0 || ledger.reports_open > 0 {
                head.push(t.waiting(ledger.proposals_pending, ledger.reports_open));
            }
            head.push(t.hint.to_string());
            let mut blocks = vec![head.join("\n")];
            if let Some(u) = user {
                blocks.push(u.text.clone());
            }
            if !project.is_empty() {
                blocks.push(format!("{}\n{}", t.project_title, project));
            }
            let decision_parts: Vec<String> = parts
                .decisions_prose
                .iter()
                .filter(|_| with_decisions)
                .cloned()
                .chain((!decisions.is_empty()).then(|| entries_text(decisions)))
                .collect();
            if !decision_parts.is_empty() {
                blocks.push(format!(
                    "{}\n{}",
                    t.decisions_title,
                    decision_parts.join("\n\n")
                ));
            }
            if !sessions.is_empty() {
                blocks.push(format!("{}\n{}", t.sessions_title, entries_text(sessions)));
            }
            if let Some((text, _, _)) = self.siblings {
                blocks.push(text.clone());
            }
            if let Some((lines, _, _)) = self.due {
                blocks.push(lines.clone());
            }
            if let Some(s) = self.stale {
                blocks.push(t.stale(s.behind_days, s.entries_since));
            }
            if !omitted.is_empty() {
                blocks.push(t.footer(&omitted));
            }
            if self.project_empty && self.config.bootstrap_when_empty {
                blocks.push(t.bootstrap.to_string());
            }
            out = blocks.join("\n\n");
            let (bytes, chars) = (out.len(), out.chars().count());
            if bytes == ledger.bytes && chars == ledger.chars {
                break;
            }
            ledger.bytes = bytes;
            ledger.chars = chars;
            ledger.estimated_tokens = estimate_tokens(&out);
        }
        if !self.budget.fits(&out) {
            return Ok(None);
        }
        let mut ids: Vec<String> = decisions.iter().map(|d| d.id.clone()).collect();
        ids.extend(sessions.iter().map(|s| s.id.clone()));
        let shown: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        // decisions are shown newest first, so what was left out is one run of the live ones:
        // from the newest not shown down to the oldest
        let decisions_from = match decisions.len() {
            n if n < self.kept_decisions.len() => Some(self.kept_decisions[n].id.clone()),
            _ => self.first_left_out.map(str::to_string),
        };
        let dropped = Dropped {
            sections_cut: self.cut_names.to_vec(),
            decisions: (self.decisions_live - decisions.len()) as u64,
            decisions_from,
            sessions: self
                .sessions
                .iter()
                .map(|s| s.id.clone())
                .filter(|id| !shown.contains(id.as_str()))
                .collect(),
        };
        Ok(Some(Block {
            digest: sha1_hex(out.as_bytes()),
            text: out,
            ledger,
            ids,
            dropped,
            project_empty: self.project_empty,
            stale: self.stale.cloned(),
        }))
    }

    /// The last resort: header and a pointer to the tools, which always fits 2000 bytes.
    /// The smallest block: header and hint, or what of them fits when even that is too big.
    fn minimal(&self) -> Result<Block> {
        let t = texts(self.lang);
        let mut text = format!("{}\n{}", t.header, t.hint);
        if !self.budget.fits(&text) {
            text = t.header.to_string();
        }
        while !self.budget.fits(&text) {
            text.pop();
        }
        Ok(Block {
            digest: sha1_hex(text.as_bytes()),
            ledger: Ledger {
                budget_bytes: self.budget.bytes,
                budget_chars: self.budget.chars,
                bytes: text.len(),
                chars: text.chars().count(),
                estimated_tokens: estimate_tokens(&text),
                ..Default::default()
            },
            text,
            ids: Vec::new(),
            dropped: Dropped::default(),
            project_empty: self.project_empty,
            stale: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_is_floored_and_clamped_by_the_window() {
        let c = Config::default();
        assert_eq!(Budget::effective(&c, None, None).bytes, 160_000);
        assert_eq!(Budget::effective(&c, Some(128_000), None).bytes, 20_480);
        assert_eq!(Budget::effective(&c, Some(1_000), None).bytes, MIN_BUDGET);
        let small = Config {
            inject_budget_bytes: 10,
            ..Config::default()
        };
        assert_eq!(
            Budget::effective(&small, None, Some(10_000)).bytes,
            MIN_BUDGET
        );
    }
}
