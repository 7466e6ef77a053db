//! Entries as cards and PROJECT.md's sections as the panel shows them: each with the version
//! a fix in place names ([`crate::ops::fix`]), so a stale fix is refused.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{EntryRecord, FileKind, ProposalState, State};
use crate::ops::version::{entry_version, section_version};
use crate::ops::{EntryView, Provenance};
use crate::store::Reader;
use crate::workspace::Workspace;

/// One entry as a card: as `trilogy read --json` shows it (with the session's host in its
/// provenance), its version, what replaced it, its file and what names it.
#[derive(Debug, Clone, Serialize)]
pub struct Card {
    #[serde(flatten)]
    pub entry: EntryView,
    pub version: String,
    pub replaced_by: Option<String>,
    /// The file it is in, as this workspace names it; none when it is in no file.
    pub file: Option<&'static str>,
    /// Numbers of the open reports naming it.
    pub reports: Vec<u64>,
    /// Ids of the pending proposals to supersede it.
    pub proposals: Vec<String>,
}

/// A page of one file's cards.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    pub file: &'static str,
    /// Entries of the file (those holding the query, when one was given).
    pub total: usize,
    pub offset: usize,
    pub limit: usize,
    pub entries: Vec<Card>,
}

/// What waits for a person about an entry: open reports naming it (by number), pending
/// proposals to supersede it (by id).
struct Named {
    reports: HashMap<String, Vec<u64>>,
    /// Each pending proposal's id and what its decision supersedes (an id, a heading…).
    supersede: Vec<(String, String)>,
}

impl Named {
    fn read(r: &dyn Reader) -> Result<Named> {
        let mut reports: HashMap<String, Vec<u64>> = HashMap::new();
        for rep in r.reports()?.into_iter().filter(|x| x.open) {
            for (id, _) in crate::ops::truth::retire::named_in(r, &rep.text)? {
                reports.entry(id).or_default().push(rep.seq);
            }
        }
        let supersede = (r.proposals()?.into_iter())
            .filter(|p| p.state == ProposalState::Pending)
            .filter_map(|p| {
                let item: serde_json::Value = serde_json::from_str(&p.item).ok()?;
                let target = item.get("supersedes")?.as_str()?.trim().to_string();
                Some((p.id, target))
            })
            .collect();
        Ok(Named { reports, supersede })
    }

    fn proposals_for(&self, e: &EntryRecord) -> Vec<String> {
        (self.supersede.iter())
            .filter(|(_, t)| (t.len() >= 4 && e.id.starts_with(t.as_str())) || *t == e.heading)
            .map(|(id, _)| id.clone())
            .collect()
    }

    fn card(&self, ws: &Workspace, r: &dyn Reader, e: &EntryRecord) -> Result<Card> {
        let mut entry = EntryView::from(e);
        entry.provenance = Provenance::read(ws, r, e)?;
        Ok(Card {
            entry,
            version: entry_version(e),
            replaced_by: e.replaced_by.clone(),
            file: e.file().map(|f| ws.file_name(f)),
            reports: self.reports.get(&e.id).cloned().unwrap_or_default(),
            proposals: self.proposals_for(e),
        })
    }
}

/// File `f`'s entries in file order (newest first), `limit` of them after the first
/// `offset`; with `query` (lowercase), only those whose heading or body holds it, whatever
/// their case.
pub fn entries(
    ws: &Workspace,
    f: FileKind,
    offset: usize,
    limit: usize,
    query: Option<&str>,
) -> Result<Page> {
    ws.read(|r| {
        let named = Named::read(r)?;
        let (total, page) = match query {
            None => (r.file_count(f)? as usize, r.file_entries(f, offset, limit)?),
            Some(q) => {
                let (mut total, mut page) = (0usize, Vec::new());
                r.scan_file(f, 0, &mut |e| {
                    let hit =
                        e.heading.to_lowercase().contains(q) || e.body.to_lowercase().contains(q);
                    if hit {
                        if total >= offset && page.len() < limit {
                            page.push(e);
                        }
                        total += 1;
                    }
                    Ok(true)
                })?;
                (total, page)
            }
        };
        Ok(Page {
            file: ws.file_name(f),
            total,
            offset,
            limit,
            entries: (page.iter())
                .map(|e| named.card(ws, r, e))
                .collect::<Result<Vec<_>>>()?,
        })
    })
    .map(|w| w.value)
}

/// The card a person should look at now in place of entry `id` (or an id prefix, as
/// retire and restore take): the entry, or what replaced it when it was edited.
pub fn current(ws: &Workspace, id: &str) -> Result<Option<Card>> {
    ws.read(|r| {
        let mut cur = match r.entry(id)? {
            Some(e) => Some(e),
            None => crate::ops::restore::entry_by_prefix(r, id).ok(),
        };
        // an edited entry: its replacement is what the person should look at now
        for _ in 0..16 {
            match cur.as_ref().and_then(|c| c.replaced_by.clone()) {
                Some(next) if cur.as_ref().is_some_and(|c| c.state == State::Replaced) => {
                    cur = r.entry(&next)?
                }
                _ => break,
            }
        }
        let named = Named::read(r)?;
        cur.map(|c| named.card(ws, r, &c)).transpose()
    })
    .map(|w| w.value)
}

/// Where an entry is now.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    /// Its file, as this workspace names it; none when it is in no file.
    pub file: Option<&'static str>,
    /// Its place in that file, when it is in one.
    #[serde(flatten)]
    pub at: Option<At>,
    pub state: &'static str,
}

/// An entry's place in its file (files are in date order).
#[derive(Debug, Clone, Serialize)]
pub struct At {
    /// 1-based.
    pub position: Option<usize>,
    /// Entries in the file.
    pub of: u64,
}

/// Where entry `id` is now (none when there is no such entry).
pub fn place(ws: &Workspace, id: &str) -> Result<Option<Place>> {
    ws.read(|r| {
        let Some(e) = r.entry(id)? else {
            return Ok(None);
        };
        let state = e.state.as_str();
        let Some(f) = e.file() else {
            return Ok(Some(Place {
                file: None,
                at: None,
                state,
            }));
        };
        let mut n = 0usize;
        let mut position = None;
        r.scan_file(f, 0, &mut |x| {
            n += 1;
            if x.id == id {
                position = Some(n);
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(Some(Place {
            file: Some(ws.file_name(f)),
            at: Some(At {
                position,
                of: r.file_count(f)?,
            }),
            state,
        }))
    })
    .map(|w| w.value)
}

/// PROJECT.md as the panel edits it: its prose and its sections.
#[derive(Debug, Clone, Serialize)]
pub struct Sections {
    pub prose: String,
    pub sections: Vec<SectionCard>,
}

/// A section with its version (removed ones too: they are restorable).
#[derive(Debug, Clone, Serialize)]
pub struct SectionCard {
    pub key: String,
    pub heading: String,
    pub body: String,
    pub revision: u64,
    pub removed: bool,
    pub version: String,
}

/// PROJECT.md's prose and sections, each with its version.
pub fn sections(ws: &Workspace) -> Result<Sections> {
    ws.read(|r| {
        let prose = crate::markdown::prose(&r.preamble(FileKind::Project)?.unwrap_or_default());
        let sections = (r.sections()?.iter())
            .map(|s| SectionCard {
                key: s.key.clone(),
                heading: s.heading.clone(),
                body: s.text().to_string(),
                revision: s.revision,
                removed: s.removed,
                version: section_version(s),
            })
            .collect();
        Ok(Sections { prose, sections })
    })
    .map(|w| w.value)
}

/// One section's revisions, newest first, beside where it stands now.
#[derive(Debug, Clone, Serialize)]
pub struct Revisions {
    pub key: String,
    pub heading: String,
    pub revision: u64,
    pub revisions: Vec<Revision>,
}

/// A revision as a person restores it: its text as written, unmasked.
#[derive(Debug, Clone, Serialize)]
pub struct Revision {
    pub revision: u64,
    pub body: String,
    pub at: String,
    pub actor: String,
}

/// Every revision of the section keyed `key`, newest first.
pub fn revisions(ws: &Workspace, key: &str) -> Result<Revisions> {
    ws.read(|r| {
        let cur = (r.sections()?.into_iter())
            .find(|s| s.key == key)
            .ok_or_else(|| Error::NotFound(format!("没有这个 PROJECT 段：{key}")))?;
        let mut list = r.section_history(key)?;
        list.sort_by_key(|v| std::cmp::Reverse(v.revision));
        Ok(Revisions {
            key: cur.key,
            heading: cur.heading,
            revision: cur.revision,
            revisions: (list.into_iter())
                .map(|v| Revision {
                    revision: v.revision,
                    body: crate::model::trim_blank_lines(&v.body).to_string(),
                    at: v.at,
                    actor: v.actor,
                })
                .collect(),
        })
    })
    .map(|w| w.value)
}

/// The heading of the section keyed `key` (removed ones too), by which a restore finds it.
pub fn section_heading(ws: &Workspace, key: &str) -> Result<Option<String>> {
    Ok((ws.read(|r| r.sections())?.value.into_iter())
        .find(|s| s.key == key)
        .map(|s| s.heading))
}
