//! End to end with the real agent CLIs at their pinned versions (`tests/e2e/package.json`):
//! `trilogy install <host>`, then the CLI runs whole turns against a scripted model on
//! 127.0.0.1, and the model's requests and the memory files show what a user would check —
//! the block arrives whole at session start, the tools are offered, a checkpoint lands in
//! SESSIONS.md, a turn that worked and recorded nothing earns the reminder, and memory stays
//! with the project when the agent moves into a subfolder (and, for Claude Code, after
//! `/compact`). A CLI that is missing fails the test: `tests/e2e/run` installs them.
//! Built only when the e2e target is named (`--test e2e`).

use crate::harness;

use std::path::Path;
use std::process::Command;

use harness::{
    Conversation, Fake, KNOWN, KNOWN_USER, Kit, NUDGE, assert_tools_listed, assert_whole_block,
    base_env, block_in, cli, mentions, run, strings, tool_names,
};
use serde_json::{Value, json};

/// How many strings of the request carry the reminder (history keeps earlier ones).
fn nudges(request: &Value) -> usize {
    strings(request)
        .iter()
        .filter(|s| s.contains(NUDGE))
        .count()
}

/// The project's settings file with one more hook on each of `events`: the spy, which
/// records the payloads the host sends (their `cwd`, the session id).
fn add_spy(kit: &Kit, settings: &Path, events: &[&str]) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(settings).unwrap()).unwrap();
    for event in events {
        v["hooks"][event]
            .as_array_mut()
            .unwrap()
            .push(json!({"hooks": [{"type": "command", "command": kit.spy_command()}]}));
    }
    std::fs::write(settings, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// The `cwd` of every hook payload the spy saw.
fn spied_cwds(kit: &Kit) -> Vec<String> {
    kit.spied()
        .iter()
        .map(|p| p["cwd"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Some hook of the session ran with its `cwd` in `sub/`.
fn hooks_ran_in_sub(kit: &Kit) -> bool {
    spied_cwds(kit).iter().any(|c| c.ends_with("/sub"))
}

#[test]
fn claude_code_gets_the_block_records_and_keeps_memory_across_cd_and_compact() {
    let kit = Kit::new("claude");
    kit.install("claude");
    kit.seed();
    add_spy(
        &kit,
        &kit.project.join(".claude/settings.json"),
        &["UserPromptSubmit", "Stop"],
    );
    // the user accepted Claude Code's trust dialog for the project once (until then it
    // ignores the project's permission rules, the one install adds for our tools included)
    let trusted =
        json!({"projects": {kit.project.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(kit.home.join(".claude.json"), trusted.to_string()).unwrap();
    let fake = Fake::start(&kit, "fake_anthropic");
    let mut cmd = Command::new(cli("claude"));
    base_env(&kit, &mut cmd);
    cmd.current_dir(&kit.project)
        .env("ANTHROPIC_BASE_URL", fake.url())
        .env("ANTHROPIC_API_KEY", "stand-in")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash",
        ]);
    let mut claude = Conversation::start(cmd, &kit.root.join("claude.err"));
    let mut say = |text: &str| -> Value {
        let line = json!({"type": "user", "message": {"role": "user", "content": text}});
        let r = claude.turn(&line.to_string(), |v| v["type"] == "result");
        assert_eq!(r["subtype"], "success", "{text}: {r}");
        r
    };
    // the model's own requests (side requests for titles and summaries offer no Bash)
    let main = |fake: &Fake| -> Vec<Value> {
        fake.requests()
            .into_iter()
            .filter(|q| tool_names(q).iter().any(|n| n == "Bash"))
            .collect()
    };

    let first = say("hello");
    let session = first["session_id"].as_str().unwrap().to_string();
    let opening = main(&fake)
        .into_iter()
        .next()
        .expect("a request reached the model");
    assert_tools_listed(&opening);
    let block = assert_whole_block(&kit, &opening, &session);
    assert!(block.contains(KNOWN));
    // the user memory, from the user's data folder, reaches the model too
    assert!(block.contains(KNOWN_USER), "{block}");

    say("WORK please");
    assert!(kit.project.join("note.txt").is_file(), "the shell ran");
    let before = nudges(main(&fake).last().unwrap());
    say("what next?");
    assert!(
        nudges(main(&fake).last().unwrap()) > before,
        "a turn that ran a command and recorded nothing earns the reminder"
    );

    say("SAVE claude-tag-1");
    assert!(kit.sessions_md().contains("端到端检查点 claude-tag-1"));
    kit.assert_recorded_by(&session, "claude");

    // the command `cd`s: the turn's last hooks run in sub/ (Claude Code starts the next
    // prompt back in the project)
    say("CDSUB please");
    assert!(kit.project.join("sub").is_dir());
    assert!(hooks_ran_in_sub(&kit), "{:?}", spied_cwds(&kit));
    let before = nudges(main(&fake).last().unwrap());
    say("and now?");
    assert!(
        nudges(main(&fake).last().unwrap()) > before,
        "after the cd the session still has the project's memory (its owed reminder)"
    );
    kit.assert_nothing_in_sub();

    say("/compact");
    // the compaction came after work the session did not record: a draft waits for a person
    let draft = kit.assert_one_draft_waits(&session, "mkdir -p sub && cd sub && pwd");
    say("after compact");
    let after = main(&fake).pop().unwrap();
    let block = block_in(&after).expect("the block comes back after /compact");
    assert!(
        block.contains("claude-tag-1"),
        "a fresh block, with what was recorded since"
    );
    assert_whole_block(&kit, &after, &session);
    assert_eq!(kit.session(&session)["source"], "compact");

    claude.finish();
    // the session's end left no second draft beside it (a later one replaces the one waiting)
    let last = kit.assert_one_draft_waits(&session, "mkdir -p sub && cd sub && pwd");
    assert!(
        last["id"] == draft["id"]
            || kit
                .drafts()
                .iter()
                .any(|d| d["id"] == draft["id"] && d["state"] == "rejected"),
        "{:#?}",
        kit.drafts()
    );
    kit.assert_no_hook_errors();
    kit.assert_recall("claude", "WORK please");
}

/// Codex's user config: the stand-in as its model provider, the project trusted (project
/// config and hooks load only in trusted projects), no update check, no analytics.
fn codex_home(kit: &Kit, fake: &Fake) {
    let dir = kit.home.join(".codex");
    std::fs::create_dir_all(&dir).unwrap();
    let project = kit.project.display().to_string();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            r#"model = "gpt-stand-in"
model_provider = "stand-in"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.stand-in]
name = "stand-in"
base_url = "{}/v1"
wire_api = "responses"
env_key = "STAND_IN_KEY"

[projects.{}]
trust_level = "trusted"
"#,
            fake.url(),
            toml_edit::Value::from(project.as_str())
        ),
    )
    .unwrap();
}

/// `codex exec` (resuming `thread` when given) from `cwd`. Hooks a user trusts once in
/// Codex's `/hooks` review are trusted for this run by `--dangerously-bypass-hook-trust`.
fn codex(kit: &Kit, thread: Option<&str>, prompt: &str, cwd: &Path) -> Vec<Value> {
    let mut cmd = Command::new(cli("codex"));
    base_env(kit, &mut cmd);
    cmd.current_dir(cwd).env("STAND_IN_KEY", "stand-in").args([
        "exec",
        "--json",
        "--dangerously-bypass-hook-trust",
    ]);
    if let Some(t) = thread {
        cmd.args(["resume", t]);
    }
    cmd.arg(prompt);
    run(kit, cmd, "codex")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn codex_gets_the_block_whole_at_its_cap_records_and_keeps_memory_from_a_subfolder() {
    let kit = Kit::new("codex");
    kit.install("codex");
    kit.seed();
    add_spy(
        &kit,
        &kit.project.join(".codex/hooks.json"),
        &["UserPromptSubmit", "Stop"],
    );
    let fake = Fake::start(&kit, "fake_openai");
    codex_home(&kit, &fake);
    let project = kit.project.clone();

    let events = codex(&kit, None, "hello", &project);
    let thread = events
        .iter()
        .find(|e| e["type"] == "thread.started")
        .and_then(|e| e["thread_id"].as_str())
        .expect("codex exec --json names its thread")
        .to_string();
    let session = kit.spied()[0]["session_id"].as_str().unwrap().to_string();
    let opening = fake.requests().remove(0);
    assert_tools_listed(&opening);
    let block = assert_whole_block(&kit, &opening, &session);
    assert!(block.contains(KNOWN));
    assert!(block.contains(KNOWN_USER), "{block}");
    // the memory is larger than the cap: the block is sized to it, and arrives uncut
    assert!(block.contains("预算 10000 字节"), "{}", &block[..400]);
    assert!(
        block.len() > 7_000 && block.len() <= 10_000,
        "{} bytes",
        block.len()
    );
    assert!(block.lines().last().unwrap().starts_with("--- 未注入"));
    assert!(!mentions(&opening, "truncated output"));

    codex(&kit, Some(&thread), "WORK please", &project);
    assert!(project.join("note.txt").is_file(), "the shell ran");
    let before = nudges(fake.requests().last().unwrap());
    codex(&kit, Some(&thread), "what next?", &project);
    assert!(
        nudges(fake.requests().last().unwrap()) > before,
        "a turn that ran a command and recorded nothing earns the reminder"
    );

    codex(&kit, Some(&thread), "SAVE codex-tag-1", &project);
    assert!(kit.sessions_md().contains("端到端检查点 codex-tag-1"));
    kit.assert_recorded_by(&session, "codex");

    // Codex runs every command in the session's folder (a `cd` does not outlive it): the user
    // resumes the session from the subfolder instead
    codex(&kit, Some(&thread), "CDSUB please", &project);
    let sub = project.join("sub");
    assert!(sub.is_dir());
    let before = nudges(fake.requests().last().unwrap());
    codex(&kit, Some(&thread), "WORK in sub", &sub);
    assert!(sub.join("note.txt").is_file());
    assert!(hooks_ran_in_sub(&kit), "{:?}", spied_cwds(&kit));
    assert!(
        nudges(fake.requests().last().unwrap()) > before,
        "from sub/ the session still has the project's memory (the reminder the cd owed)"
    );
    kit.assert_nothing_in_sub();
    assert!(!mentions(
        fake.requests().last().unwrap(),
        "truncated output"
    ));
    assert!(kit.sessions_md().contains(KNOWN));
    // each `codex exec` ends its session: the work since the checkpoint waits as one draft
    kit.assert_one_draft_waits(&session, "mkdir -p sub && cd sub && pwd");
    kit.assert_no_hook_errors();
    kit.assert_recall("codex", "WORK please");
}

/// Gemini CLI's user settings: an API key as the way in, the project trusted (as after its
/// trust prompt), no telemetry, usage statistics or update checks.
fn gemini_home(kit: &Kit) {
    let dir = kit.home.join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
    });
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    let trusted = json!({kit.project.display().to_string(): "TRUST_FOLDER"});
    std::fs::write(dir.join("trustedFolders.json"), trusted.to_string()).unwrap();
}

/// `gemini -p` (resuming `session` when given) from `cwd`; `yolo` approves the shell. Returns
/// its JSON answer; stderr must not show Gemini refusing a tool schema.
fn gemini(
    kit: &Kit,
    fake: &Fake,
    session: Option<&str>,
    prompt: &str,
    cwd: &Path,
    yolo: bool,
) -> Value {
    let mut cmd = Command::new(cli("gemini"));
    base_env(kit, &mut cmd);
    cmd.current_dir(cwd)
        .env("GEMINI_API_KEY", "stand-in")
        .env("GOOGLE_GEMINI_BASE_URL", fake.url())
        .env("GEMINI_TELEMETRY_ENABLED", "false")
        // a fixed model: "auto" would first ask the model to route the prompt
        .args(["-m", "gemini-2.5-flash", "-o", "json"]);
    if yolo {
        cmd.args(["--approval-mode", "yolo"]);
    }
    if let Some(s) = session {
        cmd.args(["--resume", s]);
    }
    cmd.args(["-p", prompt]);
    let out = run(kit, cmd, "gemini");
    let err = std::fs::read_to_string(kit.root.join("gemini.err")).unwrap_or_default();
    assert!(
        !err.contains("Failed to compile schema"),
        "Gemini refused a tool's input schema:\n{err}"
    );
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn gemini_cli_gets_the_whole_block_records_and_keeps_memory_from_a_subfolder() {
    let kit = Kit::new("gemini");
    kit.install("gemini");
    kit.seed();
    add_spy(
        &kit,
        &kit.project.join(".gemini/settings.json"),
        &["BeforeAgent", "AfterAgent"],
    );
    gemini_home(&kit);
    let fake = Fake::start(&kit, "fake_gemini");
    let project = kit.project.clone();
    // the model's own requests (Gemini's side questions offer no tools)
    let main = |fake: &Fake| -> Vec<Value> {
        fake.requests()
            .into_iter()
            .filter(|q| !tool_names(q).is_empty())
            .collect()
    };

    let answer = gemini(&kit, &fake, None, "hello", &project, false);
    let session = answer["session_id"].as_str().unwrap().to_string();
    let opening = main(&fake)
        .into_iter()
        .next()
        .expect("a request reached the model");
    assert_tools_listed(&opening);
    let block = assert_whole_block(&kit, &opening, &session);
    assert!(block.contains(KNOWN));
    assert!(block.contains(KNOWN_USER), "{block}");
    // no host cap: the block is as large as the configured budget lets it be
    assert!(block.len() > 10_000, "{} bytes", block.len());
    assert!(!block.contains("宿主单条上限"));

    gemini(&kit, &fake, Some(&session), "WORK please", &project, true);
    assert!(project.join("note.txt").is_file(), "the shell ran");
    let before = nudges(main(&fake).last().unwrap());
    gemini(&kit, &fake, Some(&session), "what next?", &project, false);
    assert!(
        nudges(main(&fake).last().unwrap()) > before,
        "a turn that ran a command and recorded nothing earns the reminder"
    );

    // the server is trusted by install: the checkpoint runs without --approval-mode
    gemini(
        &kit,
        &fake,
        Some(&session),
        "SAVE gemini-tag-1",
        &project,
        false,
    );
    assert!(kit.sessions_md().contains("端到端检查点 gemini-tag-1"));

    // Gemini runs each command in a shell of its own: a `cd` does not outlive it, and the
    // next turn still has the project's memory (the reminder the cd turn owed)
    gemini(&kit, &fake, Some(&session), "CDSUB please", &project, true);
    let sub = project.join("sub");
    assert!(sub.is_dir());
    let before = nudges(main(&fake).last().unwrap());
    gemini(&kit, &fake, Some(&session), "and now?", &project, false);
    assert!(nudges(main(&fake).last().unwrap()) > before);
    kit.assert_nothing_in_sub();

    // a session started in the subfolder reads no project settings (Gemini resumes a session
    // only in its own folder and reads `.gemini/` of the folder it starts in): with the hooks
    // installed for the user, it gets the project's memory from above
    kit.trilogy(
        &[
            "install",
            "gemini",
            "--scope",
            "user",
            "--command",
            harness::trilogy().to_str().unwrap(),
        ],
        None,
    );
    gemini(&kit, &fake, None, "WORK in sub", &sub, true);
    assert!(sub.join("note.txt").is_file());
    let from_sub = main(&fake).pop().unwrap();
    let block = block_in(&from_sub).expect("a session started in sub/ gets the block");
    assert!(
        block.contains("gemini-tag-1"),
        "the project's memory, with what was recorded"
    );
    kit.assert_nothing_in_sub();
    kit.assert_no_hook_errors();
    // a session started in sub/ is this project's too (Gemini CLI names it in projects.json)
    kit.assert_recall("gemini", "WORK in sub");
}
