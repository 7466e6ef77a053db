//! End to end with a real DeepSeek Harness (0.1.0-rc.8, pinned in `tests/e2e/dsh/`, with the
//! Node 22 it needs): `trilogy install dsh` adds the plugin (`templates/dsh/`) to a profile, the
//! harness runs headless turns against a scripted model on 127.0.0.1, and what the model was
//! sent and what the harness's own session log recorded show what a user would check — the
//! block once per session, nothing more while memory is unchanged, one notice with the change when
//! another process records, the session's own checkpoint not echoed, the reminder after a
//! turn of unrecorded work (within the profile's maximum and cooldown), the whole block again
//! after a compaction, a stale second copy replaced by a stand-in, the budget from the routed
//! model's window, the profile's `- id: trilogy` row obeyed, and a missing or hanging binary
//! costing the user nothing.
//!
//! A headless run answers one task; the turns after it are played by a small driver plugin
//! (`tests/e2e/dsh-driver/`), which also stands in for a compaction (it replaces the block on
//! the surface in place, the mechanism the harness's compaction uses) and for a duplicated
//! copy. A harness that is missing fails the test: `tests/e2e/run` installs it.
//! Built only when the e2e target is named (`--test e2e`).

use crate::harness;

use std::path::{Path, PathBuf};
use std::process::Command;

use harness::{Fake, HEADER, KNOWN_USER, Kit, NUDGE, base_env, block_in, run, strings, trilogy};
use serde_json::{Value, json};

/// The change notice's first characters.
const NOTICE: &str = "【项目记忆有更新】";
/// The stand-in that replaces a stale copy.
const STANDIN: &str = "已被后面更新的一份取代";

fn dsh_bin() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/dsh/node_modules/.bin");
    for tool in ["dsh", "node", "pnpm"] {
        assert!(
            dir.join(tool).exists(),
            "{} is missing: install DeepSeek Harness with \
             `npm install --prefix tests/e2e/dsh --legacy-peer-deps --ignore-scripts` (tests/e2e/run does)",
            dir.join(tool).display()
        );
    }
    dir
}

/// One harness world: a `DSH_HOME`, the scripted model, the project.
struct Harness {
    kit: Kit,
    fake: Fake,
    dsh_home: PathBuf,
}

impl Harness {
    fn new(label: &str) -> Harness {
        let kit = Kit::new(label);
        let fake = Fake::start(&kit, "fake_deepseek");
        let dsh_home = kit.root.join("dsh-home");
        std::fs::create_dir_all(&dsh_home).unwrap();
        Harness {
            kit,
            fake,
            dsh_home,
        }
    }

    /// A program of the pinned harness (`dsh`, `node`, `pnpm`), see [`Harness::command`].
    fn cmd(&self, program: &str) -> Command {
        self.command(dsh_bin().join(program))
    }

    /// `program` in the project, with the test's environment, the harness first on PATH, this
    /// world's `DSH_HOME` and the scripted model as the provider.
    fn command(&self, program: PathBuf) -> Command {
        let mut c = Command::new(program);
        base_env(&self.kit, &mut c);
        let path = std::env::var_os("PATH").unwrap();
        let mut paths = vec![dsh_bin()];
        paths.extend(std::env::split_paths(&path));
        c.env("PATH", std::env::join_paths(paths).unwrap())
            .env("DSH_HOME", &self.dsh_home)
            .env("DSH_TELEMETRY_DISABLED", "1")
            .env("DEEPSEEK_BASE_URL", self.fake.url())
            .env("DEEPSEEK_API_KEY", "stand-in-key")
            .current_dir(&self.kit.project);
        c
    }

    /// `trilogy install dsh` into `profile` (the harness on PATH runs `dsh plugin add`), the
    /// driver added the same way, and the profile's own rows (`yaml`, a user layer).
    fn install(&self, profile: &str, turns: &[Value], yaml: &str) {
        let mut c = self.command(trilogy());
        c.args(["install", "dsh", "--profile", profile, "--command"])
            .arg(trilogy());
        let out = run(&self.kit, c, "install-dsh");
        assert!(out.contains("ran       dsh plugin"), "{out}");
        let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/dsh-driver");
        let mut c = self.cmd("dsh");
        c.args(["plugin", "--profile", profile, "add"]).arg(&driver);
        run(&self.kit, c, "add-driver");
        let script = self.kit.root.join("turns.json");
        std::fs::write(&script, serde_json::to_string(turns).unwrap()).unwrap();
        let rows = format!(
            "{yaml}\n- id: e2e-driver\n  config:\n    script: '{}'\n    log: '{}'\n",
            script.display(),
            self.kit.root.join("driver.jsonl").display()
        );
        std::fs::write(
            self.dsh_home
                .join("profiles")
                .join(profile)
                .join("cordis.patch.yml"),
            rows,
        )
        .unwrap();
    }

    /// `trilogy uninstall dsh` from `profile`: the plugin leaves the profile's packages.
    fn uninstall(&self, profile: &str) {
        let mut c = self.command(trilogy());
        c.args(["uninstall", "dsh", "--profile", profile]);
        let out = run(&self.kit, c, "uninstall-dsh");
        assert!(out.contains("ran       dsh plugin"), "{out}");
        let manifest = std::fs::read_to_string(
            self.dsh_home
                .join("profiles")
                .join(profile)
                .join("package.json"),
        )
        .unwrap();
        assert!(
            !manifest.contains("@trilogy-memory/dsh-plugin"),
            "{manifest}"
        );
    }

    /// A headless run of `prompt` (the driver plays the turns after it); its stdout.
    fn headless(&self, prompt: &str) -> String {
        let mut c = self.cmd("dsh");
        c.args(["--profile", "headless", prompt]);
        let out = run(&self.kit, c, "dsh-headless");
        let err = std::fs::read_to_string(self.kit.root.join("dsh-headless.err")).unwrap();
        assert!(err.trim().is_empty(), "the harness printed errors:\n{err}");
        out
    }

    /// The model's requests of the agent (the title requests offer no tools), oldest first.
    fn agent_requests(&self) -> Vec<Value> {
        self.fake
            .requests()
            .into_iter()
            .filter(|r| r["tools"].as_array().is_some_and(|t| !t.is_empty()))
            .collect()
    }

    /// The session log's `user/message` events of the agent's session (the one holding the
    /// first prompt), read with `zstd -dc` (the log is several zstd frames).
    fn user_messages(&self, first_prompt: &str) -> Vec<Value> {
        let mut logs = Vec::new();
        collect(&self.dsh_home.join("sessions"), &mut logs);
        for log in logs {
            let out = Command::new("zstd")
                .arg("-dc")
                .arg(&log)
                .output()
                .expect("zstd is missing: apt-get install zstd (tests/e2e/run installs it)");
            let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .filter(|e: &Value| e["type"] == "user/message")
                .collect();
            if events.iter().any(|e| text(e).starts_with(first_prompt)) {
                return events;
            }
        }
        panic!("no session log holds the prompt {first_prompt:?}");
    }

    fn plugin_log(&self) -> String {
        std::fs::read_to_string(self.dsh_home.join("trilogy/plugin.log")).unwrap_or_default()
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.file_name().is_some_and(|n| n == "session.jsonl.zstd") {
            out.push(p);
        }
    }
}

fn text(event: &Value) -> String {
    event["data"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect()
}

fn form(event: &Value) -> &str {
    event["data"]["source"]["form"].as_str().unwrap_or_default()
}

fn ours(event: &Value) -> bool {
    event["data"]["source"]["kind"] == "plugin:trilogy"
}

/// The agent requests of the turn whose prompt starts with `turn` (e.g. `TURN3`); at least one.
fn turn<'a>(requests: &'a [Value], turn: &str) -> Vec<&'a Value> {
    let found = of_turn(requests, turn);
    assert!(
        !found.is_empty(),
        "the model saw no request of {turn}; prompts seen: {:?}",
        requests
            .iter()
            .flat_map(strings)
            .filter(|s| s.starts_with("TURN"))
            .collect::<std::collections::BTreeSet<_>>()
    );
    found
}

fn of_turn<'a>(requests: &'a [Value], turn: &str) -> Vec<&'a Value> {
    requests
        .iter()
        .filter(|r| {
            let prompts: Vec<&str> = r["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "user")
                .flat_map(strings)
                .filter(|s| s.starts_with("TURN"))
                .collect();
            prompts.last().is_some_and(|p| p.starts_with(turn))
        })
        .collect()
}

fn count(request: &Value, needle: &str) -> usize {
    strings(request)
        .iter()
        .filter(|s| s.contains(needle))
        .count()
}

/// A checkpoint by another process, run by the driver between two turns.
fn checkpoint(done: &str) -> Value {
    json!([
        trilogy().display().to_string(),
        "checkpoint",
        "--session-done",
        done
    ])
}

#[test]
fn dsh_session_gets_the_block_once_notices_reminders_and_comes_back_after_compaction() {
    let h = Harness::new("dsh-loop");
    let turns = [
        json!({"prompt": "TURN1 WORK"}),
        json!({"prompt": "TURN2 SAVE own-t2"}),
        json!({"prompt": "TURN3 hello", "run": checkpoint("FOREIGN-one recorded by another process")}),
        json!({"prompt": "TURN4 hello", "compact": true}),
        json!({"prompt": "TURN5 hello", "duplicate": true, "run": checkpoint("FOREIGN-two")}),
        json!({"prompt": "TURN6 WORK"}),
        json!({"prompt": "TURN7 WORK"}),
        json!({"prompt": "TURN8 WORK"}),
        json!({"prompt": "TURN9 hello"}),
    ];
    let rows = format!(
        "- id: trilogy\n  config:\n    command: '{}'\n    nudgeCooldownMs: 0\n    nudgeMaxPerSession: 2\n",
        trilogy().display()
    );
    h.install("headless", &turns[1..], &rows);
    h.headless("TURN1 WORK");
    h.kit.assert_no_hook_errors();
    assert_eq!(h.plugin_log(), "", "the plugin logged failures");
    let requests = h.agent_requests();

    // turn 1: the block once, with its source; the step after the tool call adds nothing
    let t1 = turn(&requests, "TURN1");
    assert!(
        t1.len() >= 2,
        "turn 1 had a tool call and an answer: {}",
        t1.len()
    );
    for r in &t1 {
        assert_eq!(count(r, HEADER), 1, "one block in every request of turn 1");
    }
    let events = h.user_messages("TURN1");
    let blocks: Vec<&Value> = events
        .iter()
        .filter(|e| ours(e) && form(e) == "trilogy")
        .collect();
    assert_eq!(
        blocks[0]["data"]["source"],
        json!({"kind": "plugin:trilogy", "form": "trilogy", "baseline": true})
    );

    // turn 2: the reminder owed by turn 1 at its first step; its own checkpoint not echoed
    let t2 = turn(&requests, "TURN2");
    assert_eq!(
        count(t2[0], NUDGE),
        1,
        "the reminder reaches turn 2's first step"
    );
    assert!(
        h.kit.sessions_md().contains("own-t2"),
        "turn 2 recorded through the MCP server"
    );
    for r in &t2 {
        assert_eq!(
            count(r, NOTICE),
            0,
            "the session's own checkpoint is not echoed"
        );
    }

    // turn 3: one notice of the other process's checkpoint, with its text; no reminder (turn 2
    // recorded)
    let t3 = turn(&requests, "TURN3");
    assert_eq!(count(t3[0], NOTICE), 1);
    assert_eq!(
        count(t3[0], NUDGE),
        1,
        "only turn 2's old reminder, none new"
    );
    let notices: Vec<&Value> = events
        .iter()
        .filter(|e| form(e) == "trilogy-update")
        .collect();
    assert!(
        text(notices[0]).contains("新增 SESSIONS.md")
            && text(notices[0]).contains("FOREIGN-one recorded by another process"),
        "the notice names the change and carries its text: {}",
        text(notices[0])
    );
    let serialised = serde_json::to_string(&notices[0]["data"]).unwrap();
    assert!(serialised.chars().count() < 2200, "{serialised}");

    // turn 4: the block was compacted away, so the whole block comes again
    let t4 = turn(&requests, "TURN4");
    assert_eq!(
        count(t4[0], HEADER),
        1,
        "the block is back after the compaction"
    );
    assert_eq!(
        count(t4[0], "(an earlier part of the conversation was compacted)"),
        1
    );

    // turn 5: two copies on the surface and a change: the older copy becomes a stand-in
    let t5 = turn(&requests, "TURN5");
    assert_eq!(count(t5[0], HEADER), 1, "one live copy is left");
    assert_eq!(
        count(t5[0], STANDIN),
        1,
        "the older copy was replaced in place"
    );
    let standins: Vec<&Value> = events
        .iter()
        .filter(|e| form(e) == "trilogy-superseded")
        .collect();
    assert_eq!(standins.len(), 1);
    assert_eq!(standins[0]["surfaceOp"]["op"], "replace");
    assert_eq!(count(t5[0], NOTICE), 2, "turn 3's notice and this turn's");

    // turns 6–9 all worked without recording: reminders at 7 and 8, then the maximum (2)
    let nudges_at = |t: &str| count(turn(&requests, t)[0], NUDGE);
    let base = nudges_at("TURN6");
    assert_eq!(nudges_at("TURN7"), base + 1);
    assert_eq!(nudges_at("TURN8"), base + 2);
    assert_eq!(
        nudges_at("TURN9"),
        base + 2,
        "no third reminder: nudgeMaxPerSession is 2"
    );
    let appended: Vec<&str> = events.iter().filter(|e| ours(e)).map(form).collect();
    assert_eq!(
        appended.iter().filter(|f| **f == "trilogy-nudge").count(),
        3,
        "reminders: after turns 1, 6 and 7 ({appended:?})"
    );
}

#[test]
fn dsh_budget_follows_the_model_window_and_the_profile_row() {
    let h = Harness::new("dsh-budget");
    h.kit.seed();
    let turns = [
        json!({"prompt": "TURN1 WORK"}),
        json!({"prompt": "TURN2 WORK"}),
        json!({"prompt": "TURN3 hello"}),
    ];
    // a 20,000-token model: 16 % of its window is 3,200 bytes; three session entries; a
    // cooldown that holds back the second reminder
    let rows = format!(
        "- id: llm-deepseek\n  config:\n    models:\n      - id: deepseek-v4-flash\n        contextWindow: 20000\n\
         - id: trilogy\n  config:\n    command: '{}'\n    sessionEntriesInjected: 3\n    nudgeCooldownMs: 3600000\n",
        trilogy().display()
    );
    h.install("headless", &turns[1..], &rows);
    h.headless("TURN1 WORK");
    h.kit.assert_no_hook_errors();
    let requests = h.agent_requests();
    let block = block_in(turn(&requests, "TURN1")[0]).expect("the block reached the model");
    assert!(
        block.contains(KNOWN_USER),
        "the user memory reached the model: {block}"
    );
    assert!(
        block.len() <= 3200,
        "the block ({} bytes) fits 16 % of a 20,000-token window",
        block.len()
    );
    let full = h.kit.trilogy(&["inject"], None);
    assert!(
        full.len() > 3200,
        "without the window the block is larger ({} bytes)",
        full.len()
    );
    assert_eq!(
        count(turn(&requests, "TURN2")[0], NUDGE),
        1,
        "the first reminder"
    );
    assert_eq!(
        count(turn(&requests, "TURN3")[0], NUDGE),
        1,
        "the cooldown holds back the second"
    );

    // the row's sessionEntriesInjected reaches trilogy: a roomy window shows three entries
    let h = Harness::new("dsh-entries");
    h.kit.seed();
    let rows = format!(
        "- id: trilogy\n  config:\n    command: '{}'\n    sessionEntriesInjected: 3\n",
        trilogy().display()
    );
    h.install("headless", &[], &rows);
    h.headless("TURN1 hello");
    let requests = h.agent_requests();
    let block = block_in(turn(&requests, "TURN1")[0]).expect("the block reached the model");
    assert!(
        block.contains("SESSIONS.md 3/41 条"),
        "three of 41 entries injected: {}",
        &block[..block.len().min(600)]
    );
    h.uninstall("headless");
}

#[test]
fn dsh_step_goes_on_when_trilogy_is_missing_or_hangs() {
    for (label, command, timeout) in [
        ("missing", "/nonexistent/trilogy".to_string(), ""),
        ("hanging", String::new(), "    timeoutMs: 1500\n"),
    ] {
        let h = Harness::new(&format!("dsh-{label}"));
        let command = if command.is_empty() {
            use std::os::unix::fs::PermissionsExt;
            let hang = h.kit.root.join("hang.sh");
            std::fs::write(&hang, "#!/bin/sh\nexec sleep 120\n").unwrap();
            std::fs::set_permissions(&hang, std::fs::Permissions::from_mode(0o755)).unwrap();
            hang.display().to_string()
        } else {
            command
        };
        let rows = format!("- id: trilogy\n  config:\n    command: '{command}'\n{timeout}");
        h.install("headless", &[], &rows);
        let out = h.headless("TURN1 hello");
        assert!(
            out.contains("Hello from the stand-in model."),
            "{label}: {out}"
        );
        for r in h.agent_requests() {
            assert_eq!(count(&r, HEADER), 0, "{label}: nothing was published");
        }
        let log = h.plugin_log();
        let why = if label == "missing" {
            "cannot run"
        } else {
            "no answer within 1500 ms"
        };
        assert!(log.contains(why), "{label}: the plugin logged why: {log}");
    }
}

#[test]
fn dsh_plugin_helpers_pass_their_unit_tests() {
    let test = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/dsh/lib.test.mjs");
    let out = Command::new(dsh_bin().join("node"))
        .arg("--test")
        .arg(&test)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A raw HTTP/1.1 GET on 127.0.0.1:`port` with the `Host` header `host`: (status, body).
fn get(port: u16, host: &str, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n")?.1.to_string();
    Some((status, body))
}

#[test]
fn dsh_web_profile_serves_the_panel_under_trilogy() {
    use std::os::unix::process::CommandExt;
    let h = Harness::new("dsh-web");
    h.kit.trilogy(&["init"], None);
    let rows = format!(
        "- id: trilogy\n  config:\n    command: '{}'\n",
        trilogy().display()
    );
    h.install("web", &[], &rows);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = std::fs::File::create(h.kit.root.join("dsh-web.log")).unwrap();
    let mut c = h.cmd("dsh");
    c.args(["web", "--no-open", "--port", &port.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .process_group(0);
    let mut child = c.spawn().unwrap();
    let stop = |child: &mut std::process::Child| {
        // the harness and the panel server it started, as one process group
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", child.id())])
            .status();
        let _ = child.wait();
    };
    let host = format!("127.0.0.1:{port}");
    let deadline = std::time::Instant::now() + harness::TURN;
    let answer = loop {
        match get(port, &host, "/trilogy/workspaces") {
            Some((200, body)) => break body,
            _ if std::time::Instant::now() > deadline => {
                stop(&mut child);
                panic!(
                    "the harness never answered /trilogy/workspaces:\n{}",
                    std::fs::read_to_string(h.kit.root.join("dsh-web.log")).unwrap_or_default()
                );
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(200)),
        }
    };
    let page = get(port, &host, "/trilogy/");
    let foreign = get(port, &format!("evil.example:{port}"), "/trilogy/workspaces");
    stop(&mut child);
    let v: Value = serde_json::from_str(&answer).unwrap();
    let roots: Vec<&str> = v["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["root"].as_str())
        .collect();
    assert!(
        roots.contains(&h.kit.project.to_str().unwrap()),
        "the panel lists the project: {answer}"
    );
    let (status, html) = page.expect("the page answered");
    assert_eq!(status, 200);
    assert!(
        html.contains("<html") || html.contains("<!doctype") || html.contains("<!DOCTYPE"),
        "{html}"
    );
    assert_eq!(
        foreign.expect("the fence answered").0,
        403,
        "a foreign Host is refused"
    );
}
