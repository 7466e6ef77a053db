//! `memory_read` of a whole file larger than one answer: pages cut between entries that stay
//! within the answer's bytes, a cursor that reads the rest once each and in order, clear
//! refusals of a stale or malformed cursor, and the client's name choosing the size.

use crate::common;

use common::{Ws, headings};
use rmcp::ServiceExt;
use rmcp::model::{CallToolResult, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use super::{call, result_text, server_cmd};

/// The cut marker a page ends with when an entry goes on in the next page.
const CUT: &str = "\n\n[trilogy: this entry is too long for one page and is cut here; the next page goes on with the rest of it]\n";

/// An archive of `n` sessions, newest first, the tenth from the top longer than any page.
fn archive(n: usize) -> String {
    let mut text = String::from("# SESSIONS ARCHIVE\n\n> 从 SESSIONS.md 移出的较早会话条目。");
    for k in (0..n).rev() {
        let day =
            chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap() + chrono::Days::new(k as u64);
        let mut body = format!(
            "完成：第 {k} 条会话，\"引号\" 与 \\ 反斜杠都要数两次；cargo test 通过\n下一步：entry-{k}"
        );
        if k == n - 10 {
            for line in 0..120 {
                body.push_str(&format!("\n长条目的第 {line} 行：把归档分页读完，不漏一条"));
            }
        }
        text.push_str(&format!("\n\n## {} · 归档\n{body}", day.format("%Y-%m-%d")));
    }
    text.push('\n');
    text
}

/// A workspace whose archive holds `n` sessions.
fn with_archive(n: usize) -> Ws {
    let ws = Ws::init();
    ws.write("SESSIONS-archive.md", &archive(n));
    ws.ok(&["status"]);
    ws
}

async fn client(
    ws: &Ws,
    name: &str,
    bytes: Option<&str>,
) -> RunningService<RoleClient, ClientConfig> {
    let mut cmd = server_cmd(ws);
    if let Some(b) = bytes {
        cmd.env("TRILOGY_MCP_READ_BYTES", b);
    }
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, "1"),
    )
    .serve(TokioChildProcess::new(cmd).unwrap())
    .await
    .unwrap()
}

async fn read(c: &RunningService<RoleClient, ClientConfig>, args: Value) -> CallToolResult {
    c.call_tool(call("memory_read", args)).await.unwrap()
}

/// Every page of `file` from the top, each checked to fit in `bytes` as JSON and to say what
/// it is; the structured answers in order.
async fn all_pages(
    c: &RunningService<RoleClient, ClientConfig>,
    file: &str,
    bytes: usize,
) -> Vec<Value> {
    let mut pages: Vec<Value> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"file": file});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let r = read(c, args).await;
        assert_ne!(r.is_error, Some(true), "{}", result_text(&r));
        let page = r.structured_content.clone().unwrap();
        let size = serde_json::to_string(&page).unwrap().len();
        assert!(
            size <= bytes,
            "page {} is {size} bytes: {page}",
            pages.len()
        );
        let note = page["note"].as_str().unwrap().to_string();
        let text = result_text(&r);
        assert!(
            text.contains(&note.replace('"', "\\\"")),
            "the text leads with the note: {text}"
        );
        cursor = page["cursor"].as_str().map(str::to_string);
        assert_eq!(page["truncated"], json!(cursor.is_some()), "{page}");
        match &cursor {
            Some(cur) => {
                assert!(
                    note.contains("not the whole file") && note.contains(cur.as_str()),
                    "{note}"
                );
            }
            None => assert!(note.contains("the file ends here"), "{note}"),
        }
        pages.push(page);
        assert!(pages.len() < 500, "paging does not end");
        if cursor.is_none() {
            return pages;
        }
    }
}

/// The pages' texts put back together: a cut entry joined to its rest, other pages a blank
/// line apart.
fn reassembled(pages: &[Value]) -> String {
    let mut out = String::new();
    let mut joined = true;
    for p in pages {
        if !joined {
            out.push('\n');
        }
        let text = p["content"].as_str().unwrap();
        match text.strip_suffix(CUT) {
            Some(start) => {
                out.push_str(start);
                joined = true;
            }
            None => {
                out.push_str(text);
                joined = false;
            }
        }
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn a_large_archive_comes_in_pages_that_give_every_entry_once_in_order() {
    let ws = with_archive(60);
    let file = ws.read("SESSIONS-archive.md");
    let c = client(&ws, "claude-code", Some("2048")).await;
    let pages = all_pages(&c, "SESSIONS-archive.md", 2048).await;
    c.cancel().await.unwrap();
    assert!(pages.len() > 5, "{} pages", pages.len());
    let cut = pages
        .iter()
        .filter(|p| p["content"].as_str().unwrap().ends_with(CUT))
        .count();
    assert!(cut >= 2, "the long entry spans pages: {cut} cuts");
    let whole = reassembled(&pages);
    assert_eq!(headings(&whole), headings(&file));
    assert_eq!(whole, file, "the pages put together are the file");
    for p in &pages {
        assert_eq!(p["entries"], json!(60), "{p}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_cursor_to_an_entry_gone_from_the_file_or_malformed_is_refused_naming_it() {
    let ws = with_archive(40);
    let c = client(&ws, "claude-code", Some("2048")).await;
    let first = read(&c, json!({"file": "SESSIONS-archive.md"})).await;
    let page = first.structured_content.clone().unwrap();
    let cursor = page["cursor"].as_str().unwrap().to_string();
    let before = ws.snapshot();
    for (args, needle) in [
        (
            json!({"file": "SESSIONS-archive.md", "cursor": "nonsense"}),
            "is not a cursor a page of SESSIONS-archive.md gave",
        ),
        (
            json!({"file": "DECISIONS.md", "cursor": cursor}),
            "pages SESSIONS-archive.md, not DECISIONS.md",
        ),
        (
            json!({"section": "现状", "cursor": cursor}),
            "`cursor` pages a whole-file read",
        ),
        (
            json!({"file": "SESSIONS-archive.md", "limit": 3, "cursor": cursor}),
            "`cursor` pages a whole-file read",
        ),
    ] {
        let r = read(&c, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{args}");
        let t = result_text(&r);
        assert!(t.contains(needle), "{args}: {t}");
    }
    assert_eq!(ws.snapshot(), before, "a refused cursor changes nothing");
    // the entry the next page starts with leaves the file by hand
    let last = headings(page["content"].as_str().unwrap()).pop().unwrap();
    let file = ws.read("SESSIONS-archive.md");
    let blocks: Vec<&str> = file.split("\n\n## ").collect();
    let at = blocks.iter().position(|b| b.starts_with(&last)).unwrap() + 1;
    let gone = blocks[at].lines().next().unwrap().to_string();
    let kept: Vec<&str> = (blocks.iter().enumerate())
        .filter(|(i, _)| *i != at)
        .map(|(_, b)| *b)
        .collect();
    ws.write("SESSIONS-archive.md", &kept.join("\n\n## "));
    let r = read(&c, json!({"file": "SESSIONS-archive.md", "cursor": cursor})).await;
    assert_eq!(r.is_error, Some(true), "{gone}");
    let t = result_text(&r);
    assert!(
        t.contains("`cursor`")
            && t.contains("no longer in SESSIONS-archive.md")
            && t.contains("without `cursor` to start from the top"),
        "{t}"
    );
    // from the top again, it reads the file as it is now
    let pages = all_pages(&c, "SESSIONS-archive.md", 2048).await;
    c.cancel().await.unwrap();
    let now = headings(&reassembled(&pages));
    assert_eq!(now, headings(&ws.read("SESSIONS-archive.md")));
    assert!(!now.contains(&gone), "{gone}");
}

#[tokio::test(flavor = "current_thread")]
async fn the_clients_name_sets_the_size_and_a_file_that_fits_reads_as_before() {
    let ws = with_archive(70);
    let size = ws.read("SESSIONS-archive.md").len();
    assert!((12_000..20_000).contains(&size), "{size} bytes");
    // Codex takes 10,000 bytes of a tool result: pages
    let codex = client(&ws, "codex-mcp-client", None).await;
    let r = read(&codex, json!({"file": "SESSIONS-archive.md"})).await;
    codex.cancel().await.unwrap();
    let page = r.structured_content.unwrap();
    assert_eq!(page["truncated"], json!(true), "{page}");
    assert!(serde_json::to_string(&page).unwrap().len() <= 10_000);
    // Claude Code takes 25,000 tokens: the file whole, without the paging fields
    let claude = client(&ws, "claude-code", None).await;
    let r = read(&claude, json!({"file": "SESSIONS-archive.md"})).await;
    claude.cancel().await.unwrap();
    let whole = r.structured_content.unwrap();
    assert_eq!(whole["content"], json!(ws.read("SESSIONS-archive.md")));
    for key in ["cursor", "truncated", "note"] {
        assert!(whole.get(key).is_none(), "{key} in {whole}");
    }
    let mut keys: Vec<&String> = whole.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["content", "entries", "file", "kind", "path"]);
}
