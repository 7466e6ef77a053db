//! The hosts' own memory beside trilogy's: Claude Code's auto memory, Codex's memories and
//! Gemini CLI's `save_memory` facts are loaded into the same sessions trilogy's block goes
//! into, where two memories can disagree. Where a host trilogy is installed for keeps one for
//! this project, a warning says where it is, how to bring it in and how to turn it off.
//! Reads only; never changes the host's files.

use std::path::{Path, PathBuf};

use super::{Finding, Level, finding};
use crate::model::host::Host;

/// A host's own memory found for this project.
struct Native {
    host: Host,
    path: PathBuf,
    /// How to turn the host's own memory off.
    off: &'static str,
}

/// The settings a host is installed with (project, then user), whose text names trilogy.
fn installed(host: Host, root: &Path, home: Option<&Path>) -> bool {
    let rel = match host {
        Host::Claude => ".claude/settings.json",
        Host::Codex => ".codex/hooks.json",
        Host::Gemini => ".gemini/settings.json",
        _ => return false,
    };
    (std::iter::once(root).chain(home)).any(|base| {
        crate::base::fence::read_small_text(&base.join(rel), crate::workspace::MAX_FILE_BYTES)
            .is_some_and(|t| t.contains("trilogy"))
    })
}

fn text(path: &Path) -> Option<String> {
    crate::base::fence::read_small_text(path, crate::workspace::MAX_FILE_BYTES)
        .filter(|t| !t.trim().is_empty())
}

/// The hosts' own memories for the project at `root`.
fn found(root: &Path, env: &[(String, String)]) -> Vec<Native> {
    let home = crate::base::dirs::home(env);
    let dir = |var: &str, under: &str| {
        crate::base::env::folder(env, var).or_else(|| home.as_ref().map(|h| h.join(under)))
    };
    let mut out = Vec::new();
    if let Some(claude) = dir("CLAUDE_CONFIG_DIR", ".claude") {
        let project = crate::recall::sources::claude_folder(root);
        let path = claude
            .join("projects")
            .join(project)
            .join("memory")
            .join("MEMORY.md");
        if text(&path).is_some() {
            out.push(Native {
                host: Host::Claude,
                path,
                off: "set \"autoMemoryEnabled\": false in .claude/settings.json",
            });
        }
    }
    if let Some(codex) = dir("CODEX_HOME", ".codex") {
        let path = codex.join("memories").join("memory_summary.md");
        if text(&path).is_some() {
            out.push(Native {
                host: Host::Codex,
                path,
                off: "set `use_memories = false` under `[memories]` in ~/.codex/config.toml",
            });
        }
    }
    let gemini = crate::base::env::folder(env, "GEMINI_CLI_HOME")
        .map(|g| g.join(".gemini"))
        .or_else(|| home.as_ref().map(|h| h.join(".gemini")));
    if let Some(gemini) = gemini {
        let path = gemini.join("GEMINI.md");
        let saved = text(&path).is_some_and(|t| {
            let mut lines = t
                .lines()
                .skip_while(|l| l.trim() != "## Gemini Added Memories");
            lines.next().is_some() && lines.any(|l| l.trim_start().starts_with("- "))
        });
        if saved {
            out.push(Native {
                host: Host::Gemini,
                path,
                off: "remove the `## Gemini Added Memories` section from that file (Gemini CLI adds to it when asked to remember)",
            });
        }
    }
    out
}

/// A warning per host installed here whose own memory is loaded into the same sessions.
pub(super) fn check(root: &Path, env: &[(String, String)]) -> Vec<Finding> {
    let home = crate::base::dirs::home(env);
    (found(root, env).into_iter())
        .filter(|n| installed(n.host, root, home.as_deref()))
        .map(|n| {
            let import = |from: &str, path: &Path| {
                format!(
                    "bring it in with `trilogy import --from {from} {} --dry-run` (then without --dry-run), then ",
                    path.display()
                )
            };
            let bring = match n.host {
                Host::Claude => import("claude", n.path.parent().unwrap_or(&n.path)),
                Host::Gemini => import("gemini", &n.path),
                _ => "move what still holds into memory (`trilogy checkpoint`, or `trilogy user` for facts about you), then ".into(),
            };
            finding(
                Level::Warn,
                "native-memory",
                format!(
                    "{} keeps memory of its own ({}) and loads it into the same sessions as trilogy's block: two memories can disagree",
                    n.host.as_str(),
                    n.path.display()
                ),
                format!("{bring}{}", n.off),
            )
        })
        .collect()
}
