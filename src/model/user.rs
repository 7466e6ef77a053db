//! The user memory's own terms: its file's name, its four sections in both languages, the
//! line an agent or a person puts into one, and which heading a section name means. Pure: it
//! reads no file and knows no workspace (the user scope itself is `workspace::user`).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

use super::{Lang, SectionRecord};

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

/// Whether a file name given to a read names USER.md.
pub fn is_file(name: &str) -> bool {
    name.trim().eq_ignore_ascii_case(FILE)
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
