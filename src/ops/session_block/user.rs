//! The user memory's part of the session-start block.
//!
//! The block carries USER.md's sections right after the ledger, under their own cap
//! (`user_memory_max_bytes`, and at most a tenth of the budget): a section that does not fit
//! whole is cut at a line end with a marker, sections after it are named as left out. A user
//! store that cannot be read never stops a session start: the block goes without it.

use crate::model::{FileKind, Lang};
use crate::secrets::in_record;
use crate::workspace::Workspace;

use super::Budget;

/// The share of the budget the user memory may take.
pub const USER_SHARE: f64 = 0.10;

/// The user memory as one block part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Part {
    /// The part's text, title included; empty when USER.md holds nothing yet.
    pub text: String,
    /// USER.md's size on disk.
    pub file_bytes: u64,
    /// Headings of the sections cut or left out by the cap.
    pub cut: Vec<String>,
    /// The user store's last event: changes after it are news to a session given this part.
    pub seq: u64,
    /// User proposals waiting for a person.
    pending: u64,
}

impl Part {
    pub fn pending(&self) -> u64 {
        self.pending
    }
}

fn title(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "--- USER.md（用户本人在所有项目里的偏好、环境、约定、教训）---",
        Lang::En => {
            "--- USER.md (the user's own preferences, environment, conventions, lessons, in every project) ---"
        }
    }
}

fn cut_marker(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "[本节超出用户记忆的注入上限，只注入了开头；全文：memory_read USER.md]",
        Lang::En => {
            "[this section is over the user memory's injection cap; only its start is here: memory_read USER.md has it whole]"
        }
    }
}

fn broken_line(lang: Lang, line: usize, reason: &str) -> String {
    match lang {
        Lang::Zh => format!(
            "[USER.md 第 {line} 行无法解析（{reason}），这里是它上一个完好的版本；修好文件即可]"
        ),
        Lang::En => format!(
            "[USER.md line {line} does not parse ({reason}); this is its last good version: fix the file]"
        ),
    }
}

fn withheld_line(lang: Lang, heading: &str) -> String {
    match lang {
        Lang::Zh => format!(
            "[USER.md 的「{heading}」一节里有像凭据（密码、令牌）的内容，整节没有注入；从 USER.md 删掉它即可]"
        ),
        Lang::En => format!(
            "[USER.md's section \"{heading}\" holds what looks like a credential (a password, a token) and is left out whole: remove it from USER.md]"
        ),
    }
}

/// The room the user memory gets in a block of `budget`: its cap, and at most a tenth of
/// the tighter of the budget's limits (characters never outnumber bytes).
pub fn room(ws: &Workspace, budget: Budget) -> usize {
    let sizing = budget.bytes.min(budget.chars.unwrap_or(usize::MAX));
    (ws.config.user_memory_max_bytes as usize).min((sizing as f64 * USER_SHARE) as usize)
}

/// The user memory for `ws`'s block of `budget`, in the block's language; `None` when it is
/// turned off, not made yet, or cannot be read.
pub fn part(ws: &Workspace, budget: Budget) -> Option<Part> {
    let room = room(ws, budget);
    if !ws.config.inject_user_memory {
        return None;
    }
    let u = ws.user_scope()?;
    if !u.has_memory() && !u.store_path().exists() {
        return None;
    }
    let lang = ws.lang();
    let read = u.read(|r| {
        let sections: Vec<_> = (r.sections()?.into_iter())
            .filter(|s| !s.removed && !crate::model::is_empty_body(s.text()))
            .collect();
        let file_bytes = r.stamp(FileKind::Project)?.map_or(0, |s| s.len);
        Ok((
            sections,
            file_bytes,
            r.last_event_seq()?,
            r.pending_proposals()?,
        ))
    });
    let (sections, report) = match read {
        Ok(w) => (w.value, w.report),
        Err(e) => {
            tracing::warn!("user memory left out of the block: {e}");
            return None;
        }
    };
    let (sections, file_bytes, seq, pending) = sections;
    let mut part = Part {
        file_bytes,
        seq,
        pending,
        ..Part::default()
    };
    let mut pieces: Vec<String> = Vec::new();
    if let Some(b) = report.unparseable.first() {
        pieces.push(broken_line(lang, b.line, &b.reason));
    }
    // what holds a credential written in by hand is left out, and said to be
    let (withheld, sections): (Vec<_>, Vec<_>) =
        sections.into_iter().partition(|s| in_record(s).is_some());
    for s in &withheld {
        pieces.push(withheld_line(lang, &s.heading));
    }
    let head = title(lang);
    let mut used = head.len() + pieces.iter().map(|p| p.len() + 2).sum::<usize>();
    for s in &sections {
        let whole = format!("## {}\n{}", s.heading, s.text());
        if used + 2 + whole.len() <= room {
            used += 2 + whole.len();
            pieces.push(whole);
            continue;
        }
        part.cut.push(s.heading.clone());
        let marker = cut_marker(lang);
        let left = room.saturating_sub(used + 2 + marker.len() + 2);
        // a start shorter than its heading and a line says nothing: the section is left out
        if left > s.heading.len() + 40 {
            let kept = crate::model::text::cut_to(&whole, left);
            used += 2 + kept.len() + 2 + marker.len();
            pieces.push(format!("{kept}\n\n{marker}"));
        }
    }
    if !pieces.is_empty() {
        part.text = format!("{head}\n{}", pieces.join("\n\n"));
    }
    Some(part)
}
