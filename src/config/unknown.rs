//! Keys a settings file holds that this trilogy does not know, at the top level or inside a
//! table (`[review_mode]`). A repository's `trilogy.toml` is shared by everyone who clones it:
//! a teammate on a newer trilogy may add a key this one has never heard of, so there such a key
//! is skipped with a warning, never an error. The user's own file is refused (a typo there is
//! the user's own to fix), unless the load is lenient (hooks, the MCP server). Either way the
//! message names the key and the known key nearest to it.

use std::path::Path;

/// How unknown keys of a layer are met.
pub(super) enum Unknown<'a> {
    /// An error naming the key.
    Refuse,
    /// Left out, each recorded as ``` `key` in file ``` with the nearest known key.
    Skip(&'a mut Vec<String>),
}

/// How alike two names must be (one less the edit distance over the longer length) for one to
/// be offered for the other: a typo or two, or the key cut short, but not a shared first word
/// (`memory_retention` is no `memory_dir_name`).
const NEAR: f64 = 0.7;

/// The known key nearest to `key`, when it is near enough to be what was meant.
fn nearest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let key = key.to_ascii_lowercase().replace('-', "_");
    known
        .iter()
        .map(|k| {
            // a key cut short is the key meant (`sessions_max`)
            let cut = key.len() >= 5 && k.starts_with(key.as_str());
            let score = strsim::normalized_damerau_levenshtein(&key, k);
            (if cut { score.max(NEAR) } else { score }, *k)
        })
        .filter(|(score, _)| *score >= NEAR)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

impl Unknown<'_> {
    /// Meet the unknown key `key` (dotted when inside a table) of the layer from `source`;
    /// `known` are the keys allowed where it stands. The error message when it is refused.
    pub(super) fn meet(
        &mut self,
        key: &str,
        source: &str,
        known: &[&str],
    ) -> std::result::Result<(), String> {
        let leaf = key.rsplit('.').next().unwrap_or(key);
        let table = &key[..key.len() - leaf.len()];
        let hint = nearest(leaf, known)
            .map(|n| format!(" (did you mean `{table}{n}`?)"))
            .unwrap_or_default();
        match self {
            Unknown::Skip(ignored) => {
                let file = Path::new(source)
                    .file_name()
                    .map_or(source.into(), |f| f.to_string_lossy());
                ignored.push(format!("`{key}` in {file}{hint}"));
                Ok(())
            }
            Unknown::Refuse => Err(format!(
                "unknown key `{key}`{hint}; valid keys: {}",
                known.join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_known_key_is_offered_only_when_it_is_near() {
        let known = ["decisions", "project", "sessions", "user"];
        assert_eq!(nearest("decision", &known), Some("decisions"));
        assert_eq!(nearest("Sessions", &known), Some("sessions"));
        assert_eq!(nearest("telemetry", &known), None);
        assert_eq!(nearest("memory_retention", &["memory_dir_name"]), None);
        assert_eq!(
            nearest("sessions_max", &["sessions_max_entries", "lang"]),
            Some("sessions_max_entries")
        );
        let mut ignored = Vec::new();
        Unknown::Skip(&mut ignored)
            .meet("review_mode.projects", "/r/trilogy.toml", &known)
            .unwrap();
        assert_eq!(
            ignored,
            ["`review_mode.projects` in trilogy.toml (did you mean `review_mode.project`?)"]
        );
        let refused = Unknown::Refuse
            .meet(
                "sesions_max_entries",
                "u.toml",
                &["sessions_max_entries", "lang"],
            )
            .unwrap_err();
        assert!(
            refused.contains("did you mean `sessions_max_entries`?"),
            "{refused}"
        );
    }
}
