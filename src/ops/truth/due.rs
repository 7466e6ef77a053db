//! Review dates: a decision or a PROJECT section may say when it should be looked at again
//! (`复核：2027-03-01` / `Review: 2027-03-01`, a field line of a decision, the last line of a
//! section). A relative date given when writing (`3 months`, `2 weeks`, `3个月后`, `2周后`,
//! `立即`) is resolved against the entry's date, so the file holds the absolute date a person
//! reads and edits; any other phrase ("when we change machines") is kept as written and never
//! comes due. Only live decisions and present sections come due: superseding or retiring a
//! decision, or editing the date, settles it.

use chrono::{Days, Months, NaiveDate};
use serde::Serialize;

use crate::error::Result;
use crate::model::{EntryRecord, FileKind, Lang, SectionRecord, State};
use crate::store::Reader;

/// The label of the review line, per language.
pub fn label(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "复核：",
        Lang::En => "Review: ",
    }
}

/// The starts of a review line, either language.
const PREFIXES: [&str; 3] = ["复核：", "Review:", "review:"];

/// What a review line says: the absolute date for an absolute or relative date, else the
/// phrase as written.
pub fn resolve(raw: &str, base: NaiveDate) -> String {
    let t = crate::model::area_name(raw);
    if NaiveDate::parse_from_str(&t, "%Y-%m-%d").is_ok() {
        return t;
    }
    let lower = t.to_lowercase();
    if matches!(
        lower.as_str(),
        "now" | "immediately" | "today" | "立即" | "立刻" | "马上" | "现在"
    ) {
        return day(base);
    }
    relative(&lower, base).map_or(t, day)
}

fn day(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// `3 months`, `in 2 weeks`, `10 days`, `1 year`; `3个月后`, `2周后`, `10天后`, `1年后`.
fn relative(s: &str, base: NaiveDate) -> Option<NaiveDate> {
    let s = s.strip_prefix("in ").unwrap_or(s).trim();
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    let unit = s[digits.len()..].trim();
    let unit = ["以后", "之后", "后"]
        .iter()
        .find_map(|suffix| unit.strip_suffix(suffix))
        .unwrap_or(unit)
        .trim();
    match unit {
        "day" | "days" | "天" | "日" => base.checked_add_days(Days::new(n.into())),
        "week" | "weeks" | "周" | "星期" | "个星期" => {
            base.checked_add_days(Days::new(7 * u64::from(n)))
        }
        "month" | "months" | "个月" | "月" => base.checked_add_months(Months::new(n)),
        "year" | "years" | "年" => base.checked_add_months(Months::new(n.checked_mul(12)?)),
        _ => None,
    }
}

pub use crate::model::marks::date_of;

fn review_value(line: &str) -> Option<&str> {
    PREFIXES
        .iter()
        .find_map(|p| line.strip_prefix(p))
        .map(str::trim)
}

/// A section's text with its review line last: every review line holding a date taken out,
/// then `review` (or, without one, the last of those taken out) put at the end.
pub fn settle(text: &str, review: Option<String>) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut found: Option<&str> = None;
    for line in text.lines() {
        // only a review line holding a date moves: a line that merely starts with the word
        // (`Review: two approvals per PR`) is the section's text
        if review_value(line).and_then(date_of).is_some() {
            found = Some(line);
        } else {
            kept.push(line);
        }
    }
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    let mut out = kept.join("\n");
    if let Some(line) = review.as_deref().or(found) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// Something that has come due.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Due {
    pub review: NaiveDate,
    /// `decision` or `section`.
    pub kind: &'static str,
    /// The decision's id or the section's key.
    pub id: String,
    pub heading: String,
    pub file: &'static str,
    /// For an entry whose cited code moved on (not a review date): how each path moved; its
    /// `review` is the day that was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<Vec<crate::ops::anchors::Drift>>,
}

/// Live decisions and present sections whose review date is on or before `until`, the
/// earliest first.
pub fn due(r: &dyn Reader, until: NaiveDate) -> Result<Vec<Due>> {
    let mut out = due_decisions(r, until)?;
    add_sections(&mut out, &r.sections()?, until);
    Ok(out)
}

/// Live decisions whose review date is on or before `until`, the earliest first: read
/// through the store's review marks (in day order), so it costs what is due, not what
/// DECISIONS.md holds.
pub fn due_decisions(r: &dyn Reader, until: NaiveDate) -> Result<Vec<Due>> {
    Ok(due_decisions_first(r, until, usize::MAX)?.0)
}

/// The `n` decisions due earliest on or before `until`, and how many more are due: those are
/// counted from the store's review marks, never loaded (a session start shows a few of them).
pub fn due_decisions_first(
    r: &dyn Reader,
    until: NaiveDate,
    n: usize,
) -> Result<(Vec<Due>, usize)> {
    let (mut out, mut more) = (Vec::new(), 0);
    let last = day(until);
    for m in r.marks(crate::model::marks::reviews())? {
        let (on, id) = crate::model::marks::parts(&m);
        if on > last.as_str() {
            break; // marks sort by day
        }
        if out.len() >= n {
            more += 1;
        } else if let Some(d) = r.entry(id)? {
            out.extend(due_decision(&d, until));
        }
    }
    Ok((out, more))
}

/// What in `ws` is due on or before `until` (`trilogy due`), the entries whose code moved on
/// after (worked out again when `HEAD` or memory changed); a workspace without memory files is
/// refused, as every read of them is.
pub fn due_in(ws: &crate::workspace::Workspace, until: NaiveDate) -> Result<Vec<Due>> {
    ws.require_memory()?;
    let mut out = ws.read(|r| due(r, until))?.value;
    let moved = crate::ops::anchors::refresh(ws)?.moved;
    add_moved(&mut out, &moved, ws.clock.today());
    Ok(out)
}

/// Add to `out` the entries whose code moved on (`moved`, found on `today`): an entry due by
/// its date as well keeps one item, with both reasons.
pub fn add_moved(out: &mut Vec<Due>, moved: &[crate::ops::anchors::Moved], today: NaiveDate) {
    for m in moved {
        if let Some(d) = out.iter_mut().find(|d| d.id == m.id) {
            d.moved = Some(m.drift.clone());
            continue;
        }
        let file = match m.kind.as_str() {
            "section" => FileKind::Project.file_name(),
            _ => FileKind::Decisions.file_name(),
        };
        out.push(Due {
            review: today,
            kind: if m.kind == "section" {
                "section"
            } else {
                "decision"
            },
            id: m.id.clone(),
            heading: m.heading.clone(),
            file,
            moved: Some(m.drift.clone()),
        });
    }
}

/// `d`, when it is a live decision whose review date is on or before `until`.
pub fn due_decision(d: &EntryRecord, until: NaiveDate) -> Option<Due> {
    if d.state != State::Live {
        return None;
    }
    let date = crate::model::marks::review_in(&d.body)?;
    (date <= until).then(|| Due {
        review: date,
        kind: "decision",
        id: d.id.clone(),
        heading: d.heading.clone(),
        file: FileKind::Decisions.file_name(),
        moved: None,
    })
}

/// Add the sections due on or before `until` to `out`, then put it in order (the earliest
/// first).
pub fn add_sections(out: &mut Vec<Due>, sections: &[SectionRecord], until: NaiveDate) {
    for s in sections.iter().filter(|s| !s.removed) {
        let last = s.text().lines().rev().find(|l| !l.trim().is_empty());
        if let Some(date) = last.and_then(review_value).and_then(date_of)
            && date <= until
        {
            out.push(Due {
                review: date,
                kind: "section",
                id: s.key.clone(),
                heading: s.heading.clone(),
                file: FileKind::Project.file_name(),
                moved: None,
            });
        }
    }
    out.sort_by(|a, b| a.review.cmp(&b.review).then_with(|| a.id.cmp(&b.id)));
}

/// Items the session-start block lists at most, and the bytes of each line at most.
pub const BLOCK_ITEMS: usize = 5;
// the anchors keep, for the block, at least as many moved entries as it lists
const _: () = assert!(crate::ops::anchors::TOP >= BLOCK_ITEMS);
const LINE_BYTES: usize = 160;

/// The session-start block's lines on what is due, with how many items they list and how many
/// are due; `None` when nothing is.
pub fn block_text(due: &[Due], more: usize, lang: Lang) -> Option<(String, usize, usize)> {
    if due.is_empty() {
        return None;
    }
    let total = due.len() + more;
    let shown = due.len().min(BLOCK_ITEMS);
    let mut lines = vec![match lang {
        Lang::Zh => format!(
            "--- 到期复核（{} 条；确认仍然成立就改复核日期，不再成立请用户退役或取代）---",
            total
        ),
        Lang::En => format!(
            "--- Due for review ({}; if it still holds, move its review date; if not, ask the user to retire or supersede it) ---",
            total
        ),
    }];
    if due.iter().any(|d| d.moved.is_some()) {
        lines.push(match lang {
            Lang::Zh => "（提到的代码变了的条目：核对后仍成立用 trilogy due --still-true ID，否则改写、取代或退役）".into(),
            Lang::En => "(entries whose cited code changed: if one still holds after a look, `trilogy due --still-true ID`; else edit, supersede or retire it)".into(),
        });
    }
    for d in &due[..shown] {
        let mut line = match &d.moved {
            Some(drift) => {
                let how = crate::ops::anchors::said(drift, lang == Lang::Zh);
                format!("- {} {} ({}): {how}", d.file, d.heading, d.id)
            }
            None => format!("- {} {} {} ({})", d.review, d.file, d.heading, d.id),
        };
        if line.len() > LINE_BYTES {
            let mut end = LINE_BYTES - 3;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line.truncate(end);
            line.push('…');
        }
        lines.push(line);
    }
    if total > shown {
        lines.push(match lang {
            Lang::Zh => format!("另有 {} 条：trilogy due", total - shown),
            Lang::En => format!("{} more: trilogy due", total - shown),
        });
    }
    Some((lines.join("\n"), shown, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_relative_and_human_review_dates() {
        let base = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
        for (raw, want) in [
            ("2027-03-01", "2027-03-01"),
            ("3 months", "2027-02-28"),
            ("in 2 weeks", "2026-12-14"),
            ("10 days", "2026-12-10"),
            ("1 year", "2027-11-30"),
            ("3个月后", "2027-02-28"),
            ("2周后", "2026-12-14"),
            ("10天后", "2026-12-10"),
            ("立即", "2026-11-30"),
            ("now", "2026-11-30"),
            ("when we change machines", "when we change machines"),
            ("换机器的时候", "换机器的时候"),
        ] {
            assert_eq!(resolve(raw, base), want, "{raw}");
        }
        assert_eq!(date_of("when we change machines"), None);
        // a count too large for a date is a phrase, never a wrapped-around date
        assert_eq!(resolve("400000000 years", base), "400000000 years");
        assert_eq!(resolve("357913942 years", base), "357913942 years");
    }

    #[test]
    fn a_section_keeps_one_review_line_last() {
        assert_eq!(
            settle("a\n复核：2027-01-01\nb", None),
            "a\nb\n复核：2027-01-01"
        );
        assert_eq!(
            settle("a\nReview: 2027-01-01", Some("Review: 2028-01-01".into())),
            "a\nReview: 2028-01-01"
        );
        assert_eq!(settle("a\nb", None), "a\nb");
        // a line that only starts with the word is the section's text, left where it is
        assert_eq!(
            settle(
                "Review: two approvals per PR\nReview: docs by the writer\nc",
                None
            ),
            "Review: two approvals per PR\nReview: docs by the writer\nc"
        );
    }
}
