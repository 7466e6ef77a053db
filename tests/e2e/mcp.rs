//! The MCP server through the official clients: the MCP Python SDK (its `ClientSession` lists
//! and reads the resources, subscribes and hears of a write made by another process, lists and
//! gets the prompts, answers a proposal's review prompt) and MCP Inspector's CLI (resources/list, resources/read, prompts/list).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::harness::{Kit, base_env, e2e_path, trilogy};

/// The Python of the virtual environment holding the pinned SDK (`tests/e2e/run` makes it).
fn sdk_python() -> PathBuf {
    let py = std::env::var_os("TRILOGY_E2E_PY")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e-py/bin/python")
        });
    assert!(
        py.is_file(),
        "{} is missing: make it with `python3 -m venv target/e2e-py && target/e2e-py/bin/pip \
         install -r tests/e2e/mcp-requirements.txt` (tests/e2e/run does), or point \
         TRILOGY_E2E_PY at a Python that has them",
        py.display()
    );
    py
}

/// Run `cmd` in `kit`'s environment and read the JSON it printed: the whole output (Inspector
/// prints one document over several lines), else its last line (the SDK client's).
fn run_json(kit: &Kit, mut cmd: Command, what: &str) -> Value {
    base_env(kit, &mut cmd);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{what} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_str(&stdout).ok())
        .or_else(|| serde_json::from_str(stdout.lines().last().unwrap_or_default()).ok())
        .unwrap_or_else(|| panic!("{what} printed no JSON: {stdout}"))
}

#[test]
fn the_python_sdk_reads_resources_hears_of_a_write_and_gets_the_prompts() {
    let kit = Kit::new("mcp-sdk");
    kit.seed();
    let mut cmd = Command::new(sdk_python());
    cmd.arg(e2e_path("mcp_client.py"))
        .arg(trilogy())
        .arg(&kit.project);
    let seen = run_json(&kit, cmd, "the MCP Python SDK client");
    assert_eq!(seen["server"], "trilogy");
    let resources: Vec<&str> = (seen["resources"].as_array().unwrap().iter())
        .map(|r| r.as_str().unwrap())
        .collect();
    for want in [
        "trilogy://memory/PROJECT.md",
        "trilogy://memory/DECISIONS.md",
        "trilogy://memory/SESSIONS.md",
    ] {
        assert!(resources.contains(&want), "{want} in {resources:?}");
    }
    assert!(resources.len() > 3, "PROJECT's sections too: {resources:?}");
    // read before the write, which the file holds now
    let sessions = std::fs::read_to_string(kit.project.join("memory/SESSIONS.md")).unwrap();
    let before = seen["sessions_text"].as_str().unwrap();
    assert!(before.starts_with("# SESSIONS"), "{before}");
    assert!(!before.contains("checked with the SDK"), "{before}");
    assert!(sessions.contains("checked with the SDK"), "{sessions}");
    assert_eq!(seen["updated"], "trilogy://memory/SESSIONS.md");
    assert_eq!(
        seen["prompts"],
        serde_json::json!(["record-session", "what-do-we-know", "review-proposals"])
    );
    let text = seen["prompt_text"].as_str().unwrap();
    assert!(text.contains("checked with the SDK"), "{text}");
    // the review prompt reached the client's person, whose answer was done
    let asked = seen["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{seen}");
    assert!(
        asked[0]
            .as_str()
            .unwrap()
            .contains("answer review prompts in the SDK"),
        "{asked:?}"
    );
    assert_eq!(seen["review"]["decision"], "accepted", "{seen}");
    assert_eq!(seen["review"]["by"], "elicit:mcp", "{seen}");
    let decisions = std::fs::read_to_string(kit.project.join("memory/DECISIONS.md")).unwrap();
    assert!(
        decisions.contains("answer review prompts in the SDK"),
        "{decisions}"
    );
}

#[test]
fn mcp_inspector_lists_and_reads_resources_and_lists_prompts() {
    let kit = Kit::new("mcp-inspector");
    kit.seed();
    let inspector = e2e_path("inspector/node_modules/.bin/mcp-inspector");
    assert!(
        inspector.is_file(),
        "{} is missing: install MCP Inspector with `npm ci --prefix tests/e2e/inspector` \
         (tests/e2e/run does)",
        inspector.display()
    );
    let ask = |method: &str, extra: &[&str]| -> Value {
        let mut cmd = Command::new(&inspector);
        cmd.arg("--cli")
            .arg(trilogy())
            .arg("--root")
            .arg(&kit.project)
            .arg("mcp")
            .args(["--method", method])
            .args(extra);
        run_json(&kit, cmd, method)
    };
    let listed = ask("resources/list", &[]);
    let uris: Vec<&str> = (listed["resources"].as_array().unwrap().iter())
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"trilogy://memory/DECISIONS.md"), "{uris:?}");
    let read = ask(
        "resources/read",
        &["--uri", "trilogy://memory/DECISIONS.md"],
    );
    let decisions = std::fs::read_to_string(kit.project.join("memory/DECISIONS.md")).unwrap();
    assert_eq!(
        read["contents"][0]["text"].as_str().unwrap(),
        decisions,
        "{read}"
    );
    let prompts = ask("prompts/list", &[]);
    assert_eq!(prompts["prompts"].as_array().unwrap().len(), 3, "{prompts}");
}
