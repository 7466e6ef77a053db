//! Saves of PROJECT.md and USER.md made from an older copy, by real processes: an editor holds
//! the file while an agent writes a line into one section and the person saves an edit of
//! another. The save is merged by section and by line against the copy it was made from: what
//! the agent wrote stays, what the person changed is taken, and a line both changed is kept
//! both ways and shown by `status` until the person deletes one.

use crate::common;

use std::time::Duration;

use common::{Ws, text};
use serde_json::Value;

/// `text` with the body of section `heading` replaced by `body`.
fn with_section(text: &str, heading: &str, body: &str) -> String {
    let head = format!("## {heading}\n");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no {heading}:\n{text}"))
        + head.len();
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |i| start + i + 1);
    let tail = if end == text.len() { "" } else { "\n" };
    format!("{}\n{body}\n{tail}{}", &text[..start], &text[end..])
}

/// The lines of section `heading` in `text`, blank ones left out.
fn section_lines(text: &str, heading: &str) -> Vec<String> {
    let head = format!("## {heading}\n");
    let Some(at) = text.find(&head) else {
        return Vec::new();
    };
    let rest = &text[at + head.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// A person's save, a moment after the file was last written (an editor's save lands later
/// than the write it races with).
fn save(path: &std::path::Path, text: &str) {
    std::thread::sleep(Duration::from_millis(100));
    std::fs::write(path, text).unwrap();
}

fn state_line(ws: &Ws, line: &str) {
    ws.ok(&["checkpoint", "--section", "现状", "--line", line]);
}

#[test]
fn a_save_of_traps_from_an_older_copy_keeps_the_state_line_written_meanwhile() {
    let ws = Ws::init();
    state_line(&ws, "the parser reads fences");
    let copy = ws.read("PROJECT.md");
    state_line(
        &ws,
        "the agent's line, written while the editor held the file",
    );
    save(
        &ws.path("PROJECT.md"),
        &with_section(&copy, "坑", "the person's trap"),
    );
    ws.ok(&["checkpoint", "--session-done", "after the save; tested"]);
    let file = ws.read("PROJECT.md");
    assert_eq!(
        section_lines(&file, "现状"),
        [
            "the parser reads fences",
            "the agent's line, written while the editor held the file"
        ],
        "{file}"
    );
    assert_eq!(section_lines(&file, "坑"), ["the person's trap"], "{file}");
    // the store's section, which the block is made from, holds it too
    let block = ws.json(&["read", "PROJECT.md"]);
    assert!(block.to_string().contains("the agent's line"), "{block}");
    let st = ws.ok(&["status"]);
    assert!(!st.contains("CONFLICT"), "{st}");
}

#[test]
fn a_line_the_person_changed_is_taken_beside_the_agents_new_line() {
    let ws = Ws::init();
    state_line(&ws, "builds with make");
    state_line(&ws, "tests take 2 minutes");
    let copy = ws.read("PROJECT.md");
    state_line(&ws, "the agent's new line");
    let edited = copy.replace("builds with make", "builds with cargo");
    save(&ws.path("PROJECT.md"), &edited);
    ws.ok(&["checkpoint", "--session-done", "after the save; tested"]);
    let file = ws.read("PROJECT.md");
    assert_eq!(
        section_lines(&file, "现状"),
        [
            "builds with cargo",
            "tests take 2 minutes",
            "the agent's new line"
        ],
        "{file}"
    );
    let st: Value = ws.json(&["status"]);
    assert_eq!(st["section_conflicts"], serde_json::json!([]), "{st}");
}

#[test]
fn a_line_changed_two_ways_keeps_both_and_status_shows_it_until_one_goes() {
    let ws = Ws::init();
    state_line(&ws, "the server listens on 8080");
    state_line(&ws, "logs go to stderr");
    let copy = ws.read("PROJECT.md");
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--line",
        "the server listens on 9090",
        "--replaces",
        "the server listens on 8080",
    ]);
    save(
        &ws.path("PROJECT.md"),
        &copy.replace("listens on 8080", "listens on 7070"),
    );
    ws.ok(&["checkpoint", "--session-done", "after the save; tested"]);
    let file = ws.read("PROJECT.md");
    assert_eq!(
        section_lines(&file, "现状"),
        [
            "the server listens on 7070",
            "the server listens on 9090",
            "logs go to stderr"
        ],
        "{file}"
    );
    assert!(
        !file.contains("<<<<<<<") && !file.contains(">>>>>>>"),
        "{file}"
    );
    let st = ws.ok(&["status"]);
    assert!(st.contains("CONFLICT: PROJECT.md `现状`"), "{st}");
    assert!(st.contains("the server listens on 7070"), "{st}");
    assert!(st.contains("the server listens on 9090"), "{st}");
    let js: Value = ws.json(&["status"]);
    let c = &js["section_conflicts"][0];
    assert_eq!(c["file"], "PROJECT.md", "{js}");
    assert_eq!(c["section"], "现状", "{js}");
    assert_eq!(
        c["saved"],
        serde_json::json!(["the server listens on 7070"])
    );
    assert_eq!(
        c["other"],
        serde_json::json!(["the server listens on 9090"])
    );
    // an agent asking for the status is told too
    let r = ws.mcp_tool("s1", "memory_status", serde_json::json!({}));
    assert_eq!(
        r["structuredContent"]["section_conflicts"][0]["other"],
        serde_json::json!(["the server listens on 9090"]),
        "{r}"
    );
    assert!(r.to_string().contains("changed two ways, both kept"), "{r}");
    // the person keeps one: settled, no longer shown
    let now = ws.read("PROJECT.md");
    save(
        &ws.path("PROJECT.md"),
        &now.replace("the server listens on 9090\n", ""),
    );
    let st: Value = ws.json(&["status"]);
    assert_eq!(st["section_conflicts"], serde_json::json!([]), "{st}");
    ws.ok(&["checkpoint", "--session-done", "settled; tested"]);
    assert_eq!(
        section_lines(&ws.read("PROJECT.md"), "现状"),
        ["the server listens on 7070", "logs go to stderr"]
    );
}

/// Two workspaces sharing one user memory.
fn two_projects() -> (tempfile::TempDir, Ws, Ws) {
    let user = tempfile::tempdir().unwrap();
    let a = Ws::sharing_user(user.path());
    let b = Ws::sharing_user(user.path());
    a.ok(&["init"]);
    b.ok(&["init"]);
    (user, a, b)
}

fn user_add(ws: &Ws, section: &str, line: &str, replaces: Option<&str>) {
    let mut args = vec!["user", "add", "--section", section, "--line", line];
    if let Some(r) = replaces {
        args.extend(["--replaces", r]);
    }
    ws.ok(&args);
}

fn user_text(ws: &Ws) -> String {
    std::fs::read_to_string(ws.user_md()).unwrap()
}

#[test]
fn a_user_md_save_of_one_section_keeps_lines_added_from_other_projects() {
    let (_user, a, b) = two_projects();
    user_add(&a, "偏好", "answer with the conclusion first", None);
    let copy = user_text(&a);
    user_add(&a, "偏好", "line from project a", None);
    user_add(&b, "环境", "line from project b", None);
    save(
        &a.user_md(),
        &with_section(&copy, "教训", "the person's lesson"),
    );
    user_add(&b, "约定", "after the save", None);
    let file = user_text(&a);
    assert_eq!(
        section_lines(&file, "偏好"),
        ["answer with the conclusion first", "line from project a"],
        "{file}"
    );
    assert_eq!(
        section_lines(&file, "环境"),
        ["line from project b"],
        "{file}"
    );
    assert_eq!(
        section_lines(&file, "教训"),
        ["the person's lesson"],
        "{file}"
    );
    assert_eq!(section_lines(&file, "约定"), ["after the save"], "{file}");
}

#[test]
fn a_user_md_line_the_person_changed_is_taken_beside_a_new_one() {
    let (_user, a, b) = two_projects();
    user_add(&a, "环境", "rg is in /usr/bin", None);
    user_add(&a, "环境", "git is in /usr/bin", None);
    let copy = user_text(&a);
    user_add(&b, "环境", "fd is in /usr/local/bin", None);
    save(
        &a.user_md(),
        &copy.replace("rg is in /usr/bin", "rg is in /opt/bin"),
    );
    user_add(&a, "约定", "after the save", None);
    let file = user_text(&a);
    assert_eq!(
        section_lines(&file, "环境"),
        [
            "rg is in /opt/bin",
            "git is in /usr/bin",
            "fd is in /usr/local/bin"
        ],
        "{file}"
    );
    let st: Value = a.json(&["status"]);
    assert_eq!(st["section_conflicts"], serde_json::json!([]), "{st}");
}

#[test]
fn a_user_md_line_changed_two_ways_keeps_both_and_every_projects_status_shows_it() {
    let (_user, a, b) = two_projects();
    user_add(&a, "环境", "proxy 127.0.0.1:1080", None);
    user_add(&a, "环境", "shell zsh", None);
    let copy = user_text(&a);
    user_add(
        &b,
        "环境",
        "proxy 127.0.0.1:7890",
        Some("proxy 127.0.0.1:1080"),
    );
    save(
        &a.user_md(),
        &copy.replace("127.0.0.1:1080", "127.0.0.1:3128"),
    );
    user_add(&a, "约定", "after the save", None);
    let file = user_text(&a);
    assert_eq!(
        section_lines(&file, "环境"),
        ["proxy 127.0.0.1:3128", "proxy 127.0.0.1:7890", "shell zsh"],
        "{file}"
    );
    for ws in [&a, &b] {
        let st = ws.ok(&["status"]);
        assert!(st.contains("CONFLICT: USER.md `环境`"), "{st}");
        let js: Value = ws.json(&["status"]);
        let c = &js["section_conflicts"][0];
        assert_eq!(c["file"], "USER.md", "{js}");
        assert_eq!(c["saved"], serde_json::json!(["proxy 127.0.0.1:3128"]));
        assert_eq!(c["other"], serde_json::json!(["proxy 127.0.0.1:7890"]));
    }
    // settled by keeping one
    save(
        &a.user_md(),
        &user_text(&a).replace("proxy 127.0.0.1:7890\n", ""),
    );
    user_add(&b, "约定", "settled", None);
    let st: Value = b.json(&["status"]);
    assert_eq!(st["section_conflicts"], serde_json::json!([]), "{st}");
    assert_eq!(
        section_lines(&user_text(&a), "环境"),
        ["proxy 127.0.0.1:3128", "shell zsh"]
    );
}

#[test]
fn a_section_the_person_deleted_goes_and_one_written_since_stays() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--section", "坑", "--line", "an old trap"]);
    state_line(&ws, "state before");
    let copy = ws.read("PROJECT.md");
    // the person deletes the whole Traps section; meanwhile an agent writes into State
    state_line(&ws, "state written meanwhile");
    let at = copy.find("## 坑").unwrap();
    save(
        &ws.path("PROJECT.md"),
        &format!("{}\n", copy[..at].trim_end()),
    );
    ws.ok(&["checkpoint", "--session-done", "after; tested"]);
    let file = ws.read("PROJECT.md");
    assert!(!file.contains("an old trap"), "{file}");
    assert!(file.contains("state written meanwhile"), "{file}");
    // an agent's line in a section the person deleted from an older copy stays
    let copy = ws.read("PROJECT.md");
    ws.ok(&["checkpoint", "--section", "这是什么", "--line", "a tool"]);
    let at = copy.find("## 这是什么").unwrap();
    let end = copy[at..].find("\n## ").unwrap() + at + 1;
    save(
        &ws.path("PROJECT.md"),
        &format!("{}{}", &copy[..at], &copy[end..]),
    );
    let out = ws.run(&["checkpoint", "--session-done", "again; tested"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = ws.read("PROJECT.md");
    assert!(file.contains("a tool"), "{file}");
}

#[test]
fn a_deletion_of_the_newest_line_is_kept_once_and_said_then_honoured_when_made_again() {
    // a copy without the newest line is also what a copy read before it was written looks
    // like: trilogy keeps the line, says so, and takes the same deletion made again as meant
    let ws = Ws::init();
    state_line(&ws, "an older line");
    state_line(&ws, "the agent's wrong line");
    let without = ws
        .read("PROJECT.md")
        .replace("the agent's wrong line\n", "");
    save(&ws.path("PROJECT.md"), &without);
    ws.ok(&["checkpoint", "--session-done", "next; tested"]);
    assert!(ws.read("PROJECT.md").contains("the agent's wrong line"));
    let st = ws.ok(&["status"]);
    assert!(st.contains("KEPT:"), "{st}");
    assert!(st.contains("the agent's wrong line"), "{st}");
    save(&ws.path("PROJECT.md"), &without);
    ws.ok(&["checkpoint", "--session-done", "after; tested"]);
    let file = ws.read("PROJECT.md");
    assert_eq!(section_lines(&file, "现状"), ["an older line"], "{file}");
}

#[test]
fn a_plain_edit_of_the_newest_line_is_taken() {
    let ws = Ws::init();
    state_line(&ws, "an older line");
    state_line(
        &ws,
        "the release checklist lives in docs/release.md and is run by hand",
    );
    let copy = ws.read("PROJECT.md");
    state_line(&ws, "the agent's line written meanwhile");
    save(
        &ws.path("PROJECT.md"),
        &copy.replace("is run by hand", "is run by the CI job"),
    );
    ws.ok(&["checkpoint", "--session-done", "next; tested"]);
    let file = ws.read("PROJECT.md");
    assert_eq!(
        section_lines(&file, "现状"),
        [
            "an older line",
            "the release checklist lives in docs/release.md and is run by the CI job",
            "the agent's line written meanwhile"
        ],
        "{file}"
    );
}

#[test]
fn a_store_that_kept_no_version_of_project_md_yet_merges_its_first_stale_save() {
    // a store from before PROJECT.md's versions were kept (made with the history off)
    let ws = Ws::new();
    for args in [
        &["init"][..],
        &["checkpoint", "--section", "现状", "--line", "an older line"],
    ] {
        let out = ws
            .cmd()
            .env("TRILOGY_BENCH_NO_VERSIONS", "1")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let copy = ws.read("PROJECT.md");
    state_line(&ws, "the agent's line, the first write with versions kept");
    save(
        &ws.path("PROJECT.md"),
        &with_section(&copy, "坑", "the person's trap"),
    );
    ws.ok(&["checkpoint", "--session-done", "after the save; tested"]);
    let file = ws.read("PROJECT.md");
    assert_eq!(
        section_lines(&file, "现状"),
        [
            "an older line",
            "the agent's line, the first write with versions kept"
        ],
        "{file}"
    );
    assert_eq!(section_lines(&file, "坑"), ["the person's trap"], "{file}");
}

#[test]
fn lines_saved_into_project_md_after_trilogy_replaced_it_are_taken_in() {
    use std::io::Write;
    let ws = Ws::init();
    state_line(&ws, "a state line");
    let copy = ws.read("PROJECT.md");
    let whole = with_section(
        &with_section(&copy, "现状", "a state line\nthe person's state line"),
        "坑",
        "the person's trap",
    );
    // an editor saves in two writes; a command absorbs the first part (Traps looks deleted)
    // and replaces the file before the rest lands in the version it replaced
    let cut = whole.find("## 坑").unwrap();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(ws.path("PROJECT.md"))
        .unwrap();
    f.write_all(&whole.as_bytes()[..cut]).unwrap();
    f.flush().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    state_line(&ws, "the agent's line between the writes");
    assert!(
        !ws.read("PROJECT.md").contains("## 坑"),
        "the first part was taken"
    );
    f.write_all(&whole.as_bytes()[cut..]).unwrap();
    drop(f);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "after the late save; tested",
    ]);
    let file = ws.read("PROJECT.md");
    assert_eq!(
        section_lines(&file, "现状"),
        [
            "a state line",
            "the person's state line",
            "the agent's line between the writes"
        ],
        "{file}"
    );
    assert_eq!(section_lines(&file, "坑"), ["the person's trap"], "{file}");
    let log = ws.ok(&["log", "-n", "20"]);
    assert!(
        log.contains("saved after trilogy replaced the file"),
        "{log}"
    );
}
