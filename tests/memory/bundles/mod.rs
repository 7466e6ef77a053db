//! Bundles, clear, the boot block and restore by text, through the real binary: export →
//! import gives the same bytes, the original plugin's bundles load, a bad bundle changes
//! nothing, a merge adds only what is new and keeps what differs restorable, `--replace` and
//! `clear` displace nothing for good.

use crate::common;

use std::path::Path;

use common::{Ws, headings, session_start_payload, text};
use serde_json::{Value, json};

mod clear;
mod exchange;

/// Every file under `root` (the store included) with its bytes: what "nothing written" means.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(root).unwrap().display().to_string();
            if p.is_dir() {
                out.push((format!("{name}/"), Vec::new()));
                stack.push(p);
            } else {
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const O_PROJECT: &str = "# PROJECT\n\n> 这里写项目现在的样子，原地改，一屏以内。\n> 和代码冲突时以代码为准，并在同一次改动里修正这里。\n\n## 这是什么\n\n一个记账小工具，命令行。\n\n## 怎么跑和怎么测\n\nnpm test\n\n## 东西都在哪\n\nsrc/ 和 test/\n\n## 现状\n\n导出做完了，筛选还没做。\n\n## 坑\n\n暂无\n";

const O_DECISIONS: &str = "# DECISIONS\n\n> 只追加，新的在最上面。\n\n## 2026-01-05 — 用 SQLite 存账目\n选择：用 SQLite 存账目\n放弃：JSON 文件\n因为：要并发读\n";

const O_SESSIONS: &str = "# SESSIONS\n\n> 只追加，新的在最上面。\n\n## 2026-01-06 · 导出\n完成：导出 CSV；npm test 通过\n下一步：加日期筛选\n\n> 更早的会话条目已归档到 2 条（见 `SESSIONS-archive.md`，不会自动注入，需要时用 `memory_read` 读取）。\n";

const O_ARCHIVE: &str = "# SESSIONS ARCHIVE\n\n> 这些条目是从 SESSIONS.md 移出来的。\n> 最新的在最前，形状和 SESSIONS.md 一样。\n> 不会自动注入。\n\n## 2026-01-02 · 导入\n完成：银行流水解析器写好了；单测通过\n\n## 2026-01-01\nDone: scaffolded the repo; npm test passes\n";

/// A bundle as the original plugin's panel exported it.
fn original_bundle() -> Value {
    json!({
        "kind": "dsh-trilogy/memory-bundle",
        "version": 1,
        "exportedAt": "2026-01-07T08:00:00.000Z",
        "root": "/home/someone/ledger",
        "files": {
            "PROJECT.md": O_PROJECT,
            "DECISIONS.md": O_DECISIONS,
            "SESSIONS.md": O_SESSIONS,
            "SESSIONS-archive.md": O_ARCHIVE,
        }
    })
}

fn write_bundle(ws: &Ws, name: &str, v: &Value) -> String {
    let p = ws.root().join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p.display().to_string()
}

fn session(ws: &Ws, done: &str, area: &str) {
    ws.ok(&["checkpoint", "--session-done", done, "--area", area]);
}

/// A workspace with sessions (two of them archived), a decision and a PROJECT section.
fn recorded() -> Ws {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 3\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for i in 1..=5 {
        session(&ws, &format!("第 {i} 步做完；cargo test 通过"), "构建");
    }
    ws.ok(&[
        "checkpoint",
        "--decision",
        "用 redb 存状态",
        "--because",
        "多进程",
    ]);
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "能跑，缺导出。",
    ]);
    ws
}

/// A bundle file of `ws` (through `export --out`).
fn export(ws: &Ws, to: &Path) -> Value {
    let out = to.join("bundle.json");
    ws.ok(&["export", "--out", out.to_str().unwrap()]);
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}
