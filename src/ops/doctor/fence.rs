//! What doctor finds before it reads anything: a path of the workspace that is a link out of
//! it, a FIFO, socket or device, a file over the size trilogy reads, a store with a second
//! hard link. Each is reported with its path and the fix, and never read through.

use std::path::Path;

use crate::workspace::{MAX_FILE_BYTES, MAX_STREAMED_BYTES, Workspace};

use super::{Finding, Level, finding};

/// What is wrong with a path trilogy expects to be a readable regular file in `ws`, if
/// anything (`None` also when it does not exist): the message names the path, the action the
/// fix. With `store`, a second hard link is wrong too (writes would land in another file).
pub(super) fn file_problem(ws: &Workspace, path: &Path, store: bool) -> Option<(String, String)> {
    let shown = path.display();
    let own = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some((
                format!("{shown} cannot be examined: {e}"),
                "check the folders above it: the user needs to be able to enter them".into(),
            ));
        }
        Ok(m) => m,
    };
    // the path itself, or a folder above it, may lead out of the workspace
    if ws.inside(path).is_err() {
        if !own.file_type().is_symlink() {
            return Some((
                format!(
                    "{shown} lies behind a link out of the workspace: trilogy does not read or write through it"
                ),
                "replace the linked folder with a folder of its own".into(),
            ));
        }
        let to = std::fs::read_link(path).map_or_else(|_| "?".into(), |t| t.display().to_string());
        return Some((
            format!(
                "{shown} is a link to {to}, outside the workspace: trilogy does not read or write through it"
            ),
            format!(
                "replace the link with the file itself (rm {shown}; trilogy writes it again), or point it inside the workspace"
            ),
        ));
    }
    if own.file_type().is_symlink() && std::fs::metadata(path).is_err() {
        return Some((
            format!("{shown} is a link to nothing"),
            format!("delete the link (rm {shown}); trilogy writes the file again"),
        ));
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            return Some((
                format!("{shown} cannot be examined: {e}"),
                "check the folders above it: the user needs to be able to enter them".into(),
            ));
        }
    };
    if meta.is_dir() {
        return Some((
            format!("{shown} is a directory where a file should be"),
            "move the directory elsewhere; trilogy then writes the file again".into(),
        ));
    }
    if !meta.is_file() {
        return Some((
            format!(
                "{shown} is {} where a file should be",
                crate::base::stat::special_kind(meta.file_type())
            ),
            format!("delete it (rm {shown}); trilogy writes the file again"),
        ));
    }
    // the store is read page by page, never whole: only the files read whole are capped (the
    // archive is read a block at a time, see `workspace::MAX_STREAMED_BYTES`)
    let archive = path == ws.file_path(crate::model::FileKind::Archive);
    let cap = if archive {
        MAX_STREAMED_BYTES
    } else {
        MAX_FILE_BYTES
    };
    if !store && meta.len() > cap {
        return Some((
            format!(
                "{shown} is {} MiB, more than the {} MiB trilogy reads",
                meta.len() >> 20,
                cap >> 20
            ),
            "move the file out of the workspace and split what you need of it into smaller files"
                .into(),
        ));
    }
    if store && crate::base::stat::links(&meta) > 1 {
        return Some((
            format!(
                "{shown} has {} hard links: writes to it would change another file too",
                crate::base::stat::links(&meta)
            ),
            format!("make it a file of its own: cp {shown} {shown}.own && mv {shown}.own {shown}"),
        ));
    }
    // opened without waiting: only a regular file gets this far, but its type may change
    match crate::base::fence::open_regular(path, u64::MAX) {
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Some((
            format!("{shown} is unreadable — permission denied"),
            format!("give the user read and write access (chmod u+rw {shown})"),
        )),
        Err(e) => Some((
            format!("{shown} cannot be read: {e}"),
            "make it a readable file again".into(),
        )),
    }
}

/// Folders of the workspace (the memory folder, `.trilogy/` and what trilogy keeps in it)
/// that are links out of it: reported, never followed.
pub(super) fn folder_findings(ws: &Workspace, out: &mut Vec<Finding>) {
    let state = ws.state_dir();
    let mut dirs = vec![ws.memory_dir(), state.clone()];
    dirs.extend(
        ["tmp", "queue", "displaced", "rescued", "index"]
            .iter()
            .map(|d| state.join(d)),
    );
    for dir in dirs {
        let linked = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink());
        if linked && ws.inside(&dir).is_err() {
            let to =
                std::fs::read_link(&dir).map_or_else(|_| "?".into(), |t| t.display().to_string());
            out.push(finding(
                Level::Error,
                "files",
                format!(
                    "{} is a link to {to}, outside the workspace: trilogy does not read or write through it",
                    dir.display()
                ),
                format!(
                    "replace the link with a folder of its own (rm {}), then run any trilogy command",
                    dir.display()
                ),
            ));
        }
    }
}

/// The instruction files doctor reads for their managed regions, each checked first: a
/// finding for one that must not be read, else its text (`None` when absent).
pub(super) fn read_instructions(
    ws: &Workspace,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<String> {
    if let Some((message, action)) = file_problem(ws, path, false) {
        out.push(finding(Level::Error, "managed block", message, action));
        return None;
    }
    crate::base::fence::read_small_text(path, crate::workspace::MAX_FILE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_read_whole_are_held_to_the_size_cap() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(
            dir.path().to_path_buf(),
            crate::config::Config::default(),
            crate::workspace::Clock::default(),
        );
        let big = dir.path().join("big");
        let f = std::fs::File::create(&big).unwrap();
        // sparse: over the cap on paper, nothing on disk
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        assert!(file_problem(&ws, &big, false).is_some_and(|(m, _)| m.contains("MiB")));
        assert_eq!(file_problem(&ws, &big, true), None, "a store may be larger");
        // the archive is read a block at a time: only past the streamed bound is it refused
        let archive = ws.file_path(crate::model::FileKind::Archive);
        std::fs::create_dir_all(archive.parent().unwrap()).unwrap();
        let f = std::fs::File::create(&archive).unwrap();
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        assert_eq!(file_problem(&ws, &archive, false), None);
        // sparse where files can be (a Windows volume may reserve the space)
        #[cfg(unix)]
        {
            f.set_len(MAX_STREAMED_BYTES + 1).unwrap();
            assert!(file_problem(&ws, &archive, false).is_some_and(|(m, _)| m.contains("MiB")));
        }
    }
}
