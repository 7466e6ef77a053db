//! The text of an entry written from a checkpoint's input: a session's labelled lines (with
//! the unverified mark when its `done` names no check) and a decision's. Pure text; it reads
//! no store.

use crate::markdown::{normalize_newlines, safe_body};
use crate::model::{self, Lang, labels};

pub use super::*;

/// Words that show a Done carries a verification note.
const VERIFIED_HINTS: [&str; 24] = [
    "verif",
    "test",
    "pass",
    "ran ",
    "run ",
    "check",
    "confirm",
    "measur",
    "reproduc",
    "bench",
    "green",
    "`",
    "未验证",
    "unverified",
    "验证",
    "测试",
    "通过",
    "跑",
    "实测",
    "确认",
    "复现",
    "运行",
    "检查",
    "执行",
];

pub(crate) fn has_verification(done: &str) -> bool {
    let lower = done.to_lowercase();
    VERIFIED_HINTS.iter().any(|h| lower.contains(h))
}

fn field_text(v: &str) -> String {
    normalize_newlines(v).trim().to_string()
}

/// Section text keeps the indentation of its first line (an indented code block).
pub(super) fn section_text(v: &str) -> String {
    crate::model::trim_blank_lines(&normalize_newlines(v)).to_string()
}

pub(super) fn session_body(s: &SessionInput, lang: Lang) -> (String, bool) {
    let l = labels(lang);
    let mut done = field_text(&s.done);
    let unverified = !has_verification(&done);
    if unverified {
        done.push_str(l.unverified);
    }
    let mut lines = vec![format!("{}{done}", l.done)];
    for (label, v) in [(l.open, &s.open), (l.next, &s.next)] {
        if let Some(v) = v.as_deref().map(field_text).filter(|v| !v.is_empty()) {
            lines.push(format!("{label}{v}"));
        }
    }
    (
        model::escape_marker(safe_body(&lines.join("\n"))),
        unverified,
    )
}

pub(super) fn decision_body(d: &DecisionInput, lang: Lang, today: chrono::NaiveDate) -> String {
    let l = labels(lang);
    let mut lines = vec![format!("{}{}", l.chose, field_text(&d.choice))];
    for (label, v) in [(l.over, &d.over), (l.because, &d.because)] {
        if let Some(v) = v.as_deref().map(field_text).filter(|v| !v.is_empty()) {
            lines.push(format!("{label}{v}"));
        }
    }
    // short one-line names, composed and with white space folded
    let (area, topic) = match lang {
        Lang::Zh => ("区域：", "主题："),
        Lang::En => ("Area: ", "Topic: "),
    };
    for (label, v) in [(area, &d.area), (topic, &d.topic)] {
        if let Some(v) = v.as_deref().map(model::area_name).filter(|v| !v.is_empty()) {
            lines.push(format!("{label}{v}"));
        }
    }
    if let Some(r) = d.review.as_deref().filter(|r| !r.trim().is_empty()) {
        let review = crate::ops::truth::due::resolve(r, today);
        lines.push(format!("{}{review}", crate::ops::truth::due::label(lang)));
    }
    // a last line that reads like a state marker would be taken for one
    model::escape_marker(safe_body(&lines.join("\n")))
}
