//! What git's history says about anchored paths, asked of the `git` trilogy already runs for
//! merges and history (never a library with a C build): the commit each line of a memory file
//! came from, which paths existed at a commit, and how a path moved from a commit to `HEAD`.
//! Every command runs in the work tree with external diff drivers, text conversion and the
//! file-system monitor off (a repository's settings must not run programs here), and a
//! command that fails is an answer of "unknown", never an error.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The commit id git gives a line not yet committed.
const UNCOMMITTED: &str = "0000000000000000000000000000000000000000";

fn git(root: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(root)
        .args(["-c", "core.fsmonitor=false"])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn output(mut c: Command) -> Option<Vec<u8>> {
    c.output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout)
}

/// The commit `HEAD` names; `None` outside a repository or before its first commit.
pub fn head(root: &Path) -> Option<String> {
    let mut c = git(root);
    c.args(["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
    let id = String::from_utf8(output(c)?).ok()?;
    Some(id.trim().to_string()).filter(|s| s.len() >= 40)
}

/// Each line of `file` (relative to `root`) with the commit that added it, for the lines git
/// holds (`git blame`); a line not yet committed is left out.
pub fn blame(root: &Path, file: &str) -> HashMap<String, String> {
    let mut c = git(root);
    c.args(["blame", "--porcelain", "--no-textconv", "--", file]);
    let Some(out) = output(c) else {
        return HashMap::new();
    };
    let text = String::from_utf8_lossy(&out);
    let mut lines: HashMap<String, String> = HashMap::new();
    let mut commit = String::new();
    for l in text.lines() {
        if let Some(content) = l.strip_prefix('\t') {
            if commit != UNCOMMITTED {
                // the first time a line's text is seen wins: the file's newest entry is on top
                lines
                    .entry(content.to_string())
                    .or_insert_with(|| commit.clone());
            }
            continue;
        }
        let first = l.split(' ').next().unwrap_or_default();
        if first.len() == 40 && first.bytes().all(|b| b.is_ascii_hexdigit()) {
            commit = first.to_string();
        }
    }
    lines
}

/// Feed `input` to a git command's stdin from a thread (a long list must not fill both pipes
/// at once) and return its stdout when it succeeded.
fn fed(mut c: Command, input: String) -> Option<Vec<u8>> {
    c.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = c.spawn().ok()?;
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(input.as_bytes());
        }
    });
    let out = child.wait_with_output().ok();
    let _ = writer.join();
    out.filter(|o| o.status.success()).map(|o| o.stdout)
}

/// Which of `asks` (`(commit, path)`) name a file that commit holds: one `git cat-file`.
pub fn existing(root: &Path, asks: &[(String, String)]) -> Vec<bool> {
    let mut c = git(root);
    c.args(["cat-file", "--batch-check"]);
    let input: String = asks.iter().map(|(c, p)| format!("{c}:{p}\n")).collect();
    let Some(out) = fed(c, input) else {
        return vec![false; asks.len()];
    };
    let text = String::from_utf8_lossy(&out);
    let answers: Vec<bool> = text.lines().map(|l| l.contains(" blob ")).collect();
    (0..asks.len())
        .map(|i| answers.get(i).copied().unwrap_or(false))
        .collect()
}

/// The lines of each of `asks` (`(commit, path)`): one `git cat-file --batch`; 0 for one it
/// does not hold.
pub fn lines_at(root: &Path, asks: &[(String, String)]) -> Vec<u64> {
    let mut c = git(root);
    c.args(["cat-file", "--batch"]);
    let input: String = asks.iter().map(|(c, p)| format!("{c}:{p}\n")).collect();
    let Some(out) = fed(c, input) else {
        return vec![0; asks.len()];
    };
    // each answer: `<id> blob <size>\n<bytes>\n`, or `<ask> missing\n`
    let mut counts = Vec::with_capacity(asks.len());
    let mut at = 0;
    while at < out.len() && counts.len() < asks.len() {
        let Some(end) = memchr::memchr(b'\n', &out[at..]).map(|i| at + i) else {
            break;
        };
        let header = String::from_utf8_lossy(&out[at..end]);
        at = end + 1;
        let size = (header.split(' ').nth(1) == Some("blob"))
            .then(|| header.rsplit(' ').next()?.parse::<usize>().ok())
            .flatten();
        let Some(size) = size else {
            counts.push(0);
            continue;
        };
        let blob = &out[at..(at + size).min(out.len())];
        at += size + 1;
        let n = memchr::memchr_iter(b'\n', blob).count() as u64;
        counts.push(n + u64::from(!blob.is_empty() && !blob.ends_with(b"\n")));
    }
    counts.resize(asks.len(), 0);
    counts
}

/// How one path moved from a commit to `HEAD`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moved {
    /// Its new path, when git found it renamed.
    pub renamed_to: Option<String>,
    pub deleted: bool,
    /// Lines added and removed.
    pub added: u64,
    pub removed: u64,
}

/// `git diff` from `from` to `head` in the form `form` (`--name-status`, `--numstat`), NUL
/// separated, paths relative to `root`, renames found.
fn diff(root: &Path, form: &str, from: &str, head: &str) -> Option<Vec<u8>> {
    let mut c = git(root);
    c.args([
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--relative",
        "-M",
        "-z",
        form,
        from,
        head,
    ]);
    output(c)
}

/// Every path (relative to `root`) that differs between `from` and `head`, with how.
pub fn moved_between(root: &Path, from: &str, head: &str) -> Option<HashMap<String, Moved>> {
    let status = diff(root, "--name-status", from, head)?;
    let mut out: HashMap<String, Moved> = HashMap::new();
    let mut parts = status
        .split(|b| *b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned());
    while let Some(kind) = parts.next() {
        if kind.is_empty() {
            continue;
        }
        let Some(path) = parts.next() else { break };
        let m = out.entry(path).or_default();
        match kind.chars().next() {
            Some('D') => m.deleted = true,
            Some('R') => m.renamed_to = parts.next(),
            Some('C') => {
                parts.next();
            }
            _ => {}
        }
    }
    let counts = diff(root, "--numstat", from, head)?;
    let text = String::from_utf8_lossy(&counts);
    let mut fields = text.split('\0');
    while let Some(rec) = fields.next() {
        let mut cols = rec.splitn(3, '\t');
        let (Some(a), Some(d), Some(path)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        // a rename: the path is empty and the old and new names follow
        let path = match path.is_empty() {
            true => {
                let old = fields.next().unwrap_or_default().to_string();
                fields.next();
                old
            }
            false => path.to_string(),
        };
        let m = out.entry(path).or_default();
        // a binary file counts as changed whole
        m.added = a.parse().unwrap_or(u64::MAX / 4);
        m.removed = d.parse().unwrap_or(u64::MAX / 4);
    }
    Some(out)
}

/// Commits by the path they changed: each its short id and subject, newest first.
pub type Touching = HashMap<String, Vec<(String, String)>>;

/// The commits after `from` up to `head` that changed each of `paths`, newest first, at most
/// `n` per path (short id and subject): one `git log`.
pub fn commits_touching(root: &Path, from: &str, head: &str, paths: &[&str], n: usize) -> Touching {
    let mut out = Touching::new();
    if paths.is_empty() {
        return out;
    }
    let mut c = git(root);
    c.args([
        "log",
        "--no-ext-diff",
        "--no-textconv",
        "--relative",
        "-M",
        "--name-only",
        "--format=%x01%h%x09%s",
    ])
    .arg(format!("{from}..{head}"))
    .arg("--")
    .args(paths);
    let Some(log) = output(c) else {
        return out;
    };
    let text = String::from_utf8_lossy(&log);
    let mut commit: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(head_line) = line.strip_prefix('\u{1}') {
            commit = head_line
                .split_once('\t')
                .map(|(id, subject)| (id.to_string(), subject.chars().take(80).collect()));
            continue;
        }
        let (Some(c), false) = (&commit, line.is_empty()) else {
            continue;
        };
        let listed = out.entry(line.to_string()).or_default();
        if listed.len() < n {
            listed.push(c.clone());
        }
    }
    out
}
