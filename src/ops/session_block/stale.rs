//! Is PROJECT.md empty (only its template), and does it lag behind the logs: the two
//! judgements about PROJECT.md that the block, `status` and `memory_status` share.

use chrono::NaiveDate;
use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::model::{FileKind, SectionRecord, is_empty_body};
use crate::store::Reader;

/// True while PROJECT.md holds nothing but its template: every section says `暂无` / `none yet`
/// (or nothing) and no prose stands above them. A file with only custom sections, or only prose,
/// is filled in.
pub fn project_is_empty(sections: &[SectionRecord], prose: &str) -> bool {
    prose.trim().is_empty() && sections.iter().all(|s| s.removed || is_empty_body(&s.body))
}

/// PROJECT.md lagging behind the logs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Staleness {
    pub behind_days: i64,
    pub entries_since: usize,
}

/// Whether PROJECT.md lags behind the logs: its last change against the newest SESSIONS and
/// DECISIONS entry dates. The last change is the newest section revision a command made; a
/// revision that only absorbed the file (a hand edit, a pull, a fresh clone's import) is
/// dated no later than `file_date` — the file's last commit, or its mtime outside git — so
/// a clone does not make an old PROJECT.md look new.
pub fn staleness(
    r: &dyn Reader,
    config: &Config,
    file_date: &dyn Fn() -> Option<NaiveDate>,
) -> Result<Option<Staleness>> {
    if config.project_stale_days <= 0 {
        return Ok(None);
    }
    Ok(lag(r, file_date)?.filter(|s| s.behind_days >= config.project_stale_days))
}

/// How far PROJECT.md lags behind the logs, whatever the threshold (the panel shows it):
/// `None` when PROJECT.md has no revision or the logs no entry. Entries count by the date they
/// sort by: an undated heading takes its neighbour's (see `items_of`).
pub fn lag(r: &dyn Reader, file_date: &dyn Fn() -> Option<NaiveDate>) -> Result<Option<Staleness>> {
    let mut made: Option<NaiveDate> = None;
    let mut absorbed: Option<NaiveDate> = None;
    for s in r.sections()? {
        if let Some(rev) = r.section_history(&s.key)?.last()
            && let Ok(at) = chrono::DateTime::parse_from_rfc3339(&rev.at)
        {
            let d = at.date_naive();
            let from_files = matches!(rev.actor.as_str(), "file-edit" | crate::workspace::CHECKOUT);
            let slot = if from_files { &mut absorbed } else { &mut made };
            *slot = Some(slot.map_or(d, |l: NaiveDate| l.max(d)));
        }
    }
    if absorbed > made
        && let Some(on_disk) = file_date()
    {
        absorbed = absorbed.map(|d| d.min(on_disk));
    }
    let Some(project) = made.max(absorbed) else {
        return Ok(None);
    };
    // from the render order's keys, newest first: what it reads grows with the entries made
    // since PROJECT.md changed, not with the files
    let (mut newest, mut entries_since) = (None, 0);
    for f in [FileKind::Sessions, FileKind::Decisions] {
        let (n, since) = r.dates_after(f, project)?;
        newest = newest.max(n);
        entries_since += since;
    }
    let Some(newest) = newest else {
        return Ok(None);
    };
    let behind = (newest - project).num_days().max(0);
    Ok(Some(Staleness {
        behind_days: behind,
        entries_since,
    }))
}
