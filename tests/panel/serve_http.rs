//! `trilogy serve` over real HTTP: one real server process per test (`--port 0`, its URL read
//! from the first stdout line), the original plugin's endpoint shapes, statuses and Chinese
//! error texts (reference §9.1 checks 24–38, 45–47, 62, 64–68), the fence, the endpoints beyond
//! the original, and the panel saving while CLI writers record.

use crate::common;
use crate::common::web;

use std::io::{BufRead, BufReader};

use std::path::Path;
use std::process::Stdio;

use common::Ws;
use serde_json::{Value, json};
use web::{Server, enc, root};

/// Every file under `dir`, with its bytes (the `.trilogy` store aside).
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.file_name().is_some_and(|n| n == ".trilogy") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A workspace whose log has two entries and an archive of one (at most one live session).
fn with_archive() -> Ws {
    let ws = Ws::init();
    for (text, area) in [
        ("first thing done; tested", "web"),
        ("second thing done; tested", "cli"),
    ] {
        ws.cmd()
            .args(["checkpoint", "--session-done", text, "--area", area])
            .env("TRILOGY_SESSIONS_MAX_ENTRIES", "1")
            .env("TRILOGY_SESSIONS_ARCHIVE_BATCH", "0")
            .assert()
            .success();
    }
    assert!(ws.read("SESSIONS-archive.md").contains("first thing done"));
    ws
}

#[test]
fn workspaces_lists_an_initialised_root_and_files_returns_its_texts() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let r = s.get("/trilogy/workspaces");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let v = r.json();
    assert_eq!(v["registry"], ws.registry().display().to_string());
    let row = v["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["root"] == root(&ws))
        .unwrap_or_else(|| panic!("root listed: {v}"))
        .clone();
    assert_eq!(row["exists"], true);
    assert_eq!(row["empty"], true);
    assert!(row["lastSeen"].is_string() && row["firstSeen"].is_string());
    assert!(row["files"]["PROJECT.md"]["bytes"].as_u64().unwrap() > 0);

    let v = s
        .get(&format!("/trilogy/files?root={}", enc(&root(&ws))))
        .json();
    for f in ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"] {
        let file = &v["files"][f];
        assert_eq!(file["text"].as_str().unwrap(), ws.read(f), "{f}");
        assert!(file["bytes"].as_u64().unwrap() > 0, "{f}");
        assert!(file["mtime"].as_i64().unwrap() > 0, "{f}");
    }
    assert_eq!(v["files"]["SESSIONS-archive.md"], Value::Null);
    assert_eq!(v["staleness"]["stale"], false);
    assert_eq!(v["staleness"]["reason"], "compared");
    assert_eq!(v["staleness"]["thresholdDays"], 14);
    assert_eq!(v["instruction"]["name"], "AGENTS.md");
    assert_eq!(v["instruction"]["exists"], true);
    assert!(
        v["instruction"]["text"]
            .as_str()
            .unwrap()
            .contains("trilogy")
    );
    assert_eq!(s.get("/trilogy/files").error(), "缺少 root 参数");
    assert_eq!(s.get("/trilogy/files?root=memory").status, 400);
    // a trailing slash names the same workspace
    let slash = s.get(&format!("/trilogy/boot?root={}/", enc(&root(&ws))));
    assert_eq!(slash.status, 200, "{}", slash.body);
}

#[test]
fn clear_deletes_the_four_files_and_the_boot_block_and_keeps_the_row() {
    let ws = with_archive();
    let s = Server::start(&ws);
    let v = s
        .post("/trilogy/clear", &json!({ "root": root(&ws) }))
        .json();
    let mut cleared: Vec<String> = serde_json::from_value(v["cleared"].clone()).unwrap();
    cleared.sort();
    assert_eq!(
        cleared,
        [
            "DECISIONS.md",
            "PROJECT.md",
            "SESSIONS-archive.md",
            "SESSIONS.md"
        ]
    );
    assert_eq!(v["bootBlockRemoved"], true);
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "AGENTS.md held only the block"
    );
    let list = s.get("/trilogy/workspaces").json();
    let row = list["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["root"] == root(&ws))
        .expect("the row stays")
        .clone();
    assert_eq!(row["exists"], false);
    // the next init scaffolds empty templates again
    ws.ok(&["init"]);
    assert!(ws.read("PROJECT.md").contains("暂无"));
    assert!(!ws.read("SESSIONS.md").contains("thing done"));

    let other = Ws::new();
    let r = s.post("/trilogy/clear", &json!({ "root": root(&other) }));
    assert_eq!(r.status, 400);
    assert!(r.error().contains("未记录"), "{}", r.body);
}

#[test]
fn forget_removes_only_the_registry_row() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let before = tree(ws.root());
    let v = s
        .post("/trilogy/forget", &json!({ "root": root(&ws) }))
        .json();
    assert_eq!(v["forgotten"], root(&ws));
    assert_eq!(
        v["memoryDir"],
        ws.root().join("memory").display().to_string()
    );
    assert_eq!(tree(ws.root()), before, "no file touched");
    let list = s.get("/trilogy/workspaces").json();
    assert!(
        !list["workspaces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["root"] == root(&ws)),
        "{list}"
    );
    let again = s.post("/trilogy/forget", &json!({ "root": root(&ws) }));
    assert_eq!(again.status, 404);
    assert!(
        again.error().starts_with("注册表里没有这个工作区"),
        "{}",
        again.body
    );
    let missing = s.post("/trilogy/forget", &json!({}));
    assert_eq!(missing.status, 400);
}

#[test]
fn a_row_of_the_original_plugins_registry_is_listed_and_forgotten_for_good() {
    let ws = Ws::init();
    let old = Ws::new();
    let theirs = ws.dsh_home().join("trilogy/registry.json");
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    let row = json!({ "memoryDir": old.root().join("memory"), "bootBlockFile": "AGENTS.md",
        "firstSeen": "2025-01-01T00:00:00.000Z", "lastSeen": "2025-01-02T00:00:00.000Z" });
    std::fs::write(
        &theirs,
        serde_json::to_string_pretty(&json!({ "version": 1, "workspaces": { root(&old): row } }))
            .unwrap(),
    )
    .unwrap();
    // a corrupt registry of ours reads as empty and is rewritten on the next write
    std::fs::write(ws.registry(), "{ nope").unwrap();
    let s = Server::start(&ws);
    let listed = |s: &Server| -> Vec<String> {
        s.get("/trilogy/workspaces").json()["workspaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["root"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(listed(&s).contains(&root(&old)));
    assert_eq!(
        s.post("/trilogy/forget", &json!({ "root": root(&old) }))
            .status,
        200
    );
    assert!(!listed(&s).contains(&root(&old)));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&theirs).unwrap()).unwrap();
    assert_eq!(v["workspaces"], json!({}));
    ws.ok(&["init"]);
    let ours: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.registry()).unwrap()).unwrap();
    assert!(
        ours["workspaces"][root(&ws)]["lastSeen"].is_string(),
        "{ours}"
    );
}

#[test]
fn an_unknown_endpoint_is_404_and_the_page_and_its_assets_are_served() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    for path in ["/trilogy/nope", "/elsewhere", "/trilogy/../etc/passwd"] {
        let r = s.get(path);
        assert_eq!(r.status, 404, "{path}");
        assert!(r.error().contains("未知端点"), "{}", r.body);
    }
    let r = s.get("/trilogy/");
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(r.body.contains("<html"));
    assert!(
        s.get("/trilogy/panel.js")
            .header("content-type")
            .unwrap()
            .contains("javascript")
    );
    assert!(
        s.get("/trilogy/panel.css")
            .header("content-type")
            .unwrap()
            .starts_with("text/css")
    );
    let r = s.get("/");
    assert_eq!((r.status, r.header("location")), (303, Some("/trilogy/")));
    let r = s.get("/trilogy/save");
    assert_eq!(r.status, 405, "{}", r.body);
}

#[test]
fn the_printed_token_becomes_a_strict_cookie_that_lets_the_page_write() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let r = s.get(&format!("/trilogy/?token={}", s.token));
    assert_eq!((r.status, r.header("location")), (303, Some("/trilogy/")));
    let cookie = r.header("set-cookie").unwrap().to_string();
    for part in [
        "trilogy_token=",
        "HttpOnly",
        "SameSite=Strict",
        "Path=/trilogy",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let pair = cookie.split(';').next().unwrap();
    let body = json!({ "root": root(&ws), "file": "PROJECT.md", "text": "# PROJECT\n\n## 现状\n\n能跑\n" });
    let origin = format!("http://{}", s.host());
    let r = s.raw(
        "POST",
        "/trilogy/save",
        &[("host", &s.host()), ("origin", &origin), ("cookie", pair)],
        &body.to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(ws.read("PROJECT.md").contains("能跑"));
    // a wrong token in the address sets nothing
    let r = s.get("/trilogy/?token=0000");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("set-cookie"), None);
}

#[test]
fn the_fence_refuses_a_foreign_host_a_cross_site_origin_and_a_missing_token_and_writes_nothing() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let before = tree(ws.root());
    let body = json!({ "root": root(&ws), "file": "PROJECT.md", "text": "# PROJECT\n\n## 现状\n\nhacked\n" })
        .to_string();
    let host = s.host();
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "foreign host",
            vec![("host", "evil.example:80"), ("x-trilogy-token", &s.token)],
        ),
        (
            "rebound name",
            vec![("host", "attacker.test"), ("x-trilogy-token", &s.token)],
        ),
        (
            "cross-site origin",
            vec![
                ("host", &host),
                ("origin", "http://evil.example"),
                ("x-trilogy-token", &s.token),
            ],
        ),
        ("missing token", vec![("host", &host)]),
        (
            "wrong token",
            vec![
                ("host", &host),
                ("x-trilogy-token", "0123456789abcdef0123456789abcdef"),
            ],
        ),
        (
            "wrong cookie",
            vec![("host", &host), ("cookie", "trilogy_token=nope")],
        ),
    ];
    for (what, headers) in cases {
        let r = s.raw("POST", "/trilogy/save", &headers, &body);
        assert_eq!(r.status, 403, "{what}: {}", r.body);
        assert!(!r.error().is_empty(), "{what}");
    }
    // a read under a foreign name is refused too (DNS rebinding reads as well as writes)
    let r = s.raw(
        "GET",
        "/trilogy/workspaces",
        &[("host", "evil.example")],
        "",
    );
    assert_eq!(r.status, 403);
    assert!(r.error().contains("本机"), "{}", r.body);
    assert_eq!(tree(ws.root()), before, "nothing written");
}

#[test]
fn save_writes_a_memory_file_through_the_store_and_refuses_every_other_name() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let text = "# PROJECT\n\n## 这是什么\n\n一个面板\n\n## 现状\n\n能跑\n";
    let v = s
        .post(
            "/trilogy/save",
            &json!({ "root": root(&ws), "file": "PROJECT.md", "text": text }),
        )
        .json();
    assert_eq!(
        v,
        json!({ "saved": "PROJECT.md", "kind": "memory", "bytes": text.len() })
    );
    assert!(ws.read("PROJECT.md").contains("一个面板"));
    // a hand edit absorbed, attributed to the panel
    let log = ws.json(&["log"]);
    assert!(
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["actor"] == "panel"),
        "{log}"
    );

    let before = tree(ws.root());
    let parent_escape = ws.root().parent().unwrap().join("escape.txt");
    for file in [
        "SESSIONS-archive.md",
        "package.json",
        "README.md",
        "../escape.txt",
        "AGENTS.md.bak",
        "CLAUDE.md",
        "memory/PROJECT.md",
        "",
    ] {
        let r = s.post(
            "/trilogy/save",
            &json!({ "root": root(&ws), "file": file, "text": "x\n" }),
        );
        assert_eq!(r.status, 400, "{file}: {}", r.body);
        assert_eq!(r.error(), format!("不允许写入 {file}"));
    }
    assert_eq!(tree(ws.root()), before, "nothing written");
    assert!(!parent_escape.exists());
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "PROJECT.md" }),
    );
    assert_eq!((r.status, r.error().as_str()), (400, "缺少 text 参数"));
    let stranger = Ws::new();
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&stranger), "file": "PROJECT.md", "text": "x" }),
    );
    assert_eq!(r.status, 400);
    assert!(r.error().starts_with("未记录的工作区"), "{}", r.body);

    // the instruction file is replaced whole, and /files shows it
    let agents = "# Agents\n\nmine only\n";
    let v = s
        .post(
            "/trilogy/save",
            &json!({ "root": root(&ws), "file": "AGENTS.md", "text": agents }),
        )
        .json();
    assert_eq!(v["kind"], "instruction");
    assert_eq!(
        std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap(),
        agents
    );
    let files = s
        .get(&format!("/trilogy/files?root={}", enc(&root(&ws))))
        .json();
    assert_eq!(files["instruction"]["text"], agents);
    assert_eq!(files["instruction"]["bytes"], agents.len());
}

#[test]
fn a_save_of_a_secret_is_refused_and_changes_nothing() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let before = ws.snapshot();
    // a GitHub token built at run time, so no scanner flags this file
    let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        .chars()
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let body: String = (0..36)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            alphabet[((x >> 33) % 62) as usize]
        })
        .collect();
    let token = format!("ghp_{body}");
    let text = format!("# PROJECT\n\n## 现状\n\ntoken {token}\n");
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "PROJECT.md", "text": text }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn status_is_per_workspace_and_follows_recording() {
    let a = Ws::init();
    let s = Server::start(&a);
    let status = |cwd: &Path| {
        s.get(&format!(
            "/trilogy/status?cwd={}",
            enc(&cwd.display().to_string())
        ))
        .json()
    };
    // a checkpoint that records nothing leaves the phase idle
    a.cmd()
        .args(["checkpoint", "--json"])
        .write_stdin("{}")
        .env_remove("TRILOGY_TODAY")
        .assert()
        .success();
    let v = status(a.root());
    assert_eq!(v["phase"], "idle", "{v}");
    assert_eq!(v["workspace"], root(&a));
    // a recording one: done, with the file it wrote
    a.cmd()
        .args(["checkpoint", "--session-done", "status chip works; tested"])
        .env_remove("TRILOGY_TODAY")
        .assert()
        .success();
    let v = status(a.root());
    assert_eq!(v["phase"], "done", "{v}");
    let at = v["lastSyncAt"].as_i64().unwrap();
    let now = v["now"].as_i64().unwrap();
    assert!(at > 0 && at <= now, "{v}");
    assert!(
        v["lastSyncFile"].as_str().unwrap().ends_with("SESSIONS.md"),
        "{v}"
    );

    // no memory: none, with the root as workspace
    let b = Ws::new();
    let v = status(b.root());
    assert_eq!(v["phase"], "none");
    assert_eq!(v["lastSyncAt"], Value::Null);
    assert_eq!(v["workspace"], root(&b));
    let v = s.get("/trilogy/status").json();
    assert_eq!(
        (v["phase"].as_str(), &v["workspace"]),
        (Some("none"), &Value::Null)
    );

    // init creates the three files there; then it is no longer none, and not a's
    let v = s.post("/trilogy/init", &json!({ "cwd": root(&b) })).json();
    let mut created: Vec<String> = serde_json::from_value(v["created"].clone()).unwrap();
    created.sort();
    assert_eq!(created, ["DECISIONS.md", "PROJECT.md", "SESSIONS.md"]);
    assert_eq!(v["root"], root(&b));
    assert_eq!(v["bootBlockAdded"], true);
    let vb = status(b.root());
    assert_ne!(vb["phase"], "none");
    assert!(vb["lastSyncAt"].as_i64().unwrap() > 0);
    assert_eq!(vb["workspace"], root(&b));
    assert_ne!(status(a.root())["workspace"], vb["workspace"]);
    // and it is registered
    let list = s.get("/trilogy/workspaces").json();
    assert!(
        list["workspaces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["root"] == root(&b))
    );
    assert_eq!(s.post("/trilogy/init", &json!({})).error(), "缺少 cwd 参数");
}

#[test]
fn restore_moves_an_archived_entry_back_by_text_or_by_id() {
    let ws = with_archive();
    let s = Server::start(&ws);
    let r = s.post(
        "/trilogy/restore",
        &json!({ "root": root(&ws), "text": "first thing done" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["restored"], true);
    assert!(ws.read("SESSIONS.md").contains("first thing done"));
    assert!(!ws.read("SESSIONS-archive.md").contains("first thing done"));
    let r = s.post(
        "/trilogy/restore",
        &json!({ "root": root(&ws), "text": "never written" }),
    );
    assert_eq!((r.status, r.error().as_str()), (400, "归档里找不到这条"));
    let r = s.post("/trilogy/restore", &json!({ "root": root(&ws) }));
    assert_eq!((r.status, r.error().as_str()), (400, "缺少 text 参数"));
    let r = s.post("/trilogy/restore", &json!({ "text": "x" }));
    assert_eq!((r.status, r.error().as_str()), (400, "缺少 root 参数"));

    // a hand-removed entry is in /history and comes back by id. (Not the one just restored:
    // the file without it is the version before the restore, which a copy read before the
    // restore would be too, so trilogy would keep it. An agent records first.)
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "recorded after the restore; tested",
    ]);
    let sessions = ws.read("SESSIONS.md");
    let cut: String = sessions
        .split("\n## ")
        .filter(|part| !part.contains("first thing done"))
        .collect::<Vec<_>>()
        .join("\n## ");
    ws.write("SESSIONS.md", &cut);
    let h = s
        .get(&format!("/trilogy/history?root={}", enc(&root(&ws))))
        .json();
    let entry = h["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"].as_str().unwrap().contains("first thing done"))
        .unwrap_or_else(|| panic!("removed entry listed: {h}"))
        .clone();
    assert_eq!(entry["state"], "removed");
    assert_eq!(entry["file"], "SESSIONS.md");
    let r = s.post(
        "/trilogy/restore",
        &json!({ "root": root(&ws), "id": entry["id"] }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(ws.read("SESSIONS.md").contains("first thing done"));
}

#[test]
fn boot_reports_removes_and_rewrites_the_block() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let q = format!("/trilogy/boot?root={}", enc(&root(&ws)));
    let v = s.get(&q).json();
    assert_eq!(v["exists"], true);
    assert_eq!(v["current"], true);
    assert_eq!(v["fileExists"], true);
    assert_eq!(v["file"], ws.root().join("AGENTS.md").display().to_string());
    assert!(v["block"].is_string());
    let r = s
        .post(
            "/trilogy/boot",
            &json!({ "root": root(&ws), "action": "remove" }),
        )
        .json();
    assert_eq!(r["removed"], true);
    assert_eq!(s.get(&q).json()["exists"], false);
    let r = s
        .post(
            "/trilogy/boot",
            &json!({ "root": root(&ws), "action": "rewrite" }),
        )
        .json();
    assert_eq!(r["rewritten"], true);
    let v = s.get(&q).json();
    assert_eq!(
        (v["exists"].as_bool(), v["current"].as_bool()),
        (Some(true), Some(true))
    );
    let r = s.post(
        "/trilogy/boot",
        &json!({ "root": root(&ws), "action": "explode" }),
    );
    assert_eq!(
        (r.status, r.error().as_str()),
        (400, "action 必须是 rewrite 或 remove")
    );
    let stranger = Ws::new();
    let r = s.get(&format!("/trilogy/boot?root={}", enc(&root(&stranger))));
    assert_eq!(r.status, 400);
    assert!(r.error().starts_with("未记录的工作区"));
}

#[test]
fn export_and_import_keep_the_files_byte_for_byte_and_a_foreign_bundle_writes_nothing() {
    let ws = with_archive();
    let s = Server::start(&ws);
    let bundle = s
        .get(&format!("/trilogy/export?root={}", enc(&root(&ws))))
        .json();
    assert_eq!(bundle["kind"], "dsh-trilogy/memory-bundle");
    assert_eq!(bundle["version"], 1);
    assert_eq!(bundle["root"], root(&ws));
    assert!(bundle["exportedAt"].is_string());
    for f in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert_eq!(bundle["files"][f].as_str().unwrap(), ws.read(f), "{f}");
    }

    let dest = Ws::new();
    let r = s.post(
        "/trilogy/import",
        &json!({ "root": root(&dest), "bundle": bundle }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["root"], root(&dest));
    assert_eq!(
        v["memoryDir"],
        dest.root().join("memory").display().to_string()
    );
    for f in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert_eq!(dest.read(f), ws.read(f), "{f} byte for byte");
    }
    let list = s.get("/trilogy/workspaces").json();
    let row = list["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["root"] == root(&dest))
        .expect("registered")
        .clone();
    assert_eq!(row["exists"], true);

    // `mode: "replace"` takes the bundle wholesale; an unknown mode is refused
    let r = s.post(
        "/trilogy/import",
        &json!({ "root": root(&dest), "bundle": bundle, "mode": "replace" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["mode"], "replace");
    let r = s.post(
        "/trilogy/import",
        &json!({ "root": root(&dest), "bundle": bundle, "mode": "overwrite" }),
    );
    assert_eq!(r.status, 400);

    let fresh = Ws::new();
    let mut foreign = bundle.clone();
    foreign["kind"] = json!("someone-else/bundle");
    let r = s.post(
        "/trilogy/import",
        &json!({ "root": root(&fresh), "bundle": foreign }),
    );
    assert_eq!(r.status, 400);
    assert!(r.error().contains("记忆包"), "{}", r.body);
    assert!(!fresh.root().join("memory").exists());
    let only_unknown =
        json!({ "kind": "dsh-trilogy/memory-bundle", "version": 1, "files": { "notes.txt": "x" } });
    let r = s.post(
        "/trilogy/import",
        &json!({ "root": root(&fresh), "bundle": only_unknown }),
    );
    assert_eq!(r.status, 400);
    let r = s.post(
        "/trilogy/import",
        &json!({ "root": root(&fresh), "bundle": "nope" }),
    );
    assert_eq!(r.status, 400);
    assert!(!fresh.root().join("memory").exists());
    assert!(
        std::fs::read_dir(fresh.root()).unwrap().next().is_none(),
        "nothing written"
    );
}

#[test]
fn the_extra_endpoints_answer_with_the_cli_json() {
    let ws = with_archive();
    let s = Server::start(&ws);
    let r = root(&ws);
    let info = s.get("/trilogy/info").json();
    assert_eq!(info["cwd"], r);
    assert_eq!(info["lang"], "zh");
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    let hits = s
        .get(&format!("/trilogy/search?root={}&q=first", enc(&r)))
        .json();
    let hit = &hits["hits"][0];
    assert!(
        hit["text"].as_str().unwrap().contains("first thing done"),
        "{hits}"
    );
    assert_eq!(hit["file"], "SESSIONS-archive.md");
    assert_eq!(
        s.get(&format!("/trilogy/search?root={}", enc(&r))).status,
        400
    );
    let events = s
        .get(&format!("/trilogy/events?root={}&limit=5", enc(&r)))
        .json();
    let list = events["events"].as_array().unwrap();
    assert!(!list.is_empty() && list.len() <= 5, "{events}");
    assert!(list.iter().any(|e| e["op"] == "archive"), "{events}");
    assert_eq!(
        s.get(&format!("/trilogy/events?root={}&limit=0", enc(&r)))
            .status,
        400
    );
    let sessions = s.get(&format!("/trilogy/sessions?root={}", enc(&r))).json();
    assert!(sessions.is_array(), "{sessions}");
    let history = s.get(&format!("/trilogy/history?root={}", enc(&r))).json();
    let archived = history["entries"].as_array().unwrap();
    assert_eq!(archived.len(), 1, "{history}");
    assert_eq!(archived[0]["state"], "archived");
    assert_eq!(archived[0]["file"], "SESSIONS-archive.md");
    let weeks = s.get(&format!("/trilogy/weeks?root={}", enc(&r))).json();
    // both entries are dated TODAY (2026-11-29, a Sunday: ISO week 48)
    assert_eq!(
        weeks,
        json!({ "weeks": [{ "week": "2026-W48", "areas": { "web": 1, "cli": 1 } }] })
    );
}

#[test]
fn a_panel_save_while_two_cli_writers_record_loses_nothing() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    const EACH: usize = 8;
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let cmds: Vec<std::process::Command> = (0..EACH)
                .map(|i| {
                    let mut c = ws.std_cmd();
                    c.args([
                        "checkpoint",
                        "--session-done",
                        &format!("writer {w} entry {i}; tested"),
                    ]);
                    c
                })
                .collect();
            std::thread::spawn(move || {
                let mut acknowledged = Vec::new();
                for (i, mut c) in cmds.into_iter().enumerate() {
                    let out = c.output().unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    acknowledged.push(format!("writer {w} entry {i}; tested"));
                }
                acknowledged
            })
        })
        .collect();
    let mut saved = Vec::new();
    for n in 0..6 {
        let files = s
            .get(&format!("/trilogy/files?root={}", enc(&root(&ws))))
            .json();
        let text = files["files"]["PROJECT.md"]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let line = format!("panel edit {n}");
        let edited = text.replacen("## 现状\n", &format!("## 现状\n\n{line}\n"), 1);
        let r = s.post(
            "/trilogy/save",
            &json!({ "root": root(&ws), "file": "PROJECT.md", "text": edited }),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        saved.push(line);
    }
    let mut acknowledged = Vec::new();
    for w in writers {
        acknowledged.extend(w.join().unwrap());
    }
    ws.ok(&["status"]);
    let log = ws.read("SESSIONS.md");
    for a in &acknowledged {
        assert!(log.contains(a.as_str()), "lost {a}");
    }
    let project = ws.read("PROJECT.md");
    for line in &saved {
        assert!(project.contains(line.as_str()), "lost {line}:\n{project}");
    }
}

#[test]
fn the_server_listens_on_loopback_only_and_keeps_its_token_private() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    // the kernel's table of listening sockets: ours is 127.0.0.1, never 0.0.0.0
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port = format!("{:04X}", s.port);
    let listening: Vec<&str> = table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let (addr, p) = cols.get(1)?.split_once(':')?;
            (p == port && cols.get(3) == Some(&"0A")).then_some(addr)
        })
        .collect();
    assert_eq!(listening, ["0100007F"], "listening on 127.0.0.1 only");
    let v6 = std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    assert!(
        !v6.lines()
            .any(|l| l.contains(&format!(":{port} ")) && l.contains(" 0A ")),
        "no IPv6 listener"
    );
    // the token for scripts: readable by this user only, gone when the server stops
    let file = std::path::PathBuf::from(s.launch["tokenFile"].as_str().unwrap());
    assert_eq!(
        file,
        ws.state
            .path()
            .join(format!("trilogy/serve-{}.token", s.port))
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), s.token);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let pid = s.child.id().to_string();
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(stopped.success());
    let mut s = s;
    let status = s.child.wait().unwrap();
    assert!(
        status.success(),
        "a SIGTERM stops the server cleanly: {status}"
    );
    assert!(!file.exists(), "the token file is removed on shutdown");
}

#[test]
fn serve_prints_its_url_first_and_says_when_the_port_is_taken() {
    let ws = Ws::init();
    let mut child = ws
        .std_cmd()
        .args(["serve", "--port", "0"])
        .current_dir(ws.root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let rest = line
        .trim_end()
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("{line:?}"));
    let (port, token) = rest.split_once("/trilogy/?token=").unwrap();
    assert!(port.parse::<u16>().unwrap() > 0);
    assert_eq!(token.len(), 32);
    assert!(token.chars().all(|c| c.is_ascii_hexdigit()));

    // a port already in use is an error that says what to do
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = ws.run(&["serve", "--port", &port]);
    assert_eq!(out.status.code(), Some(3));
    let err = common::text(&out.stderr);
    assert!(
        err.contains("cannot listen") && err.contains("--port"),
        "{err}"
    );
}

/// `/files`' text of `file` and the version it was served with (`null` from a server that
/// names none).
fn served(s: &Server, ws: &Ws, file: &str) -> (String, Value) {
    let files = s
        .get(&format!("/trilogy/files?root={}", enc(&root(ws))))
        .json();
    (
        files["files"][file]["text"].as_str().unwrap().to_string(),
        files["version"].clone(),
    )
}

#[test]
fn a_panel_save_loop_beside_a_cli_writer_loses_no_acknowledged_entry() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    const EACH: usize = 12;
    let cmds: Vec<std::process::Command> = (0..EACH)
        .map(|i| {
            let mut c = ws.std_cmd();
            c.args([
                "checkpoint",
                "--session-done",
                &format!("cli entry {i}; tested"),
            ]);
            c
        })
        .collect();
    let writer = std::thread::spawn(move || {
        let mut acknowledged = Vec::new();
        for (i, mut c) in cmds.into_iter().enumerate() {
            let out = c.output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            acknowledged.push(format!("cli entry {i}; tested"));
        }
        acknowledged
    });
    // the panel reads SESSIONS.md, adds an entry on top and saves the whole file back, again
    // and again, while the writer records. A copy of a version that never became the file's (a
    // write trilogy took back when it raced another) is a 409: the panel reads again and redoes
    let mut saved = Vec::new();
    let mut conflicts: Vec<String> = Vec::new();
    for n in 0..10 {
        let line = format!("panel entry {n}, checked by eye");
        for _ in 0..5 {
            let (text, version) = served(&s, &ws, "SESSIONS.md");
            let i = text.find("\n## ").map_or(text.len(), |i| i + 1);
            let edited = format!(
                "{}## 2026-11-29 · panel\n完成：{line}\n\n{}",
                &text[..i],
                &text[i..]
            );
            let r = s.post(
                "/trilogy/save",
                &json!({ "root": root(&ws), "file": "SESSIONS.md", "text": edited, "version": version }),
            );
            match r.status {
                200 => {
                    saved.push(line.clone());
                    break;
                }
                409 => conflicts.push(r.body.clone()),
                other => panic!("{other}: {}", r.body),
            }
        }
    }
    let acknowledged = writer.join().unwrap();
    ws.ok(&["status"]);
    let log = ws.read("SESSIONS.md");
    let missing: Vec<&String> = acknowledged
        .iter()
        .filter(|a| !log.contains(a.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} lost: {missing:?}",
        missing.len(),
        acknowledged.len()
    );
    for line in &saved {
        assert!(log.contains(line.as_str()), "lost {line}");
    }
    // adding on top never clashes with what others recorded: a conflict is only ever a copy
    // trilogy no longer knows, and reading again resolves it
    assert!(
        conflicts.iter().all(|c| c.contains("no longer known")),
        "{conflicts:?}"
    );
    assert_eq!(saved.len(), 10, "{conflicts:?}");
}

#[test]
fn a_panel_save_that_removes_an_entry_changed_since_is_a_conflict_and_writes_nothing() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--because",
        "it is transactional",
    ]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use bincode",
        "--because",
        "it is compact",
    ]);
    let s = Server::start(&ws);
    let (text, version) = served(&s, &ws, "DECISIONS.md");
    // meanwhile an agent marks the decision superseded
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use postcard",
        "--because",
        "bincode 2 changed its format",
        "--supersedes",
        "use bincode",
    ]);
    let before = ws.snapshot();
    let start = text.find("## 2026-11-29 — use bincode").unwrap();
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |e| start + e + 1);
    let edited = format!("{}{}", &text[..start], &text[end..]);
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "DECISIONS.md", "text": edited, "version": version }),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.error().contains("use bincode"), "{}", r.body);
    assert!(r.error().contains("read the file again"), "{}", r.body);
    assert_eq!(ws.snapshot(), before);
    // a version no server gave out is refused, naming the field
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "DECISIONS.md", "text": edited, "version": "v9" }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.error().contains("`version`"), "{}", r.body);
}

#[test]
fn a_panel_deletion_of_the_newest_entry_is_honoured_at_once() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "keep me; tested"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "the agent's wrong entry; tested",
    ]);
    let s = Server::start(&ws);
    let (text, version) = served(&s, &ws, "SESSIONS.md");
    let edited = text.replacen(
        "## 2026-11-29\n完成：the agent's wrong entry; tested\n\n",
        "",
        1,
    );
    assert_ne!(edited, text);
    // an agent records meanwhile: the panel's copy never held it, so it stays
    ws.ok(&["checkpoint", "--session-done", "recorded meanwhile; tested"]);
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "SESSIONS.md", "text": edited, "version": version }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let file = ws.read("SESSIONS.md");
    assert!(!file.contains("wrong entry"), "{file}");
    assert!(file.contains("keep me"), "{file}");
    assert!(file.contains("recorded meanwhile"), "{file}");
}
