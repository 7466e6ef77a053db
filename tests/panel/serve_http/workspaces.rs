//! The workspace list and its rows: listing and reading a root, clearing one, forgetting a
//! row (ours and the original plugin's).

use super::*;

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
