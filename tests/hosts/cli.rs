//! The command line's own surface, driven through the real binary: shell completions loaded by
//! a real bash, the man page, colour only where it is wanted, no progress bar in a pipe, and
//! the global `--set` reaching hooks like every other command.

use crate::common;

use std::io::Write;
use std::process::{Output, Stdio};

use common::{Ws, session_start_payload, text};

#[test]
fn bash_completion_script_loads_in_bash_and_completes_subcommands() {
    let ws = Ws::new();
    let script = ws.ok(&["completions", "bash"]);
    let file = ws.root().join("trilogy.bash");
    std::fs::write(&file, &script).unwrap();
    let out = std::process::Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(
            r#"set -e
source "$1"
complete -p trilogy
COMP_WORDS=(trilogy che); COMP_CWORD=1
_trilogy trilogy che trilogy
echo "reply: ${COMPREPLY[*]}""#,
        )
        .arg("bash")
        .arg(&file)
        .output()
        .expect("bash must be installed to test the bash completion script");
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "bash could not load the script: {}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("-F _trilogy") && stdout.trim_end().ends_with("reply: checkpoint"),
        "{stdout}"
    );
}

#[test]
fn completions_exist_for_every_supported_shell_and_unknown_shells_are_refused() {
    let ws = Ws::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = ws.ok(&["completions", shell]);
        assert!(script.contains("trilogy"), "{shell}: {script}");
        assert!(script.contains("checkpoint"), "{shell}: {script}");
    }
    let out = ws.run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bash"), "{}", text(&out.stderr));
}

#[test]
fn man_page_is_roff_for_trilogy() {
    let ws = Ws::new();
    let page = ws.ok(&["man"]);
    assert!(
        page.lines().any(|l| l.starts_with(".TH trilogy 1")),
        "{page}"
    );
    assert!(
        page.contains(".SH NAME") && page.contains("checkpoint"),
        "{page}"
    );
}

fn demo(ws: &Ws, args: &[&str], no_color: Option<&str>) -> Output {
    let mut c = ws.cmd();
    c.env_remove("NO_COLOR");
    if let Some(v) = no_color {
        c.env("NO_COLOR", v);
    }
    let out = c.args(args).arg("demo").output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    out
}

/// Regression: `trilogy demo | less` showed raw `ESC[1m` around every step heading.
#[test]
fn demo_into_a_pipe_has_no_escape_codes_unless_asked() {
    let ws = Ws::new();
    let piped = demo(&ws, &[], None);
    assert!(!piped.stdout.contains(&0x1b), "{}", text(&piped.stdout));
    assert!(text(&piped.stdout).contains("[1] "));
    let always = demo(&ws, &["--color", "always"], None);
    assert!(
        text(&always.stdout).contains("\x1b[1m[1] "),
        "{}",
        text(&always.stdout)
    );
    // NO_COLOR turns auto off; an explicit --color always still wins over it
    let no_color = demo(&ws, &["--color", "auto"], Some("1"));
    assert!(!no_color.stdout.contains(&0x1b));
    let forced = demo(&ws, &["--color=always"], Some("1"));
    assert!(forced.stdout.contains(&0x1b));
    let never = demo(&ws, &["--color", "never"], None);
    assert!(!never.stdout.contains(&0x1b));
}

#[test]
fn reindex_into_a_pipe_draws_no_progress_bar() {
    let ws = Ws::init();
    for i in 0..30 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("step {i} done; cargo test passes"),
        ]);
    }
    let out = ws.run(&["reindex"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // thirty sessions; the five PROJECT sections still say only 暂无, which answers nothing
    assert_eq!(text(&out.stdout).trim(), "indexed 30 documents");
    assert!(out.stderr.is_empty(), "{:?}", text(&out.stderr));
    let v = ws.json(&["reindex"]);
    assert_eq!(v["documents"], 30);
}

fn session_start(ws: &Ws, set: &[&str]) -> String {
    let mut c = ws.std_cmd();
    for s in set {
        c.args(["--set", s]);
    }
    // as Claude Code runs hooks: naming the project
    let mut child = c
        .args(["hook", "claude", "session-start"])
        .env("CLAUDE_PROJECT_DIR", ws.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(session_start_payload(ws, "sess-set").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "hooks always exit 0");
    text(&out.stdout)
}

/// Regression: `trilogy --set KEY=VALUE hook …` loaded the config without the overrides.
#[test]
fn hooks_honour_set_overrides() {
    let plain = Ws::new();
    assert!(session_start(&plain, &[]).contains("## 这是什么"));

    let english = Ws::new();
    let out = session_start(&english, &["lang=en"]);
    assert!(out.contains("## What this is"), "{out}");
    assert!(!out.contains("这是什么"), "{out}");
    assert!(english.read("PROJECT.md").contains("## What this is"));

    let off = Ws::new();
    assert_eq!(session_start(&off, &["enabled=false"]), "");
    assert!(
        !off.path("PROJECT.md").exists(),
        "a disabled hook scaffolds nothing"
    );
}

/// Regression: with a stray workspace in the temporary folder itself (a user's
/// `/tmp/.trilogy`), a hook in a test's project without memory found it by walking up. The
/// walk stops below `TRILOGY_CEILING_DIRECTORIES`, which every test command sets.
#[test]
fn the_walk_for_memory_stops_below_the_ceiling() {
    let outer = tempfile::tempdir().unwrap();
    let outer = outer.path();
    std::fs::create_dir_all(outer.join(".trilogy")).unwrap();
    let project = outer.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let start = |ceiling: Option<&std::path::Path>| {
        let state = tempfile::tempdir().unwrap();
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
        c.args(["hook", "claude", "session-start"])
            .env("CLAUDE_PROJECT_DIR", &project)
            .env("TRILOGY_TODAY", common::TODAY)
            .env("TRILOGY_CONFIG", project.join("no-user-config.toml"))
            .env("XDG_STATE_HOME", state.path())
            .env("XDG_DATA_HOME", state.path().join("data"))
            .env_remove(common::CEILING)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(c_dir) = ceiling {
            c.env(common::CEILING, c_dir);
        }
        let mut child = c.spawn().unwrap();
        let payload = serde_json::json!({
            "session_id": "s", "hook_event_name": "SessionStart", "source": "startup",
            "cwd": project.display().to_string(), "transcript_path": "/nonexistent",
        });
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
    };
    // without a ceiling the stray workspace above is the project's memory: the arrangement
    // reproduces the bug
    start(None);
    assert!(outer.join("memory/PROJECT.md").is_file());
    assert!(!project.join("memory").exists());
    std::fs::remove_dir_all(outer.join("memory")).unwrap();
    // with the folder holding it as the ceiling, the project gets its own
    start(Some(outer));
    assert!(project.join("memory/PROJECT.md").is_file());
    assert!(!outer.join("memory").exists());
}
