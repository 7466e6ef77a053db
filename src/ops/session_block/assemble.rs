//! Assembling the session block from a snapshot: PROJECT's sections capped, the live decisions
//! that fit their share, then candidate blocks tried from the most sessions down until one
//! fits the budget. Rendering one candidate is `render`'s; this reads the store and never writes.

use chrono::NaiveDate;

use crate::config::Config;
use crate::error::Result;
use crate::model::{EntryRecord, FileKind, ProposalKind, ProposalState, SectionRecord, State};
use crate::secrets::in_record;
use crate::store::Reader;

use super::render::Ctx;
use super::{
    Block, Budget, DECISIONS_SHARE, PROJECT_SHARE, Parts, SIBLING_SHARE, Texts, cut_to,
    pick_sessions, project_is_empty, section_text, staleness, texts,
};

/// What a session block is assembled from, besides the store's snapshot.
pub struct Inputs<'a> {
    pub config: &'a Config,
    /// The date entries are due and sessions are weighed against.
    pub today: NaiveDate,
    pub budget: Budget,
    /// The date the files were last written, for the staleness notice (read only if needed).
    pub file_date: &'a dyn Fn() -> Option<NaiveDate>,
    /// What sibling work trees recorded lately.
    pub siblings: &'a [crate::ops::sibling::SiblingEntry],
    /// The user memory's part (see [`user::part`](super::user::part)), shown after the ledger.
    pub user: Option<&'a super::user::Part>,
    /// The first entries whose cited code moved on, and how many did, as last worked out
    /// ([`crate::ops::anchors::cached`]).
    pub moved: &'a [crate::ops::anchors::Moved],
    pub moved_total: usize,
    /// Lines for the ledger said this once ([`crate::ops::native::told_once`]).
    pub notes: &'a [String],
}

/// PROJECT's parts, each capped at its share of the budget.
struct Project {
    /// (heading, text, cut); the prose above the sections first, under an empty heading.
    capped: Vec<(String, String, bool)>,
    /// Headings of the parts cut (`PROJECT.md` for the prose).
    cut_names: Vec<String>,
    empty: bool,
}

/// The live decisions that fit their share, newest first, and what is due for review.
struct Decisions {
    kept: Vec<EntryRecord>,
    /// The newest live decision that did not fit (the scan stopped there).
    first_left_out: Option<String>,
    /// The newest decision alone was over what was left of the share, and is shown cut.
    newest_cut: bool,
    /// Prose a person wrote in DECISIONS.md, when it fits the share.
    prose: Option<String>,
    live: usize,
    /// The decisions due earliest (as many as the block shows), and how many more are due.
    due: Vec<crate::ops::truth::due::Due>,
    due_more: usize,
}

/// The block for `inputs` from snapshot `r`.
pub fn assemble_with(r: &dyn Reader, inputs: &Inputs) -> Result<Block> {
    let Inputs {
        config,
        today,
        budget,
        ..
    } = *inputs;
    let lang = config.lang;
    let t = texts(lang);
    // what holds a credential written in by hand is left out (reported by status and doctor)
    let sections: Vec<SectionRecord> = r
        .sections()?
        .into_iter()
        .filter(|s| !s.removed && in_record(s).is_none())
        .collect();
    let mut sessions: Vec<EntryRecord> = r.file_entries(FileKind::Sessions, 0, usize::MAX)?;
    sessions.retain(|e| e.state == State::Live && in_record(e).is_none());
    let archived = r.file_count(FileKind::Archive)?;
    let areas = super::super::area_map_of(&sessions, today);
    // shares are sized against the tighter limit: a host that keeps 10,000 characters gets
    // shares of a 10,000-byte budget (characters never outnumber bytes)
    let sizing = budget.bytes.min(budget.chars.unwrap_or(usize::MAX));
    let project = capped_project(r, &sections, t, sizing)?;
    let mut decisions = fitting_decisions(r, t, today, sizing)?;
    crate::ops::truth::due::add_sections(&mut decisions.due, &r.sections()?, today);
    crate::ops::truth::due::add_moved(&mut decisions.due, inputs.moved, today);
    // those the cache left out are counted, never loaded
    decisions.due_more += inputs.moved_total.saturating_sub(inputs.moved.len());
    let sibling_block = crate::ops::sibling::block_text(
        inputs.siblings,
        lang,
        (sizing as f64 * SIBLING_SHARE) as usize,
    );
    let stale = staleness(r, config, inputs.file_date)?;
    let due_block = crate::ops::truth::due::block_text(&decisions.due, decisions.due_more, lang);
    let parts = Parts {
        t,
        sections: project.capped,
        decisions_prose: decisions.prose.take(),
        decisions: decisions.kept.iter().collect(),
    };
    let wanted = config.session_entries_injected as usize;
    let ctx = Ctx {
        config,
        budget,
        lang,
        areas: &areas,
        sessions: &sessions,
        decisions_live: decisions.live,
        kept_decisions: &decisions.kept,
        first_left_out: decisions.first_left_out.as_deref(),
        allocatable: pick_sessions(&sessions, &areas, wanted).len(),
        archived,
        project_empty: project.empty,
        stale: stale.as_ref(),
        due: due_block.as_ref(),
        siblings: sibling_block.as_ref(),
        waiting: (
            r.pending_proposals()? + inputs.user.map_or(0, |u| u.pending()),
            drafts_pending(r)?,
            r.reports()?.iter().filter(|x| x.open).count(),
        ),
        user: inputs.user,
        notes: inputs.notes,
        cut_names: &project.cut_names,
        newest_decision_cut: decisions.newest_cut,
        user_dropped: false,
        r,
    };
    first_fitting(ctx, &parts, session_counts(wanted))
}

/// Pending proposals that are drafts of sessions that recorded nothing; the proposals are
/// read only when some are pending.
fn drafts_pending(r: &dyn Reader) -> Result<u64> {
    if r.pending_proposals()? == 0 {
        return Ok(0);
    }
    let drafts = (r.proposals()?.iter())
        .filter(|p| p.state == ProposalState::Pending && p.kind == ProposalKind::Session)
        .filter(|p| crate::recall::draft::is_draft(&p.text))
        .count();
    Ok(drafts as u64)
}

/// PROJECT: every section (and the prose above them) capped at its share ÷ 5.
fn capped_project(
    r: &dyn Reader,
    sections: &[SectionRecord],
    t: &Texts,
    sizing: usize,
) -> Result<Project> {
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
    Ok(Project {
        capped,
        cut_names,
        empty: project_is_empty(sections, &project_prose),
    })
}

/// DECISIONS: live ones, newest first, whole entries within the share; the scan stops at the
/// first one that does not fit (the live count comes from a counter).
fn fitting_decisions(
    r: &dyn Reader,
    t: &Texts,
    today: NaiveDate,
    sizing: usize,
) -> Result<Decisions> {
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
    // what is due for review comes from the store's review marks, so the scan stops when the
    // share is full; only the due decisions the block can show are loaded
    let (due, due_more) =
        crate::ops::truth::due::due_decisions_first(r, today, crate::ops::truth::due::BLOCK_ITEMS)?;
    r.scan_file(FileKind::Decisions, 0, &mut |mut d| {
        if d.state != State::Live || in_record(&d).is_some() {
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
    let live = match first_left_out {
        Some(_) => (r.live_decisions()? as usize).max(kept_decisions.len() + 1),
        None => kept_decisions.len(),
    };
    Ok(Decisions {
        kept: kept_decisions,
        first_left_out,
        newest_cut,
        prose: decisions_prose,
        live,
        due,
        due_more,
    })
}

/// How many sessions to try, most first: the configured count, halved down to one, then none.
fn session_counts(wanted: usize) -> Vec<usize> {
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
    counts
}

/// The first candidate that fits: fewer sessions, then no decisions, then no user memory, then
/// PROJECT's tail cut shorter and shorter, and at last the smallest block.
fn first_fitting(ctx: Ctx, parts: &Parts, counts: Vec<usize>) -> Result<Block> {
    for n in &counts {
        let picked = pick_sessions(ctx.sessions, ctx.areas, *n);
        if let Some(b) = ctx.render(parts, Some(&picked), true, None)? {
            return Ok(b);
        }
    }
    // nothing fits with all decisions: drop them, then the user memory, then cut PROJECT's tail
    if let Some(b) = ctx.render(parts, None, false, None)? {
        return Ok(b);
    }
    let ctx = Ctx {
        user: None,
        user_dropped: ctx.user.is_some_and(|u| !u.text.is_empty()),
        ..ctx
    };
    if ctx.user_dropped
        && let Some(b) = ctx.render(parts, None, false, None)?
    {
        return Ok(b);
    }
    // PROJECT's room shrinks by at least one byte a round (by an eighth while that is more), so
    // this ends after at most ~8·ln(budget) + 8 renders
    let mut room = ctx.budget.bytes;
    while room > 0 {
        room -= (room / 8).max(1);
        if let Some(b) = ctx.render(parts, None, false, Some(room))? {
            return Ok(b);
        }
        if room < 8 {
            break;
        }
    }
    ctx.minimal()
}

#[cfg(test)]
mod tests {
    use super::session_counts;

    #[test]
    fn session_counts_halve_down_to_one_then_none() {
        assert_eq!(session_counts(10), [10, 5, 2, 1, 0]);
        assert_eq!(session_counts(3), [3, 1, 0]);
        assert_eq!(session_counts(1), [1, 0]);
        assert_eq!(session_counts(0), [0]);
    }
}
