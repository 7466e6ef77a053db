//! Where recall looks and keeps its index: the hosts' transcript folders (each host's own
//! variable, else its documented place under `$HOME`) and trilogy's cache folder. All from the
//! environment, never from a workspace: a repository's `trilogy.toml` may turn recall off, never
//! on, and never point it at other folders.

use std::path::{Path, PathBuf};

use crate::model::host::Host;

/// The folders recall reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallPlaces {
    /// `$XDG_CACHE_HOME/trilogy/recall` (else `~/.cache/trilogy/recall`).
    pub cache: PathBuf,
    /// Each host's transcript folder, for the hosts recall reads ([`Host::transcripts`]):
    /// `$CLAUDE_CONFIG_DIR` (else `~/.claude`), `$CODEX_HOME` (else `~/.codex`),
    /// `$GEMINI_CLI_HOME/.gemini` (else `~/.gemini`), `$DSH_HOME` (else `~/.dsh`).
    pub homes: Vec<(Host, PathBuf)>,
}

impl RecallPlaces {
    /// Where `host` keeps its transcripts here, if anywhere.
    pub fn home(&self, host: Host) -> Option<&Path> {
        (self.homes.iter())
            .find(|(h, _)| *h == host)
            .map(|(_, p)| p.as_path())
    }
}

/// The places for this environment; `None` without a home or cache folder to use.
pub(super) fn places(env: &[(String, String)]) -> Option<RecallPlaces> {
    let home = crate::base::dirs::home(env);
    let cache = crate::base::dirs::cache(env)?.join("recall");
    let homes = Host::recalled()
        .filter_map(|h| {
            let t = h.transcripts()?;
            let own = crate::base::env::folder(env, t.var).map(|v| match t.below_var {
                Some(below) => v.join(below),
                None => v,
            });
            let dir = own.or_else(|| home.as_ref().map(|h| h.join(t.under_home)))?;
            Some((h, dir))
        })
        .collect();
    Some(RecallPlaces { cache, homes })
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

/// A `recall_hosts` value: names of hosts recall reads.
pub(super) fn check_hosts(v: &toml::Value) -> Option<std::result::Result<(), String>> {
    let items = v.as_array()?;
    Some(
        match items
            .iter()
            .find(|h| (h.as_str().and_then(Host::parse)).is_none_or(|h| h.transcripts().is_none()))
        {
            Some(bad) => Err(format!(
                "{bad} is not a host recall reads; use some of {}",
                Host::recalled()
                    .map(Host::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => Ok(()),
        },
    )
}
