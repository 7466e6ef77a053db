//! Is git in the middle of rewriting the work tree, or of saving it? While a checkout, rebase,
//! merge, cherry-pick or bisect is under way, git deletes and re-creates tracked files; a memory
//! file re-created by trilogy at that moment makes git stop ("unable to create file … File
//! exists") and can leave a rebase half done. While a stash saves the work tree, a memory file
//! swapped in is saved cut short (see [`stash_saving`]). The sync protocol asks here before
//! writing any memory file.

use std::path::{Path, PathBuf};

/// What git leaves in its directory while an operation that rewrites files is under way.
const IN_PROGRESS: [(&str, &str); 8] = [
    ("index.lock", "a git command holds the index (index.lock)"),
    ("rebase-merge", "a git rebase is under way"),
    ("rebase-apply", "a git rebase or am is under way"),
    ("MERGE_HEAD", "a git merge is under way"),
    // a merge or pull with `--autostash`: from putting the work tree back to HEAD until the
    // stash is applied again; a file written meanwhile makes the merge refuse, and what the
    // file lacks then is only stashed. Left behind when the merge stops, until the person
    // applies or drops it (`git merge --quit`, `git stash pop`)
    (
        "MERGE_AUTOSTASH",
        "a git merge with --autostash is under way",
    ),
    ("CHERRY_PICK_HEAD", "a git cherry-pick is under way"),
    ("REVERT_HEAD", "a git revert is under way"),
    ("BISECT_LOG", "a git bisect is under way"),
];

/// What the `HEAD` of the work tree holding `root` says, trimmed (`ref: refs/heads/NAME`, or a
/// commit id when detached); `None` outside a repository or when unreadable.
pub fn head(root: &Path) -> Option<String> {
    head_text(&git_dir(root)?)
}

fn head_text(dir: &Path) -> Option<String> {
    let text = small_text(&dir.join("HEAD"))?;
    let text = text.trim();
    (!text.is_empty() && !text.contains(['\n', '\r', '\0'])).then(|| text.to_string())
}

/// The branch a [`head`] names (`ref: refs/heads/NAME`); `None` when detached.
pub fn branch_of(head: &str) -> Option<String> {
    let name = head
        .strip_prefix("ref:")?
        .trim()
        .strip_prefix("refs/heads/")?;
    (!name.is_empty()).then(|| name.to_string())
}

/// The branch the `HEAD` in git folder `dir` names; `None` when detached or unreadable.
fn head_branch(dir: &Path) -> Option<String> {
    branch_of(&head_text(dir)?)
}

/// Most sibling worktrees looked at.
const MAX_WORKTREES: usize = 32;

/// The other work trees of the repository holding `root` (git's `worktrees/*/gitdir` in the
/// common git folder, and the main work tree), each with the branch checked out there; read
/// from files, no git process. Empty outside a repository or with no other work tree.
pub fn worktrees(root: &Path) -> Vec<(PathBuf, Option<String>)> {
    let Some(gd) = git_dir(root) else {
        return Vec::new();
    };
    let common = common_dir(&gd);
    // each work tree with its own git folder: this one is the one whose folder is ours
    let mut found: Vec<(PathBuf, Option<String>, PathBuf)> = Vec::new();
    if common.file_name().is_some_and(|n| n == ".git")
        && let Some(main) = common.parent()
    {
        found.push((main.to_path_buf(), head_branch(&common), common.clone()));
    }
    if let Ok(dirs) = std::fs::read_dir(common.join("worktrees")) {
        for d in dirs.flatten().take(MAX_WORKTREES) {
            let Some(pointer) = small_text(&d.path().join("gitdir")) else {
                continue;
            };
            // git writes the pointer absolute, or (worktree.useRelativePaths) relative to
            // this folder
            let p = Path::new(pointer.trim());
            let dot_git = if p.is_absolute() {
                p.to_path_buf()
            } else {
                d.path().join(p)
            };
            let dot_git = std::fs::canonicalize(&dot_git).unwrap_or(dot_git);
            if let Some(wt) = dot_git.parent() {
                found.push((wt.to_path_buf(), head_branch(&d.path()), d.path()));
            }
        }
    }
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mine = canon(&gd);
    // a workspace below its work tree's top (a monorepo's package) has its siblings at the
    // same place below theirs
    let below = root
        .ancestors()
        .find(|d| d.join(".git").exists())
        .and_then(|top| root.strip_prefix(top).ok())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    found
        .into_iter()
        .filter(|(wt, _, g)| canon(g) != mine && wt.is_dir())
        .map(|(wt, b, _)| {
            let at = if below.as_os_str().is_empty() {
                wt
            } else {
                wt.join(&below)
            };
            (at, b)
        })
        .filter(|(wt, _)| wt.is_dir())
        .take(MAX_WORKTREES)
        .collect()
}

/// The text of a small regular file (at most 4 KiB), without waiting on anything else.
fn small_text(path: &Path) -> Option<String> {
    crate::base::fence::read_small_text(path, 4096)
}

/// The git directory of the repository holding `root`: the nearest `.git` above it, a folder or
/// (worktrees, submodules) a file naming the folder.
pub(super) fn git_dir(root: &Path) -> Option<PathBuf> {
    for dir in root.ancestors() {
        let dot = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot);
        }
        // a `.git` file names the folder; anything else there (a FIFO, a device) is no answer
        let text = small_text(&dot)?;
        let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
        let p = Path::new(target);
        return Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        });
    }
    None
}

/// The repository's own config file (`config` in the common git folder, shared by every work
/// tree), read from the file; `None` outside a repository or when it cannot be read.
pub fn repository_config(root: &Path) -> Option<String> {
    let common = common_dir(&git_dir(root)?);
    crate::base::fence::read_small_text(&common.join("config"), 1 << 20)
}

/// The common git folder of the work tree whose git folder is `gd`: the one `commondir` names
/// (a linked work tree's), else `gd` itself.
fn common_dir(gd: &Path) -> PathBuf {
    match small_text(&gd.join("commondir")) {
        Some(t) => {
            let p = Path::new(t.trim());
            let joined = if p.is_absolute() {
                p.to_path_buf()
            } else {
                gd.join(p)
            };
            // `../..` from a linked work tree's folder: resolved, so its name is `.git`
            std::fs::canonicalize(&joined).unwrap_or(joined)
        }
        None => gd.to_path_buf(),
    }
}

/// The git operation under way in the repository holding `root`, if any.
pub fn in_progress(root: &Path) -> Option<&'static str> {
    let dir = git_dir(root)?;
    IN_PROGRESS
        .iter()
        .find(|(name, _)| dir.join(name).exists())
        .map(|(_, what)| *what)
        .or_else(|| stash_saving(&dir).then_some(STASH_SAVING))
}

/// An operation spanning several git commands under way in git folder `dir` (a merge, rebase,
/// cherry-pick, revert or bisect), or a stash saving the work tree, apart from the index lock
/// itself.
pub(super) fn in_progress_besides_index(dir: &Path) -> Option<&'static str> {
    IN_PROGRESS
        .iter()
        .skip(1)
        .find(|(name, _)| dir.join(name).exists())
        .map(|(_, what)| *what)
        .or_else(|| stash_saving(dir).then_some(STASH_SAVING))
}

const STASH_SAVING: &str = "git stash is saving the work tree";

/// Whether a `git stash` (or the autostash of a merge, pull or rebase) is saving the work tree
/// in git folder `dir`: from letting go of the index lock until the stash is written it keeps
/// its own index, `index.stash.<its pid>`, and reads each changed file into it without the
/// index lock. That read takes the file's size from `lstat` and then reads that many bytes from
/// whatever file the path names once it is opened: a memory file swapped in between is saved
/// as the new version cut at the old one's length (cut inside a character, not even UTF-8),
/// which `stash pop` or the autostash then puts back in the work tree for the next commit to
/// take. The index of a stash whose process is gone (killed midway) holds nothing up.
fn stash_saving(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        name.to_str()
            .and_then(|n| n.strip_prefix("index.stash."))
            .is_some_and(|pid| {
                !pid.is_empty()
                    && pid.bytes().all(|b| b.is_ascii_digit())
                    && crate::base::process::pid_alive(pid)
            })
    })
}

/// True when `bytes` are exactly the version of `path` staged in git's index; `None` when git
/// did not answer (missing, failing). False when `path` is not tracked or differs.
pub(super) fn staged_version(root: &Path, path: &Path, bytes: &[u8]) -> Option<bool> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-s", "--"])
        .arg(path)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let listing = String::from_utf8_lossy(&out.stdout);
    // `<mode> <object> <stage>\t<path>`, stage 0 for a merged file
    let Some(object) = listing
        .lines()
        .find_map(|l| l.split_whitespace().nth(1).filter(|_| l.contains(" 0\t")))
    else {
        return Some(false);
    };
    Some(blob_id(bytes) == object)
}

/// Whether revisions `a` and `b` name the same commit; `None` when git does not answer or
/// either names none.
pub(super) fn same_commit(root: &Path, a: &str, b: &str) -> Option<bool> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .arg("rev-parse")
        .args([format!("{a}^{{commit}}"), format!("{b}^{{commit}}")])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut ids = text.lines();
    Some(ids.next()? == ids.next()?)
}

/// The bytes of the version of `path` that `HEAD` holds; `None` when it holds none or git does
/// not answer.
pub fn head_version(root: &Path, path: &Path) -> Option<Vec<u8>> {
    version_at(root, "HEAD", path)
}

/// The version of the file at `path` that commit `rev` holds (`ORIG_HEAD`, `HEAD^1`, …).
pub fn version_at(root: &Path, rev: &str, path: &Path) -> Option<Vec<u8>> {
    let rel = path.strip_prefix(root).ok()?;
    let spec = format!("{rev}:./{}", rel.to_string_lossy());
    std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "blob", &spec])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout)
}

/// True when `bytes` are a version of a file that git holds: staged, committed or stashed (its
/// blob is in the repository's objects). Such a file is git's doing or a person's restore from
/// history (`git checkout HEAD~3 -- memory/SESSIONS.md`), never a stale copy an editor or script
/// wrote back. False outside a repository or when git does not answer.
pub fn is_git_version(root: &Path, bytes: &[u8]) -> bool {
    is_git_blob(root, &blob_id(bytes))
}

/// Whether the repository at `root` holds the blob `id` ([`is_git_version`] of a file hashed
/// a block at a time: the blob's header is `blob LEN\0`).
pub fn is_git_blob(root: &Path, id: &str) -> bool {
    if git_dir(root).is_none() {
        return false;
    }
    std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "-e", id])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The hasher of git's id for a blob `len` bytes long, its header taken: feed it the bytes.
pub(super) fn blob_hasher(len: u64) -> sha1::Sha1 {
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    h.update(format!("blob {len}\0").as_bytes());
    h
}

/// [`blob_hasher`] for a file in the repository at `root` (`None` outside one).
pub(super) fn blob_hasher_in(root: Option<&Path>, len: u64) -> Option<sha1::Sha1> {
    root.filter(|r| git_dir(r).is_some())
        .map(|_| blob_hasher(len))
}

/// The id git gives a blob holding `bytes`.
fn blob_id(bytes: &[u8]) -> String {
    use sha1::Digest;
    let mut h = blob_hasher(bytes.len() as u64);
    h.update(bytes);
    crate::base::hex::lower(&h.finalize())
}

/// The day of the last commit that changed `path` (`git log -1 --format=%cs`).
pub fn commit_day(root: &Path, path: &Path) -> Option<chrono::NaiveDate> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "-c",
            "core.fsmonitor=false",
            "log",
            "-1",
            "--format=%cs",
            "--",
        ])
        .arg(path)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    chrono::NaiveDate::parse_from_str(String::from_utf8_lossy(&out.stdout).trim(), "%Y-%m-%d").ok()
}

/// Store meta key: how old PROJECT.md is on disk, found once when the file is absorbed
/// (instead of asking git at every session start): 0 unknown (ask git; the next write finds
/// it), 1 its mtime tells (outside any repository, or a version git holds no commit of),
/// `2 + days from CE` of the last commit of the version absorbed.
pub const PROJECT_DAY_KEY: &str = "project_file_day";

/// The [`PROJECT_DAY_KEY`] value for `bytes`, just read from PROJECT.md at `path`.
pub fn project_day(root: &Path, path: &Path, bytes: &[u8]) -> u64 {
    use chrono::Datelike;
    if git_dir(root).is_none() {
        return 1;
    }
    // a version git does not hold (an edit not yet committed, a file never added) changed
    // when it was written: its mtime tells, and no session start asks git, whose search for a
    // commit that never touched the file walks the whole history
    match staged_version(root, path, bytes) {
        // git did not answer: unknown, asked again by the next write
        None => return 0,
        Some(false) => return 1,
        Some(true) => {}
    }
    // staged and never committed: it too changed when it was written
    commit_day(root, path).map_or(1, |d| d.num_days_from_ce().max(0) as u64 + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_operations_in_the_git_dir_of_a_worktree_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real-git");
        std::fs::create_dir_all(&real).unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        std::fs::write(repo.join(".git"), "gitdir: ../real-git\n").unwrap();
        assert_eq!(in_progress(&repo.join("sub")), None);
        std::fs::create_dir(real.join("rebase-merge")).unwrap();
        assert_eq!(
            in_progress(&repo.join("sub")),
            Some("a git rebase is under way")
        );
    }

    #[test]
    fn a_stash_saving_the_work_tree_is_waited_out_unless_its_process_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir(&git).unwrap();
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        let mut alive = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        // names that are not a stash's own index: no pid, the lock beside it
        for name in [
            "index.stash.".to_string(),
            "index.stash.x".to_string(),
            format!("index.stash.{}.lock", alive.id()),
            // the index of a stash killed midway
            format!("index.stash.{}", gone.id()),
        ] {
            std::fs::write(git.join(name), "").unwrap();
        }
        let before = in_progress_besides_index(&git);
        std::fs::write(git.join(format!("index.stash.{}", alive.id())), "").unwrap();
        let during = (in_progress_besides_index(&git), in_progress(dir.path()));
        let _ = alive.kill();
        let _ = alive.wait();
        assert_eq!(before, None);
        assert_eq!(during, (Some(STASH_SAVING), Some(STASH_SAVING)));
    }
}
