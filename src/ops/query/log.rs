//! `log` and reports: the store's events filtered by file, section and count, and the reports
//! a save leaves behind (listed, and closed by the one write this module makes).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{Event, Report, SectionRevision};
use crate::store::Reader;
use crate::workspace::Workspace;

use super::*;

/// What `log` shows.
#[derive(Debug, Clone, Default)]
pub struct LogQuery {
    pub limit: usize,
    /// Only events naming this entry id (or id prefix).
    pub id: Option<String>,
    /// The revision history of this PROJECT section instead of events.
    pub section: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LogView {
    Events {
        events: Vec<LoggedEvent>,
    },
    History {
        key: String,
        revisions: Vec<SectionRevision>,
    },
}

/// An event with the branch its entry was recorded on (provenance, from the store).
#[derive(Debug, Clone, Serialize)]
pub struct LoggedEvent {
    #[serde(flatten)]
    pub event: Event,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

pub fn log(ws: &Workspace, q: &LogQuery) -> Result<LogView> {
    Ok(ws
        .read(|r| {
            if let Some(name) = &q.section {
                let key = find_section(&r.sections()?, name)?.key;
                let mut revisions = r.section_history(&key)?;
                revisions.reverse();
                revisions.truncate(q.limit);
                // as `read` shows the section: a credential in it masked
                for v in &mut revisions {
                    v.body = crate::secrets::masked(&v.body);
                }
                return Ok(LogView::History { key, revisions });
            }
            let events = match &q.id {
                None => r.events(q.limit)?,
                Some(id) => r
                    .events(usize::MAX)?
                    .into_iter()
                    .filter(|e| e.ids.iter().any(|x| x.starts_with(id.as_str())))
                    .take(q.limit)
                    .collect(),
            };
            let events = (events.into_iter())
                .map(|event| {
                    let branch = match event.ids.first() {
                        Some(id) => r.entry(id)?.and_then(|e| e.origin.branch),
                        None => None,
                    };
                    Ok(LoggedEvent { event, branch })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(LogView::Events { events })
        })?
        .value)
}

/// The `notes` reports, newest first; closed ones only when asked.
pub fn reports(ws: &Workspace, include_closed: bool) -> Result<Vec<Report>> {
    Ok(ws
        .read(|r| r.reports())?
        .value
        .into_iter()
        .filter(|x| include_closed || x.open)
        .collect())
}

/// Mark report `seq` as dealt with (it stays in the store).
pub fn close_report(ws: &Workspace, actor: &str, seq: u64) -> Result<Report> {
    ws.require_memory()?;
    Ok(ws
        .write(actor, |tx| {
            let mut r = tx
                .store()
                .reports()?
                .into_iter()
                .find(|x| x.seq == seq)
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "no report #{seq}; `trilogy reports --all` lists them"
                    ))
                })?;
            if r.open {
                r.open = false;
                tx.put_report(&r)?;
                tx.log("report-closed", vec![], &format!("report #{seq}"))?;
            }
            Ok(r)
        })?
        .value)
}
