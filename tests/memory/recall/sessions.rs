//! Each host's sessions recalled: real sessions with where they were said, odd shapes, Claude
//! Code's shortened folders, files appended, rewritten and half written, another folder's
//! sessions, and an older Gemini CLI's session document.

use super::*;

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
