//! The user scope: what is true of one person and their machine in every project — how they
//! like to work, where their tools are, the conventions they keep, the lessons they learnt —
//! in `USER.md` in the user's data folder, with its own store beside it.
//!
//! It is a [`Workspace`] of scope [`Scope::User`](crate::workspace::Scope): one file whose
//! sections are edited in place like PROJECT.md's, through the same absorb, render, lock,
//! history and secret checks. A person writes it directly (`trilogy user`, or the file); an
//! agent's `memory_checkpoint` `user` lines become proposals kept in the user store, shown by
//! `trilogy review` in every workspace. Every session-start block carries it (`block`), never
//! the copies of the block written into committed files.

mod block;
mod ops;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{Lang, SectionRecord};
use crate::workspace::Workspace;

pub use block::{Part, notice, part, room};
pub use ops::{Shown, ShownSection, add, check, record, show};

/// The user memory's file name.
pub const FILE: &str = "USER.md";

/// The sections of a new USER.md, in both languages: how I like to work, this machine, what
/// holds across my projects, what went wrong and how to avoid it.
pub const SLOTS: [(&str, &str); 4] = [
    ("偏好", "Preferences"),
    ("环境", "Environment"),
    ("约定", "Conventions"),
    ("教训", "Lessons"),
];

/// The text a new USER.md starts from.
pub fn template(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => include_str!("../../templates/zh/USER.md"),
        Lang::En => include_str!("../../templates/en/USER.md"),
    }
}

/// One line an agent (or a person) puts into a section of USER.md.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct UserLine {
    /// `偏好`/`Preferences`, `环境`/`Environment`, `约定`/`Conventions`, `教训`/`Lessons`,
    /// or another heading USER.md has.
    pub section: String,
    /// The line to add, or to put in place of `replaces`.
    pub line: String,
    /// A line of the section, matched exactly, that `line` replaces (kept in its history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

/// The language an existing USER.md was made in, told by its headings; `None` when there is no
/// file or its headings say nothing.
pub fn lang_of(dir: &Path) -> Option<Lang> {
    let text =
        crate::base::fence::read_small_text(&dir.join(FILE), crate::workspace::MAX_FILE_BYTES)?;
    let headings: Vec<&str> = (text.lines())
        .filter_map(|l| l.strip_prefix("## "))
        .map(str::trim)
        .collect();
    if SLOTS.iter().any(|(zh, _)| headings.contains(zh)) {
        return Some(Lang::Zh);
    }
    SLOTS
        .iter()
        .any(|(_, en)| headings.iter().any(|h| h.eq_ignore_ascii_case(en)))
        .then_some(Lang::En)
}

/// The user scope of `ws`, or why there is none.
pub fn scope(ws: &Workspace) -> Result<&Workspace> {
    if ws.is_user() {
        return Ok(ws);
    }
    ws.user_scope().ok_or_else(|| {
        Error::NotFound(
            "no user data folder is known (neither HOME nor XDG_DATA_HOME is set): set one, or `user_memory_dir` in your config file".into(),
        )
    })
}

/// The user scope, with USER.md made from its template on first use.
pub fn ready(ws: &Workspace) -> Result<&Workspace> {
    let u = scope(ws)?;
    if !u.has_memory() && !u.store_path().exists() {
        u.scaffold()?;
    }
    Ok(u)
}

/// Whether a file name given to a read names USER.md.
pub fn is_file(name: &str) -> bool {
    name.trim().eq_ignore_ascii_case(FILE)
}

/// Where USER.md is (whether or not it exists yet).
pub fn path(ws: &Workspace) -> Result<PathBuf> {
    Ok(scope(ws)?.file_path(crate::model::FileKind::Project))
}

/// The heading of USER.md a `section` names: a heading it has (any case), or one of the four
/// sections in either language — the file's own spelling when it has it, else the scope's.
pub fn resolve_section(
    name: &str,
    sections: &[SectionRecord],
    lang: Lang,
    field: &str,
) -> Result<String> {
    let want = name.trim().to_lowercase();
    let live = || sections.iter().filter(|s| !s.removed);
    if let Some(s) = live().find(|s| s.heading.trim().to_lowercase() == want) {
        return Ok(s.heading.clone());
    }
    if let Some((zh, en)) = SLOTS
        .iter()
        .find(|(zh, en)| want == *zh || want == en.to_lowercase())
    {
        let is_slot = |h: &str| h.trim() == *zh || h.trim().eq_ignore_ascii_case(en);
        return Ok(match live().find(|s| is_slot(&s.heading)) {
            Some(s) => s.heading.clone(),
            None => match lang {
                Lang::Zh => zh.to_string(),
                Lang::En => en.to_string(),
            },
        });
    }
    let mut names: Vec<String> = SLOTS.iter().map(|(z, e)| format!("{z} / {e}")).collect();
    names.extend(
        live()
            .filter(|s| {
                !SLOTS
                    .iter()
                    .any(|(z, e)| s.heading == *z || s.heading == *e)
            })
            .map(|s| s.heading.clone()),
    );
    Err(Error::bad_input(format!(
        "{field}.section: USER.md has no section `{}`; its sections are: {}",
        name.trim(),
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(heading: &str) -> SectionRecord {
        SectionRecord {
            key: crate::model::section_key(heading),
            heading: heading.into(),
            body: "\n暂无".into(),
            order: 0,
            removed: false,
            revision: 1,
        }
    }

    #[test]
    fn sections_are_named_in_either_language_and_keep_the_file_spelling() {
        let zh = [section("偏好"), section("环境")];
        assert_eq!(
            resolve_section("Preferences", &zh, Lang::En, "user[0]").unwrap(),
            "偏好"
        );
        assert_eq!(
            resolve_section("preferences", &zh, Lang::En, "user[0]").unwrap(),
            "偏好"
        );
        // a section the person deleted comes back in the scope's language
        assert_eq!(
            resolve_section("Lessons", &zh, Lang::Zh, "user[0]").unwrap(),
            "教训"
        );
        let err = resolve_section("What this is", &zh, Lang::Zh, "user[2]").unwrap_err();
        assert!(err.to_string().contains("user[2].section"), "{err}");
        assert!(err.to_string().contains("偏好 / Preferences"), "{err}");
    }
}
