//! The session-start block (DESIGN §5): ledger, area map, PROJECT with per-section caps,
//! live DECISIONS, recent SESSIONS chosen by area, a footer naming what was left out, the
//! staleness notice and, while PROJECT is empty, the bootstrap instructions; the user memory
//! (USER.md) is a part of its own (`user.rs`).
//!
//! Assembled from the store only. The whole block, footer included, never exceeds the
//! effective budget (bytes, and characters when the host caps them). The archive is never
//! injected. Prose is ours, in both languages; see `texts.rs`.

mod alloc;
mod assemble;
mod cut;
mod render;
mod stale;
mod texts;
pub mod user;

use chrono::NaiveDate;
use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::model::{Dropped, EntryRecord};
use crate::store::Reader;

pub(crate) use crate::model::text::cut_to;
pub use crate::model::text::estimate_tokens;
use cut::{entries_text, section_text};

pub use alloc::{AreaLoad, allocate};
pub use assemble::{Inputs, assemble_with};
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
    /// Of those, drafts of sessions that recorded nothing (drafted from their transcripts).
    #[serde(skip_serializing_if = "is_zero")]
    pub drafts_pending: u64,
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
    let inputs = Inputs {
        config,
        today,
        budget,
        file_date,
        siblings,
        user: None,
        moved: &[],
        moved_total: 0,
        notes: &[],
    };
    assemble_with(r, &inputs)
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

fn is_zero(n: &u64) -> bool {
    *n == 0
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
