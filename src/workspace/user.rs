//! The user scope: what is true of one person and their machine in every project — how they
//! like to work, where their tools are, the conventions they keep, the lessons they learnt —
//! in `USER.md` in the user's data folder, with its own store beside it.
//!
//! It is a [`Workspace`] of scope [`Scope::User`](super::Scope): one file whose sections are
//! edited in place like PROJECT.md's, through the same absorb, render, lock, history and secret
//! checks. This module finds that scope from a project's workspace, makes it on first use and
//! tells its language; what people and agents do with it lives in `ops`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::user::{FILE, SLOTS};
use crate::model::{FileKind, Lang};

use super::{MAX_FILE_BYTES, Workspace};

/// The text a new USER.md starts from.
pub fn template(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => include_str!("../../templates/zh/USER.md"),
        Lang::En => include_str!("../../templates/en/USER.md"),
    }
}

/// The language an existing USER.md was made in, told by its headings; `None` when there is no
/// file or its headings say nothing.
pub fn lang_of(dir: &Path) -> Option<Lang> {
    let text = crate::base::fence::read_small_text(&dir.join(FILE), MAX_FILE_BYTES)?;
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

/// Where USER.md is (whether or not it exists yet).
pub fn path(ws: &Workspace) -> Result<PathBuf> {
    Ok(scope(ws)?.file_path(FileKind::Project))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_md_tells_its_language_by_its_headings() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lang_of(dir.path()), None, "no file yet");
        let write = |text: &str| std::fs::write(dir.path().join(FILE), text).unwrap();
        write("# USER.md\n\n## 偏好\n\n## Notes\n");
        assert_eq!(lang_of(dir.path()), Some(Lang::Zh));
        write("# USER.md\n\n## preferences\n\n- terse\n");
        assert_eq!(lang_of(dir.path()), Some(Lang::En), "any case");
        write("# USER.md\n\n## Notes\n");
        assert_eq!(lang_of(dir.path()), None, "no heading of its own");
    }
}
