//! `[review_mode]`: per kind of memory, whether an agent's `checkpoint` writes directly (the
//! original's way, the default for a project's own memory) or only proposes, for a person to
//! accept or reject (`trilogy review`). The user's memory defaults to proposals, and a
//! workspace's `trilogy.toml` can never open it to direct writes: a cloned repository must not
//! let agents write the user's memory.

use serde::{Deserialize, Serialize};

/// How one kind of memory takes an agent's writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Written at once, as the original did.
    Direct,
    /// Kept as a proposal until a person accepts it.
    Propose,
}

/// The gate per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReviewMode {
    pub decisions: Mode,
    pub project: Mode,
    pub sessions: Mode,
    pub user: Mode,
}

/// The keys of `[review_mode]`.
pub(super) const KEYS: [&str; 4] = ["decisions", "project", "sessions", "user"];

/// The keys of a `[review_mode]` table this trilogy does not know.
pub(super) fn unknown_keys(t: &toml::Table) -> Vec<String> {
    (t.keys())
        .filter(|k| !KEYS.contains(&k.as_str()))
        .cloned()
        .collect()
}

impl Default for ReviewMode {
    fn default() -> ReviewMode {
        ReviewMode {
            decisions: Mode::Direct,
            project: Mode::Direct,
            sessions: Mode::Direct,
            user: Mode::Propose,
        }
    }
}

impl ReviewMode {
    /// Whether anything of a project's own memory waits for review.
    pub fn any_project_kind(&self) -> bool {
        [self.decisions, self.project, self.sessions].contains(&Mode::Propose)
    }
}

/// The warning a workspace file gets for `review_mode.user = "direct"`, which is dropped.
pub(super) fn user_direct_refused(file: &str) -> String {
    format!(
        "{file}: `review_mode.user = \"direct\"` ignored: a workspace's settings cannot let agents write the user's memory directly (a cloned repository could); set it in your own config file instead"
    )
}

/// Take `review_mode.user = "direct"` out of a workspace layer; whether it was there.
pub(super) fn drop_user_direct(layer: &mut toml::Table) -> bool {
    let Some(toml::Value::Table(t)) = layer.get_mut("review_mode") else {
        return false;
    };
    let direct = t.get("user").and_then(toml::Value::as_str) == Some("direct");
    if direct {
        t.remove("user");
    }
    direct
}

/// Merge a layer's `review_mode` table into the one collected so far, key by key (a workspace
/// setting `decisions` keeps the user's `project`).
pub(super) fn merge_into(merged: &mut toml::Table, v: toml::Value) {
    match (merged.get_mut("review_mode"), v) {
        (Some(toml::Value::Table(old)), toml::Value::Table(new)) => {
            for (k, x) in new {
                old.insert(k, x);
            }
        }
        (_, v) => {
            merged.insert("review_mode".into(), v);
        }
    }
}
