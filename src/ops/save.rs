//! `save`: a whole file written from the panel's editor. Only PROJECT.md, DECISIONS.md,
//! SESSIONS.md and the workspace's own instruction file may be saved (never the archive, never
//! a path). A memory file is a hand edit made by the saving actor: taken into the store inside
//! the write transaction (what it drops is marked removed, restorable; it shows in `trilogy
//! log` with that actor) and written atomically. The instruction file is replaced whole.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::FileKind;
use crate::workspace::{Workspace, write_atomic};

/// What a save wrote.
#[derive(Debug, Clone, Serialize)]
pub struct SaveOutcome {
    pub saved: String,
    /// `memory` or `instruction`.
    pub kind: &'static str,
    pub bytes: usize,
}

/// A plain file name: no separator, no `..`, not empty.
fn plain(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.contains("..")
}

/// The token naming the versions of the memory files as read (for [`save`]'s `version`): each
/// file's SHA-1 in [`FileKind::ALL`] order, `-` for a missing one.
pub fn version_token(shas: &[Option<String>]) -> String {
    let parts: Vec<&str> = shas.iter().map(|s| s.as_deref().unwrap_or("-")).collect();
    format!("files:{}", parts.join("."))
}

/// The SHA-1 a [`version_token`] gives `f` (`None`: the file was missing when read).
fn version_of(token: &str, f: FileKind) -> Result<Option<String>> {
    let bad = || {
        Error::bad_input(format!(
            "`version` {token:?} is not a version this server gave out: send back the `version` that /files answered with (or leave it out to merge as a hand edit)"
        ))
    };
    let parts: Vec<&str> = token
        .strip_prefix("files:")
        .ok_or_else(bad)?
        .split('.')
        .collect();
    let i = FileKind::ALL.iter().position(|g| *g == f).unwrap_or(0);
    if parts.len() != FileKind::ALL.len() {
        return Err(bad());
    }
    match parts[i] {
        "-" => Ok(None),
        p if p.len() == 40 && p.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok(Some(p.to_ascii_lowercase()))
        }
        _ => Err(bad()),
    }
}

/// Save `text` as the whole of `file_name` (see the module header). `instruction_name` is the
/// workspace's instruction file (e.g. `AGENTS.md`); refused input changes nothing. `version`
/// (a [`version_token`]) says which versions of the files the text was made from: the save is
/// merged against exactly that version, and refused as a conflict when it changes something
/// changed since. Without it the save is merged as any hand edit is.
pub fn save(
    ws: &Workspace,
    file_name: &str,
    text: &str,
    instruction_name: Option<&str>,
    actor: &str,
    version: Option<&str>,
) -> Result<SaveOutcome> {
    let refused = || {
        Error::bad_input(format!(
            "not allowed to write `{file_name}`: only PROJECT.md, DECISIONS.md, SESSIONS.md{} can be saved",
            match instruction_name.filter(|n| plain(n)) {
                Some(n) => format!(" or {n}"),
                None => String::new(),
            }
        ))
    };
    if !plain(file_name) {
        return Err(refused());
    }
    // the instruction file is committed and read by every agent, as the memory files are
    if let Some(s) = crate::secrets::find(text) {
        return Err(Error::bad_input(format!(
            "{file_name}: line {}: looks like {} ({}); remove it and save again (nothing was written)",
            s.line, s.kind, s.masked
        )));
    }
    let memory = [FileKind::Project, FileKind::Decisions, FileKind::Sessions]
        .into_iter()
        .find(|f| f.file_name() == file_name);
    if let Some(f) = memory {
        let base = match version {
            Some(token) => version_of(token, f)?,
            None => None,
        };
        ws.require_memory()?;
        ws.write(actor, |tx| match &base {
            Some(sha) => tx.take_text_from(f, text, sha),
            None => tx.take_text(f, text, false),
        })?;
        return Ok(SaveOutcome {
            saved: file_name.to_string(),
            kind: "memory",
            bytes: text.len(),
        });
    }
    match instruction_name {
        Some(n) if plain(n) && n == file_name && FileKind::from_name(n).is_none() => {
            let path = ws.inside(&ws.root.join(n))?;
            write_atomic(&path, text.as_bytes())?;
            Ok(SaveOutcome {
                saved: file_name.to_string(),
                kind: "instruction",
                bytes: text.len(),
            })
        }
        _ => Err(refused()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Workspace;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        crate::workspace::scratch()
    }

    /// Every file under `dir` with its bytes (the store and index left out).
    fn tree(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.ends_with(".trilogy") {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn only_the_three_files_and_the_instruction_file_can_be_saved() {
        let (dir, ws) = workspace();
        let before = tree(dir.path());
        for name in [
            "SESSIONS-archive.md",
            "package.json",
            "README.md",
            "../escape.txt",
            "AGENTS.md.bak",
            "CLAUDE.md",
            "memory/PROJECT.md",
            "..",
            "",
        ] {
            let e = save(&ws, name, "x\n", Some("AGENTS.md"), "panel", None).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::BadInput, "{name}");
            assert!(e.to_string().contains("not allowed to write"), "{e}");
        }
        // an instruction name that is itself a path or a memory file is no licence
        for (name, instr) in [
            ("../x.md", "../x.md"),
            ("SESSIONS-archive.md", "SESSIONS-archive.md"),
        ] {
            assert!(save(&ws, name, "x\n", Some(instr), "panel", None).is_err());
        }
        assert_eq!(tree(dir.path()), before);
        assert!(!dir.path().parent().unwrap().join("escape.txt").exists());
    }

    #[test]
    fn the_instruction_file_is_replaced_whole() {
        let (dir, ws) = workspace();
        let out = save(
            &ws,
            "AGENTS.md",
            "# mine\n",
            Some("AGENTS.md"),
            "panel",
            None,
        )
        .unwrap();
        assert_eq!(out.kind, "instruction");
        assert_eq!(out.bytes, 7);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("AGENTS.md")).unwrap(),
            "# mine\n"
        );
    }

    #[test]
    fn a_memory_save_is_a_hand_edit_by_the_actor_and_what_it_drops_is_restorable() {
        let (dir, ws) = workspace();
        let path = dir.path().join("memory/SESSIONS.md");
        let template = std::fs::read_to_string(&path).unwrap();
        let top = "## 2026-01-03 · web\n完成：second\n";
        let two = format!("{template}\n{top}\n## 2026-01-02 · web\n完成：first\n");
        let out = save(&ws, "SESSIONS.md", &two, None, "panel", None).unwrap();
        assert_eq!(out.kind, "memory");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), two);
        let id = ws
            .read(|r| Ok(r.file_entries(FileKind::Sessions, 0, 10)?[1].clone()))
            .unwrap()
            .value;
        assert_eq!(id.actor, "panel");
        assert!(id.body.contains("first"));
        // saving without the older entry drops it: removed, not lost
        let one = format!("{template}\n{top}");
        save(&ws, "SESSIONS.md", &one, None, "panel", None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), one);
        let rec = ws
            .read(|r| r.entry(&id.id))
            .unwrap()
            .value
            .expect("kept in the store");
        assert_eq!(rec.state, crate::model::State::Removed);
        let events = ws.read(|r| r.events(10)).unwrap().value;
        assert!(
            events
                .iter()
                .any(|e| e.actor == "panel" && e.op == "remove"),
            "{events:?}"
        );
        crate::ops::restore_entry(&ws, "cli", &id.id, None).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("first"));
    }

    #[test]
    fn a_save_that_does_not_parse_or_holds_a_secret_changes_nothing() {
        let (dir, ws) = workspace();
        let before = tree(dir.path());
        let e = save(
            &ws,
            "SESSIONS.md",
            "# S\n\n## 2026-01-01\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n",
            None,
            "panel",
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("SESSIONS.md: line"), "{e}");
        let e = save(
            &ws,
            "PROJECT.md",
            "# P\n\n## 现状\n\nkey ghp_Zq8vR2mX9kLp4TnW7yHc1BdF6gJs3QeU5aVo here\n",
            None,
            "panel",
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("looks like"), "{e}");
        assert_eq!(tree(dir.path()), before);
    }
}
