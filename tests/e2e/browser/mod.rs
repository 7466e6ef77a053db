//! The panel in a real browser: headless Debian Chromium, driven over WebDriver by a
//! chromedriver this test spawns, against a real `trilogy serve` on workspaces made with the
//! real CLI. These are the original plugin's 29 browser checks (`test/client-interact.mjs`,
//! numbered as in the spec's §9.2) plus what the panel adds: search, the event log, what each
//! agent session was injected and what its caps dropped, restorable history and the weekly
//! chart.
//!
//! Requests are counted with the page's own Resource Timing entries (every `fetch` the page
//! makes), and what a request did is checked on disk and in the store, never in a stub.
//! Waits poll the DOM with a generous deadline; no assertion depends on how fast the machine
//! is. The tests fail, never skip, when Chromium or chromedriver is missing
//! (`apt-get install chromium chromium-driver`). They build only when the e2e target is named
//! (`--test e2e`; `tests/e2e/run` installs the browser and runs them).

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

mod agent_view;
mod bundles;
mod driver;
mod fixes;
mod given;
mod live;
mod looks;
mod place;
mod recall;
mod workspaces;

use driver::{Browser, row};

const CHROMIUM: &str = "/usr/bin/chromium";

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long any one condition may take to hold (a loaded 2-core machine runs two browsers).
const DEADLINE: Duration = Duration::from_secs(20);

/// What JavaScript's `encodeURIComponent` leaves alone.
const URI_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `s` as the page's `encodeURIComponent` sends it.
fn uri_component(s: &Path) -> String {
    percent_encoding::utf8_percent_encode(&s.to_string_lossy(), URI_COMPONENT).to_string()
}

// -------------------------------------------------------------------------------------------
// trilogy processes: one isolated home (registry, state, config) per test
// -------------------------------------------------------------------------------------------

/// Where the tests' trilogy processes keep everything outside the workspaces.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::Builder::new()
                .prefix("trilogy-panel-")
                .tempdir()
                .unwrap(),
        }
    }

    fn registry(&self) -> PathBuf {
        self.dir.path().join("registry.json")
    }

    /// A new empty project folder called `name`.
    fn folder(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join("projects").join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    fn env(&self, c: &mut Command) {
        let d = self.dir.path();
        c.env("TRILOGY_REGISTRY", self.registry())
            .env("DSH_HOME", d.join("dsh"))
            .env("XDG_STATE_HOME", d.join("state"))
            .env("XDG_DATA_HOME", d.join("data"))
            .env("TRILOGY_CONFIG", d.join("no-user-config.toml"))
            .env("TRILOGY_TODAY", common::TODAY)
            .envs(common::LOCALE)
            .env_remove("TRILOGY_LANG")
            .env_remove("TRILOGY_SESSIONS_MAX_ENTRIES")
            .env_remove("TRILOGY_SESSIONS_ARCHIVE_BATCH");
    }

    /// `trilogy --root ROOT ARGS`, with `env` on top; requires success and returns stdout.
    fn run(&self, root: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> String {
        let mut c = Command::new(bin());
        c.arg("--root").arg(root).args(args).current_dir(root);
        self.env(&mut c);
        for (k, v) in env {
            c.env(k, v);
        }
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        {
            use std::io::Write;
            let mut input = child.stdin.take().unwrap();
            input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "trilogy {args:?} in {}: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, root: &Path, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_str(&self.run(root, &a, &[], None)).unwrap()
    }

    /// One checkpoint batch recorded on `date`.
    fn checkpoint(&self, root: &Path, date: &str, batch: Value) {
        self.run(
            root,
            &["checkpoint", "--json"],
            &[
                ("TRILOGY_TODAY", date),
                ("TRILOGY_SESSIONS_MAX_ENTRIES", "3"),
                ("TRILOGY_SESSIONS_ARCHIVE_BATCH", "0"),
            ],
            Some(&batch.to_string()),
        );
    }
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("trilogy")
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join("memory").join(file))
        .unwrap_or_else(|e| panic!("read {file} in {}: {e}", root.display()))
}

/// Set a file's modification time `ago` into the past.
fn age(path: &Path, ago: Duration) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
}

/// A workspace with everything the panel shows: an instruction file with the user's own text
/// and the boot block, PROJECT text, decisions (one superseded), five sessions over five ISO
/// weeks (with a quiet week between the first two) in four areas of which two are archived, and an agent session whose caps dropped
/// entries.
fn alpha(home: &Home, name: &str) -> PathBuf {
    let root = home.folder(name);
    std::fs::write(
        root.join("AGENTS.md"),
        "# Agents\n\nUse tabs, not spaces.\n",
    )
    .unwrap();
    home.run(&root, &["init"], &[], None);
    home.checkpoint(
        &root,
        "2026-10-19",
        json!({
            "sessions": [{"done": "parser keeps fenced code whole, verified by cargo test parse", "area": "parser", "next": "archive order"}],
            "decisions": [{"choice": "keep entries in redb", "over": "sqlite", "because": "one file and no server"}],
            "project": [{"section": "现状", "text": "A CLI that keeps an agent's project memory in three Markdown files."}]
        }),
    );
    home.checkpoint(
        &root,
        "2026-11-03",
        json!({"sessions": [{"done": "the archive stays newest first, verified by the archive tests", "area": "archive"}]}),
    );
    home.checkpoint(
        &root,
        "2026-11-17",
        json!({
            "sessions": [{"done": "search ranks whole entries with BM25, verified by the search tests", "area": "search"}],
            "decisions": [{"choice": "tantivy for the search index", "over": "a hand-rolled index", "because": "phrase queries and BM25"}]
        }),
    );
    home.checkpoint(
        &root,
        "2026-11-24",
        json!({"sessions": [{"done": "the panel lists every workspace, verified in Chromium", "area": "panel"}]}),
    );
    home.checkpoint(
        &root,
        "2026-11-29",
        json!({
            "sessions": [{"done": "the panel restores archived entries, verified in Chromium", "area": "panel"}],
            "decisions": [{"choice": "keep entries in redb 4", "over": "redb 3", "because": "the lock protocol", "supersedes": "keep entries in redb"}]
        }),
    );
    // an agent session whose block was cut by its host's limit
    home.run(
        &root,
        &[
            "inject",
            "--session",
            "s-alpha-1",
            "--host",
            "claude",
            "--max-chars",
            "700",
        ],
        &[],
        None,
    );
    root
}

/// An agent's `notes` naming alpha's tantivy decision: an open report for a person.
fn report_on_tantivy(home: &Home, root: &Path) {
    home.run(
        root,
        &[
            "checkpoint",
            "--notes",
            "2026-11-17 — tantivy for the search index is out of date",
        ],
        &[],
        None,
    );
}

/// A small recorded workspace.
fn beta(home: &Home, name: &str) -> PathBuf {
    let root = home.folder(name);
    home.run(&root, &["init"], &[], None);
    home.checkpoint(
        &root,
        common::TODAY,
        json!({
            "sessions": [{"done": "beta builds, verified by cargo build", "area": "build"}],
            "project": [{"section": "现状", "text": "Beta is a small service. <img src=x onerror=\"window.__pwned = 1\"><b>not bold</b>"}]
        }),
    );
    root
}

/// A running `trilogy serve --port 0`, in `cwd`.
struct Server {
    child: Child,
    /// The printed URL, token included.
    url: String,
}

impl Server {
    fn start(home: &Home, cwd: &Path, env: &[(&str, &str)]) -> Server {
        let mut c = Command::new(bin());
        c.args(["serve", "--port", "0"]).current_dir(cwd);
        home.env(&mut c);
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        if !line.starts_with("http://127.0.0.1:") {
            let _ = child.kill();
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("trilogy serve printed {line:?} as its first line, not its URL: {err}");
        }
        Server {
            child,
            url: line.trim().to_string(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// -------------------------------------------------------------------------------------------
// The browser
// -------------------------------------------------------------------------------------------

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn target_dir() -> PathBuf {
    // target/debug/trilogy → target
    bin().parent().unwrap().parent().unwrap().to_path_buf()
}

// -------------------------------------------------------------------------------------------
// What the agent sees, cards and fixing in place, following the store, the page's own state
// -------------------------------------------------------------------------------------------

/// What `trilogy inject` printed, without the line end the printing adds.
fn printed(out: String) -> String {
    out.strip_suffix('\n').unwrap_or(&out).to_string()
}

/// A workspace holding `n` decisions, `n` log entries and `n` archived ones, made by
/// importing a generated bundle with the CLI (the files taken whole), and 120 log entries
/// more merged in by a second import.
fn big(home: &Home, name: &str, n: usize) -> PathBuf {
    let root = home.folder(name);
    home.run(&root, &["init"], &[], None);
    let day = |i: usize| {
        let d = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()
            - chrono::Duration::days((i / 4) as i64);
        d.format("%Y-%m-%d").to_string()
    };
    let mut decisions = String::from("# DECISIONS\n");
    let mut sessions = String::from("# SESSIONS\n");
    let mut archive = String::from("# SESSIONS archive\n");
    for i in 0..n {
        decisions.push_str(&format!(
            "\n## {} — choice number {i}\n选择：choice number {i}\n放弃：option {i}\n因为：reason {i}\n",
            day(i)
        ));
        sessions.push_str(&format!(
            "\n## {} · area{}\n完成：step {i} of the big log, verified by test {i}\n",
            day(i),
            i % 7
        ));
        archive.push_str(&format!(
            "\n## {} · old{}\n完成：archived step {i}, verified by test {i}\n",
            day(n + i),
            i % 5
        ));
    }
    let bundle = json!({
        "kind": "dsh-trilogy/memory-bundle",
        "version": 1,
        "exportedAt": "2026-11-29T10:00:00.000Z",
        "root": "/elsewhere/big",
        "files": {"DECISIONS.md": decisions, "SESSIONS.md": sessions, "SESSIONS-archive.md": archive}
    });
    let path = home.dir.path().join(format!("{name}.json"));
    std::fs::write(&path, bundle.to_string()).unwrap();
    home.run(&root, &["import", &path.to_string_lossy()], &[], None);
    // 120 more, merged into the memory there: one event each, so the change log has pages
    let mut more = String::from("# SESSIONS\n");
    for i in 0..120 {
        more.push_str(&format!(
            "\n## 2026-11-29 · merged{i}\n完成：merged step {i}, verified by test {i}\n"
        ));
    }
    let bundle = json!({
        "kind": "dsh-trilogy/memory-bundle",
        "version": 1,
        "exportedAt": "2026-11-29T11:00:00.000Z",
        "root": "/elsewhere/big",
        "files": {"SESSIONS.md": more}
    });
    std::fs::write(&path, bundle.to_string()).unwrap();
    home.run(&root, &["import", &path.to_string_lossy()], &[], None);
    root
}
