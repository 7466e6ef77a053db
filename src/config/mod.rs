//! Settings: the original plugin's sixteen keys plus ours, in layers (later wins):
//! built-in defaults → user file → workspace `trilogy.toml` → `TRILOGY_*` environment →
//! command-line `--set key=value`. TOML, snake_case, the original camelCase names accepted.
//!
//! A wrong type or value is an error naming the file (or variable) and the key. An unknown key
//! is a warning in a repository's `trilogy.toml` and an error in the user's own file
//! (`unknown`).
//! This module reads files and the environment handed to it; it never prints.

use serde::{Deserialize, Serialize};

use crate::model::Lang;

mod check;
mod load;
mod recall;
mod review_mode;
mod unknown;
mod user;
pub use load::{LoadArgs, Loaded, Source, load};
pub use recall::RecallPlaces;
pub use review_mode::{Mode, ReviewMode};
pub use user::{USER_MAX_BYTES, USER_ONLY, UserScope};

/// How the workspace root is found from the current directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootStrategy {
    /// The directory itself.
    Workspace,
    /// Walk up to the nearest directory holding one of `project_root_markers`.
    Marker,
}

/// What happens when a host session that did work and recorded nothing ends, is compacted or
/// has had every reminder: its SESSIONS entry, drafted from the host's transcript, is
/// proposed for a person, recorded, or not made. The user's own layers only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoDraft {
    Propose,
    Record,
    Off,
}

/// Effective settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    #[serde(alias = "enabled")]
    pub enabled: bool,
    #[serde(alias = "memoryDirName")]
    pub memory_dir_name: String,
    #[serde(alias = "projectRootStrategy")]
    pub project_root_strategy: RootStrategy,
    #[serde(alias = "projectRootMarkers")]
    pub project_root_markers: Vec<String>,
    #[serde(alias = "autoScaffold")]
    pub auto_scaffold: bool,
    #[serde(alias = "writeBootBlock")]
    pub write_boot_block: bool,
    #[serde(alias = "bootBlockFile")]
    pub boot_block_file: String,
    #[serde(alias = "injectOnSessionStart")]
    pub inject_on_session_start: bool,
    #[serde(alias = "bootstrapWhenEmpty")]
    pub bootstrap_when_empty: bool,
    #[serde(alias = "injectBudgetBytes")]
    pub inject_budget_bytes: u64,
    #[serde(alias = "sessionEntriesInjected")]
    pub session_entries_injected: u64,
    #[serde(alias = "nudgeOnTurnEnd")]
    pub nudge_on_turn_end: bool,
    #[serde(alias = "nudgeCooldownMs")]
    pub nudge_cooldown_ms: u64,
    #[serde(alias = "nudgeMaxPerSession")]
    pub nudge_max_per_session: u64,
    /// Live SESSIONS entries kept before the oldest move to the archive; ≤ 0 disables.
    #[serde(alias = "sessionsMaxEntries")]
    pub sessions_max_entries: i64,
    /// How far SESSIONS.md may grow past `sessions_max_entries` before the oldest move to the
    /// archive, all in one move (back down to the cap): the archive file is rewritten once per
    /// this many sessions instead of once per write. ≤ 0 moves them at every write.
    #[serde(alias = "sessionsArchiveBatch")]
    pub sessions_archive_batch: i64,
    #[serde(alias = "projectStaleDays")]
    pub project_stale_days: i64,
    /// Language of headings, labels and templates for new text.
    pub lang: Lang,
    /// How long a write waits for another writer before failing with "workspace busy".
    #[serde(alias = "lockTimeoutMs")]
    pub lock_timeout_ms: u64,
    /// The model's context window in tokens, for hosts that do not say (and for the managed
    /// block of hosts without hooks): the injection budget is at most 16% of it.
    #[serde(alias = "windowTokens")]
    pub window_tokens: Option<u64>,
    /// The most bytes one `memory_read` answer of a whole file gives an agent, in place of the
    /// MCP client's own limit; a larger file comes in pages.
    #[serde(alias = "mcpReadBytes")]
    pub mcp_read_bytes: Option<u64>,
    /// Folder (relative to the project root) whose `PROJECT.md`, `DECISIONS.md`, `SESSIONS.md`
    /// and `boot-block.md` scaffolding uses instead of the built-in templates, file by file.
    #[serde(alias = "templatesDir")]
    pub templates_dir: Option<String>,
    /// Show what this repository's other git work trees recorded lately (read-only).
    #[serde(alias = "siblingWorktrees")]
    pub sibling_worktrees: bool,
    /// How many days back sibling work trees' entries are shown.
    #[serde(alias = "siblingDays")]
    pub sibling_days: u64,
    /// Per kind of memory, whether agents write directly or propose (`[review_mode]`).
    #[serde(alias = "reviewMode")]
    pub review_mode: ReviewMode,
    /// The folder of the user memory (`USER.md` and its store); user layers only.
    #[serde(alias = "userMemoryDir")]
    pub user_memory_dir: Option<String>,
    /// Whether the session-start block carries the user memory; user layers only.
    #[serde(alias = "injectUserMemory")]
    pub inject_user_memory: bool,
    /// The most bytes of the block the user memory takes (and at most a tenth of the budget);
    /// user layers only.
    #[serde(alias = "userMemoryMaxBytes")]
    pub user_memory_max_bytes: u64,
    /// The user scope this process writes and reads, from the user's layers only.
    #[serde(skip)]
    pub user: Option<UserScope>,
    /// Whether `trilogy recall` and `memory_recall` read the hosts' transcripts; a workspace's
    /// settings can only turn it off.
    #[serde(alias = "recallEnabled")]
    pub recall_enabled: bool,
    /// The hosts whose transcripts recall reads; the user's layers only.
    #[serde(alias = "recallHosts")]
    pub recall_hosts: Vec<String>,
    /// A session's entry drafted from its transcript when it recorded nothing; user layers only.
    #[serde(alias = "autoDraft")]
    pub auto_draft: AutoDraft,
    /// Where recall reads transcripts and keeps its index, from the environment.
    #[serde(skip)]
    pub recall: Option<RecallPlaces>,
    /// Settings a layer gave that were not taken, each with why (`trilogy config` shows them).
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Keys of a settings file this trilogy does not know, each as ``` `key` in file ```, left
    /// out because the load was lenient ([`LoadArgs::lenient`]); the block names them.
    #[serde(skip)]
    pub ignored: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            enabled: true,
            memory_dir_name: "memory".into(),
            project_root_strategy: RootStrategy::Workspace,
            project_root_markers: vec![".git".into()],
            auto_scaffold: true,
            write_boot_block: true,
            boot_block_file: "AGENTS.md".into(),
            inject_on_session_start: true,
            bootstrap_when_empty: true,
            inject_budget_bytes: 160_000,
            session_entries_injected: 15,
            nudge_on_turn_end: true,
            nudge_cooldown_ms: 600_000,
            nudge_max_per_session: 3,
            sessions_max_entries: 200,
            sessions_archive_batch: 300,
            project_stale_days: 14,
            lang: Lang::Zh,
            lock_timeout_ms: 10_000,
            window_tokens: None,
            mcp_read_bytes: None,
            templates_dir: None,
            sibling_worktrees: true,
            sibling_days: 7,
            review_mode: ReviewMode::default(),
            user_memory_dir: None,
            inject_user_memory: true,
            user_memory_max_bytes: USER_MAX_BYTES,
            user: None,
            recall_enabled: true,
            recall_hosts: (crate::model::host::Host::recalled())
                .map(|h| h.as_str().to_string())
                .collect(),
            auto_draft: AutoDraft::Propose,
            recall: None,
            warnings: Vec::new(),
            ignored: Vec::new(),
        }
    }
}

/// Every key: snake_case name and the original's camelCase alias.
pub const KEYS: [(&str, &str); 31] = [
    ("enabled", "enabled"),
    ("memory_dir_name", "memoryDirName"),
    ("project_root_strategy", "projectRootStrategy"),
    ("project_root_markers", "projectRootMarkers"),
    ("auto_scaffold", "autoScaffold"),
    ("write_boot_block", "writeBootBlock"),
    ("boot_block_file", "bootBlockFile"),
    ("inject_on_session_start", "injectOnSessionStart"),
    ("bootstrap_when_empty", "bootstrapWhenEmpty"),
    ("inject_budget_bytes", "injectBudgetBytes"),
    ("session_entries_injected", "sessionEntriesInjected"),
    ("nudge_on_turn_end", "nudgeOnTurnEnd"),
    ("nudge_cooldown_ms", "nudgeCooldownMs"),
    ("nudge_max_per_session", "nudgeMaxPerSession"),
    ("sessions_max_entries", "sessionsMaxEntries"),
    ("sessions_archive_batch", "sessionsArchiveBatch"),
    ("project_stale_days", "projectStaleDays"),
    ("lang", "lang"),
    ("lock_timeout_ms", "lockTimeoutMs"),
    ("window_tokens", "windowTokens"),
    ("mcp_read_bytes", "mcpReadBytes"),
    ("templates_dir", "templatesDir"),
    ("sibling_worktrees", "siblingWorktrees"),
    ("sibling_days", "siblingDays"),
    ("review_mode", "reviewMode"),
    ("user_memory_dir", "userMemoryDir"),
    ("inject_user_memory", "injectUserMemory"),
    ("user_memory_max_bytes", "userMemoryMaxBytes"),
    ("recall_enabled", "recallEnabled"),
    ("recall_hosts", "recallHosts"),
    ("auto_draft", "autoDraft"),
];

/// The snake_case name of a key given in either spelling.
pub fn canonical_key(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .find(|(snake, camel)| key == *snake || key == *camel)
        .map(|(snake, _)| *snake)
}

impl Config {
    /// Live entries kept in SESSIONS.md, or `None` when archiving is off.
    pub fn archive_cap(&self) -> Option<usize> {
        (self.sessions_max_entries > 0).then_some(self.sessions_max_entries as usize)
    }

    /// Live sessions SESSIONS.md may hold past the cap before a batch moves to the archive.
    pub fn archive_batch(&self) -> usize {
        self.sessions_archive_batch.max(0) as usize
    }
}
