//! `trilogy demo`: a guided run on a throwaway workspace.

use std::process::Command;

use crate::config::{self, LoadArgs};
use crate::error::{Error, Result};
use crate::model::{FileKind, Lang};
use crate::ops::{CheckpointInput, DecisionInput, ProjectInput, SessionInput};
use crate::workspace::{Clock, Workspace};

use super::super::style::Style;

#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Keep the demo workspace instead of deleting it at the end
    #[arg(long)]
    keep: bool,
}

fn step(style: Style, n: u32, title: &str) {
    println!("\n{}", style.bold(&format!("[{n}] {title}")));
}

fn show_cmd(args: &[&str]) -> Result<()> {
    let exe = std::env::current_exe().map_err(|e| Error::io("current executable", e))?;
    println!("$ trilogy {}", args.join(" "));
    let out = Command::new(exe)
        .args(args)
        .env_remove("TRILOGY_TODAY")
        .output()
        .map_err(|e| Error::io("trilogy", e))?;
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(Error::Internal(format!(
            "`trilogy {}` failed",
            args.join(" ")
        )));
    }
    Ok(())
}

/// The demo with the `--set` overrides, headings in `style`.
pub fn run(a: DemoArgs, overrides: &[String], style: Style) -> Result<()> {
    let keep = a.keep;
    let loaded = config::load(&LoadArgs {
        overrides: overrides.to_vec(),
        ..Default::default()
    })?;
    let dir = tempfile::Builder::new()
        .prefix("trilogy-demo-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let root = dir.path().to_path_buf();
    let root_s = root.display().to_string();
    let lang = loaded.config.lang;
    let mut set_args: Vec<String> = Vec::new();
    for o in overrides {
        set_args.push("--set".into());
        set_args.push(o.clone());
    }
    let cmd = |rest: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = vec!["--root".into(), root_s.clone()];
        v.extend(set_args.iter().cloned());
        v.extend(rest.iter().map(|s| s.to_string()));
        v
    };
    let run_cmd = |rest: &[&str]| -> Result<()> {
        let v = cmd(rest);
        let refs: Vec<&str> = v.iter().map(String::as_str).collect();
        show_cmd(&refs)
    };
    let ws = Workspace::new(root.clone(), loaded.config.clone(), Clock::default());

    println!("trilogy demo: a throwaway workspace at {root_s}");

    tour(style, lang == Lang::Zh, &ws, &root, &run_cmd)?;

    where_everything_is(&ws, &root);
    if keep {
        let kept = dir.keep();
        println!(
            "\nkept {}; try: trilogy --root {} read",
            kept.display(),
            kept.display()
        );
    } else {
        println!("\n(the demo workspace is deleted now; run `trilogy demo --keep` to keep it)");
    }
    Ok(())
}

/// The demo's checkpoint: PROJECT edits, a decision and two sessions, in the memory's language.
fn demo_batch(zh: bool) -> CheckpointInput {
    CheckpointInput {
        project: vec![
            ProjectInput {
                section: "这是什么".into(),
                text: Some(if zh {
                    "`trilogy demo` 建的演示工作区，演示结束即删除。".into()
                } else {
                    "A demo workspace built by `trilogy demo`, deleted when it ends.".into()
                }),
                ..Default::default()
            },
            ProjectInput {
                section: "Run and test".into(),
                line: Some("`cargo test`".into()),
                ..Default::default()
            },
        ],
        decisions: vec![DecisionInput {
            choice: if zh {
                "以 redb 为唯一事实来源，Markdown 是它的投影".into()
            } else {
                "redb is the source of truth; the Markdown is its projection".into()
            },
            over: Some(if zh {
                "直接读写 Markdown 文件".into()
            } else {
                "reading and writing the Markdown directly".into()
            }),
            because: Some(if zh {
                "多个会话同时写入时不能丢条目".into()
            } else {
                "several sessions write at once and no entry may be lost".into()
            }),
            ..Default::default()
        }],
        sessions: vec![
            SessionInput {
                done: if zh {
                    "沙箱禁止命名管道：改用文件锁，cargo test 通过".into()
                } else {
                    "the sandbox forbids named pipes: switched to a file lock; cargo test passes"
                        .into()
                },
                area: Some(if zh { "部署".into() } else { "deploy".into() }),
                next: Some(if zh {
                    "在 CI 里也跑一遍".into()
                } else {
                    "run it in CI too".into()
                }),
                ..Default::default()
            },
            SessionInput {
                done: if zh {
                    "搭好演示工作区，trilogy status 显示三个文件".into()
                } else {
                    "built the demo workspace; trilogy status shows three files".into()
                },
                area: Some("docs".into()),
                ..Default::default()
            },
        ],
        notes: None,
        user: Vec::new(),
    }
}

/// What a person does by hand: an entry written into the middle of SESSIONS.md, a PROJECT
/// line changed.
fn edit_by_hand(ws: &Workspace, zh: bool) -> Result<()> {
    let sessions = ws.file_path(FileKind::Sessions);
    let text = std::fs::read_to_string(&sessions).map_err(|e| Error::io(&sessions, e))?;
    let yesterday = (chrono::Local::now().date_naive() - chrono::Days::new(1)).format("%Y-%m-%d");
    let hand = if zh {
        format!(
            "## {yesterday} · 部署\n完成：手写的一条，加在文件中间；trilogy log 里能看到它被吸收\n\n"
        )
    } else {
        format!(
            "## {yesterday} · deploy\nDone: written by hand in the middle of the file; trilogy log shows it absorbed\n\n"
        )
    };
    // after the second entry: the middle of the file
    let mut at = 0;
    for _ in 0..2 {
        at += text[at..]
            .find("\n## ")
            .map(|i| i + 1)
            .unwrap_or(text.len() - at);
    }
    let at = text[at + 1..]
        .find("\n## ")
        .map(|i| at + 2 + i)
        .unwrap_or(text.len());
    let edited = format!("{}{}{}", &text[..at], hand, &text[at..]);
    std::fs::write(&sessions, edited).map_err(|e| Error::io(&sessions, e))?;
    let project = ws.file_path(FileKind::Project);
    let p = std::fs::read_to_string(&project).map_err(|e| Error::io(&project, e))?;
    std::fs::write(
        &project,
        p.replace("`cargo test`", "`cargo test --all-targets`"),
    )
    .map_err(|e| Error::io(&project, e))?;
    println!(
        "(edited {} and {} directly)",
        sessions.display(),
        project.display()
    );
    Ok(())
}

/// Where the demo's memory files, boot block and store are.
fn where_everything_is(ws: &Workspace, root: &std::path::Path) {
    println!("\nwhere everything is:");
    println!("  memory files   {}", ws.memory_dir().display());
    println!(
        "  boot block     {}",
        root.join(&ws.config.boot_block_file).display()
    );
    println!("  store          {}", ws.store_path().display());
}

/// The demo's eight steps, each command run by `run_cmd` in the workspace `ws` at `root`.
fn tour(
    style: Style,
    zh: bool,
    ws: &Workspace,
    root: &std::path::Path,
    run_cmd: &dyn Fn(&[&str]) -> Result<()>,
) -> Result<()> {
    step(
        style,
        1,
        "scaffold: memory/ from templates, plus the boot block in AGENTS.md",
    );
    run_cmd(&["init"])?;

    step(
        style,
        2,
        "record: one checkpoint with PROJECT edits, a decision and two sessions",
    );
    let input = demo_batch(zh);
    let json = serde_json::to_string(&input).map_err(|e| Error::Internal(e.to_string()))?;
    let batch = root.join("batch.json");
    std::fs::write(&batch, &json).map_err(|e| Error::io(&batch, e))?;
    println!("batch: {json}");
    run_cmd(&["checkpoint", &batch.display().to_string()])?;
    std::fs::remove_file(&batch).map_err(|e| Error::io(&batch, e))?;

    step(style, 3, "the files are rendered from the store");
    run_cmd(&["read", "SESSIONS.md"])?;

    step(
        style,
        4,
        "a person edits the files by hand: an entry in the middle of SESSIONS.md, a PROJECT line",
    );
    edit_by_hand(ws, zh)?;

    step(
        style,
        5,
        "the next command absorbs both edits (actor file-edit); reading leaves the files as written",
    );
    run_cmd(&["log", "-n", "6"])?;
    run_cmd(&["read", "--section", "Run and test"])?;

    step(
        style,
        6,
        "what an agent sees at session start: the block with its ledger (within the byte budget)",
    );
    run_cmd(&["inject", "--max-chars", "10000"])?;

    step(
        style,
        7,
        "search finds a Chinese phrase by its parts, and code names by their words",
    );
    run_cmd(&[
        "search",
        if zh {
            "沙箱禁管道"
        } else {
            "sandbox named pipes"
        },
    ])?;

    step(style, 8, "status");
    run_cmd(&["status"])?;
    Ok(())
}
