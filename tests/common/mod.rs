//! Shared helpers for the integration tests: a throwaway workspace driven through the real
//! binary with a pinned date and no user config.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

pub const TODAY: &str = "2026-11-29";

/// The variable that stops trilogy's upward walks (`TRILOGY_CEILING_DIRECTORIES`).
pub const CEILING: &str = "TRILOGY_CEILING_DIRECTORIES";

/// The temporary folder every test workspace lives in: the ceiling of every command a test
/// runs, so a stray workspace there (a user's `/tmp/.trilogy`) is never found.
pub fn ceiling() -> PathBuf {
    std::env::temp_dir()
}

/// The user-level folders of a command run outside [`Ws::cmd`] (its state, data and DSH
/// homes, all under `state`) and the walk's ceiling: the workspace registry and trilogy's state
/// land there, never in the real home.
pub fn private_env(state: &Path) -> [(&'static str, PathBuf); 7] {
    let [all, messages, lang] = LOCALE;
    [
        ("XDG_STATE_HOME", state.to_path_buf()),
        ("XDG_DATA_HOME", state.join("data")),
        ("DSH_HOME", state.join("dsh")),
        (CEILING, ceiling()),
        (all.0, all.1.into()),
        (messages.0, messages.1.into()),
        (lang.0, lang.1.into()),
    ]
}

/// The locale of every command a test runs: a new workspace takes its language from it, and
/// the suites were written in the Chinese the original kept (an empty variable counts as
/// unset). Tests of the locale itself set their own.
pub const LOCALE: [(&str, &str); 3] =
    [("LC_ALL", ""), ("LC_MESSAGES", ""), ("LANG", "zh_CN.UTF-8")];

/// A temporary workspace root.
pub struct Ws {
    pub dir: tempfile::TempDir,
    /// Where hooks pin sessions to their workspace (`XDG_STATE_HOME`), outside the project.
    pub state: tempfile::TempDir,
    /// The user memory's folder shared with other workspaces (`TRILOGY_USER_MEMORY_DIR`);
    /// otherwise each workspace's user memory is its own, under its data home.
    pub user_dir: Option<PathBuf>,
}

impl Ws {
    pub fn new() -> Ws {
        Ws {
            dir: tempfile::Builder::new()
                .prefix("trilogy-test-")
                .tempdir()
                .unwrap(),
            state: tempfile::Builder::new()
                .prefix("trilogy-state-")
                .tempdir()
                .unwrap(),
            user_dir: None,
        }
    }

    /// A workspace (not initialised) whose folder's name begins with `prefix`.
    #[allow(dead_code)]
    pub fn named(prefix: &str) -> Ws {
        Ws {
            dir: tempfile::Builder::new().prefix(prefix).tempdir().unwrap(),
            ..Ws::new()
        }
    }

    /// A workspace (not initialised) whose user memory is the one in `dir`.
    pub fn sharing_user(dir: &Path) -> Ws {
        Ws {
            user_dir: Some(dir.to_path_buf()),
            ..Ws::new()
        }
    }

    /// `HOME` of every command run here (the hosts' transcripts live under it).
    pub fn home(&self) -> PathBuf {
        self.state.path().join("home")
    }

    /// Where this workspace's user memory (USER.md) is.
    pub fn user_md(&self) -> PathBuf {
        (self.user_dir.clone())
            .unwrap_or_else(|| self.data_home().join("trilogy").join("user"))
            .join("USER.md")
    }

    /// An initialised workspace.
    pub fn init() -> Ws {
        let ws = Ws::new();
        ws.ok(&["init"]);
        ws
    }

    /// `XDG_DATA_HOME` of every command run here: the workspace registry lands in it, never
    /// in the real home.
    pub fn data_home(&self) -> PathBuf {
        self.state.path().join("data")
    }

    /// `DSH_HOME` (the original plugin's registry) of every command run here.
    pub fn dsh_home(&self) -> PathBuf {
        self.state.path().join("dsh")
    }

    /// Our registry file for commands run here.
    pub fn registry(&self) -> PathBuf {
        self.data_home().join("trilogy").join("registry.json")
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.root().join("memory").join(file)
    }

    pub fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.path(file)).unwrap_or_else(|e| panic!("read {file}: {e}"))
    }

    pub fn write(&self, file: &str, text: &str) {
        std::fs::write(self.path(file), text).unwrap();
    }

    /// The binary, rooted here, with a pinned date and no user or workspace leakage.
    pub fn cmd(&self) -> Command {
        Command::from_std(self.std_cmd())
    }

    /// [`Ws::cmd`] as a plain process (for spawning and piping).
    pub fn std_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
        c.arg("--root").arg(self.root());
        c.env("TRILOGY_TODAY", TODAY)
            .env("XDG_STATE_HOME", self.state.path())
            .env("XDG_DATA_HOME", self.data_home())
            .env("DSH_HOME", self.dsh_home())
            .env("TRILOGY_CONFIG", self.root().join("no-user-config.toml"))
            .env(CEILING, ceiling())
            .envs(LOCALE)
            .env_remove("TRILOGY_LANG")
            .env_remove("TRILOGY_SESSIONS_MAX_ENTRIES")
            .env_remove("TRILOGY_SESSIONS_ARCHIVE_BATCH");
        match &self.user_dir {
            Some(d) => c.env("TRILOGY_USER_MEMORY_DIR", d),
            None => c.env_remove("TRILOGY_USER_MEMORY_DIR"),
        };
        // the hosts' transcripts and trilogy's cache are this test's own
        c.env("HOME", self.home())
            .env("XDG_CACHE_HOME", self.state.path().join("cache"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Output {
        self.cmd().args(args).write_stdin(stdin).output().unwrap()
    }

    /// Run and require success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "trilogy {args:?} failed: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    pub fn ok_stdin(&self, args: &[&str], stdin: &str) -> String {
        let out = self.run_stdin(args, stdin);
        assert!(
            out.status.success(),
            "trilogy {args:?} failed: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// Run `args --json` and parse stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_str(&self.ok(&a)).unwrap()
    }

    /// Send `lines` to a `trilogy mcp` here, close its stdin, and read every frame it wrote
    /// (each stdout line must be one): the frames and the raw stdout.
    pub fn mcp_session(&self, lines: &[String]) -> (Vec<serde_json::Value>, String) {
        let mut input = String::new();
        for l in lines {
            input.push_str(l);
            input.push('\n');
        }
        let out = self.cmd().arg("mcp").write_stdin(input).output().unwrap();
        let stdout = text(&out.stdout);
        let frames = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a frame ({e}): {l:?}")))
            .collect();
        (frames, stdout)
    }

    /// One `tools/call` of `tool` over MCP from agent session `session`: its `result`.
    pub fn mcp_tool(
        &self,
        session: &str,
        tool: &str,
        args: serde_json::Value,
    ) -> serde_json::Value {
        use serde_json::json;
        let lines = [
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":tool,"arguments":args}}),
        ];
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let out = self
            .cmd()
            .arg("mcp")
            .env("TRILOGY_AGENT_SESSION", session)
            .write_stdin(input)
            .output()
            .unwrap();
        let stdout = text(&out.stdout);
        stdout
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|f| f["id"] == 2)
            .unwrap_or_else(|| panic!("no answer: {stdout}"))["result"]
            .clone()
    }

    /// Bytes of every file under memory/, by name.
    pub fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(self.root().join("memory"))
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    }

    pub fn event_count(&self) -> usize {
        let v = self.json(&["log", "-n", "100000"]);
        v["events"].as_array().unwrap().len()
    }
}

/// Run git in `root` with a fixed identity.
pub fn git_output(root: &Path, args: &[&str]) -> Output {
    std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git is missing: apt-get install git (.ci/run installs it)")
}

/// The SessionStart payload Claude Code sends when a session starts in `ws`.
pub fn session_start_payload(ws: &Ws, session: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": ws.root().display().to_string(),
        "transcript_path": "/nonexistent",
    })
    .to_string()
}

/// What Claude Code session `session` is told at its next prompt in `ws` (empty when nothing).
pub fn next_prompt(ws: &Ws, session: &str) -> String {
    let payload = serde_json::json!({
        "session_id": session,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "go on",
        "cwd": ws.root().display().to_string(),
        "transcript_path": "/nonexistent",
    });
    let out = ws.run_stdin(
        &["hook", "claude", "user-prompt-submit"],
        &payload.to_string(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    hook_context(&text(&out.stdout))
}

/// The `additionalContext` a Claude Code hook answered with (empty when it answered nothing).
pub fn hook_context(stdout: &str) -> String {
    if stdout.trim().is_empty() {
        return String::new();
    }
    let v: serde_json::Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout:?}"));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Number of `## ` entry headings in a file's text.
pub fn headings(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(str::to_string)
        .collect()
}

/// Wait until `mark` exists (a paused process writes it on arrival: `TRILOGY_PAUSE_MARK`),
/// failing after half a minute with `what`.
pub fn wait_for(mark: &Path, what: &str) {
    let mut waited = 0;
    while !mark.exists() {
        assert!(waited < 600, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited += 1;
    }
}

/// A small seedable generator (xorshift64*), the same everywhere: a seed says everything a
/// randomised test did.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// The number in environment variable `name`, else `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub mod mcp_peer;
pub mod web;
