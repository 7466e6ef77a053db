//! The user store under several writers: eight processes in four workspaces, revisions kept
//! and restorable with doctor looking at them, and a writer that never stalls a session start.

use super::*;

#[test]
fn eight_processes_in_four_workspaces_write_user_lines_at_once_and_each_lands_once() {
    let shared = tempfile::tempdir().unwrap();
    let spaces: Vec<Ws> = (0..4)
        .map(|_| {
            let w = Ws::sharing_user(shared.path());
            w.ok(&["init"]);
            w
        })
        .collect();
    // each workspace's agent proposes lines, which the person accepts while writing more
    let mut proposals = Vec::new();
    for (i, w) in spaces.iter().enumerate() {
        for k in 0..3 {
            let batch =
                json!({"user":[{"section":"约定","line":format!("proposed {i}-{k}")}]}).to_string();
            let out: Value =
                serde_json::from_str(&w.ok_stdin(&["checkpoint", "--json", "-"], &batch)).unwrap();
            proposals.push((i, out["proposed"][0].as_str().unwrap().to_string()));
        }
    }
    let mut expected: Vec<String> = proposals
        .iter()
        .enumerate()
        .map(|(n, (i, _))| format!("proposed {i}-{}", n % 3))
        .collect();
    for round in 0..3 {
        let mut children = Vec::new();
        for (i, w) in spaces.iter().enumerate() {
            let line = format!("written {i}-{round}");
            expected.push(line.clone());
            children.push(
                w.std_cmd()
                    .args(["user", "add", "--section", "偏好", "--line", &line])
                    .output_async(),
            );
            let id = &proposals[i * 3 + round].1;
            children.push(w.std_cmd().args(["review", "accept", id]).output_async());
        }
        for c in children {
            let out = c.join();
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
    }
    let file = std::fs::read_to_string(spaces[0].user_md()).unwrap();
    for line in &expected {
        assert_eq!(
            file.matches(&format!("{line}\n")).count(),
            1,
            "{line} once in:\n{file}"
        );
    }
    let show = spaces[3].json(&["user", "show"]);
    assert_eq!(show["pending"], 0, "{show}");

    // killed in the middle of a write: the file and the store still agree afterwards
    let killed = spaces[1]
        .cmd()
        .env("TRILOGY_CRASH_AT", "after-first-write")
        .args([
            "user",
            "add",
            "--section",
            "教训",
            "--line",
            "killed mid-write",
        ])
        .output()
        .unwrap();
    assert!(!killed.status.success());
    let after = spaces[2].json(&["user", "show"]);
    let lessons = after["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["heading"] == "教训")
        .unwrap();
    assert_eq!(lessons["lines"], json!(["killed mid-write"]), "{after}");
    let file = std::fs::read_to_string(spaces[0].user_md()).unwrap();
    assert_eq!(file.matches("killed mid-write").count(), 1, "{file}");
    for line in &expected {
        assert!(file.contains(line.as_str()), "{line} kept");
    }
}

/// A spawned process's output, collected on a thread so all of them run at once.
trait Async {
    fn output_async(&mut self) -> Pending;
}

struct Pending(std::thread::JoinHandle<std::process::Output>);

impl Pending {
    fn join(self) -> std::process::Output {
        self.0.join().unwrap()
    }
}

impl Async for std::process::Command {
    fn output_async(&mut self) -> Pending {
        let child = self
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        Pending(std::thread::spawn(move || {
            child.wait_with_output().unwrap()
        }))
    }
}

#[test]
fn revisions_are_listed_and_restorable_and_doctor_looks_at_the_user_memory() {
    let ws = Ws::init();
    // nothing to look at before first use
    assert!(!ws.ok(&["doctor"]).contains("USER.md"));
    ws.ok(&[
        "user",
        "add",
        "--section",
        "Environment",
        "--line",
        "proxy 127.0.0.1:1080",
    ]);
    ws.ok(&[
        "user",
        "add",
        "--section",
        "Environment",
        "--line",
        "proxy 127.0.0.1:7890",
        "--replaces",
        "proxy 127.0.0.1:1080",
    ]);
    let log = ws.json(&["user", "log", "--section", "Environment"]);
    let revisions = log["revisions"]
        .as_array()
        .unwrap_or_else(|| panic!("{log}"));
    assert!(revisions.len() >= 2, "{log}");
    let old = revisions
        .iter()
        .find(|r| r["body"].as_str().unwrap_or_default().contains("1080"))
        .unwrap_or_else(|| panic!("the replaced line is in the history: {log}"));
    let rev = old["revision"].as_u64().unwrap().to_string();
    ws.ok(&["user", "restore", "--section", "环境", "--revision", &rev]);
    let file = user_file(&ws);
    assert!(
        file.contains("proxy 127.0.0.1:1080") && !file.contains("7890"),
        "{file}"
    );

    // a healthy user memory adds nothing to doctor's report
    let report = ws.json(&["doctor"]);
    assert!(!report.to_string().contains("\"user\""), "{report}");
    assert!(ws.ok(&["doctor"]).contains("all checks passed"));
    // a file that does not parse is a warning naming it and the line
    std::fs::write(ws.user_md(), format!("{file}<<<<<<< HEAD\nx\n")).unwrap();
    let report = ws.json(&["doctor"]);
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "user")
        .unwrap()
        .clone();
    assert_eq!(f["level"], "warn", "{report}");
    assert!(
        f["message"].as_str().unwrap().contains("USER.md line"),
        "{f}"
    );
    std::fs::write(ws.user_md(), &file).unwrap();
    // a damaged store is set aside and rebuilt from USER.md by --fix
    let store = ws.user_md().with_file_name(".trilogy").join("store.redb");
    std::fs::write(&store, b"not a redb file at all").unwrap();
    let bad = ws.run(&["doctor", "--json"]);
    let bad: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert!(
        bad["findings"].to_string().contains("user memory's store"),
        "{bad}"
    );
    let fixed = ws.run(&["doctor", "--fix", "--json"]);
    let fixed: Value = serde_json::from_slice(&fixed.stdout).unwrap();
    assert!(
        fixed["fixed"].to_string().contains("damaged store"),
        "{fixed}"
    );
    assert!(ws.ok(&["user"]).contains("proxy 127.0.0.1:1080"));
}

#[test]
fn a_writer_holding_the_user_store_never_stalls_a_session_start() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let mark = ws.state.path().join("paused");
    let mut writer = ws
        .std_cmd()
        .args(["user", "add", "--section", "教训", "--line", "写到一半停住"])
        .env("TRILOGY_PAUSE_AT", "before-write:4000")
        .env("TRILOGY_PAUSE_MARK", &mark)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for(&mark, "the writer never reached its pause");
    // it holds the user store's write lock now: a session start that could wait one
    // millisecond for it still gets the user memory, read from a snapshot
    let out = ws
        .cmd()
        .env("TRILOGY_LOCK_TIMEOUT_MS", "1")
        .args(["inject"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(user_part(&text(&out.stdout)).contains("先给结论"));
    assert!(writer.wait().unwrap().success());
    assert!(user_part(&ws.ok(&["inject"])).contains("写到一半停住"));
}
