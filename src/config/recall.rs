//! Where recall looks and keeps its index: the hosts' transcript folders (each host's own
//! variable, else its documented place under `$HOME`) and trilogy's cache folder. All from the
//! environment, never from a workspace: a repository's `trilogy.toml` may turn recall off, never
//! on, and never point it at other folders.

use std::path::PathBuf;

/// The hosts recall reads, by the names `recall_hosts` and `--host` take.
pub const RECALL_HOSTS: [&str; 4] = ["claude", "codex", "gemini", "dsh"];

/// The folders recall reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallPlaces {
    /// `$XDG_CACHE_HOME/trilogy/recall` (else `~/.cache/trilogy/recall`).
    pub cache: PathBuf,
    /// `$CLAUDE_CONFIG_DIR` (else `~/.claude`).
    pub claude: Option<PathBuf>,
    /// `$CODEX_HOME` (else `~/.codex`).
    pub codex: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME/.gemini` (else `~/.gemini`).
    pub gemini: Option<PathBuf>,
    /// `$DSH_HOME` (else `~/.dsh`).
    pub dsh: Option<PathBuf>,
}

/// The places for this environment; `None` without a home or cache folder to use.
pub(super) fn places(env: &[(String, String)]) -> Option<RecallPlaces> {
    use crate::base::env::folder as var;
    let home = crate::base::dirs::home(env);
    let cache = crate::base::dirs::cache(env)?.join("recall");
    let under = |dir: &str| home.as_ref().map(|h| h.join(dir));
    Some(RecallPlaces {
        cache,
        claude: var(env, "CLAUDE_CONFIG_DIR").or_else(|| under(".claude")),
        codex: var(env, "CODEX_HOME").or_else(|| under(".codex")),
        gemini: var(env, "GEMINI_CLI_HOME")
            .map(|h| h.join(".gemini"))
            .or_else(|| under(".gemini")),
        dsh: var(env, "DSH_HOME").or_else(|| under(".dsh")),
    })
}

/// Take out of a workspace layer what it may not set for recall: `recall_enabled = true` (it
/// may only turn recall off) and `recall_hosts`; a warning per key dropped.
pub(super) fn drop_widening(layer: &mut toml::Table, file: &str) -> Vec<String> {
    let mut out = Vec::new();
    let keys: Vec<String> = layer.keys().cloned().collect();
    for k in keys {
        let canon = super::canonical_key(&k);
        let widening = match canon {
            Some("recall_enabled") => layer.get(&k).and_then(toml::Value::as_bool) != Some(false),
            Some("recall_hosts") => true,
            _ => false,
        };
        if widening {
            layer.remove(&k);
            out.push(format!(
                "{file}: `{}` ignored: a workspace's settings may turn recall off, never on or at other hosts; set it in your own config file",
                canon.unwrap_or_default()
            ));
        }
    }
    out
}

/// A `recall_hosts` value: names from [`RECALL_HOSTS`].
pub(super) fn check_hosts(v: &toml::Value) -> Option<std::result::Result<(), String>> {
    let items = v.as_array()?;
    Some(
        match items
            .iter()
            .find(|h| h.as_str().is_none_or(|h| !RECALL_HOSTS.contains(&h)))
        {
            Some(bad) => Err(format!(
                "{bad} is not a host recall reads; use some of {}",
                RECALL_HOSTS.join(", ")
            )),
            None => Ok(()),
        },
    )
}
