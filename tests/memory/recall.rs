//! Recall over the hosts' own transcripts: the recorded shapes of real Claude Code, Codex,
//! Gemini CLI and DeepSeek Harness sessions (tests/fixtures/recall, from the end-to-end
//! suite's runs, with the project's path made a placeholder) put where each host keeps them
//! under this test's own HOME, then recalled through the real binary.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Ws, text};
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recall")
            .join(name),
    )
    .unwrap()
}

fn sha256(s: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The workspace root as the hosts saw it.
pub(super) fn root(ws: &Ws) -> String {
    ws.root().canonicalize().unwrap().display().to_string()
}

/// A fixture's text for this workspace.
fn placed(ws: &Ws, name: &str) -> String {
    let r = root(ws);
    fixture(name)
        .replace("@WSHASH@", &sha256(&r))
        .replace("@SUBHASH@", &sha256(&format!("{r}/sub")))
        .replace("@WS@", &r)
        .replace("@KIT@", &ws.state.path().display().to_string())
}

pub(super) fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

fn append_to(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, bytes).unwrap();
}

fn set_mtime(path: &Path, t: std::time::SystemTime) {
    (std::fs::File::options().write(true).open(path).unwrap())
        .set_modified(t)
        .unwrap();
}

pub(super) fn claude_file(ws: &Ws) -> PathBuf {
    let slug: String = root(ws)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    ws.home()
        .join(".claude/projects")
        .join(slug)
        .join("6d180fe1-0934-4279-b365-2b88693115fe.jsonl")
}

fn codex_file(ws: &Ws) -> PathBuf {
    ws.home().join(".codex/sessions/2026/12/01/rollout-2026-12-01T20-41-27-01a23357-4522-7020-a7a4-afbd5df2a2f9.jsonl")
}

fn gemini_file(ws: &Ws) -> PathBuf {
    ws.home()
        .join(".gemini/tmp/my-proj/chats/session-2026-12-01T20-41-a888eaa1.jsonl")
}

pub(super) fn dsh_file(ws: &Ws) -> PathBuf {
    ws.dsh_home()
        .join("sessions/--proj--/session-26c79d9c-35bb-4de2-bead-33fd58cb9b88/session.jsonl.zstd")
}

/// DeepSeek Harness's log: one zstd frame per appended event, as the harness writes it.
fn frames(lines: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines.lines() {
        out.extend(zstd::stream::encode_all(format!("{l}\n").as_bytes(), 3).unwrap());
    }
    out
}

/// Every host's recorded session, placed for `ws`.
fn place_all(ws: &Ws) {
    write(&claude_file(ws), placed(ws, "claude.jsonl").as_bytes());
    write(&codex_file(ws), placed(ws, "codex.jsonl").as_bytes());
    write(&gemini_file(ws), placed(ws, "gemini.jsonl").as_bytes());
    write(
        &ws.home().join(".gemini/projects.json"),
        placed(ws, "gemini-projects.json").as_bytes(),
    );
    write(&dsh_file(ws), &frames(&placed(ws, "dsh.jsonl")));
}

fn recall(ws: &Ws, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["recall"];
    a.extend_from_slice(args);
    let v = ws.json(&a);
    v["hits"].as_array().unwrap().clone()
}

fn said(hits: &[Value]) -> Vec<(String, String, u64, String)> {
    hits.iter()
        .map(|h| {
            (
                h["host"].as_str().unwrap().to_string(),
                h["role"].as_str().unwrap().to_string(),
                h["line"].as_u64().unwrap(),
                h["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn each_hosts_real_session_is_recalled_with_where_it_was_said_and_nothing_injected() {
    let ws = Ws::init();
    place_all(&ws);
    // what the person typed and what the model answered, with host, session and line
    let cases = [
        ("claude", "6d180fe1-0934-4279-b365-2b88693115fe", 5, 9),
        ("codex", "01a23357-4522-7020-a7a4-afbd5df2a2f9", 9, 12),
        ("gemini", "a888eaa1-736b-45de-9c2b-f7de28d71897", 3, 5),
        ("dsh", "session-26c79d9c-35bb-4de2-bead-33fd58cb9b88", 9, 22),
    ];
    for (host, session, typed, answered) in cases {
        let hits = recall(&ws, &["stand-in", "model", "--host", host, "--limit", "20"]);
        let first = hits
            .iter()
            .min_by_key(|h| h["line"].as_u64())
            .unwrap_or_else(|| panic!("{host}: no hit"));
        assert_eq!(first["session"], session, "{host}");
        assert_eq!(
            (first["line"].as_u64(), first["role"].as_str()),
            (Some(answered), Some("assistant")),
            "{host}: {first}"
        );
        assert_eq!(first["text"], "Hello from the stand-in model.");
        assert!(
            first["before"].as_str().unwrap().contains("hello"),
            "{host}: the turn before: {first}"
        );
        assert!(hits.iter().all(|h| h["host"] == host));
        let typed_hits = recall(&ws, &["hello", "--host", host, "--limit", "20"]);
        assert!(
            typed_hits
                .iter()
                .any(|h| h["line"] == typed && h["role"] == "user"),
            "{host}: {typed_hits:?}"
        );
    }
    // never trilogy's block, its reminder or notices, the hosts' instructions, tool calls or
    // their output, compaction summaries
    for (q, mark) in [
        ("项目记忆 背景资料", "项目记忆"),
        ("记忆提醒", "记忆提醒"),
        ("AGENTS.md instructions", "AGENTS.md"),
        ("environment_context cwd", "environment_context"),
        ("session continued previous conversation", "being continued"),
        ("Filesystem sandboxing", "sandboxing"),
        ("local-command-stdout Compacted", "local-command"),
        ("note.txt", "note.txt"),
    ] {
        let hits = recall(&ws, &[q, "--limit", "20"]);
        let leaked: Vec<_> = said(&hits)
            .into_iter()
            .filter(|h| h.3.contains(mark))
            .collect();
        assert!(leaked.is_empty(), "{q}: {leaked:?}");
    }
    // every hit is one of the four sessions' messages
    let all = recall(&ws, &["stand-in", "model", "--limit", "20"]);
    let hosts: std::collections::BTreeSet<&str> =
        all.iter().map(|h| h["host"].as_str().unwrap()).collect();
    assert_eq!(hosts.len(), 4, "{hosts:?}");
}

#[test]
fn odd_shapes_thinking_multi_line_messages_and_subagents() {
    let ws = Ws::init();
    let cwd = root(&ws);
    let lines = [
        json!({"type":"user","cwd":cwd,"sessionId":"s9","message":{"role":"user","content":"which flag does the linker need for libm"},"timestamp":"2026-11-24T09:00:00Z"}),
        json!({"type":"assistant","cwd":cwd,"message":{"id":"msg_1","content":[{"type":"thinking","thinking":"zanzibar private musing"}]}}),
        json!({"type":"assistant","cwd":cwd,"message":{"id":"msg_1","content":[{"type":"text","text":"Pass -lm after the objects."}]}}),
        json!({"type":"assistant","cwd":cwd,"message":{"id":"msg_1","content":[{"type":"text","text":"Order matters for static archives."}]}}),
        json!({"type":"assistant","cwd":cwd,"message":{"id":"msg_1","content":[{"type":"tool_use","name":"Bash","input":{"command":"cc -o quixotic main.o -lm"}}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let session = claude_file(&ws).with_file_name("s9.jsonl");
    write(&session, text.as_bytes());
    let sub = json!({"type":"assistant","isSidechain":true,"cwd":cwd,"message":{"content":[{"type":"text","text":"the subagent found the archive order bug"}]}});
    write(
        &claude_file(&ws)
            .with_file_name("s9")
            .join("subagents/agent-a1.jsonl"),
        format!("{sub}\n").as_bytes(),
    );
    let hits = said(&recall(
        &ws,
        &[
            "linker", "libm", "lm", "objects", "static", "archives", "--limit", "20",
        ],
    ));
    let lines_found: Vec<u64> = hits.iter().map(|h| h.2).collect();
    assert!(
        lines_found.contains(&1) && lines_found.contains(&3) && lines_found.contains(&4),
        "{hits:?}"
    );
    assert!(
        recall(&ws, &["zanzibar"]).is_empty(),
        "thinking is not recalled"
    );
    assert!(
        recall(&ws, &["quixotic"]).is_empty(),
        "tool calls are not recalled"
    );
    let subagent = recall(&ws, &["subagent", "archive", "order"]);
    let from = subagent
        .iter()
        .find(|h| h["session"] == "agent-a1")
        .unwrap_or_else(|| panic!("{subagent:?}"));
    assert_eq!(from["text"], "the subagent found the archive order bug");
}

/// Claude Code shortens a project folder's name past 200 units and appends a hash of the
/// path; the hash's values are pinned against Claude Code's own function in `sources.rs`.
#[test]
fn a_project_with_a_long_path_is_found_in_claude_codes_shortened_folder() {
    let ws = Ws::named(&format!("trilogy-long-{}-", "deep-folder-name".repeat(13)));
    ws.ok(&["init"]);
    let root_path = ws.root().canonicalize().unwrap();
    let folder = trilogy::recall::sources::claude_folder(&root_path);
    let slug = trilogy::recall::sources::claude_slug(&root_path);
    assert!(slug.len() > 200 && folder.len() < slug.len(), "{folder}");
    let projects = ws.home().join(".claude/projects");
    let line = |cwd: &str, text: &str| {
        format!(
            "{}\n",
            json!({"type":"user","cwd":cwd,"message":{"content":text}})
        )
    };
    let cwd = root_path.display().to_string();
    write(
        &projects.join(&folder).join("s1.jsonl"),
        (line(&cwd, "the marmalade migration failed on staging")
            + r#"{"type":"user","message":{"content":"marmalade without a working directory"}}"#
            + "\n")
            .as_bytes(),
    );
    // a folder inside the root: its slug is as long, so its name shares the first 200 units
    let sub = root_path.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    let sub_folder = trilogy::recall::sources::claude_folder(&sub);
    write(
        &projects.join(&sub_folder).join("s2.jsonl"),
        line(&sub.display().to_string(), "marmalade from the src folder").as_bytes(),
    );
    // another project whose name shares those 200 units: read, and kept out by its lines
    let other = format!("{}-zz", &cwd);
    write(
        &projects
            .join(trilogy::recall::sources::claude_folder(Path::new(&other)))
            .join("s3.jsonl"),
        line(&other, "marmalade of another project").as_bytes(),
    );
    let mut texts: Vec<String> = said(&recall(&ws, &["marmalade", "--limit", "10"]))
        .into_iter()
        .map(|h| h.3)
        .collect();
    texts.sort();
    assert_eq!(
        texts,
        [
            "marmalade from the src folder",
            "marmalade without a working directory",
            "the marmalade migration failed on staging",
        ]
    );
}

#[test]
fn appended_rewritten_and_half_written_files_and_other_projects() {
    let ws = Ws::init();
    let file = claude_file(&ws);
    write(&file, placed(&ws, "claude.jsonl").as_bytes());
    assert!(recall(&ws, &["zebra"]).is_empty());
    let cwd = root(&ws);
    let line = |t: &str| {
        format!(
            "{}\n",
            json!({"type":"user","cwd":cwd,"message":{"content":t}})
        )
    };
    // a turn appended to the live transcript is found at the next query
    append_to(
        &file,
        line("the zebra migration failed on staging").as_bytes(),
    );
    let hits = recall(&ws, &["zebra", "migration"]);
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits[0]["line"], 63,
        "the line number counts every line before it"
    );
    // a half-written last line waits until it is complete
    let whole = line("the quokka cache went stale");
    let (a, b) = whole.split_at(whole.len() / 2);
    append_to(&file, a.as_bytes());
    assert!(recall(&ws, &["quokka", "cache"]).is_empty());
    let status = ws.json(&["recall", "--status"]);
    assert_eq!(status["complete"], false, "{status}");
    append_to(&file, b.as_bytes());
    assert_eq!(recall(&ws, &["quokka", "cache"]).len(), 1);
    // a rewritten (shorter) file is read again from the start: what it no longer holds is gone
    write(&file, line("only the narwhal remains").as_bytes());
    assert!(recall(&ws, &["zebra", "migration"]).is_empty());
    let hits = recall(&ws, &["narwhal"]);
    assert_eq!((hits.len(), hits[0]["line"].as_u64()), (1, Some(1)));
    // another project's transcript, and a project nested inside this one, are never returned
    let elsewhere = "/srv/another-project";
    let other = format!(
        "{}\n{}\n",
        json!({"timestamp":"2026-11-30T10:00:00Z","type":"session_meta","payload":{"id":"o1","cwd":elsewhere}}),
        json!({"timestamp":"2026-11-30T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"the narwhal of another project"}]}})
    );
    write(
        &ws.home()
            .join(".codex/sessions/2026/11/30/rollout-other.jsonl"),
        other.as_bytes(),
    );
    std::fs::create_dir_all(ws.root().join("vendor/lib/.git")).unwrap();
    let nested = other.replace(elsewhere, &format!("{cwd}/vendor/lib"));
    write(
        &ws.home()
            .join(".codex/sessions/2026/11/30/rollout-nested.jsonl"),
        nested.as_bytes(),
    );
    let hits = recall(&ws, &["narwhal", "--limit", "20"]);
    assert_eq!(said(&hits).len(), 1, "{:?}", said(&hits));
    assert_eq!(hits[0]["host"], "claude");
}

#[test]
fn status_is_exact_on_good_pending_and_unreadable_files() {
    let ws = Ws::init();
    place_all(&ws);
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(s["complete"], false, "nothing indexed yet: {s}");
    recall(&ws, &["hello"]);
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(s["complete"], true, "{s}");
    let count = |s: &Value, host: &str, k: &str| {
        s["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["host"] == host)
            .map_or(0, |h| h[k].as_u64().unwrap())
    };
    for host in ["claude", "codex", "gemini", "dsh"] {
        assert_eq!(
            (count(&s, host, "found"), count(&s, host, "indexed")),
            (1, 1),
            "{host}: {s}"
        );
    }
    assert!(s["messages"].as_u64().unwrap() >= 40, "{s}");
    // one appended to (pending), one whose new frame is damaged (unreadable)
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(codex_file(&ws))
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"type\":\"event_msg\",\"payload\":{}}\n").unwrap();
    let mut bad = zstd::stream::encode_all(&b"{\"type\":\"turn/start\"}\n"[..], 3).unwrap();
    // not a frame: its magic number is gone
    bad[0] ^= 0xff;
    let mut d = std::fs::OpenOptions::new()
        .append(true)
        .open(dsh_file(&ws))
        .unwrap();
    std::io::Write::write_all(&mut d, &bad).unwrap();
    drop((f, d));
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(
        (count(&s, "codex", "pending"), count(&s, "codex", "indexed")),
        (1, 0),
        "{s}"
    );
    assert_eq!(s["complete"], false);
    recall(&ws, &["hello"]);
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(count(&s, "codex", "indexed"), 1, "{s}");
    assert_eq!(count(&s, "dsh", "unreadable"), 1, "{s}");
    let why = s["unreadable"][0]["why"].as_str().unwrap();
    assert!(why.contains("zstd") || why.contains("decompress"), "{why}");
    assert_eq!(s["complete"], false);
    // what was indexed from it before stays found
    assert!(!recall(&ws, &["TURN1", "--host", "dsh"]).is_empty());
}

#[test]
fn the_workspace_is_untouched_the_cache_holds_the_index_and_forget_removes_it() {
    let ws = Ws::init();
    place_all(&ws);
    let listing = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for e in walk(dir) {
            out.push((
                e.display().to_string(),
                std::fs::read(&e).unwrap_or_default(),
            ));
        }
        out.sort();
        out
    };
    let before = listing(ws.root());
    let hits = recall(&ws, &["stand-in"]);
    assert!(!hits.is_empty());
    assert_eq!(
        listing(ws.root()),
        before,
        "recall writes nothing in the workspace"
    );
    let cache = ws.state.path().join("cache/trilogy/recall");
    assert!(
        walk(&cache).iter().any(|p| p.ends_with("manifest.json")),
        "the index is in the cache folder"
    );
    let out = ws.json(&["recall", "--forget"]);
    assert_eq!(out["deleted"], true);
    assert!(walk(&cache).is_empty(), "{:?}", walk(&cache));
    // a workspace can turn recall off, and not on
    std::fs::write(ws.root().join("trilogy.toml"), "recall_enabled = false\n").unwrap();
    let off = ws.run(&["recall", "hello"]);
    assert!(
        !off.status.success() && text(&off.stderr).contains("recall_enabled"),
        "{}",
        text(&off.stderr)
    );
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "recall_enabled = true\nrecall_hosts = [\"claude\"]\n",
    )
    .unwrap();
    let own = ws.root().join("own.toml");
    std::fs::write(&own, "recall_enabled = false\n").unwrap();
    let still = ws
        .cmd()
        .env("TRILOGY_CONFIG", &own)
        .args(["recall", "hello"])
        .output()
        .unwrap();
    assert!(!still.status.success(), "the person's own setting wins");
    let config = ws.json(&["config"]);
    assert!(
        config["warnings"].to_string().contains("recall_hosts"),
        "{config}"
    );
}

#[test]
fn memory_recall_answers_over_mcp_and_masks_secrets() {
    let ws = Ws::init();
    let cwd = root(&ws);
    let token = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6";
    let line = json!({"type":"user","cwd":cwd,"sessionId":"m1","message":{"content":format!("deploy with token {token} to staging")}});
    write(
        &claude_file(&ws).with_file_name("m1.jsonl"),
        format!("{line}\n").as_bytes(),
    );
    let r = ws.mcp_tool("s1", "memory_recall", json!({"query":"deploy staging"}));
    assert_ne!(r["isError"], true, "{r}");
    let hit = &r["structuredContent"]["hits"][0];
    assert_eq!(
        (
            hit["host"].as_str(),
            hit["session"].as_str(),
            hit["line"].as_u64()
        ),
        (Some("claude"), Some("m1"), Some(1))
    );
    let shown = r.to_string();
    assert!(
        !shown.contains(token) && shown.contains("ghp_"),
        "masked: {shown}"
    );
    let bad = ws.mcp_tool("s1", "memory_recall", json!({"query":"x","host":"vim"}));
    assert_eq!(bad["isError"], true, "{bad}");
}

#[test]
fn a_codex_session_in_a_folder_beside_the_workspace_is_not_the_workspaces() {
    let ws = Ws::init();
    let cwd = root(&ws);
    let session = |id: &str, dir: &str, said: &str| {
        format!(
            "{}\n{}\n",
            json!({"timestamp":"2026-11-30T10:00:00Z","type":"session_meta","payload":{"id":id,"cwd":dir}}),
            json!({"timestamp":"2026-11-30T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":said}]}})
        )
    };
    let day = ws.home().join(".codex/sessions/2026/11/30");
    // `<ws>/../other` is a folder beside the workspace; `<ws>/src/..` is the workspace
    write(
        &day.join("rollout-beside.jsonl"),
        session(
            "b1",
            &format!("{cwd}/../other"),
            "the ocelot of the project beside",
        )
        .as_bytes(),
    );
    write(
        &day.join("rollout-here.jsonl"),
        session("h1", &format!("{cwd}/src/.."), "the ocelot of this project").as_bytes(),
    );
    let hits = recall(&ws, &["ocelot", "--limit", "20"]);
    let texts: Vec<String> = said(&hits).into_iter().map(|s| s.3).collect();
    assert_eq!(texts, ["the ocelot of this project"], "{hits:?}");
}

#[test]
fn every_line_of_a_pasted_private_key_is_masked_in_recall() {
    let ws = Ws::init();
    let cwd = root(&ws);
    let body: Vec<String> = (0..6)
        .map(|i| {
            format!("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{i}AAAAAAAABAAAAMwAAAAtzc2gtZW")
        })
        .collect();
    let key = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----",
        body.join("\n")
    );
    // a key pasted whole, then the rest of one whose BEGIN line went in an earlier message
    let lines = [
        json!({"type":"user","cwd":cwd,"sessionId":"k1","message":{"content":format!("the deploy key for walrus staging is\n{key}\nuse it once")}}),
        json!({"type":"user","cwd":cwd,"sessionId":"k1","message":{"content":format!("and the walrus backup key ends with\n{}\n-----END OPENSSH PRIVATE KEY-----", body[2..].join("\n"))}}),
        json!({"type":"user","cwd":cwd,"sessionId":"k1","message":{"content":"walrus rotation is due"}}),
    ];
    let transcript: String = lines.iter().map(|l| format!("{l}\n")).collect();
    write(
        &claude_file(&ws).with_file_name("k1.jsonl"),
        transcript.as_bytes(),
    );
    let leaked = |shown: &str| {
        body.iter().any(|l| shown.contains(l.as_str())) || shown.contains("-----END OPENSSH")
    };
    let hits = recall(&ws, &["walrus", "--limit", "10"]);
    assert_eq!(hits.len(), 3, "{hits:?}");
    let json = Value::Array(hits).to_string();
    assert!(!leaked(&json), "--json: {json}");
    assert!(
        json.contains("use it once") && json.contains("rotation is due"),
        "{json}"
    );
    let human = ws.ok(&["recall", "walrus", "--limit", "10"]);
    assert!(!leaked(&human), "{human}");
    assert!(
        human.contains("the deploy key for walrus staging is"),
        "{human}"
    );
    let r = ws.mcp_tool("s1", "memory_recall", json!({"query":"walrus","limit":10}));
    assert_ne!(r["isError"], true, "{r}");
    assert!(!leaked(&r.to_string()), "memory_recall: {r}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A build leaves one segment (a query prunes better in one), and no files of the segments
/// merged into it.
#[test]
fn a_build_leaves_the_index_one_segment_and_no_leftover_files() {
    let ws = Ws::init();
    let many: String = (0..3000)
        .map(|i| claude_line(&ws, "user", &format!("walrus message {i} about the build")))
        .collect();
    write(&claude_file(&ws), many.as_bytes());
    assert_eq!(recall(&ws, &["walrus", "2999"])[0]["line"], 3000);
    let cache = ws.state.path().join("cache/trilogy/recall");
    let files = walk(&cache);
    let meta = files.iter().find(|p| p.ends_with("meta.json")).unwrap();
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(meta).unwrap()).unwrap();
    let segments = meta["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 1, "{meta}");
    let id = segments[0]["segment_id"].as_str().unwrap().replace('-', "");
    let strays: Vec<&PathBuf> = (files.iter())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.len() > 32 && name.chars().take(32).all(|c| c.is_ascii_hexdigit())
        })
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with(&id))
        .collect();
    assert!(strays.is_empty(), "{strays:?}");
    assert_eq!(ws.json(&["recall", "--status"])["messages"], 3000);
}

#[test]
fn a_recall_never_waits_on_another_process_building_the_index() {
    let ws = Ws::init();
    let file = claude_file(&ws);
    write(&file, placed(&ws, "claude.jsonl").as_bytes());
    let cwd = root(&ws);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    // more than a few new messages: a recall indexes them (a few it would read each time)
    for i in 0..40 {
        let line =
            json!({"type":"user","cwd":cwd,"message":{"content":format!("filler prompt {i}")}});
        std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
    }
    let line = json!({"type":"user","cwd":cwd,"message":{"content":"the okapi build broke"}});
    std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
    drop(f);
    // one process takes the index's writer and stays there
    let mark = ws.state.path().join("holding");
    let mut builder = ws
        .std_cmd()
        .args(["recall", "hello"])
        .env("TRILOGY_PAUSE_AT", "recall-writer:5000")
        .env("TRILOGY_PAUSE_MARK", &mark)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for(&mark, "the builder never took the writer");
    // meanwhile another answers from what it reads itself, the new line included
    let v = ws.json(&["recall", "okapi", "build"]);
    assert!(v["read_meanwhile"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["hits"][0]["text"], "the okapi build broke", "{v}");
    assert!(builder.wait().unwrap().success());
    let v = ws.json(&["recall", "okapi", "build"]);
    assert_eq!(
        (v["read_meanwhile"].as_u64(), v["hits"][0]["line"].as_u64()),
        (Some(0), Some(103)),
        "{v}"
    );
}

/// A Claude Code line of this workspace saying `text` (as the person, unless `role` says).
fn claude_line(ws: &Ws, role: &str, text: &str) -> String {
    let cwd = root(ws);
    let v = match role {
        "assistant" => {
            json!({"type":"assistant","cwd":cwd,"message":{"content":[{"type":"text","text":text}]}})
        }
        _ => json!({"type":"user","cwd":cwd,"message":{"content":text}}),
    };
    format!("{v}\n")
}

#[test]
fn small_rewrites_deleted_files_hosts_turned_off_and_a_manifest_left_behind() {
    let ws = Ws::init();
    let file = claude_file(&ws);
    let two = claude_line(&ws, "user", "alpha zebra question")
        + &claude_line(&ws, "assistant", "beta answer");
    write(&file, two.as_bytes());
    assert_eq!(recall(&ws, &["zebra"]).len(), 1);
    // a small file rewritten (longer, other lines) is read again from its start
    let three = claude_line(&ws, "user", "kiwi first")
        + &claude_line(&ws, "user", "mango second")
        + &claude_line(&ws, "user", "papaya third");
    write(&file, three.as_bytes());
    assert!(recall(&ws, &["zebra"]).is_empty());
    assert_eq!(recall(&ws, &["kiwi"])[0]["line"], 1);
    assert_eq!(recall(&ws, &["papaya"])[0]["line"], 3);
    // rewritten past its first 4 KiB to the same size: read again, not taken as touched
    let filler: String = (0..60)
        .map(|i| claude_line(&ws, "user", &format!("filler line number {i:03}")))
        .collect();
    write(
        &file,
        (filler.clone() + &claude_line(&ws, "user", "ocelot spotted")).as_bytes(),
    );
    assert_eq!(recall(&ws, &["ocelot"]).len(), 1);
    write(
        &file,
        (filler + &claude_line(&ws, "user", "jaguar spotted")).as_bytes(),
    );
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    set_mtime(&file, later);
    assert!(recall(&ws, &["ocelot"]).is_empty());
    assert_eq!(recall(&ws, &["jaguar"])[0]["line"], 61);
    write(&file, three.as_bytes());
    // a manifest that does not go with the index (a process stopped between the two): built
    // again, nothing twice
    let cache = ws.state.path().join("cache/trilogy/recall");
    let append = |from: usize| {
        let many: String = (from..from + 40)
            .map(|i| claude_line(&ws, "user", &format!("wombat turn {i}")))
            .collect();
        append_to(&file, many.as_bytes());
    };
    append(0);
    assert_eq!(recall(&ws, &["wombat", "--limit", "20"]).len(), 20);
    let manifest = walk(&cache)
        .into_iter()
        .find(|p| p.ends_with("manifest.json"))
        .unwrap();
    let old = std::fs::read(&manifest).unwrap();
    append(40);
    recall(&ws, &["wombat"]);
    std::fs::write(&manifest, old).unwrap();
    let hits = recall(&ws, &["wombat", "turn", "7", "--limit", "20"]);
    let lines: Vec<u64> = hits.iter().map(|h| h["line"].as_u64().unwrap()).collect();
    let unique: std::collections::BTreeSet<u64> = lines.iter().copied().collect();
    assert_eq!(lines.len(), unique.len(), "no message twice: {lines:?}");
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(s["messages"], 83, "{s}");
    // a host no longer read is not searched, whatever the index holds
    write(&codex_file(&ws), placed(&ws, "codex.jsonl").as_bytes());
    assert!(!recall(&ws, &["hello", "--host", "codex"]).is_empty());
    let own = ws.root().join("own.toml");
    std::fs::write(&own, "recall_hosts = [\"claude\"]\n").unwrap();
    let out = ws
        .cmd()
        .env("TRILOGY_CONFIG", &own)
        .args(["recall", "hello", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["host"] != "codex"),
        "{v}"
    );
    // a transcript deleted takes its messages with it
    std::fs::remove_file(&file).unwrap();
    assert!(recall(&ws, &["kiwi"]).is_empty());
    assert!(recall(&ws, &["wombat"]).is_empty());
}

#[test]
fn injected_text_other_projects_and_their_context_stay_out() {
    let ws = Ws::init();
    let cwd = root(&ws);
    std::fs::create_dir_all(ws.root().join("nested/.git")).unwrap();
    let lines = [
        json!({"type":"user","cwd":cwd,"message":{"content":"<bash-input>ls narwhal</bash-input>"}}),
        json!({"type":"user","cwd":cwd,"message":{"content":"<bash-stdout>narwhal.txt</bash-stdout><bash-stderr></bash-stderr>"}}),
        json!({"type":"user","cwd":cwd,"message":{"content":"<task-notification>narwhal done</task-notification>"}}),
        json!({"type":"assistant","cwd":cwd,"isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"API Error: narwhal overloaded"}]}}),
        json!({"type":"user","cwd":format!("{cwd}/nested"),"message":{"content":"narwhal in the nested project"}}),
        json!({"type":"user","cwd":cwd,"message":{"content":"narwhal typed here\n<system-reminder>narwhal reminder</system-reminder>"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    write(
        &claude_file(&ws).with_file_name("n1.jsonl"),
        text.as_bytes(),
    );
    // a folder of another project whose name starts with this one's
    let other = claude_file(&ws)
        .parent()
        .unwrap()
        .with_extension("")
        .to_string_lossy()
        .into_owned()
        + "-other";
    let stray = json!({"type":"user","message":{"content":"narwhal of the other project"}});
    write(
        &Path::new(&other).join("o.jsonl"),
        format!("{stray}\n").as_bytes(),
    );
    let hits = recall(&ws, &["narwhal", "--limit", "20"]);
    assert_eq!(
        said(&hits),
        vec![(
            "claude".into(),
            "user".into(),
            6,
            "narwhal typed here".into()
        )],
        "{hits:?}"
    );
    assert!(
        hits[0].get("before").is_none(),
        "no context from elsewhere: {hits:?}"
    );
}

#[test]
fn first_recalls_at_once_all_answer() {
    let ws = Ws::init();
    place_all(&ws);
    let children: Vec<_> = (0..6)
        .map(|_| {
            ws.std_cmd()
                .args(["recall", "stand-in", "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(!v["hits"].as_array().unwrap().is_empty(), "{v}");
    }
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(s["complete"], true, "{s}");
}

/// A warm recall whose files are as the last top-up found them searches without reading the
/// manifest (the stamp beside the index says so); any change to a file makes the full check
/// run again, and what changed is found.
#[test]
fn a_warm_recall_trusts_its_stamp_only_while_every_file_is_as_it_was() {
    let ws = Ws::init();
    let file = claude_file(&ws);
    write(&file, claude_line(&ws, "user", "narwhal tusk").as_bytes());
    // another project's Codex session, in the one folder Codex keeps every project's in
    let elsewhere = codex_file(&ws);
    let theirs = fixture("codex.jsonl").replace("@WS@", "/elsewhere/project");
    write(&elsewhere, theirs.as_bytes());
    assert_eq!(recall(&ws, &["narwhal"]).len(), 1);
    let cache = ws.state.path().join("cache/trilogy/recall");
    let files = walk(&cache);
    assert!(files.iter().any(|p| p.ends_with("fresh")), "{files:?}");
    let manifest = files.iter().find(|p| p.ends_with("manifest.json")).unwrap();
    // the manifest damaged under its own size and time: a warm recall neither reads it nor
    // builds the index again
    let was = std::fs::metadata(manifest).unwrap();
    let garbage = vec![b'x'; was.len() as usize];
    std::fs::write(manifest, &garbage).unwrap();
    set_mtime(manifest, was.modified().unwrap());
    assert_eq!(recall(&ws, &["narwhal"]).len(), 1);
    assert!(
        std::fs::read(manifest).unwrap() == garbage,
        "the manifest was read and the index built again"
    );
    // the other project's session goes on: it is never read again, so the stamp still holds
    append_to(
        &elsewhere,
        format!("{}\n", theirs.lines().last().unwrap()).as_bytes(),
    );
    assert_eq!(recall(&ws, &["narwhal"]).len(), 1);
    assert!(
        std::fs::read(manifest).unwrap() == garbage,
        "another project's session made the full check run"
    );
    // the transcript touched (same bytes, a later time): the full check reads the manifest,
    // finds it unreadable and builds the index again
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    set_mtime(&file, later);
    assert_eq!(recall(&ws, &["narwhal"]).len(), 1);
    let rebuilt = std::fs::read(manifest).unwrap();
    assert!(serde_json::from_slice::<Value>(&rebuilt).is_ok());
    // a turn appended after the stamp was written is found at the next recall
    append_to(
        &file,
        claude_line(&ws, "assistant", "narwhal answered").as_bytes(),
    );
    let hits = recall(&ws, &["narwhal"]);
    assert_eq!(hits.len(), 2, "{hits:?}");
    // and a second transcript appearing beside the first
    let other = file.with_file_name("0f0f0f0f-0934-4279-b365-2b88693115fe.jsonl");
    write(&other, claude_line(&ws, "user", "narwhal again").as_bytes());
    assert_eq!(recall(&ws, &["narwhal"]).len(), 3);
    assert_eq!(ws.json(&["recall", "--status"])["complete"], true);
}

/// A session of a Gemini CLI release that kept it as one JSON document (recorded from Gemini
/// CLI 0.20.0 against the scripted model: a shell call refused, then a resumed second turn),
/// in the folder named by the project's hash: what was said is found by its place in the
/// session, the tool call is not, and the document rewritten with a new turn is read again
/// whole, nothing twice.
#[test]
fn an_older_gemini_clis_session_document_is_read_whole() {
    let ws = Ws::init();
    let chats = ws
        .home()
        .join(".gemini/tmp")
        .join(sha256(&root(&ws)))
        .join("chats");
    let file = chats.join("session-2026-12-02T06-27-e40147e1.json");
    let doc = placed(&ws, "gemini-legacy.json");
    write(&file, doc.as_bytes());
    let hits = recall(&ws, &["walrus", "--limit", "20"]);
    let mut found = said(&hits);
    found.sort_by_key(|h| h.2);
    assert_eq!(
        found,
        vec![
            (
                "gemini".into(),
                "user".into(),
                1,
                "please do WORK on the walrus linker flag".into()
            ),
            (
                "gemini".into(),
                "user".into(),
                4,
                "which walrus answer did you give".into()
            ),
        ],
        "{hits:?}"
    );
    assert_eq!(hits[0]["session"], "e40147e1-f8df-455b-88c7-759bdefff802");
    assert_eq!(said(&recall(&ws, &["stand-in", "model"]))[0].2, 5);
    assert!(recall(&ws, &["rejected", "parsed", "safely"]).is_empty());
    // the CLI writes the whole document again with each message
    let mut v: Value = serde_json::from_str(&doc).unwrap();
    let messages = v["messages"].as_array_mut().unwrap();
    messages.push(json!({"id":"x1","timestamp":"2026-12-02T06:30:00.000Z","type":"user","content":"one more walrus question"}));
    v["lastUpdated"] = json!("2026-12-02T06:30:00.000Z");
    write(&file, serde_json::to_string_pretty(&v).unwrap().as_bytes());
    let mut lines: Vec<u64> = said(&recall(&ws, &["walrus", "--limit", "20"]))
        .iter()
        .map(|h| h.2)
        .collect();
    lines.sort();
    assert_eq!(lines, vec![1, 4, 6], "each message once");
    // half written: not a whole document yet, the last good read stays searchable
    write(&file, &serde_json::to_vec(&v).unwrap()[..200]);
    assert_eq!(recall(&ws, &["walrus", "--limit", "20"]).len(), 3);
    let s = ws.json(&["recall", "--status"]);
    assert_eq!(s["complete"], false, "{s}");
}
