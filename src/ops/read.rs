//! A read as a person or an agent asks for it: the one [`Request`] the CLI's `trilogy read`
//! and MCP's `memory_read` fill in, resolved here into what is read (a whole file, a section,
//! filtered entries) by one set of rules and defaults. It resolves and calls
//! [`super::read`]; how the answer is shown is the surface's.

use chrono::NaiveDate;

use crate::error::{Error, Result};
use crate::model::FileKind;
use crate::workspace::{Synced, Workspace};

use super::{EntryFilter, PageAsk, ReadTarget};

/// The entries an agent's read gives when it names no `limit`: what a model's context holds
/// comfortably beside everything else.
pub const AGENT_LIMIT: usize = 15;

/// The most entries an agent may ask for in one read.
pub const AGENT_MAX_LIMIT: usize = 200;

/// Who asks: the two surfaces differ in what an unbounded read gives, and nowhere else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Asker {
    /// A person at the terminal (`trilogy read`): a read is as long as it needs to be.
    #[default]
    Person,
    /// An agent (`memory_read`): a read is bounded, so that it fits in a context.
    Agent,
}

/// What to read. Every field left `None` takes its default:
///
/// | named                                  | read                                                  |
/// |----------------------------------------|-------------------------------------------------------|
/// | `file` = USER.md                       | the user memory, whole, or its `section`; filters are ignored |
/// | `section`                              | that PROJECT section (either language); a `file` other than PROJECT.md is refused |
/// | an entry filter (`area`, `since`, `until`, `limit`, `branch`) | entries of `file` (SESSIONS.md when none), newest first |
/// | `file` alone                           | that file, whole, as the store renders it; with `page_bytes`, DECISIONS.md and the sessions files in pages (the one after `cursor`) |
/// | nothing                                | a person: the three main files, whole; an agent: the newest entries of SESSIONS.md |
///
/// `limit`, for entries: a person gets every match; an agent gets [`AGENT_LIMIT`] and may ask
/// for 1 to [`AGENT_MAX_LIMIT`].
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// A file by name: PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md or USER.md.
    pub file: Option<String>,
    /// One section, by name in either language.
    pub section: Option<String>,
    /// Entries of this area only.
    pub area: Option<String>,
    /// Entries dated on or after this day.
    pub since: Option<NaiveDate>,
    /// Entries dated on or before this day.
    pub until: Option<NaiveDate>,
    /// At most this many entries, newest first.
    pub limit: Option<usize>,
    /// Only entries recorded on this git branch (their provenance).
    pub branch: Option<String>,
    /// Who asks, for the defaults that differ.
    pub asker: Asker,
    /// An agent's whole-file read of DECISIONS.md, SESSIONS.md or SESSIONS-archive.md: the
    /// most bytes of the file one answer holds (see [`PageAsk`]); `None`: no paging.
    pub page_bytes: Option<usize>,
    /// The page after the one that gave this cursor (a paged whole-file read only).
    pub cursor: Option<String>,
}

/// Where a request reads, and what.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// Parts of the user memory (USER.md).
    User(ReadTarget),
    /// Parts of the workspace's memory, in this order.
    Workspace(Vec<ReadTarget>),
}

impl Request {
    /// Whether an entry filter is named, which makes it an entry read.
    fn filters_entries(&self) -> bool {
        self.area.is_some()
            || self.since.is_some()
            || self.until.is_some()
            || self.limit.is_some()
            || self.branch.is_some()
    }

    /// What this request reads, by the rules on [`Request`].
    pub fn resolve(&self) -> Result<Resolved> {
        if self
            .file
            .as_deref()
            .is_some_and(crate::model::user::is_file)
        {
            if self.cursor.is_some() {
                return Err(cursor_misplaced());
            }
            return Ok(Resolved::User(match &self.section {
                Some(s) => ReadTarget::Section(s.clone()),
                None => ReadTarget::File(FileKind::Project),
            }));
        }
        if self.section.is_some()
            && let Some(f) =
                (self.file.as_deref()).filter(|f| FileKind::from_name(f) != Some(FileKind::Project))
        {
            return Err(Error::bad_input(format!(
                "--section reads a section of PROJECT.md or USER.md, not of {f}; drop the file name, or name one of those two"
            )));
        }
        let file = (self.file.as_deref())
            .map(|f| {
                FileKind::from_name(f).ok_or_else(|| {
                    Error::bad_input(format!(
                        "unknown file `{f}`; choose PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md or USER.md"
                    ))
                })
            })
            .transpose()?;
        let agent = self.asker == Asker::Agent;
        let paged = (self.page_bytes)
            .filter(|_| agent && self.section.is_none() && !self.filters_entries())
            .zip(file.filter(|f| *f != FileKind::Project));
        if self.cursor.is_some() && paged.is_none() {
            return Err(cursor_misplaced());
        }
        if let Some((bytes, file)) = paged {
            return Ok(Resolved::Workspace(vec![ReadTarget::Page(PageAsk {
                file,
                bytes,
                cursor: self.cursor.clone(),
            })]));
        }
        Ok(Resolved::Workspace(if let Some(s) = &self.section {
            vec![ReadTarget::Section(s.clone())]
        } else if self.filters_entries() || (agent && file.is_none()) {
            vec![ReadTarget::Entries(self.entry_filter(file)?)]
        } else if let Some(f) = file {
            vec![ReadTarget::File(f)]
        } else {
            [FileKind::Project, FileKind::Decisions, FileKind::Sessions]
                .into_iter()
                .map(ReadTarget::File)
                .collect()
        }))
    }

    /// The entry filter of an entry read of `file` (SESSIONS.md when none), with the asker's
    /// limit.
    fn entry_filter(&self, file: Option<FileKind>) -> Result<EntryFilter> {
        let limit = match (self.asker, self.limit) {
            (Asker::Person, limit) => limit.unwrap_or(usize::MAX),
            (Asker::Agent, None) => AGENT_LIMIT,
            (Asker::Agent, Some(n)) if (1..=AGENT_MAX_LIMIT).contains(&n) => n,
            (Asker::Agent, Some(n)) => {
                return Err(Error::bad_input(format!(
                    "`limit` = {n}: use a number from 1 to {AGENT_MAX_LIMIT}"
                )));
            }
        };
        Ok(EntryFilter {
            file: file.unwrap_or(FileKind::Sessions),
            area: self.area.clone(),
            since: self.since,
            until: self.until,
            limit,
            branch: self.branch.clone(),
        })
    }
}

/// A `cursor` given where no page is read.
fn cursor_misplaced() -> Error {
    Error::bad_input(
        "`cursor` pages a whole-file read: give it with `file` alone (DECISIONS.md, SESSIONS.md or SESSIONS-archive.md, the file whose page gave it), without section or entry filters",
    )
}

/// Read what `request` asks for in `ws` (USER.md from the user scope), one answer per part,
/// in order, each with what the files' sync reported.
/// The headings of PROJECT.md's present sections, in their order (none without memory).
pub fn project_sections(ws: &Workspace) -> Result<Vec<String>> {
    if !ws.has_memory() {
        return Ok(Vec::new());
    }
    let mut sections = ws.read(|r| r.sections())?.value;
    sections.retain(|s| !s.removed);
    sections.sort_by_key(|s| s.order);
    Ok(sections.into_iter().map(|s| s.heading).collect())
}

/// A number that moves whenever what memory reads changed, whoever changed it: the store's
/// change sequence, with the user store's added (USER.md).
pub fn change_seq(ws: &Workspace) -> Result<u64> {
    let own = match ws.has_memory() {
        true => ws.read(|r| r.change_seq())?.value,
        false => 0,
    };
    let user = match ws.user_scope().filter(|u| u.has_memory()) {
        Some(u) => u.read(|r| r.change_seq())?.value,
        None => 0,
    };
    Ok(own.wrapping_add(user))
}

pub fn run(ws: &Workspace, request: &Request) -> Result<Vec<Synced<super::ReadOutput>>> {
    match request.resolve()? {
        Resolved::User(target) => Ok(vec![super::read(
            crate::workspace::user::ready(ws)?,
            &target,
        )?]),
        Resolved::Workspace(targets) => targets.iter().map(|t| super::read(ws, t)).collect(),
    }
}

/// The heading of USER.md that `name` means, in either language, read from the user scope
/// `user`; `field` names where the name was given, for the error.
pub fn user_heading(user: &Workspace, name: &str, field: &str) -> Result<String> {
    let sections = user.read(|r| r.sections())?.value;
    crate::model::user::resolve_section(name, &sections, user.lang(), field)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(r: Request) -> Resolved {
        r.resolve().unwrap()
    }

    fn entries(r: Request) -> EntryFilter {
        match resolved(r) {
            Resolved::Workspace(mut t) if t.len() == 1 => match t.remove(0) {
                ReadTarget::Entries(f) => f,
                other => panic!("not an entry read: {other:?}"),
            },
            other => panic!("not one workspace target: {other:?}"),
        }
    }

    fn agent() -> Request {
        Request {
            asker: Asker::Agent,
            ..Request::default()
        }
    }

    #[test]
    fn a_person_naming_nothing_reads_the_three_main_files() {
        assert_eq!(
            resolved(Request::default()),
            Resolved::Workspace(vec![
                ReadTarget::File(FileKind::Project),
                ReadTarget::File(FileKind::Decisions),
                ReadTarget::File(FileKind::Sessions),
            ])
        );
    }

    #[test]
    fn an_agent_naming_nothing_reads_the_newest_sessions() {
        let f = entries(agent());
        assert_eq!((f.file, f.limit), (FileKind::Sessions, AGENT_LIMIT));
    }

    #[test]
    fn a_file_alone_is_read_whole_by_either_asker() {
        for asker in [Asker::Person, Asker::Agent] {
            let r = Request {
                file: Some("DECISIONS.md".into()),
                asker,
                ..Request::default()
            };
            assert_eq!(
                resolved(r),
                Resolved::Workspace(vec![ReadTarget::File(FileKind::Decisions)])
            );
        }
    }

    #[test]
    fn an_entry_read_gives_a_person_every_match_and_an_agent_fifteen() {
        let person = Request {
            area: Some("store".into()),
            ..Request::default()
        };
        let f = entries(person);
        assert_eq!((f.file, f.limit), (FileKind::Sessions, usize::MAX));
        let f = entries(Request {
            area: Some("store".into()),
            file: Some("DECISIONS.md".into()),
            ..agent()
        });
        assert_eq!((f.file, f.limit), (FileKind::Decisions, AGENT_LIMIT));
    }

    #[test]
    fn only_an_agent_limit_is_bounded() {
        let f = entries(Request {
            limit: Some(1000),
            ..Request::default()
        });
        assert_eq!(f.limit, 1000);
        for n in [0, AGENT_MAX_LIMIT + 1] {
            let err = Request {
                limit: Some(n),
                ..agent()
            }
            .resolve()
            .unwrap_err();
            assert!(
                err.to_string().contains("use a number from 1 to 200"),
                "{err}"
            );
        }
        let f = entries(Request {
            limit: Some(AGENT_MAX_LIMIT),
            ..agent()
        });
        assert_eq!(f.limit, AGENT_MAX_LIMIT);
    }

    #[test]
    fn a_section_of_a_file_other_than_project_is_refused_for_either_asker() {
        for asker in [Asker::Person, Asker::Agent] {
            let err = Request {
                file: Some("DECISIONS.md".into()),
                section: Some("State".into()),
                asker,
                ..Request::default()
            }
            .resolve()
            .unwrap_err();
            assert!(
                err.to_string()
                    .contains("reads a section of PROJECT.md or USER.md, not of DECISIONS.md"),
                "{err}"
            );
        }
        let r = Request {
            file: Some("PROJECT.md".into()),
            section: Some("State".into()),
            ..agent()
        };
        assert_eq!(
            resolved(r),
            Resolved::Workspace(vec![ReadTarget::Section("State".into())])
        );
    }

    #[test]
    fn an_unknown_file_is_refused_with_every_name_there_is() {
        for asker in [Asker::Person, Asker::Agent] {
            let err = Request {
                file: Some("NOTES.md".into()),
                asker,
                ..Request::default()
            }
            .resolve()
            .unwrap_err();
            assert!(
                err.to_string().contains(
                    "unknown file `NOTES.md`; choose PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md or USER.md"
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn user_md_is_read_from_the_user_memory_and_ignores_entry_filters() {
        let r = Request {
            file: Some("USER.md".into()),
            limit: Some(3),
            ..agent()
        };
        assert_eq!(
            resolved(r),
            Resolved::User(ReadTarget::File(FileKind::Project))
        );
        let r = Request {
            file: Some("USER.md".into()),
            section: Some("Preferences".into()),
            ..Request::default()
        };
        assert_eq!(
            resolved(r),
            Resolved::User(ReadTarget::Section("Preferences".into()))
        );
    }

    #[test]
    fn only_an_agents_whole_file_read_of_an_entry_file_is_paged() {
        let paged = |file: &str, asker| Request {
            file: Some(file.into()),
            page_bytes: Some(4096),
            asker,
            ..Request::default()
        };
        assert_eq!(
            resolved(paged("SESSIONS-archive.md", Asker::Agent)),
            Resolved::Workspace(vec![ReadTarget::Page(PageAsk {
                file: FileKind::Archive,
                bytes: 4096,
                cursor: None,
            })])
        );
        assert_eq!(
            resolved(paged("PROJECT.md", Asker::Agent)),
            Resolved::Workspace(vec![ReadTarget::File(FileKind::Project)])
        );
        assert_eq!(
            resolved(paged("DECISIONS.md", Asker::Person)),
            Resolved::Workspace(vec![ReadTarget::File(FileKind::Decisions)])
        );
    }

    #[test]
    fn a_cursor_outside_a_paged_read_is_refused_naming_it() {
        for r in [
            Request {
                cursor: Some("4.ab.0.0.0".into()),
                page_bytes: Some(4096),
                ..agent()
            },
            Request {
                file: Some("USER.md".into()),
                cursor: Some("4.ab.0.0.0".into()),
                page_bytes: Some(4096),
                ..agent()
            },
            Request {
                file: Some("DECISIONS.md".into()),
                area: Some("store".into()),
                cursor: Some("2.ab.0.0.0".into()),
                page_bytes: Some(4096),
                ..agent()
            },
        ] {
            let err = r.resolve().unwrap_err().to_string();
            assert!(err.contains("`cursor` pages a whole-file read"), "{err}");
        }
    }
}
