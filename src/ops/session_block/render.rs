//! Rendering one candidate session block: which parts it shows, the ledger stating what it
//! holds and leaves out, the text in its order, and whether it fits the budget. Choosing the
//! candidates is `assemble`'s; this reads the store's stamps only.

use crate::base::hex;
use crate::config::Config;
use crate::error::Result;
use crate::model::{Dropped, EntryRecord, FileKind, Lang};
use crate::store::Reader;

use super::{
    Block, Budget, Ledger, Parts, Staleness, Texts, cut_to, entries_text, estimate_tokens, texts,
};

pub(super) struct Ctx<'a> {
    pub(super) config: &'a Config,
    pub(super) budget: Budget,
    pub(super) lang: Lang,
    pub(super) areas: &'a [crate::ops::AreaCount],
    pub(super) sessions: &'a [EntryRecord],
    pub(super) decisions_live: usize,
    /// Live decisions that fit the share, newest first, and the newest one that did not.
    pub(super) kept_decisions: &'a [EntryRecord],
    pub(super) first_left_out: Option<&'a str>,
    /// How many sessions the area allocation gives at the configured count.
    pub(super) allocatable: usize,
    pub(super) archived: u64,
    pub(super) project_empty: bool,
    pub(super) stale: Option<&'a Staleness>,
    /// The lines on what is due for review, with how many they list of how many.
    pub(super) due: Option<&'a (String, usize, usize)>,
    /// The section on what sibling work trees recorded, with how many entries it shows whole
    /// and how many it names in all.
    pub(super) siblings: Option<&'a (String, usize, usize)>,
    /// Proposals pending (drafts among them) and reports open: the ledger's line on what
    /// waits for a person.
    pub(super) waiting: (u64, u64, usize),
    pub(super) cut_names: &'a [String],
    /// Lines the ledger says this once.
    pub(super) notes: &'a [String],
    /// The newest decision is shown cut (it alone is over half the decisions' share).
    pub(super) newest_decision_cut: bool,
    /// The user memory's part, and whether it was left out to make the block fit.
    pub(super) user: Option<&'a super::user::Part>,
    pub(super) user_dropped: bool,
    pub(super) r: &'a dyn Reader,
}

/// What one candidate shows.
struct Shown<'p> {
    /// PROJECT's text, and whether its tail was cut to make room.
    project: String,
    project_tail_cut: bool,
    decisions: &'p [&'p EntryRecord],
    sessions: &'p [&'p EntryRecord],
    with_decisions: bool,
    /// The user memory's part, when it has text.
    user: Option<&'p super::user::Part>,
}

impl Ctx<'_> {
    /// True when `shown` is all the area allocation gives at the configured count.
    fn slots_limited(&self, shown: usize) -> bool {
        shown >= self.allocatable
    }

    /// Render one candidate; `None` when it does not fit.
    pub(super) fn render(
        &self,
        parts: &Parts,
        sessions: Option<&[&EntryRecord]>,
        with_decisions: bool,
        project_room: Option<usize>,
    ) -> Result<Option<Block>> {
        let (project, project_tail_cut) = project_text(parts, project_room);
        let decisions: &[&EntryRecord] = if with_decisions {
            &parts.decisions
        } else {
            &[]
        };
        let shown = Shown {
            project,
            project_tail_cut,
            decisions,
            sessions: sessions.unwrap_or(&[]),
            with_decisions,
            user: self.user.filter(|u| !u.text.is_empty()),
        };
        let omitted = self.omitted(parts.t, &shown);
        let mut ledger = self.ledger(parts, &shown, omitted)?;
        let out = self.text(parts, &shown, &mut ledger)?;
        if !self.budget.fits(&out) {
            return Ok(None);
        }
        let (ids, dropped) = self.left_out(shown.decisions, shown.sessions);
        Ok(Some(Block {
            digest: hex::sha1(out.as_bytes()),
            text: out,
            ledger,
            ids,
            dropped,
            project_empty: self.project_empty,
            stale: self.stale.cloned(),
        }))
    }

    /// The footer's phrases for what the candidate leaves out.
    fn omitted(&self, t: &Texts, shown: &Shown) -> Vec<String> {
        let (decisions, sessions) = (shown.decisions, shown.sessions);
        let mut omitted = Vec::new();
        if let Some(u) = shown.user.filter(|u| !u.cut.is_empty()) {
            omitted.push(t.omit_user_sections(&u.cut));
        }
        if self.user_dropped {
            omitted.push(t.omit_user.to_string());
        }
        if !self.cut_names.is_empty() {
            omitted.push(t.omit_sections(self.cut_names));
        }
        if shown.project_tail_cut {
            omitted.push(t.omit_project_tail.to_string());
        }
        if self.decision_cut(shown) {
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
        omitted
    }

    /// The newest decision is shown, cut.
    fn decision_cut(&self, shown: &Shown) -> bool {
        self.newest_decision_cut && !shown.decisions.is_empty()
    }

    fn file_len(&self, f: FileKind) -> Result<u64> {
        Ok(self.r.stamp(f)?.map_or(0, |s| s.len))
    }

    /// The candidate's ledger, before its own size is known.
    fn ledger(&self, parts: &Parts, shown: &Shown, omitted: Vec<String>) -> Result<Ledger> {
        let (decisions, sessions, user) = (shown.decisions, shown.sessions, shown.user);
        // what each log takes of the block, as written below (a cut decision counts cut)
        let decisions_prose = (parts.decisions_prose.as_ref())
            .filter(|_| shown.with_decisions)
            .map_or(0, |p| p.len() + 2);
        let decisions_bytes = match decisions.is_empty() {
            true => decisions_prose.saturating_sub(2),
            false => decisions_prose + entries_text(decisions).len(),
        };
        let sessions_bytes = match sessions.is_empty() {
            true => 0,
            false => entries_text(sessions).len(),
        };
        Ok(Ledger {
            budget_bytes: self.budget.bytes,
            budget_chars: self.budget.chars,
            project_bytes_shown: shown.project.len(),
            project_bytes_file: self.file_len(FileKind::Project)?,
            project_whole: self.cut_names.is_empty() && !shown.project_tail_cut,
            sections_cut: self.cut_names.to_vec(),
            decision_cut: self.decision_cut(shown),
            decisions_shown: decisions.len(),
            decisions_bytes_shown: decisions_bytes,
            decisions_live: self.decisions_live,
            sessions_shown: sessions.len(),
            sessions_bytes_shown: sessions_bytes,
            sessions_live: self.sessions.len(),
            archived: self.archived,
            omitted,
            due_shown: self.due.map_or(0, |d| d.1),
            due_total: self.due.map_or(0, |d| d.2),
            sibling_entries: self.siblings.map_or(0, |d| d.2),
            sibling_bytes: self.siblings.map_or(0, |d| d.0.len()),
            proposals_pending: self.waiting.0,
            drafts_pending: self.waiting.1,
            reports_open: self.waiting.2,
            user_bytes_shown: user.map_or(0, |u| u.text.len()),
            user_bytes_file: self.user.map_or(0, |u| u.file_bytes),
            user_sections_cut: user.map_or(Vec::new(), |u| u.cut.clone()),
            user_left_out: self.user_dropped,
            ..Default::default()
        })
    }

    /// The candidate's text; `ledger` gets its final size.
    fn text(&self, parts: &Parts, shown: &Shown, ledger: &mut Ledger) -> Result<String> {
        let mut out = String::new();
        // two passes: the ledger states the final size, which depends on the ledger
        for _ in 0..3 {
            let mut blocks = vec![self.head(parts.t, ledger)?];
            blocks.extend(self.body(parts, shown, &ledger.omitted));
            out = blocks.join("\n\n");
            let (bytes, chars) = (out.len(), out.chars().count());
            if bytes == ledger.bytes && chars == ledger.chars {
                break;
            }
            ledger.bytes = bytes;
            ledger.chars = chars;
            ledger.estimated_tokens = estimate_tokens(&out);
        }
        Ok(out)
    }

    /// The block's head: the header, the area map, the ledger's lines, settings and the hint.
    fn head(&self, t: &Texts, ledger: &Ledger) -> Result<String> {
        let mut head = vec![t.header.to_string()];
        if !self.areas.is_empty() {
            head.push(crate::ops::area_line(self.areas, self.lang));
        }
        head.push(t.ledger_injected(ledger));
        head.push(t.ledger_files(
            ledger.project_bytes_file,
            self.file_len(FileKind::Decisions)?,
            self.decisions_live,
            self.file_len(FileKind::Sessions)?,
            self.sessions.len(),
            self.archived,
        ));
        if !self.config.ignored.is_empty() {
            head.push(t.ignored_settings(&self.config.ignored));
        }
        if !self.config.warnings.is_empty() {
            head.push(t.settings_not_taken(self.config.warnings.len()));
        }
        head.extend(self.notes.iter().cloned());
        if ledger.proposals_pending > 0 || ledger.reports_open > 0 {
            head.push(t.waiting(
                ledger.proposals_pending,
                ledger.drafts_pending,
                ledger.reports_open,
            ));
        }
        head.push(t.hint.to_string());
        Ok(head.join("\n"))
    }

    /// The parts after the head, in the block's order.
    fn body(&self, parts: &Parts, shown: &Shown, omitted: &[String]) -> Vec<String> {
        let t = parts.t;
        let (decisions, sessions) = (shown.decisions, shown.sessions);
        let mut blocks = Vec::new();
        if let Some(u) = shown.user {
            blocks.push(u.text.clone());
        }
        if !shown.project.is_empty() {
            blocks.push(format!("{}\n{}", t.project_title, shown.project));
        }
        let decision_parts: Vec<String> = parts
            .decisions_prose
            .iter()
            .filter(|_| shown.with_decisions)
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
            blocks.push(t.footer(omitted));
        }
        if self.project_empty && self.config.bootstrap_when_empty {
            blocks.push(t.bootstrap.to_string());
        }
        blocks
    }

    /// The ids shown, and what the candidate leaves out of the files.
    fn left_out(
        &self,
        decisions: &[&EntryRecord],
        sessions: &[&EntryRecord],
    ) -> (Vec<String>, Dropped) {
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
        (ids, dropped)
    }

    /// The last resort: header and a pointer to the tools, which always fits 2000 bytes.
    /// The smallest block: header and hint, or what of them fits when even that is too big.
    pub(super) fn minimal(&self) -> Result<Block> {
        let t = texts(self.lang);
        let mut text = format!("{}\n{}", t.header, t.hint);
        if !self.budget.fits(&text) {
            text = t.header.to_string();
        }
        while !self.budget.fits(&text) {
            text.pop();
        }
        Ok(Block {
            digest: hex::sha1(text.as_bytes()),
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

/// PROJECT's parts joined, cut to `room` when given and over it.
fn project_text(parts: &Parts, room: Option<usize>) -> (String, bool) {
    let mut project = parts
        .sections
        .iter()
        .map(|(_, s, _)| s.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    if let Some(room) = room
        && project.len() > room
    {
        project = format!("{}\n\n{}", cut_to(&project, room), parts.t.truncated);
        return (project, true);
    }
    (project, false)
}
