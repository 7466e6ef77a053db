//! Labels and field lines: the labels of both languages, the Done/Open/Next
//! (Chose/Over/Because) fields read out of a body, and the marker lines an entry's state is
//! read from.

use super::Lang;

use serde::Serialize;

/// Field labels, as written.
pub struct Labels {
    pub done: &'static str,
    pub open: &'static str,
    pub next: &'static str,
    pub chose: &'static str,
    pub over: &'static str,
    pub because: &'static str,
    pub superseded: &'static str,
    /// The last line of a retired entry, before `YYYY-MM-DD — why`.
    pub retired: &'static str,
    pub unverified: &'static str,
}

pub fn labels(lang: Lang) -> &'static Labels {
    const ZH: Labels = Labels {
        done: "完成：",
        open: "未完成：",
        next: "下一步：",
        chose: "选择：",
        over: "放弃：",
        because: "因为：",
        superseded: "已被取代：",
        retired: "已失效：",
        unverified: "（未验证）",
    };
    const EN: Labels = Labels {
        done: "Done: ",
        open: "Open: ",
        next: "Next: ",
        chose: "Chose: ",
        over: "Over: ",
        because: "Because: ",
        superseded: "Superseded by: ",
        retired: "Retired: ",
        unverified: " (unverified)",
    };
    match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    }
}

/// Starts of the marker lines trilogy reads a state from (the last line of an entry).
pub const MARKER_PREFIXES: [&str; 4] = ["已被取代：", "Superseded by:", "已失效：", "Retired:"];

/// `body` with a last line that would read as a state marker escaped (`\` before it): text
/// an agent or an import wrote never marks its entry superseded or retired.
pub fn escape_marker(mut body: String) -> String {
    // the last line, which is the whole body when it has one line
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    if MARKER_PREFIXES.iter().any(|p| body[start..].starts_with(p)) {
        body.insert(start, '\\');
    }
    body
}

/// Longest topic, in characters.
pub const MAX_TOPIC_CHARS: usize = 80;

/// Done/Open/Next (or Chose/Over/Because) read out of an entry body; `extra` is the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chose: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// A decision's topic: one live decision per topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// When to look at it again: a date, or a phrase that never comes due.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub extra: String,
}

/// Read labelled fields out of a body, accepting both label sets, with or without a space
/// after the colon. Continuation lines belong to the field above until a blank line.
pub fn read_fields(body: &str) -> Fields {
    const LABELS: [(&str, usize); 18] = [
        ("完成", 0),
        ("未完成", 1),
        ("下一步", 2),
        ("选择", 3),
        ("放弃", 4),
        ("因为", 5),
        ("区域", 6),
        ("主题", 7),
        ("复核", 8),
        ("done", 0),
        ("open", 1),
        ("next", 2),
        ("chose", 3),
        ("over", 4),
        ("because", 5),
        ("area", 6),
        ("topic", 7),
        ("review", 8),
    ];
    let mut slots: [Option<String>; 9] = Default::default();
    let mut extra: Vec<&str> = Vec::new();
    let mut current: Option<usize> = None;
    for line in body.lines() {
        let found = LABELS.iter().find_map(|(label, slot)| {
            let head = line.get(..label.len())?;
            if !head.eq_ignore_ascii_case(label) {
                return None;
            }
            let rest = &line[label.len()..];
            let rest = rest.strip_prefix('：').or_else(|| rest.strip_prefix(':'))?;
            Some((*slot, rest.trim_start().to_string()))
        });
        match found {
            Some((slot, value)) if slots[slot].is_none() => {
                slots[slot] = Some(value);
                current = Some(slot);
            }
            _ if line.trim().is_empty() => {
                current = None;
                extra.push(line);
            }
            _ => match current {
                Some(slot) => {
                    let v = slots[slot].get_or_insert_with(String::new);
                    v.push('\n');
                    v.push_str(line);
                }
                None => extra.push(line),
            },
        }
    }
    let [done, open, next, chose, over, because, area, topic, review] = slots;
    Fields {
        done,
        open,
        next,
        chose,
        over,
        because,
        area,
        topic,
        review,
        extra: extra.join("\n").trim().to_string(),
    }
}
