//! The recall index in the cache: exact status, the workspace untouched, one segment and no
//! leftovers, never waiting on another builder, small rewrites and hosts turned off, first
//! recalls at once, and the warm stamp trusted only while every file is as it was.

use super::*;

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
    let mut bad = zstd_frame(b"{\"type\":\"turn/start\"}\n");
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
