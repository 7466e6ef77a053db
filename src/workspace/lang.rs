//! The language a workspace writes in when no setting of its own says: that of the memory it
//! already has (its files, else its store), else the person's locale for a new one.
//!
//! `lang` set by the project's `trilogy.toml`, `TRILOGY_LANG` or `--set` is kept as it is; this
//! module only fills the gap, and names where the value came from so `trilogy config` shows it.
//! It reads; it never writes (`trilogy init` records the language, in `ops`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::model::{FileKind, Lang, SECTIONS};

use super::{MAX_FILE_BYTES, Workspace};

/// How much of a memory file is read to tell its language: its preamble and first entries.
const HEAD_BYTES: u64 = 32 * 1024;

/// The locale variables, in the order POSIX gives them weight for messages.
const LOCALE_VARS: [&str; 3] = ["LC_ALL", "LC_MESSAGES", "LANG"];

/// The language of the person's locale: the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is
/// set and not empty; `zh…` is Chinese, anything else (and no locale) English. Returns the
/// variable that decided, for the message.
pub fn of_locale(env: &[(String, String)]) -> (Lang, Option<String>) {
    let set = (LOCALE_VARS.iter())
        .find_map(|name| Some(format!("{name}={}", crate::base::env::var(env, name)?)));
    let zh = set
        .as_deref()
        .and_then(|s| s.split_once('='))
        .is_some_and(|(_, v)| v.to_ascii_lowercase().starts_with("zh"));
    (if zh { Lang::Zh } else { Lang::En }, set)
}

/// The language PROJECT.md's fixed section headings are written in; `None` when none of them
/// is one of the five.
fn of_headings<'a>(headings: impl IntoIterator<Item = &'a str>) -> Option<Lang> {
    let (mut zh, mut en) = (0, 0);
    for h in headings {
        let h = h.trim();
        if SECTIONS.iter().any(|(z, _)| *z == h) {
            zh += 1;
        } else if SECTIONS.iter().any(|(_, e)| e.eq_ignore_ascii_case(h)) {
            en += 1;
        }
    }
    match (zh, en) {
        (0, 0) => None,
        (z, e) if z >= e => Some(Lang::Zh),
        _ => Some(Lang::En),
    }
}

/// The language of the field labels (`完成：`, `Done:`, …) that begin lines of `text`, quoted
/// ones too (a template's preamble shows the entry's shape); `None` when there are none.
fn of_labels(text: &str) -> Option<Lang> {
    let (zh, en) = (
        crate::model::labels(Lang::Zh),
        crate::model::labels(Lang::En),
    );
    let of = |l: &crate::model::Labels| {
        [l.done, l.open, l.next, l.chose, l.over, l.because].map(str::trim_end)
    };
    let (zh, en) = (of(zh), of(en));
    let (mut z, mut e) = (0, 0);
    for line in text.lines() {
        let line = line.trim_start().trim_start_matches('>').trim_start();
        if zh.iter().any(|l| line.starts_with(l)) {
            z += 1;
        } else if en.iter().any(|l| line.starts_with(l)) {
            e += 1;
        }
    }
    match (z, e) {
        (0, 0) => None,
        (z, e) if z >= e => Some(Lang::Zh),
        _ => Some(Lang::En),
    }
}

impl Workspace {
    /// The language of the memory this workspace already has: the field labels of its
    /// SESSIONS.md and DECISIONS.md, else PROJECT.md's headings (the original plugin wrote
    /// English ones into Chinese memory), on disk; else the headings its store keeps (the
    /// files were deleted). `None` for a new workspace, or memory that says nothing.
    pub fn lang_of_memory(&self) -> Option<Lang> {
        // the head of a file says its language: a large DECISIONS.md is never read whole
        let read = |f: FileKind| {
            use std::io::Read;
            let path = self.inside(&self.file_path(f)).ok()?;
            let (file, _) = crate::base::fence::open_regular(&path, MAX_FILE_BYTES).ok()?;
            let mut head = Vec::new();
            file.take(HEAD_BYTES).read_to_end(&mut head).ok()?;
            Some(String::from_utf8_lossy(&head).into_owned())
        };
        let labelled = [FileKind::Sessions, FileKind::Decisions]
            .into_iter()
            .filter_map(read)
            .find_map(|text| of_labels(&text));
        if labelled.is_some() {
            return labelled;
        }
        if let Some(text) = read(FileKind::Project) {
            let found = of_headings(text.lines().filter_map(|l| l.strip_prefix("## ")));
            if found.is_some() {
                return found;
            }
        }
        let store = self.inside(&self.store_path()).ok()?;
        if !store.exists() {
            return None;
        }
        let store = crate::store::Store::open_read_only(&store).ok()?;
        let rtx = store.read().ok()?;
        // rendered in both languages: a store that keeps no preamble gets the template's,
        // whose labels would decide
        let rendered = |lang| {
            [FileKind::Sessions, FileKind::Decisions]
                .into_iter()
                .filter_map(|f| super::render_file(&rtx, f, lang).ok())
                .find_map(|text| of_labels(&text))
        };
        let told = rendered(Lang::Zh);
        if told.is_some() && told == rendered(Lang::En) {
            return told;
        }
        let sections = crate::store::Reader::sections(&rtx).ok()?;
        of_headings(
            sections
                .iter()
                .filter(|s| !s.removed)
                .map(|s| s.heading.as_str()),
        )
    }

    /// Settle `lang` where no setting of the project, the environment or the command gave
    /// it: the memory's own language, else the user's config file, else (no memory yet) the
    /// locale's. `sources` says where it came from.
    pub(super) fn settle_lang(
        &mut self,
        sources: &mut BTreeMap<String, String>,
        user_file: Option<&Path>,
        env: &[(String, String)],
    ) {
        let by_user_file = user_file.map(|f| f.display().to_string());
        // `default` is what the loader names a key no layer set
        let source = sources.get("lang").filter(|s| *s != "default");
        if source.is_some() && source != by_user_file.as_ref() {
            return;
        }
        if let Some(lang) = self.lang_of_memory() {
            self.config.lang = lang;
            sources.insert("lang".into(), "the memory files' headings".into());
            return;
        }
        if source.is_some() || self.has_memory() {
            return;
        }
        let (lang, var) = of_locale(env);
        self.config.lang = lang;
        let from = var.map_or("no locale set".into(), |v| format!("locale {v}"));
        sources.insert("lang".into(), from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::env::tests::env;

    #[test]
    fn the_locale_decides_in_posix_order() {
        assert_eq!(of_locale(&env(&[])).0, Lang::En);
        assert_eq!(of_locale(&env(&[("LANG", "zh_CN.UTF-8")])).0, Lang::Zh);
        assert_eq!(of_locale(&env(&[("LANG", "zh_TW")])).0, Lang::Zh);
        assert_eq!(of_locale(&env(&[("LANG", "en_US.UTF-8")])).0, Lang::En);
        assert_eq!(of_locale(&env(&[("LANG", "C.UTF-8")])).0, Lang::En);
        // LC_ALL wins over LANG; an empty one is passed over
        let both = env(&[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "en_GB.UTF-8")]);
        assert_eq!(
            of_locale(&both),
            (Lang::En, Some("LC_ALL=en_GB.UTF-8".into()))
        );
        let empty = env(&[("LC_ALL", ""), ("LC_MESSAGES", "zh_CN"), ("LANG", "en")]);
        assert_eq!(of_locale(&empty).0, Lang::Zh);
    }

    #[test]
    fn labels_tell_the_language_quoted_or_not() {
        assert_eq!(
            of_labels("> 完成：…\n\n## 2026-01-01\nDone: x\n完成：y"),
            Some(Lang::Zh)
        );
        assert_eq!(of_labels("## 2026\nChose: a\nOver: b\n"), Some(Lang::En));
        assert_eq!(of_labels("# S\nprose only\n"), None);
    }

    #[test]
    fn headings_tell_the_language() {
        assert_eq!(of_headings(["这是什么", "现状", "Notes"]), Some(Lang::Zh));
        assert_eq!(of_headings(["What this is", "state"]), Some(Lang::En));
        assert_eq!(of_headings(["Notes", "Ideas"]), None);
    }
}
