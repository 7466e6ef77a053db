//! The hosts' own memory beside trilogy's: Claude Code's auto memory, Codex's memories and
//! Gemini CLI's `save_memory` facts are loaded into the same sessions trilogy's block goes
//! into, where two memories can disagree. Where a host trilogy is installed for keeps one for
//! this project, `doctor` warns (where it is, how to bring it in, how to turn it off), and the
//! first block a session of that host gets after it is found says so once, in its ledger.
//! The hosts' folders are the ones recall reads (`recall::sources`' places, from the
//! environment). Reads the hosts' files only; never changes them.

use std::path::{Path, PathBuf};

use crate::config::RecallPlaces;
use crate::model::host::Host;
use crate::workspace::Workspace;

/// A warning for `doctor`: what was found, and the one thing to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub message: String,
    pub action: String,
}

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

/// The hosts' own memories for the project at `root`, in the hosts' folders of `places`
/// (`only`: of that host alone).
fn found(root: &Path, places: &RecallPlaces, only: Option<Host>) -> Vec<Native> {
    let mut out = Vec::new();
    let home = |h: Host| places.home(h).filter(|_| only.is_none_or(|o| o == h));
    if let Some(claude) = home(Host::Claude) {
        let project = crate::recall::sources::claude_folder(root);
        let path = (claude.join("projects").join(project))
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
    if let Some(codex) = home(Host::Codex) {
        let path = codex.join("memories").join("memory_summary.md");
        if text(&path).is_some() {
            out.push(Native {
                host: Host::Codex,
                path,
                off: "set `use_memories = false` under `[memories]` in ~/.codex/config.toml",
            });
        }
    }
    if let Some(gemini) = home(Host::Gemini) {
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
pub fn check(ws: &Workspace, env: &[(String, String)]) -> Vec<Warning> {
    let (root, home) = (&ws.root, crate::base::dirs::home(env));
    let Some(places) = ws.config.recall.as_ref() else {
        return Vec::new();
    };
    (found(root, places, None).into_iter())
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
                Host::Codex => import("codex", n.path.parent().unwrap_or(&n.path)),
                _ => "move what still holds into memory (`trilogy checkpoint`, or `trilogy user` for facts about you), then ".into(),
            };
            Warning {
                message: format!(
                    "{} keeps memory of its own ({}) and loads it into the same sessions as trilogy's block: two memories can disagree",
                    n.host.as_str(),
                    n.path.display()
                ),
                action: format!("{bring}{}", n.off),
            }
        })
        .collect()
}

/// The ledger's line for a session of `host`: its own memory, found and not yet told of in a
/// block here (told once: the file `.trilogy/native-told.json` keeps what was).
pub fn told_once(ws: &Workspace, host: &str) -> Option<String> {
    let host = Host::parse(host)?;
    let places = ws.config.recall.as_ref()?;
    let n = found(&ws.root, places, Some(host)).into_iter().next()?;
    let marker = ws.inside(&ws.state_dir().join("native-told.json")).ok()?;
    let mut told: Vec<String> = crate::workspace::read_file(&marker, 1 << 20)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let key = format!("{}:{}", host.as_str(), n.path.display());
    if told.contains(&key) {
        return None;
    }
    told.push(key);
    let bytes = serde_json::to_vec(&told).ok()?;
    use crate::base::write::{Whole, write_whole};
    write_whole(&marker, &bytes, Whole::Private).ok()?;
    Some(match ws.lang() {
        crate::model::Lang::Zh => format!(
            "注意：{} 自己的记忆（{}）也会载入本会话，两份记忆可能不一致；trilogy doctor 说明怎么导入或关掉它（只提醒这一次）",
            host.as_str(),
            n.path.display()
        ),
        crate::model::Lang::En => format!(
            "Note: {}'s own memory ({}) is loaded into this session too, and the two can disagree; `trilogy doctor` says how to bring it in or turn it off (said once)",
            host.as_str(),
            n.path.display()
        ),
    })
}
