//! The user scope's settings: where the user's memory (`USER.md`) lives, whether the block
//! carries it and under what cap. They are the user's alone: a workspace's `trilogy.toml`
//! setting any of them is dropped with a warning (a cloned repository must not move the user's
//! memory, hide it or widen what agents may write there).

use std::path::PathBuf;

use super::Config;

/// Keys only the user's own layers (their config file, the environment, `--set`) may set.
pub const USER_ONLY: [&str; 4] = [
    "user_memory_dir",
    "inject_user_memory",
    "user_memory_max_bytes",
    // a repository must not be able to have transcript excerpts recorded, and committed
    "auto_draft",
];

/// Default cap of the user memory in the block, in bytes (and never more than a tenth of
/// the budget).
pub const USER_MAX_BYTES: u64 = 2048;

/// The user scope as this process sees it: its folder and its settings (the layers without
/// the workspace's).
#[derive(Debug, Clone, PartialEq)]
pub struct UserScope {
    /// The folder holding `USER.md` and its store.
    pub dir: PathBuf,
    /// Settings from the user's layers only.
    pub config: Box<Config>,
    /// The user's layers name a `lang` (else `USER.md` keeps the language it was made in).
    pub lang_set: bool,
}

/// Take the user-only keys (in either spelling) out of a workspace layer before its values
/// are checked — a bad value there must not stop the workspace either; a warning per key.
pub(super) fn drop_user_only(layer: &mut toml::Table, file: &str) -> Vec<String> {
    let found: Vec<String> = (layer.keys())
        .filter(|k| super::canonical_key(k).is_some_and(|c| USER_ONLY.contains(&c)))
        .cloned()
        .collect();
    found
        .into_iter()
        .map(|k| {
            layer.remove(&k);
            super::canonical_key(&k).unwrap_or_default()
        })
        .map(|k| {
            let what = match k {
                "auto_draft" => "whether your sessions' transcripts are drafted into memory",
                _ => "where and how your user memory is kept",
            };
            format!(
                "{file}: `{k}` ignored: only your own config file (or TRILOGY_{} / --set) sets {what}; a workspace's settings cannot",
                k.to_uppercase()
            )
        })
        .collect()
}

/// Checks of a user-only value beyond its type.
pub(super) fn check_value(key: &str, v: &toml::Value) -> Option<std::result::Result<(), String>> {
    match (key, v) {
        ("user_memory_dir", toml::Value::String(s)) => Some(check_dir(s)),
        ("user_memory_max_bytes", toml::Value::Integer(n)) if *n > 65_536 => Some(Err(format!(
            "{n} bytes: the user memory takes at most 64 KiB of a block; use a smaller value"
        ))),
        _ => None,
    }
}

fn check_dir(s: &str) -> std::result::Result<(), String> {
    if s.chars().any(char::is_control) {
        return Err(format!(
            "\"{}\" holds a control character; give a plain absolute path",
            s.escape_debug()
        ));
    }
    if !(s.starts_with('/') || s.starts_with("~/")) {
        return Err(format!(
            "\"{s}\" is relative; give an absolute path (or one starting with `~/`)"
        ));
    }
    Ok(())
}

/// Where the user memory lives: `user_memory_dir` (with `~/` for `$HOME`), else
/// `$XDG_DATA_HOME/trilogy/user`, else `~/.local/share/trilogy/user`.
pub(super) fn dir_of(config: &Config, env: &[(String, String)]) -> Option<PathBuf> {
    let home = crate::base::dirs::home(env);
    match config.user_memory_dir.as_deref() {
        Some(d) => match d.strip_prefix("~/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None => Some(PathBuf::from(d)),
        },
        None => crate::base::dirs::data(env).map(|d| d.join("user")),
    }
}
