//! The agent hosts trilogy knows, as one enum, and what varies by host: the name the CLI and
//! the config spell, what it keeps of a hook's context, whether trilogy answers its hooks,
//! where its transcripts are for recall, and how `install` reaches it. Pure data: no I/O
//! here (the folders are read from an environment the caller passes).

/// Characters Claude Code keeps of a hook's context; the rest goes to a file it only previews.
pub const CLAUDE_CONTEXT_CHARS: usize = 10_000;
/// Bytes (UTF-8) Codex keeps of a hook's context whole. Measured with Codex 0.171.0: a
/// context of 10,000 bytes reaches the model as it is, one of 10,001 bytes — ASCII or CJK —
/// is replaced by a "truncated output" warning, its head and tail with the middle cut out,
/// and the path of a file holding the whole.
pub const CODEX_CONTEXT_BYTES: usize = 10_000;

/// An agent host. The order is the one every list of hosts is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Host {
    /// Claude Code.
    Claude,
    /// Codex.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
    /// VS Code (Copilot's agent).
    Vscode,
    /// Windsurf.
    Windsurf,
    /// Zed.
    Zed,
    /// DeepSeek Harness.
    Dsh,
}

/// Limits for one host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostLimits {
    /// The model's context window in tokens, when the host says.
    pub window_tokens: Option<u64>,
    /// Characters the host keeps of a hook's output.
    pub char_cap: Option<usize>,
    /// Bytes the host keeps of a hook's output.
    pub byte_cap: Option<usize>,
    /// A resumed session no longer holds the block its start gave (Gemini CLI): a resume
    /// gets the whole block, like a compaction.
    pub resume_loses_context: bool,
}

/// How `trilogy install` reaches a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Install {
    /// Hooks and the MCP server in the host's settings files (Cursor may take its rules file
    /// instead of hooks: `--rules`).
    Settings,
    /// The MCP server, and the block itself in the rules file the host reads (it loads no
    /// hook output).
    Rules,
    /// A plugin bundle the host's own command adds (DeepSeek Harness).
    Plugin,
}

/// Where a host keeps its transcripts: its own variable (a folder below it, for Gemini CLI),
/// else a folder under `$HOME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranscriptHome {
    pub var: &'static str,
    /// The folder under `$var` that holds them (`None`: `$var` itself).
    pub below_var: Option<&'static str>,
    pub under_home: &'static str,
}

impl Host {
    pub const ALL: [Host; 8] = [
        Host::Claude,
        Host::Codex,
        Host::Gemini,
        Host::Cursor,
        Host::Vscode,
        Host::Windsurf,
        Host::Zed,
        Host::Dsh,
    ];

    /// The host's name as the CLI, the config and the session records spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Cursor => "cursor",
            Host::Vscode => "vscode",
            Host::Windsurf => "windsurf",
            Host::Zed => "zed",
            Host::Dsh => "dsh",
        }
    }

    pub fn parse(name: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.as_str() == name)
    }

    /// What the host keeps of a hook's context. Gemini CLI (0.61.0, measured up to 1,000,000
    /// characters) keeps it all, and Cursor documents no cap on `additional_context`: only the
    /// configured budget applies. DeepSeek Harness's plugin reports the window at each step.
    pub fn limits(self) -> HostLimits {
        HostLimits {
            window_tokens: None,
            resume_loses_context: self == Host::Gemini,
            char_cap: (self == Host::Claude).then_some(CLAUDE_CONTEXT_CHARS),
            byte_cap: (self == Host::Codex).then_some(CODEX_CONTEXT_BYTES),
        }
    }

    /// Whether `trilogy hook <host>` answers this host's hooks.
    pub fn has_hooks(self) -> bool {
        match self {
            Host::Claude | Host::Codex | Host::Gemini | Host::Cursor | Host::Dsh => true,
            Host::Vscode | Host::Windsurf | Host::Zed => false,
        }
    }

    /// Where recall finds this host's transcripts; `None` for a host recall does not read.
    pub fn transcripts(self) -> Option<TranscriptHome> {
        let (var, below_var, under_home) = match self {
            Host::Claude => ("CLAUDE_CONFIG_DIR", None, ".claude"),
            Host::Codex => ("CODEX_HOME", None, ".codex"),
            Host::Gemini => ("GEMINI_CLI_HOME", Some(".gemini"), ".gemini"),
            Host::Dsh => ("DSH_HOME", None, ".dsh"),
            Host::Cursor | Host::Vscode | Host::Windsurf | Host::Zed => return None,
        };
        Some(TranscriptHome {
            var,
            below_var,
            under_home,
        })
    }

    /// The hosts recall reads, in order: the default of `recall_hosts`.
    pub fn recalled() -> impl Iterator<Item = Host> {
        Host::ALL.into_iter().filter(|h| h.transcripts().is_some())
    }

    /// How `trilogy install` reaches it.
    pub fn install(self) -> Install {
        match self {
            Host::Claude | Host::Codex | Host::Gemini | Host::Cursor => Install::Settings,
            Host::Vscode | Host::Windsurf | Host::Zed => Install::Rules,
            Host::Dsh => Install::Plugin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_keep_their_spelling() {
        for h in Host::ALL {
            assert_eq!(Host::parse(h.as_str()), Some(h));
        }
        let names: Vec<&str> = Host::ALL.iter().map(|h| h.as_str()).collect();
        assert_eq!(
            names,
            [
                "claude", "codex", "gemini", "cursor", "vscode", "windsurf", "zed", "dsh"
            ]
        );
        assert_eq!(Host::parse("Claude"), None);
        assert_eq!(Host::parse("git"), None);
    }

    #[test]
    fn recall_reads_four_hosts_and_hooks_answer_five() {
        let recalled: Vec<&str> = Host::recalled().map(Host::as_str).collect();
        assert_eq!(recalled, ["claude", "codex", "gemini", "dsh"]);
        let hooked: Vec<&str> = (Host::ALL.into_iter())
            .filter(|h| h.has_hooks())
            .map(Host::as_str)
            .collect();
        assert_eq!(hooked, ["claude", "codex", "gemini", "cursor", "dsh"]);
    }

    #[test]
    fn only_claude_codex_and_gemini_limit_the_block() {
        assert_eq!(Host::Claude.limits().char_cap, Some(CLAUDE_CONTEXT_CHARS));
        assert_eq!(Host::Codex.limits().byte_cap, Some(CODEX_CONTEXT_BYTES));
        assert!(Host::Gemini.limits().resume_loses_context);
        let limited: Vec<Host> = (Host::ALL.into_iter())
            .filter(|h| h.limits() != HostLimits::default())
            .collect();
        assert_eq!(limited, [Host::Claude, Host::Codex, Host::Gemini]);
    }
}
