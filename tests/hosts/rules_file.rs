//! The rules file a host without hooks re-reads every turn (`AGENTS.local.md` for DeepSeek
//! Harness) follows a checkpoint made through the library, as it does one made through the
//! CLI or the MCP server: the write refreshes it, and a file that cannot be refreshed is
//! carried back in the outcome, never in its JSON.

use std::path::Path;

use trilogy::config::Config;
use trilogy::ops::{self, CheckpointInput, SessionInput};
use trilogy::workspace::{Clock, Workspace};

fn workspace(dir: &Path) -> Workspace {
    let ws = Workspace::new(
        dir.to_path_buf(),
        Config::default(),
        Clock {
            today: chrono::NaiveDate::from_ymd_opt(2026, 11, 29),
            now_ms: None,
        },
    );
    ops::init(&ws).unwrap();
    ws
}

fn session(done: &str) -> CheckpointInput {
    CheckpointInput {
        sessions: vec![SessionInput {
            done: done.into(),
            area: Some("hosts".into()),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// `AGENTS.local.md` with a line of the person's own and the memory block after it.
fn rules_file(ws: &Workspace) -> std::path::PathBuf {
    let path = ws.root.join(ops::regions::DEFAULT_BLOCK_FILE);
    std::fs::write(&path, "# local notes\n\nkeep me\n").unwrap();
    ops::regions::write_block(ws, Path::new(ops::regions::DEFAULT_BLOCK_FILE)).unwrap();
    path
}

#[test]
fn a_library_checkpoint_refreshes_the_block_in_agents_local_md() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let path = rules_file(&ws);
    assert!(
        !std::fs::read_to_string(&path)
            .unwrap()
            .contains("rules file follows")
    );
    let out = ops::checkpoint(&ws, "test", &session("the rules file follows; tested")).unwrap();
    assert!(!out.value.written.is_empty());
    assert_eq!(out.value.rules_unrefreshed, Vec::<String>::new());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# local notes\n\nkeep me\n"), "{text}");
    assert!(text.contains("rules file follows"), "{text}");
}

#[test]
fn a_checkpoint_that_writes_nothing_leaves_the_rules_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let input = session("recorded once; tested");
    ops::checkpoint(&ws, "test", &input).unwrap();
    let path = rules_file(&ws);
    // a person's edit inside the region stays until a write refreshes it
    let written = std::fs::read_to_string(&path).unwrap();
    let edited = written.replace("recorded once", "edited by hand");
    assert_ne!(edited, written, "the block shows the session");
    std::fs::write(&path, &edited).unwrap();
    let again = ops::checkpoint(&ws, "test", &input).unwrap();
    assert!(again.value.written.is_empty(), "{:?}", again.value.written);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
}

#[cfg(unix)]
#[test]
fn a_rules_file_that_cannot_be_refreshed_is_named_in_the_outcome_and_not_in_its_json() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let path = rules_file(&ws);
    let fifo = ws.root.join(".windsurfrules");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let out = ops::checkpoint(&ws, "test", &session("beside a FIFO; tested")).unwrap();
    let failed = &out.value.rules_unrefreshed;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].contains(".windsurfrules") && failed[0].contains("not a regular file"),
        "{failed:?}"
    );
    // the other rules file is refreshed all the same
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("beside a FIFO")
    );
    let json = serde_json::to_value(&out.value).unwrap();
    assert!(json.get("rules_unrefreshed").is_none(), "{json}");
    assert!(!json.to_string().contains("windsurfrules"), "{json}");
}

#[test]
fn the_outcome_json_keeps_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let out = ops::checkpoint(&ws, "test", &session("keys as they were; tested")).unwrap();
    let json = serde_json::to_value(&out.value).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "summary",
            "written",
            "ids",
            "dropped_lines",
            "warnings",
            "archived",
            "report",
            "areas",
            "area_line",
        ]
    );
}
