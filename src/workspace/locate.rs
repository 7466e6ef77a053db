//! Which folder's memory a command, a hook or an MCP server uses — one rule for every surface:
//!
//! 1. an explicit `--root`, which must exist (a mistyped one is an error, never a new folder);
//! 2. the host's project directory (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`, the MCP
//!    client's roots, percent-decoded; of several, the one that holds memory) — or, when it
//!    holds none, the nearest folder above it that does, not above the repository root (an
//!    agent started in `src/` keeps the project's memory);
//! 3. the nearest folder at or above the working directory that already holds trilogy memory
//!    (`.trilogy/`, or the memory folder with one of its files), not above the repository
//!    root — so an agent that `cd`s into `src/` keeps the project's memory;
//! 4. the repository root (git's top level) around the working directory, else the working
//!    directory itself.
//!
//! Memory is created only where a person or a host asked for it: an explicit root, the host's
//! project directory, or a repository root — never in `$HOME` or `/` because a hook installed
//! for the user ran outside a project.
//!
//! Both upward walks (for memory and for `.git`) stop below the folders named in
//! `TRILOGY_CEILING_DIRECTORIES` (colon-separated absolute paths, as git's
//! `GIT_CEILING_DIRECTORIES`): a ceiling and everything above it are never looked at, unless
//! the walk starts there. The test suite sets it to the temporary folder, so a stray
//! `/tmp/.trilogy` is never a test's workspace.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// How a root was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocatedBy {
    /// `--root`.
    Explicit,
    /// The host's project directory or the client's roots.
    Host,
    /// A folder at or above the working directory that holds memory.
    Memory,
    /// The repository around the working directory.
    Repository,
    /// The working directory, outside any repository.
    Here,
}

/// A located root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub root: PathBuf,
    pub found: LocatedBy,
}

impl Located {
    /// Whether memory may be created here when there is none yet.
    pub fn may_scaffold(&self, home: Option<&Path>) -> bool {
        let root = &self.root;
        if root.parent().is_none() || home.is_some_and(|h| same(h, root)) {
            return matches!(self.found, LocatedBy::Explicit);
        }
        !matches!(self.found, LocatedBy::Here)
    }
}

/// Why `root` can never be a workspace, whatever asked for it (`--root`, a host's project
/// directory or client roots, the working directory, the panel): `/`, the home folder and
/// every folder above it, and the system's own folders. `None`: it may be one.
pub fn refused_root(root: &Path, home: Option<&Path>) -> Option<&'static str> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.components().collect());
    let root = real(root);
    if root.parent().is_none() {
        return Some("the root of the filesystem");
    }
    if home.is_some_and(|h| real(h).starts_with(&root)) {
        return Some("the home folder or a folder above it");
    }
    if crate::base::dirs::is_system_folder(&root) {
        return Some("a system folder");
    }
    None
}

/// `path` with its `.` parts dropped and each `..` taking off the part before it, without
/// asking the filesystem: a working directory a host reports as `<ws>/../other` is `other`,
/// not a folder inside `<ws>`. A `..` above the root stays at the root.
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                let popped =
                    matches!(out.components().next_back(), Some(Component::Normal(_))) && out.pop();
                if !popped && !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

fn same(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The path of a `file://` URI as MCP clients send roots: percent-decoded, with an optional
/// `localhost` host, and Windows drive paths (`file:///C:/x`) without their leading slash.
/// Other schemes and hosts are not local folders: `None`.
pub fn path_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(rest).collect();
    let text = String::from_utf8(bytes).ok()?;
    let b = text.as_bytes();
    let drive = b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':';
    Some(PathBuf::from(if drive { &text[1..] } else { &text }))
}

/// The variable naming the ceilings.
pub const CEILING_VAR: &str = "TRILOGY_CEILING_DIRECTORIES";

/// Folders an upward walk never enters ([`CEILING_VAR`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ceilings(Vec<PathBuf>);

impl Ceilings {
    /// No ceiling: the walks may go up to `/`.
    pub fn none() -> Ceilings {
        Ceilings::default()
    }

    /// These folders (each also by its canonical path, so a symlinked `/tmp` matches).
    pub fn of(dirs: impl IntoIterator<Item = PathBuf>) -> Ceilings {
        let mut out = Vec::new();
        for d in dirs {
            if !d.is_absolute() {
                continue;
            }
            if let Ok(c) = d.canonicalize()
                && c != d
            {
                out.push(c);
            }
            out.push(d);
        }
        Ceilings(out)
    }

    /// The ceilings `env` names; relative and empty entries are ignored, as git does.
    pub fn from_env(env: &[(String, String)]) -> Ceilings {
        env.iter()
            .rev()
            .find(|(k, _)| k == CEILING_VAR)
            .map(|(_, v)| Ceilings::of(crate::base::env::folder_list(v)))
            .unwrap_or_default()
    }

    fn holds(&self, dir: &Path) -> bool {
        self.0.iter().any(|c| c == dir)
    }

    /// `start`, then each folder above it, stopping before the first ceiling.
    pub fn walk<'a>(&'a self, start: &'a Path) -> impl Iterator<Item = &'a Path> + 'a {
        let mut first = true;
        start.ancestors().take_while(move |d| {
            let keep = first || !self.holds(d);
            first = false;
            keep
        })
    }
}

/// True when `dir` holds trilogy memory.
pub fn holds_memory(dir: &Path, memory_dir_name: &str) -> bool {
    if dir.join(".trilogy").is_dir() {
        return true;
    }
    let mem = dir.join(memory_dir_name);
    ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"]
        .iter()
        .any(|f| mem.join(f).is_file())
}

/// The repository root around `start`: the nearest folder at or above it with `.git`.
pub fn repository_root(start: &Path, ceilings: &Ceilings) -> Option<PathBuf> {
    ceilings
        .walk(start)
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The nearest folder at or above `start` that holds memory, looking no higher than the
/// repository root (a nested repository stops the walk at its own root).
pub fn find_memory(start: &Path, memory_dir_name: &str, ceilings: &Ceilings) -> Option<PathBuf> {
    for dir in ceilings.walk(start) {
        if holds_memory(dir, memory_dir_name) {
            return Some(dir.to_path_buf());
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    None
}

/// Apply the rule. `host` lists the host's project directories and client roots in the
/// order given; `cwd` is the working directory (a hook's payload `cwd`); no walk goes above
/// `ceilings`.
pub fn locate(
    explicit: Option<&Path>,
    host: &[PathBuf],
    cwd: &Path,
    memory_dir_name: &str,
    ceilings: &Ceilings,
) -> Result<Located> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    if let Some(r) = explicit {
        if !r.is_dir() {
            return Err(Error::bad_input(format!(
                "--root {}: no such folder; create it first (trilogy never creates a root it was pointed at)",
                r.display()
            )));
        }
        return Ok(Located {
            root: abs(r),
            found: LocatedBy::Explicit,
        });
    }
    let hosts: Vec<PathBuf> = host.iter().filter(|p| p.is_dir()).map(|p| abs(p)).collect();
    if let Some(h) = hosts.iter().find(|h| holds_memory(h, memory_dir_name)) {
        return Ok(Located {
            root: h.clone(),
            found: LocatedBy::Host,
        });
    }
    if let Some(m) = hosts
        .iter()
        .find_map(|h| find_memory(h, memory_dir_name, ceilings))
    {
        return Ok(Located {
            root: m,
            found: LocatedBy::Memory,
        });
    }
    if let Some(h) = hosts.first() {
        return Ok(Located {
            root: h.clone(),
            found: LocatedBy::Host,
        });
    }
    let cwd = abs(cwd);
    if let Some(m) = find_memory(&cwd, memory_dir_name, ceilings) {
        return Ok(Located {
            root: m,
            found: LocatedBy::Memory,
        });
    }
    if let Some(r) = repository_root(&cwd, ceilings) {
        return Ok(Located {
            root: r,
            found: LocatedBy::Repository,
        });
    }
    Ok(Located {
        root: cwd,
        found: LocatedBy::Here,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test's own root below a folder holding a stray workspace (a user's `/tmp/.trilogy`),
    /// with that folder as the ceiling: what the walks find must come from the root.
    fn world() -> (tempfile::TempDir, PathBuf, Ceilings) {
        let t = tempfile::tempdir().unwrap();
        let outer = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(outer.join(".trilogy")).unwrap();
        std::fs::create_dir_all(outer.join(".git")).unwrap();
        let root = outer.join("t");
        std::fs::create_dir_all(&root).unwrap();
        (t, root, Ceilings::of([outer]))
    }

    #[test]
    fn dot_and_dot_dot_parts_are_taken_off_without_the_filesystem() {
        let l = |p: &str| lexical(Path::new(p)).display().to_string();
        assert_eq!(l("/w/ws/../other"), "/w/other");
        assert_eq!(l("/w/ws/./src/../lib/"), "/w/ws/lib");
        assert_eq!(l("/w/ws/.."), "/w");
        assert_eq!(l("/../.."), "/");
        assert_eq!(l("a/../../b"), "../b");
    }

    #[test]
    fn uris_are_decoded() {
        let p = |u: &str| path_of_uri(u).map(|p| p.display().to_string());
        assert_eq!(
            p("file:///home/u/my%20proj%20%E9%A1%B9%E7%9B%AE").as_deref(),
            Some("/home/u/my proj 项目")
        );
        assert_eq!(p("file:///a%2Fb").as_deref(), Some("/a/b"));
        assert_eq!(p("file://localhost/srv/x").as_deref(), Some("/srv/x"));
        assert_eq!(
            p("file:///C:/Users/u/proj").as_deref(),
            Some("C:/Users/u/proj")
        );
        assert_eq!(p("file:///c%3A/x").as_deref(), Some("c:/x"));
        assert_eq!(p("https://example.com/x"), None);
        assert_eq!(p("file://otherhost/x"), None);
        assert_eq!(p("file:///%FF"), None, "not UTF-8");
    }

    #[test]
    fn the_walk_finds_memory_above_and_stops_at_the_repository() {
        let (_t, root, ceil) = world();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/memory")).unwrap();
        std::fs::write(root.join("repo/memory/SESSIONS.md"), "# S\n").unwrap();
        std::fs::create_dir_all(root.join("repo/src/deep")).unwrap();
        let got = locate(None, &[], &root.join("repo/src/deep"), "memory", &ceil).unwrap();
        assert_eq!(got.root, root.join("repo"));
        assert_eq!(got.found, LocatedBy::Memory);
        // a nested repository (a submodule) without memory: its own root, not the outer one
        std::fs::create_dir_all(root.join("repo/vendor/lib/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/vendor/lib/src")).unwrap();
        let got = locate(
            None,
            &[],
            &root.join("repo/vendor/lib/src"),
            "memory",
            &ceil,
        )
        .unwrap();
        assert_eq!(got.root, root.join("repo/vendor/lib"));
        assert_eq!(got.found, LocatedBy::Repository);
        // memory above the repository is not looked for
        std::fs::create_dir_all(root.join("outer/.trilogy")).unwrap();
        std::fs::create_dir_all(root.join("outer/inner/.git")).unwrap();
        let got = locate(None, &[], &root.join("outer/inner"), "memory", &ceil).unwrap();
        assert_eq!(got.root, root.join("outer/inner"));
        // outside any repository and any memory: the folder itself, where nothing is created
        std::fs::create_dir_all(root.join("loose")).unwrap();
        let got = locate(None, &[], &root.join("loose"), "memory", &ceil).unwrap();
        assert_eq!(got.found, LocatedBy::Here);
        assert!(!got.may_scaffold(None));
    }

    #[test]
    fn host_roots_win_and_the_one_with_memory_is_chosen() {
        let (_t, root, ceil) = world();
        let a = root.join("a");
        let b = root.join("b");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(b.join(".trilogy")).unwrap();
        let got = locate(None, &[a.clone(), b.clone()], &root, "memory", &ceil).unwrap();
        assert_eq!(got.root, b);
        let got = locate(None, std::slice::from_ref(&a), &root, "memory", &ceil).unwrap();
        assert_eq!((got.root, got.found), (a, LocatedBy::Host));
        // a host started in a subfolder of a project with memory: the project's
        let sub = b.join("src");
        std::fs::create_dir_all(&sub).unwrap();
        let got = locate(None, std::slice::from_ref(&sub), &root, "memory", &ceil).unwrap();
        assert_eq!((got.root, got.found), (b, LocatedBy::Memory));
    }

    #[test]
    fn a_missing_explicit_root_is_an_error_and_home_gets_nothing() {
        let t = tempfile::tempdir().unwrap();
        let ceil = Ceilings::none();
        let e = locate(Some(&t.path().join("typo")), &[], t.path(), "memory", &ceil).unwrap_err();
        assert!(e.to_string().contains("no such folder"), "{e}");
        let home = Located {
            root: t.path().to_path_buf(),
            found: LocatedBy::Repository,
        };
        assert!(!home.may_scaffold(Some(t.path())));
        assert!(home.may_scaffold(None));
        let slash = Located {
            root: PathBuf::from("/"),
            found: LocatedBy::Host,
        };
        assert!(!slash.may_scaffold(None));
    }

    #[test]
    fn a_stray_workspace_above_the_ceiling_is_not_seen() {
        let (_t, root, ceil) = world();
        let outer = root.parent().unwrap().to_path_buf();
        let loose = root.join("loose");
        std::fs::create_dir_all(&loose).unwrap();
        // without the ceiling the walk reaches the stray marker: the arrangement is real
        let got = locate(None, &[], &loose, "memory", &Ceilings::none()).unwrap();
        assert_eq!((got.root, got.found), (outer.clone(), LocatedBy::Memory));
        assert_eq!(
            repository_root(&loose, &Ceilings::none()),
            Some(outer.clone())
        );
        // with it, neither walk looks at the ceiling or above
        let got = locate(None, &[], &loose, "memory", &ceil).unwrap();
        assert_eq!((got.root, got.found), (loose.clone(), LocatedBy::Here));
        assert_eq!(repository_root(&loose, &ceil), None);
        let got = locate(None, std::slice::from_ref(&loose), &root, "memory", &ceil).unwrap();
        assert_eq!((got.root, got.found), (loose.clone(), LocatedBy::Host));
        // a walk that starts at the ceiling still looks there
        assert_eq!(find_memory(&outer, "memory", &ceil), Some(outer.clone()));
    }

    #[test]
    fn the_root_the_home_folder_its_ancestors_and_system_folders_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home/me");
        let project = home.join("src/app");
        std::fs::create_dir_all(&project).unwrap();
        assert!(refused_root(Path::new("/"), Some(&home)).is_some());
        assert!(refused_root(&home, Some(&home)).is_some());
        assert!(refused_root(&t.path().join("home"), Some(&home)).is_some());
        // spelled another way, still the home folder
        assert!(refused_root(&project.join("../.."), Some(&home)).is_some());
        assert_eq!(refused_root(&project, Some(&home)), None);
        for f in ["/etc", "/usr", "/var", "/tmp"] {
            assert_eq!(
                refused_root(Path::new(f), None),
                Some("a system folder"),
                "{f}"
            );
        }
        assert_eq!(refused_root(t.path(), None), None);
    }

    #[test]
    fn ceilings_come_from_the_environment_as_git_reads_them() {
        let env = |v: &str| vec![(CEILING_VAR.to_string(), v.to_string())];
        let c = Ceilings::from_env(&env("/a/b::relative:/c"));
        assert!(c.holds(Path::new("/a/b")) && c.holds(Path::new("/c")));
        assert!(!c.holds(Path::new("relative")) && !c.holds(Path::new("/a")));
        assert_eq!(Ceilings::from_env(&[]), Ceilings::none());
        let dirs: Vec<&Path> = c.walk(Path::new("/a/b/x/y")).collect();
        assert_eq!(dirs, [Path::new("/a/b/x/y"), Path::new("/a/b/x")]);
    }
}
