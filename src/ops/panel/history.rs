//! Looking back and what waits: entries in no live place (each restorable), sessions per ISO
//! week by area, and the gate's proposals and reports with the live entries each report
//! names.

use std::collections::BTreeMap;

use chrono::Datelike;
use serde::Serialize;

use crate::error::Result;
use crate::model::{EntryKind, FileKind, Proposal, State};
use crate::workspace::Workspace;

/// A page of restorable entries, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub entries: Vec<Restorable>,
    /// Entries in no live place.
    pub total: usize,
    pub offset: usize,
    pub limit: usize,
}

/// An entry that is archived, removed, replaced or superseded.
#[derive(Debug, Clone, Serialize)]
pub struct Restorable {
    pub id: String,
    /// The file it is in, or the one it would return to.
    pub file: &'static str,
    pub kind: &'static str,
    pub state: &'static str,
    pub heading: String,
    /// Its heading line and body, as a file holds it.
    pub text: String,
    /// What a restore names: it is restored only while unchanged.
    pub version: String,
    pub at: String,
}

/// Entries in no live place (archived, removed, replaced, superseded), newest first, `limit`
/// of them after the first `offset`.
pub fn history(ws: &Workspace, offset: usize, limit: usize) -> Result<History> {
    let mut entries = ws.read(|r| r.all_entries())?.value;
    entries.retain(|e| e.state != State::Live);
    entries.sort_by(|a, b| b.sort_date.cmp(&a.sort_date).then(b.seq.cmp(&a.seq)));
    let total = entries.len();
    let entries = (entries.iter().skip(offset).take(limit))
        .map(|e| Restorable {
            id: e.id.clone(),
            file: e
                .file()
                .unwrap_or(match e.kind {
                    EntryKind::Session => FileKind::Sessions,
                    EntryKind::Decision => FileKind::Decisions,
                })
                .file_name(),
            kind: e.kind.as_str(),
            state: e.state.as_str(),
            heading: e.heading.clone(),
            text: format!("## {}\n{}", e.heading, e.body),
            version: crate::ops::version::entry_version(e),
            at: e.created_at.clone(),
        })
        .collect();
    Ok(History {
        entries,
        total,
        offset,
        limit,
    })
}

/// Sessions recorded in one ISO week, by area.
#[derive(Debug, Clone, Serialize)]
pub struct Week {
    /// `YYYY-Www`.
    pub week: String,
    pub areas: BTreeMap<String, u64>,
}

/// Live and archived sessions per ISO week by area, oldest week first (undated ones left
/// out).
pub fn weeks(ws: &Workspace) -> Result<Vec<Week>> {
    let mut weeks: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    ws.read(|r| {
        for f in [FileKind::Sessions, FileKind::Archive] {
            r.scan_file(f, 0, &mut |e| {
                if let Some(d) = e.date() {
                    let w = d.iso_week();
                    let key = format!("{}-W{:02}", w.year(), w.week());
                    *weeks.entry(key).or_default().entry(e.area()).or_default() += 1;
                }
                Ok(true)
            })?;
        }
        Ok(())
    })?;
    Ok((weeks.into_iter())
        .map(|(week, areas)| Week { week, areas })
        .collect())
}

/// What waits for a person's review: pending proposals and open reports.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    pub proposals: Vec<Proposal>,
    pub reports: Vec<ReviewReport>,
}

/// An open report with the live entries it names.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewReport {
    /// Its number, by which it is closed.
    pub n: u64,
    pub text: String,
    pub at: String,
    pub actor: String,
    /// Ids of the live entries its text names.
    pub names: Vec<String>,
}

/// Pending proposals and open reports (as `trilogy review list` has them), each report with
/// the live entries it names.
pub fn review(ws: &Workspace) -> Result<Review> {
    let listing = crate::ops::proposals::list(ws, false)?;
    let named = ws
        .read(|r| {
            (listing.reports.iter())
                .map(|rep| crate::ops::truth::retire::named_in(r, &rep.text))
                .collect::<Result<Vec<_>>>()
        })?
        .value;
    let reports = (listing.reports.into_iter().zip(named))
        .map(|(rep, names)| ReviewReport {
            n: rep.seq,
            text: rep.text,
            at: rep.at,
            actor: rep.actor,
            names: names.into_iter().map(|(id, _)| id).collect(),
        })
        .collect();
    Ok(Review {
        proposals: listing.proposals,
        reports,
    })
}
