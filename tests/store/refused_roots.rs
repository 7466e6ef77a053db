//! Memory never goes where no project is: `/`, the home folder and the folders above it, the
//! system's own folders. Whatever asks — the working directory, `--root`, a hook, the panel —
//! gets an error that says how to choose a project folder, and nothing is created there.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{private_env, text};

/// Every name in `dir` (not recursive).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The binary with `home` as `HOME`, run in `cwd`.
fn trilogy(home: &Path, cwd: &Path, state: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
    c.current_dir(cwd)
        .env("HOME", home)
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", home.join("no-user-config.toml"))
        .envs(private_env(state));
    c
}

#[test]
fn a_checkpoint_in_the_home_folder_is_refused_and_creates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let before = names(home.path());
    let out = trilogy(home.path(), home.path(), state.path())
        .args(["checkpoint", "--session-done", "x; tested"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("the home folder"), "{err}");
    assert!(err.contains("--root"), "{err}");
    assert_eq!(names(home.path()), before);
    // named with --root, the same
    let out = trilogy(home.path(), state.path(), state.path())
        .arg("--root")
        .arg(home.path())
        .args(["init"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(names(home.path()), before);
}

/// What a first command writes in a workspace's root: the memory folder, the store's folder,
/// the settings and the instructions file the boot block goes into.
const OURS: [&str; 5] = [
    "memory",
    ".trilogy",
    "trilogy.toml",
    "AGENTS.md",
    ".gitattributes",
];

/// Which of [`OURS`] are in `dir` (a shared folder is never listed whole: other programs and
/// tests create and delete their own files there meanwhile).
fn ours_in(dir: &Path) -> Vec<&'static str> {
    OURS.into_iter()
        .filter(|n| dir.join(n).symlink_metadata().is_ok())
        .collect()
}

#[test]
fn the_filesystem_root_and_system_folders_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    for root in ["/", "/etc", "/usr", "/tmp"] {
        let before = ours_in(Path::new(root));
        let out = trilogy(home.path(), state.path(), state.path())
            .args(["--root", root, "checkpoint", "--session-done", "x; tested"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{root}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("trilogy keeps no memory in"),
            "{root}"
        );
        assert_eq!(ours_in(Path::new(root)), before, "{root}");
    }
    // nothing at all is created: the refusal comes before any file is touched, as a folder
    // of this test's own shows (the folder above the home folder is refused the same way)
    let private = tempfile::tempdir().unwrap();
    let above = private.path().join("above");
    let inner_home = above.join("home");
    std::fs::create_dir_all(&inner_home).unwrap();
    let before = names(&above);
    let out = trilogy(&inner_home, state.path(), state.path())
        .arg("--root")
        .arg(&above)
        .args(["checkpoint", "--session-done", "x; tested"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("trilogy keeps no memory in"));
    assert_eq!(names(&above), before);
}

#[test]
fn a_project_below_the_home_folder_is_fine() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let project = home.path().join("src/app");
    std::fs::create_dir_all(&project).unwrap();
    let out = trilogy(home.path(), &project, state.path())
        .args(["checkpoint", "--session-done", "x; tested"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(project.join("memory/SESSIONS.md").is_file());
}

#[test]
fn a_session_start_hook_in_the_home_folder_answers_nothing_and_creates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let before = names(home.path());
    let payload = serde_json::json!({
        "session_id": "s1",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": home.path().display().to_string(),
        "transcript_path": "/nonexistent",
    });
    let mut c = trilogy(home.path(), home.path(), state.path());
    c.args(["hook", "claude", "session-start"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        !text(&out.stdout).contains("SESSIONS"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(names(home.path()), before);
}

#[test]
fn a_fifo_where_a_memory_file_belongs_is_refused_instead_of_hanging() {
    let ws = common::Ws::init();
    let path = ws.path("SESSIONS.md");
    std::fs::remove_file(&path).unwrap();
    let made = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(made.success());
    for args in [
        vec!["status"],
        vec!["checkpoint", "--session-done", "x; tested"],
    ] {
        let mut child = ws
            .std_cmd()
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // a hang is the failure: give it far more than it needs, then stop it
        let mut done = None;
        for _ in 0..600 {
            if let Some(st) = child.try_wait().unwrap() {
                done = Some(st);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let Some(st) = done else {
            let _ = child.kill();
            panic!("trilogy {args:?} hung on a FIFO");
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(!st.success(), "{args:?}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
}

/// A client of the MCP server that names its roots (deprecated by the newest protocol, still
/// what hosts send).
#[allow(deprecated)]
struct RootsClient {
    roots: rmcp::model::ListRootsResult,
}

#[allow(deprecated)]
impl rmcp::ClientHandler for RootsClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(serde_json::json!({
            "protocolVersion": "2025-06-18",
            "capabilities": { "roots": {} },
            "clientInfo": { "name": "roots-client", "version": "1" }
        }))
        .unwrap()
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(self.roots.clone())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_mcp_client_whose_root_is_the_home_folder_or_the_filesystem_root_gets_an_error() {
    use rmcp::ServiceExt;
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    for root in [home.path().to_path_buf(), std::path::PathBuf::from("/")] {
        let before = names(home.path());
        let mut c = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
        c.arg("mcp")
            .current_dir(state.path())
            .env("HOME", home.path())
            .env("TRILOGY_TODAY", common::TODAY)
            .env("TRILOGY_CONFIG", home.path().join("no-user-config.toml"))
            .envs(private_env(state.path()))
            .stderr(std::process::Stdio::null());
        let roots = serde_json::from_value(serde_json::json!({
            "roots": [{ "uri": format!("file://{}", root.display()) }]
        }))
        .unwrap();
        let client = RootsClient { roots }
            .serve(rmcp::transport::TokioChildProcess::new(c).unwrap())
            .await
            .unwrap();
        let args = serde_json::json!({ "sessions": [{ "done": "x; tested" }] });
        let r = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("memory_checkpoint")
                    .with_arguments(args.as_object().unwrap().clone()),
            )
            .await;
        let said = match r {
            Ok(res) => {
                assert_eq!(res.is_error, Some(true), "{root:?}: {res:?}");
                serde_json::to_string(&res.content).unwrap()
            }
            Err(e) => e.to_string(),
        };
        assert!(said.contains("trilogy keeps no memory"), "{root:?}: {said}");
        client.cancel().await.unwrap();
        assert_eq!(
            names(home.path()),
            before,
            "{root:?}: nothing in the home folder"
        );
        assert!(!Path::new("/memory").exists() && !Path::new("/AGENTS.md").exists());
    }
}
