//! Where each host keeps its transcripts, and which of them (which of their lines) belong to a
//! workspace: a line's working directory is the workspace or inside it, and not inside
//! another project nested in it.

use std::path::{Path, PathBuf};

use crate::config::RecallPlaces;

use super::Host;

/// One transcript file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub host: Host,
    pub path: PathBuf,
    /// Claude Code: the file is in the root's own folder (not a subfolder's), so its lines
    /// that name no working directory are the workspace's.
    pub own: bool,
    /// Its size and modification time when it was listed (`None` when they could not be
    /// read, or were not taken): what tells whether it changed since it was last read.
    pub stat: Option<Stat>,
    /// Listed as known to be another project's session (named so in the freshness stamp):
    /// never read again, so not stat'ed.
    pub known_other: bool,
}

/// A file as its folder's listing found it.
struct Listed {
    path: PathBuf,
    stat: Option<Stat>,
    known_other: bool,
}

/// A file's size and modification time (nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime: i64,
}

impl Stat {
    pub fn of(meta: &std::fs::Metadata) -> Stat {
        Stat {
            size: meta.len(),
            // nanoseconds fit an i64 until the year 2262
            mtime: crate::base::stat::mtime_ns(meta) as i64,
        }
    }
}

/// Claude Code's folder name for a project, before it is shortened: every UTF-16 unit that
/// is not an ASCII letter or digit becomes `-` (so a character outside the BMP becomes two).
pub fn claude_slug(dir: &Path) -> String {
    let mut out = String::new();
    for c in dir.to_string_lossy().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    out
}

/// The longest folder name Claude Code gives a project whole.
const CLAUDE_SLUG_MAX: usize = 200;

/// Claude Code's folder for a project: its slug, or for a slug over 200 units its first 200,
/// a `-` and a hash of the path (the 32-bit `h = 31·h + unit` over its UTF-16 units, made
/// positive, in base 36).
pub fn claude_folder(dir: &Path) -> String {
    let slug = claude_slug(dir);
    if slug.len() <= CLAUDE_SLUG_MAX {
        return slug;
    }
    let h = (dir.to_string_lossy().encode_utf16())
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    format!(
        "{}-{}",
        &slug[..CLAUDE_SLUG_MAX],
        base36(i64::from(h).unsigned_abs())
    )
}

fn base36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// A folder's transcripts and subfolders.
type Listing = (Vec<Listed>, Vec<PathBuf>);

/// The files in `dir` whose names `wanted` takes (none without it), each with its stat, and
/// the folders in it, both sorted (none when `dir` cannot be read), from one listing. An
/// entry's type (not following a symlink) comes from the listing on most file systems, and a
/// file's stat is taken by name inside the open folder (no walk of the whole path per file).
/// Files `known_other` names (another project's, never read again) are not stat'ed.
fn listing(
    dir: &Path,
    wanted: Option<&dyn Fn(&str) -> bool>,
    known_other: &dyn Fn(&Path) -> bool,
) -> Listing {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return (Vec::new(), Vec::new());
    };
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    for e in rd.flatten() {
        match e.file_type() {
            Ok(t) if t.is_dir() => dirs.push(e.path()),
            Ok(t) if t.is_file() && wanted.is_some_and(|w| w(&e.file_name().to_string_lossy())) => {
                let path = e.path();
                let known_other = known_other(&path);
                let stat = match known_other {
                    true => None,
                    false => e.metadata().ok().map(|m| Stat::of(&m)),
                };
                files.push(Listed {
                    path,
                    stat,
                    known_other,
                })
            }
            _ => {}
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    dirs.sort();
    (files, dirs)
}

fn files(dir: &Path, suffix: &str, known_other: &dyn Fn(&Path) -> bool) -> Vec<Listed> {
    listing(dir, Some(&|n| n.ends_with(suffix)), known_other).0
}

/// The folders in `dir`, sorted (no file is stat'ed).
fn dirs(dir: &Path) -> Vec<PathBuf> {
    listing(dir, None, &|_| false).1
}

/// Every transcript of `hosts` that may hold lines of the workspace at `root`. Claude Code's
/// are found by folder name; the others name their project inside, so all are listed and each
/// is matched when read.
/// Files `known_other` names (known to be another project's) are listed without their stat.
pub fn find(
    places: &RecallPlaces,
    hosts: &[Host],
    root: &Path,
    known_other: &dyn Fn(&Path) -> bool,
) -> Vec<Source> {
    let mut out = Vec::new();
    let mut add = |host, files: Vec<Listed>, own: bool| {
        out.extend((files.into_iter()).map(|f| Source {
            host,
            path: f.path,
            own,
            stat: f.stat,
            known_other: f.known_other,
        }));
    };
    for &host in hosts {
        match host {
            Host::Claude => {
                let Some(base) = places.home(host) else {
                    continue;
                };
                // the root's folder, and those of folders inside it: their names begin with
                // the root's slug and a `-` (a long one's first 200 units, then its hash's
                // `-`); a folder of another project sharing them is read too, and its lines
                // are kept out by their working directory
                let folder = claude_folder(root);
                let slug = claude_slug(root);
                let prefix = format!("{}-", &slug[..slug.len().min(CLAUDE_SLUG_MAX)]);
                for d in dirs(&base.join("projects")) {
                    let name = d
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned();
                    if name != folder && !name.starts_with(&prefix) {
                        continue;
                    }
                    let own = name == folder;
                    let (transcripts, sessions) =
                        listing(&d, Some(&|n| n.ends_with(".jsonl")), known_other);
                    add(host, transcripts, own);
                    for session in sessions {
                        add(
                            host,
                            files(&session.join("subagents"), ".jsonl", known_other),
                            own,
                        );
                    }
                }
            }
            Host::Codex => {
                let Some(base) = places.home(host) else {
                    continue;
                };
                for y in dirs(&base.join("sessions")) {
                    for m in dirs(&y) {
                        for d in dirs(&m) {
                            add(host, files(&d, ".jsonl", known_other), false);
                        }
                    }
                }
                add(
                    host,
                    files(&base.join("archived_sessions"), ".jsonl", known_other),
                    false,
                );
            }
            Host::Gemini => {
                let Some(base) = places.home(host) else {
                    continue;
                };
                // a project's folder is named in `projects.json` (older releases: its hash)
                let names: Vec<String> = (gemini_projects(base, root).into_iter())
                    .flat_map(|(p, short)| [gemini_hash(&p)].into_iter().chain(short))
                    .collect();
                for name in names {
                    let chats = base.join("tmp").join(name).join("chats");
                    // `session-*.json`: one JSON document rewritten whole at each message,
                    // as releases before the `.jsonl` logs kept a session
                    let (transcripts, subs) = listing(
                        &chats,
                        Some(&|n| {
                            n.ends_with(".jsonl")
                                || (n.starts_with("session-") && n.ends_with(".json"))
                        }),
                        known_other,
                    );
                    add(host, transcripts, false);
                    for sub in subs {
                        add(host, files(&sub, ".jsonl", known_other), false);
                    }
                }
            }
            Host::Dsh => {
                let Some(base) = places.home(host) else {
                    continue;
                };
                for cwd in dirs(&base.join("sessions")) {
                    for s in dirs(&cwd) {
                        let log = s.join("session.jsonl.zstd");
                        if let Ok(m) = std::fs::metadata(&log)
                            && m.is_file()
                        {
                            let listed = Listed {
                                known_other: known_other(&log),
                                stat: Some(Stat::of(&m)),
                                path: log,
                            };
                            add(host, vec![listed], false);
                        }
                    }
                }
            }
            // hosts whose transcripts are not read
            Host::Cursor | Host::Vscode | Host::Windsurf | Host::Zed => {}
        }
    }
    out
}

/// The folders Gemini CLI was started in that belong to the workspace at `root` (the root
/// itself always), each with the short name `projects.json` gives its temporary folder.
pub fn gemini_projects(base: &Path, root: &Path) -> Vec<(PathBuf, Option<String>)> {
    let mut out = vec![(root.to_path_buf(), None)];
    let listed = crate::base::fence::read_small_text(&base.join("projects.json"), 4 << 20)
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    if let Some(map) = listed
        .as_ref()
        .and_then(|v| v.get("projects"))
        .and_then(|p| p.as_object())
    {
        for (path, short) in map {
            let path = PathBuf::from(path);
            if !belongs(root, &path) {
                continue;
            }
            let short = short.as_str().map(str::to_string);
            match out.iter_mut().find(|(p, _)| *p == path) {
                Some(e) => e.1 = short,
                None => out.push((path, short)),
            }
        }
    }
    out
}

/// Whether a line whose working directory is `cwd` belongs to the workspace at `root`: `cwd`
/// (its `.` and `..` parts taken off) is `root` or inside it, and no folder between them is a project of its own (a nested
/// repository, or a folder trilogy keeps memory in).
pub fn belongs(root: &Path, cwd: &Path) -> bool {
    // `<root>/../other` is not inside the root
    let cwd = crate::workspace::lexical(cwd);
    let Ok(rest) = cwd.strip_prefix(root) else {
        return false;
    };
    let mut dir = root.to_path_buf();
    for part in rest.components() {
        dir.push(part);
        if dir.join(".git").exists() || dir.join(".trilogy").is_dir() {
            return false;
        }
    }
    true
}

/// Gemini CLI's project hash: the SHA-256 of the project root, in hex.
pub fn gemini_hash(root: &Path) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(root.to_string_lossy().as_bytes());
    crate::base::hex::lower(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_project_is_not_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("vendor/lib/.git")).unwrap();
        assert!(belongs(root, root));
        assert!(belongs(root, &root.join("src/deep")));
        assert!(!belongs(root, &root.join("vendor/lib")));
        assert!(!belongs(root, &root.join("vendor/lib/x")));
        assert!(!belongs(root, Path::new("/elsewhere")));
        assert!(!belongs(root, &root.join("../other")));
        assert!(!belongs(root, &root.join("src/../../other")));
        assert!(belongs(root, &root.join("src/../src/./deep")));
        assert_eq!(
            claude_slug(Path::new("/home/a/my proj_1")),
            "-home-a-my-proj-1"
        );
        assert_eq!(claude_slug(Path::new("/p/项目/😀")), "-p------");
    }

    /// The expected names come from the function in Claude Code 2.x's own bundle, run under
    /// Node on these paths.
    #[test]
    fn a_long_project_path_gets_claude_codes_shortened_folder_name() {
        let long = format!(
            "/home/dev/{}项目/😀/end",
            "very-long-folder-name-".repeat(9)
        );
        assert_eq!(
            claude_folder(Path::new(&long)),
            format!(
                "-home-dev-{}very-long-fold-jfveaf",
                "very-long-folder-name-".repeat(8)
            )
        );
        let at_max = format!("/srv/{}", "x".repeat(195));
        assert_eq!(
            claude_folder(Path::new(&at_max)),
            claude_slug(Path::new(&at_max))
        );
        let over = format!("/srv/{}", "x".repeat(196));
        assert_eq!(
            claude_folder(Path::new(&over)),
            format!("-srv-{}-sa6ta1", "x".repeat(195))
        );
    }
}
