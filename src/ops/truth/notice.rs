//! What a live session is told when memory changed under it (another session, a person, a
//! pull): the changed entries themselves — a new decision's choice, what it rejected and why;
//! a session's Done and Next; a PROJECT section's lines before and after; what was superseded
//! or retired — up to [`CONTENT_MAX`] bytes, then headings only, then a count. The caller
//! keeps it to one notice per prompt, never the session's own writes.

use crate::error::Result;
use crate::model::{Event, Lang};
use crate::store::Reader;

/// Bytes of content the notice carries before it falls back to headings.
pub const CONTENT_MAX: usize = 1500;
/// Bytes the whole notice stays under: content, headings and the count.
pub const NOTICE_MAX: usize = 2000;
/// Bytes of one entry's text in the notice.
const ITEM_MAX: usize = 400;

/// The notice for `events` (oldest first), or `None` when none of them says anything.
pub fn render(r: &dyn Reader, lang: Lang, head: &str, events: &[Event]) -> Result<Option<String>> {
    // one item per distinct change, with a count when the same one repeats
    let mut items: Vec<(String, String, usize)> = Vec::new(); // (heading line, content, times)
    for e in events.iter().filter(|e| !e.detail.is_empty()) {
        let line = format!("{} {}", op_name(&e.op, lang), e.detail);
        let body = content(r, e)?;
        if let Some(it) = items.iter_mut().find(|(l, b, _)| *l == line && *b == body) {
            it.2 += 1;
            continue;
        }
        items.push((line, body, 1));
    }
    if items.is_empty() {
        return Ok(None);
    }
    let mut out = head.to_string();
    let mut used = out.len();
    let mut shown = 0usize;
    for (line, body, times) in &items {
        let times = if *times > 1 {
            format!(" (×{times})")
        } else {
            String::new()
        };
        let full = if body.is_empty() {
            format!("\n- {line}{times}")
        } else {
            format!("\n- {line}{times}\n  {body}")
        };
        let bare = format!("\n- {line}{times}");
        let piece = if used + full.len() <= CONTENT_MAX {
            full
        } else {
            bare
        };
        // room for the count line after it
        if used + piece.len() + 40 > NOTICE_MAX {
            break;
        }
        used += piece.len();
        out.push_str(&piece);
        shown += 1;
    }
    if shown < items.len() {
        let n = items.len() - shown;
        out.push_str(&match lang {
            Lang::Zh => format!("\n另有 {n} 处（memory_read 或 trilogy log 可看）"),
            Lang::En => format!("\n{n} more (memory_read or trilogy log shows them)"),
        });
    }
    Ok(Some(out))
}

fn op_name(op: &str, lang: Lang) -> &str {
    match (lang, op) {
        (Lang::Zh, "add") => "新增",
        (Lang::Zh, "remove") => "删除",
        (Lang::Zh, "replace") => "改写",
        (Lang::Zh, "supersede") => "取代",
        (Lang::Zh, "retire") => "已失效",
        (Lang::Zh, "restore") => "恢复",
        (Lang::Zh, "archive") => "归档",
        (Lang::Zh, "section" | "section-add") => "PROJECT 改动",
        (Lang::Zh, "section-remove") => "PROJECT 删节",
        (Lang::Zh, "user-section" | "user-section-add") => "USER.md 改动",
        (Lang::Zh, "user-section-remove") => "USER.md 删节",
        (Lang::En, "user-section" | "user-section-add") => "USER.md changed",
        (Lang::En, "user-section-remove") => "USER.md section removed",
        (Lang::En, "section" | "section-add") => "PROJECT changed",
        (Lang::En, "section-remove") => "PROJECT section removed",
        (Lang::En, "retire") => "retired",
        (Lang::En, "supersede") => "superseded",
        (Lang::En, "replace") => "rewrote",
        (Lang::En, "remove") => "removed",
        (Lang::En, "add") => "added",
        (Lang::En, "restore") => "restored",
        (Lang::En, "archive") => "archived",
        _ => op,
    }
}

/// What an event changed, in one short paragraph: the entry's text, or a section's lines
/// before (−) and after (+).
fn content(r: &dyn Reader, e: &Event) -> Result<String> {
    let text = match e.op.as_str() {
        "add" | "replace" | "restore" if e.ids.len() == 1 => match r.entry(&e.ids[0])? {
            Some(rec) if crate::secrets::in_record(&rec).is_none() => one_line(&rec.body),
            _ => String::new(),
        },
        "section" | "section-add" | "user-section" | "user-section-add" if e.ids.len() == 1 => {
            section_change(r, &e.ids[0])?
        }
        _ => String::new(),
    };
    Ok(cut(&text, ITEM_MAX))
}

fn section_change(r: &dyn Reader, key: &str) -> Result<String> {
    let Some(now) = r.sections()?.into_iter().find(|s| s.key == key) else {
        return Ok(String::new());
    };
    if crate::secrets::in_record(&now).is_some() {
        return Ok(String::new());
    }
    // the revision before the current one (the history may hold the current one too)
    let before = r
        .section_history(key)?
        .into_iter()
        .filter(|v| v.revision < now.revision)
        .max_by_key(|v| v.revision)
        .map(|v| v.body)
        .unwrap_or_default();
    if crate::secrets::find(&before).is_some() {
        return Ok(String::new());
    }
    let after = now.text().to_string();
    // a placeholder (`暂无`, `None yet`) going or coming is no change to tell
    let said = |l: &&str| !crate::model::is_empty_body(l);
    let old: Vec<&str> = before.lines().map(str::trim_end).filter(said).collect();
    let new: Vec<&str> = after.lines().map(str::trim_end).filter(said).collect();
    let mut parts: Vec<String> = Vec::new();
    for l in old.iter().filter(|l| !new.contains(l)) {
        parts.push(format!("− {}", l.trim()));
    }
    for l in new.iter().filter(|l| !old.contains(l)) {
        parts.push(format!("+ {}", l.trim()));
    }
    Ok(parts.join(" · "))
}

/// A body as one line: its lines joined with ` · `.
fn one_line(body: &str) -> String {
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max - 3;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
