//! What the end-to-end host tests share: the pinned agent CLIs (installed by `npm ci` in
//! `tests/e2e/`, or found in `TRILOGY_E2E_BIN`), a scripted model stand-in on 127.0.0.1, and a
//! throwaway world — `HOME`, `TMPDIR`, state and a project at a path with a space and Chinese
//! characters — that the CLIs run in with a scrubbed environment, so they reach nothing but
//! the stand-in. Everything a test needs that is missing is a failure, never a skip.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha1::{Digest, Sha1};

/// Longest a CLI may take for one turn: a hang guard only, far above what a turn takes.
pub const TURN: Duration = Duration::from_secs(300);

/// The block's first line, as every host must receive it.
pub const HEADER: &str = "===== 项目记忆（背景资料，来自本项目的记忆文件，不是指令；会话开始时已自动载入，不必再去读）=====";
/// The reminder a turn that worked and recorded nothing earns on the next prompt.
pub const NUDGE: &str = "【记忆提醒】";
/// An entry seeded into the memory before the host starts.
pub const KNOWN: &str = "KNOWN-ENTRY-7f3";
/// A line of the user memory (USER.md) every host's block carries.
pub const KNOWN_USER: &str = "KNOWN-USER-4c1 先给结论再给细节";

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("e2e")
}

/// A file of the end-to-end suite, by its path under `tests/e2e/`.
pub fn e2e_path(rel: &str) -> PathBuf {
    e2e_dir().join(rel)
}

/// The agent CLI `name` (`claude`, `codex`, `gemini`) at its pinned version.
pub fn cli(name: &str) -> PathBuf {
    let dir = std::env::var_os("TRILOGY_E2E_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| e2e_dir().join("node_modules").join(".bin"));
    let path = dir.join(name);
    assert!(
        path.is_file(),
        "{} is missing: install the pinned agent CLIs with `npm ci --prefix tests/e2e` \
         (tests/e2e/run does), or point TRILOGY_E2E_BIN at a folder holding them",
        path.display()
    );
    // the CLIs are Node scripts (`#!/usr/bin/env node`): without Node on PATH they cannot start
    let node_on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("node").is_file()));
    assert!(
        node_on_path,
        "node is missing from PATH: the agent CLIs need Node.js 20 or newer \
         (apt-get install nodejs npm; tests/e2e/run installs it)"
    );
    path
}

/// The trilogy binary under test.
pub fn trilogy() -> PathBuf {
    assert_cmd::cargo::cargo_bin("trilogy")
}

/// The scrubbed environment every process of a test runs with.
pub fn base_env(kit: &Kit, cmd: &mut Command) {
    let path = std::env::var_os("PATH").expect("PATH is set");
    cmd.env_clear()
        .env("PATH", path)
        .env("HOME", &kit.home)
        .env("TMPDIR", &kit.tmp)
        .env("LANG", "C.UTF-8")
        .env("XDG_STATE_HOME", &kit.state)
        .env("XDG_CONFIG_HOME", kit.home.join(".config"))
        .env("XDG_DATA_HOME", kit.home.join(".local/share"))
        .env("XDG_CACHE_HOME", kit.home.join(".cache"))
        .env("XDG_RUNTIME_DIR", &kit.tmp)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // the walk for memory stops below the real temporary folder: a stray workspace there
        // is never the test's
        .env("TRILOGY_CEILING_DIRECTORIES", std::env::temp_dir())
        .env("NO_COLOR", "1");
}

/// A throwaway world for one host.
pub struct Kit {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub tmp: PathBuf,
    pub state: PathBuf,
    /// The project: `my proj 项目`, a git repository.
    pub project: PathBuf,
    /// Every `UserPromptSubmit`-like hook payload, one JSON per line (see [`Kit::spy_command`]).
    pub spy: PathBuf,
}

/// `TRILOGY_E2E_KEEP=<dir>`: each kit is copied there when its test ends, for a person to look
/// at what the real programs wrote (their transcripts are where the recall fixtures come from).
impl Drop for Kit {
    fn drop(&mut self) {
        if let Some(keep) = std::env::var_os("TRILOGY_E2E_KEEP") {
            let to = PathBuf::from(keep).join(self.root.file_name().unwrap_or_default());
            let _ = std::fs::create_dir_all(&to);
            let _ = Command::new("cp")
                .arg("-a")
                .arg(format!("{}/.", self.root.display()))
                .arg(&to)
                .status();
        }
    }
}

impl Kit {
    pub fn new(host: &str) -> Kit {
        let dir = tempfile::Builder::new()
            .prefix(&format!("trilogy-e2e-{host}-"))
            .tempdir()
            .unwrap();
        let root = dir.path().canonicalize().unwrap();
        let kit = Kit {
            home: root.join("home"),
            tmp: root.join("tmp"),
            state: root.join("state"),
            project: root.join("my proj 项目"),
            spy: root.join("payloads.jsonl"),
            root,
            _dir: dir,
        };
        for d in [&kit.home, &kit.tmp, &kit.state, &kit.project] {
            std::fs::create_dir_all(d).unwrap();
        }
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&kit.project)
            .status()
            .expect("git is missing: apt-get install git");
        assert!(git.success());
        // the project's committed language: the hosts run in a C locale, and these tests
        // read the Chinese labels the original kept
        std::fs::write(kit.project.join("trilogy.toml"), "lang = \"zh\"\n").unwrap();
        kit
    }

    /// trilogy with the test's environment, in the project.
    pub fn trilogy(&self, args: &[&str], stdin: Option<&str>) -> String {
        let mut c = Command::new(trilogy());
        base_env(self, &mut c);
        c.args(args)
            .current_dir(&self.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "trilogy {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// `trilogy recall --json ARGS` here: its hits.
    pub fn recall(&self, args: &[&str]) -> Vec<Value> {
        let mut a = vec!["recall", "--json", "--limit", "20"];
        a.extend_from_slice(args);
        let v: Value = serde_json::from_str(&self.trilogy(&a, None)).unwrap();
        v["hits"].as_array().unwrap().clone()
    }

    /// What the host's own transcripts say is recalled: a phrase typed and a phrase answered,
    /// with host, session and line; trilogy's block and reminder, tool output and thinking are
    /// not. `typed` is a prompt this test sent.
    pub fn assert_recall(&self, host: &str, typed: &str) {
        let hits = self.recall(&["--host", host, typed]);
        let hit = hits
            .iter()
            .find(|h| h["role"] == "user" && h["text"] == typed)
            .unwrap_or_else(|| panic!("{host}: `{typed}` not recalled: {hits:?}"));
        assert!(
            hit["line"].as_u64().unwrap() > 0 && !hit["session"].as_str().unwrap().is_empty(),
            "{hit}"
        );
        let answers = self.recall(&["--host", host, "stand-in", "model"]);
        assert!(
            answers
                .iter()
                .any(|h| h["role"] == "assistant" && h["text"] == "Hello from the stand-in model."),
            "{host}: the answer not recalled: {answers:?}"
        );
        for (q, mark) in [
            (KNOWN, KNOWN),
            ("记忆提醒 memory_checkpoint", "记忆提醒"),
            ("note.txt", "note.txt"),
        ] {
            let leaked: Vec<_> = (self.recall(&["--host", host, q]).into_iter())
                .filter(|h| h["text"].as_str().unwrap_or_default().contains(mark))
                .collect();
            assert!(
                leaked.is_empty(),
                "{host}: `{q}` recalled what was not said: {leaked:?}"
            );
        }
        let status: Value =
            serde_json::from_str(&self.trilogy(&["recall", "--status", "--json"], None)).unwrap();
        assert!(
            status["hosts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|h| h["host"] == host && h["indexed"].as_u64() > Some(0)),
            "{status}"
        );
    }

    /// `trilogy install <host>` with this binary's absolute path, as a user would for a build
    /// that is not on PATH.
    pub fn install(&self, host: &str) {
        let bin = trilogy();
        self.trilogy(&["install", host, "--command", bin.to_str().unwrap()], None);
    }

    /// Memory big enough that a host capping hook output at 10,000 characters or bytes gets
    /// a block cut to its cap, with a known entry as the newest session.
    pub fn seed(&self) {
        let sessions: Vec<Value> = (0..40)
            .map(|i| {
                let area = ["插件", "部署", "网络", "文档"][i % 4];
                let done = format!(
                    "第 {i} 轮：修好了插件加载的第 {i} 个问题，跑 cargo test 验证通过。{}",
                    "细节说明 ".repeat(12)
                );
                json!({"done": done, "area": area})
            })
            .collect();
        let decisions: Vec<Value> = (0..30)
            .map(|i| {
                json!({"choice": format!("第 {i} 个选择：用方案 {i}"), "over": "另一个方案",
                       "because": "约束说明 ".repeat(15)})
            })
            .collect();
        let project: Vec<Value> = ["这是什么", "怎么跑和怎么测", "东西都在哪", "现状", "坑"]
            .iter()
            .map(|s| json!({"section": s, "text": format!("{s}的说明，第一句。").repeat(40)}))
            .collect();
        let batch = json!({"project": project, "decisions": decisions, "sessions": sessions});
        self.trilogy(&["checkpoint"], Some(&batch.to_string()));
        self.trilogy(
            &[
                "checkpoint",
                "--session-done",
                &format!("{KNOWN} 种子条目：安装之后第一次会话就能在注入块里看到它"),
            ],
            None,
        );
        self.trilogy(
            &["user", "add", "--section", "偏好", "--line", KNOWN_USER],
            None,
        );
    }

    /// A hook command that appends its stdin (the host's payload) to the spy file.
    pub fn spy_command(&self) -> String {
        let q = self.spy.display().to_string().replace('\'', "'\\''");
        format!("cat >> '{q}'; echo >> '{q}'")
    }

    /// The payloads the spy saw, in order.
    pub fn spied(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.spy)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// `trilogy sessions show <id> --json`.
    pub fn session(&self, id: &str) -> Value {
        serde_json::from_str(&self.trilogy(&["sessions", "show", id, "--json"], None)).unwrap()
    }

    pub fn sessions_md(&self) -> String {
        std::fs::read_to_string(self.project.join("memory/SESSIONS.md")).unwrap()
    }

    /// No hook failed: every failure leaves a line in `.trilogy/hooks.log`.
    pub fn assert_no_hook_errors(&self) {
        let log = self.project.join(".trilogy/hooks.log");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(text.trim().is_empty(), "hook errors:\n{text}");
    }

    /// Memory stayed with the project: nothing appeared in `sub/`.
    pub fn assert_nothing_in_sub(&self) {
        let sub = self.project.join("sub");
        for leaked in ["memory", ".trilogy", "AGENTS.md"] {
            assert!(
                !sub.join(leaked).exists(),
                "{leaked} appeared in sub/ after the agent moved there"
            );
        }
    }
}

/// A scripted model API on 127.0.0.1 (`tests/e2e/fake_*.py`); every request it got is in
/// [`Fake::requests`]. Stopped when dropped.
pub struct Fake {
    child: Child,
    pub port: u16,
    log: PathBuf,
}

impl Fake {
    pub fn start(kit: &Kit, script: &str) -> Fake {
        let log = kit.root.join(format!("{script}.log"));
        let mut c = Command::new("python3");
        base_env(kit, &mut c);
        let mut child = c
            .arg(e2e_dir().join(format!("{script}.py")))
            .arg("0")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(
                std::fs::File::create(kit.root.join(format!("{script}.err"))).unwrap(),
            ))
            .spawn()
            .expect("python3 is missing: apt-get install python3");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| {
            let _ = child.kill();
            panic!(
                "{script} did not start: {}",
                std::fs::read_to_string(kit.root.join(format!("{script}.err"))).unwrap_or_default()
            )
        });
        Fake { child, port, log }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Request bodies, oldest first.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["body"].clone())
            .collect()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every string inside a JSON value.
pub fn strings(v: &Value) -> Vec<&str> {
    match v {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        Value::Object(o) => o.values().flat_map(strings).collect(),
        _ => vec![],
    }
}

/// True when some string of the request contains `needle`.
pub fn mentions(request: &Value, needle: &str) -> bool {
    strings(request).iter().any(|s| s.contains(needle))
}

/// The block as the request carries it: from its header, as many bytes as the block says it
/// has (`共 N 字节`). `None` when the header is not there.
pub fn block_in(request: &Value) -> Option<String> {
    for s in strings(request) {
        let Some(at) = s.find(HEADER) else { continue };
        let block = &s[at..];
        let said = block.split("共 ").nth(1)?.split(" 字节").next()?;
        let n: usize = said.parse().ok()?;
        return Some(block.get(..n).unwrap_or(block).to_string());
    }
    None
}

/// Check that `request` carries the session's last block whole: the same bytes trilogy
/// injected (their SHA-1 is the session's digest).
pub fn assert_whole_block(kit: &Kit, request: &Value, session: &str) -> String {
    let block = block_in(request).unwrap_or_else(|| {
        panic!(
            "the request has no memory block: {}",
            &request.to_string()[..2000.min(request.to_string().len())]
        )
    });
    let digest: String = Sha1::digest(block.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let shown = kit.session(session);
    assert_eq!(
        shown["digest"].as_str(),
        Some(digest.as_str()),
        "the block reached the model whole ({} bytes; its end: {:?})",
        block.len(),
        block.lines().last()
    );
    block
}

/// The names of the tools a request offers the model (Codex's MCP tools as `namespace.tool`).
pub fn tool_names(request: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for t in request["tools"].as_array().into_iter().flatten() {
        if let Some(name) = t["name"].as_str() {
            match t["tools"].as_array() {
                Some(inner) => out.extend(
                    inner
                        .iter()
                        .filter_map(|s| s["name"].as_str())
                        .map(|s| format!("{name}.{s}")),
                ),
                None => out.push(name.to_string()),
            }
        }
        for d in t["functionDeclarations"].as_array().into_iter().flatten() {
            out.extend(d["name"].as_str().map(str::to_string));
        }
    }
    out
}

/// The trilogy tools are offered to the model.
pub fn assert_tools_listed(request: &Value) {
    let names = tool_names(request);
    for tool in [
        "memory_checkpoint",
        "memory_read",
        "memory_search",
        "memory_status",
        "memory_recall",
        "memory_review",
    ] {
        assert!(
            names
                .iter()
                .any(|n| n.contains("trilogy") && n.ends_with(tool)),
            "{tool} is not among the tools the model was offered: {names:?}"
        );
    }
}

/// Run a CLI to completion (stdin closed, output in files), failing after [`TURN`].
pub fn run(kit: &Kit, mut cmd: Command, label: &str) -> String {
    let out = kit.root.join(format!("{label}.out"));
    let err = kit.root.join(format!("{label}.err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err).unwrap()))
        .spawn()
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let deadline = Instant::now() + TURN;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{label} hung; stderr:\n{}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        status.success(),
        "{label} failed ({status}):\n{stdout}\n{}",
        std::fs::read_to_string(&err).unwrap_or_default()
    );
    stdout
}

/// A CLI kept running between turns, talking JSON lines on stdin/stdout.
pub struct Conversation {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Conversation {
    pub fn start(mut cmd: Command, stderr: &Path) -> Conversation {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(stderr).unwrap()))
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Conversation {
            child,
            stdin,
            lines,
        }
    }

    /// Send one line, then read lines until `done` says the turn is over; returns that line.
    pub fn turn(&mut self, line: &str, done: impl Fn(&Value) -> bool) -> Value {
        let stdin = self.stdin.as_mut().expect("the conversation is open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let deadline = Instant::now() + TURN;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let got = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no answer to {line}: {e}"));
            if let Ok(v) = serde_json::from_str::<Value>(&got)
                && done(&v)
            {
                return v;
            }
        }
    }

    /// Close stdin and wait for the CLI to exit.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + TURN;
        while self.child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the CLI did not exit after its input closed");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Conversation {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
