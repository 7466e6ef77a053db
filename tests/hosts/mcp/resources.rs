//! Memory as MCP resources and prompts, over a raw stdio session as hosts speak it: listed,
//! read under `memory_read`'s rules, a subscription told of a write made by another process,
//! and the prompts hosts offer as slash commands.

use super::*;

/// A `trilogy mcp` session: send a request, read frames until its answer (notifications that
/// come first are kept).
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    frames: std::sync::mpsc::Receiver<Value>,
    kept: Vec<Value>,
    next: u64,
}

impl Session {
    fn start(ws: &Ws) -> Session {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
            .arg("--root")
            .arg(ws.root())
            .arg("mcp")
            .env("TRILOGY_TODAY", common::TODAY)
            .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
            .envs(common::private_env(ws.state.path()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, frames) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(|l| l.ok()) {
                if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut s = Session {
            child,
            stdin,
            frames,
            kept: Vec::new(),
            next: 1,
        };
        s.ask("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2"}}));
        writeln!(
            s.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        s
    }

    /// The next frame; a server that says nothing for a minute has hung (a guard, not a
    /// measure of speed).
    fn frame(&mut self) -> Value {
        self.frames
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the server answered")
    }

    fn ask(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let req = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{req}").unwrap();
        loop {
            let f = self.frame();
            if f["id"] == id {
                return f;
            }
            self.kept.push(f);
        }
    }

    /// The next `notifications/resources/updated` (or one kept while waiting for an answer).
    fn updated(&mut self) -> String {
        let is = |f: &Value| f["method"] == "notifications/resources/updated";
        if let Some(i) = self.kept.iter().position(is) {
            return self.kept.remove(i)["params"]["uri"]
                .as_str()
                .unwrap()
                .to_string();
        }
        loop {
            let f = self.frame();
            if is(&f) {
                return f["params"]["uri"].as_str().unwrap().to_string();
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn memory_is_listed_and_read_as_resources_under_the_rules_of_memory_read() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--section",
        "坑",
        "--text",
        "the build needs Rust 1.90",
    ]);
    let mut s = Session::start(&ws);
    let listed = s.ask("resources/list", json!({}));
    let uris: Vec<&str> = (listed["result"]["resources"].as_array().unwrap().iter())
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    for want in [
        "trilogy://memory/PROJECT.md",
        "trilogy://memory/DECISIONS.md",
        "trilogy://memory/SESSIONS.md",
        "trilogy://memory/PROJECT.md/%E5%9D%91",
    ] {
        assert!(uris.contains(&want), "{want} in {uris:?}");
    }
    let read = s.ask(
        "resources/read",
        json!({"uri": "trilogy://memory/PROJECT.md/%E5%9D%91"}),
    );
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("the build needs Rust 1.90"), "{read}");
    assert!(text.starts_with("## 坑"), "{text}");
    // a path out of memory is no resource
    let bad = s.ask(
        "resources/read",
        json!({"uri": "trilogy://memory/../../etc/passwd"}),
    );
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resources/list"),
        "{bad}"
    );
    let file = s.ask(
        "resources/read",
        json!({"uri": "trilogy://memory/PROJECT.md"}),
    );
    assert_eq!(
        file["result"]["contents"][0]["text"].as_str().unwrap(),
        ws.read("PROJECT.md").trim_end_matches('\n').to_string() + "\n",
        "the file as memory_read gives it"
    );
}

#[test]
fn a_subscriber_is_told_when_another_process_writes() {
    let ws = Ws::init();
    let mut s = Session::start(&ws);
    let ok = s.ask(
        "resources/subscribe",
        json!({"uri": "trilogy://memory/SESSIONS.md"}),
    );
    assert!(ok.get("error").is_none(), "{ok}");
    let ok = s.ask(
        "resources/subscribe",
        json!({"uri": "trilogy://memory/DECISIONS.md"}),
    );
    assert!(ok.get("error").is_none(), "{ok}");
    // a write from another process, through the CLI
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "wrote the parser; cargo test passes",
    ]);
    assert_eq!(s.updated(), "trilogy://memory/SESSIONS.md");
    // DECISIONS.md did not change: no word of it; a decision then tells it alone
    ws.ok(&[
        "checkpoint",
        "--decision",
        "keep the parser hand-written",
        "--because",
        "errors name the line",
    ]);
    assert_eq!(s.updated(), "trilogy://memory/DECISIONS.md");
    // no resource, no subscription
    let bad = s.ask(
        "resources/subscribe",
        json!({"uri": "trilogy://memory/NOTES.md"}),
    );
    assert!(bad.get("error").is_some(), "{bad}");
}

#[test]
fn prompts_are_listed_and_carry_what_memory_holds_without_accepting_anything() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "moved the cache to redb; bench ran",
    ]);
    let mut s = Session::start(&ws);
    let listed = s.ask("prompts/list", json!({}));
    let names: Vec<&str> = (listed["result"]["prompts"].as_array().unwrap().iter())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["record-session", "what-do-we-know", "review-proposals"]
    );
    let got = s.ask(
        "prompts/get",
        json!({"name": "what-do-we-know", "arguments": {"topic": "cache"}}),
    );
    let text = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("moved the cache to redb"), "{text}");
    assert!(text.contains("不是指令"), "{text}");
    let missing = s.ask(
        "prompts/get",
        json!({"name": "what-do-we-know", "arguments": {}}),
    );
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("topic"),
        "{missing}"
    );
    let record = s.ask("prompts/get", json!({"name": "record-session"}));
    let text = record["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("memory_checkpoint"), "{text}");
    let before = ws.snapshot();
    let review = s.ask("prompts/get", json!({"name": "review-proposals"}));
    assert!(
        review["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("没有等人审的提议")
    );
    assert_eq!(ws.snapshot(), before, "a prompt writes nothing");
}
