//! What a checkpoint batch may hold: sizes, required fields, characters and secrets. Runs
//! before anything is stored, and names the field of the first problem it finds.
//!
//! Control characters are refused because the files are plain text: one NUL makes git treat
//! SESSIONS.md as binary (no diffs, no merges). Tab and line feed are text; a carriage return
//! is accepted only as half of a CRLF line ending, which recording turns into LF.

use crate::error::{Error, Result};
use crate::model::{Lang, MAX_AREA_CHARS, MAX_TOPIC_CHARS, area_name, empty_marker};
use crate::secrets;

use super::CheckpointInput;

/// Longest accepted string in one item field (bytes).
pub const MAX_FIELD_BYTES: usize = 16 * 1024;
/// Longest accepted PROJECT section text (bytes).
pub const MAX_SECTION_BYTES: usize = 256 * 1024;
/// Longest accepted batch, all fields together (bytes).
pub const MAX_BATCH_BYTES: usize = 512 * 1024;

/// Parse a JSON batch, with an error that points at the problem.
pub fn parse_input(json: &str, source: &str) -> Result<CheckpointInput> {
    serde_json::from_str(json).map_err(|e| {
        Error::bad_input(format!(
            "{source}: invalid checkpoint batch at line {} column {}: {e}; expected {{\"sessions\":[{{\"done\":…}}], \"decisions\":[{{\"choice\":…}}], \"project\":[{{\"section\":…,\"text\":…}}], \"user\":[{{\"section\":…,\"line\":…}}], \"notes\":…}}",
            e.line(),
            e.column()
        ))
    })
}

/// Longest review date or phrase, in characters.
pub const MAX_REVIEW_CHARS: usize = 200;

/// Check sizes, required fields, characters, area names and secrets; nothing is stored when
/// this fails.
pub fn validate(input: &CheckpointInput) -> Result<()> {
    let mut fields: Vec<Field> = Vec::new();
    session_fields(input, &mut fields)?;
    decision_fields(input, &mut fields)?;
    project_fields(input, &mut fields)?;
    user_fields(input, &mut fields)?;
    if let Some(n) = &input.notes {
        fields.push(("notes".into(), n, MAX_FIELD_BYTES));
    }
    check_names(input)?;
    check_fields(&fields)
}

/// A field to check: its name in the batch, its value and the most bytes it may hold.
type Field<'a> = (String, &'a str, usize);

/// The sessions' fields; a session must say what was done.
fn session_fields<'a>(input: &'a CheckpointInput, fields: &mut Vec<Field<'a>>) -> Result<()> {
    for (i, s) in input.sessions.iter().enumerate() {
        if s.done.trim().is_empty() {
            return Err(Error::bad_input(format!(
                "sessions[{i}].done is empty; say what is true now and how it was verified"
            )));
        }
        fields.push((format!("sessions[{i}].done"), &s.done, MAX_FIELD_BYTES));
        for (name, v) in [("area", &s.area), ("open", &s.open), ("next", &s.next)] {
            if let Some(v) = v {
                fields.push((format!("sessions[{i}].{name}"), v, MAX_FIELD_BYTES));
            }
        }
    }
    Ok(())
}

/// The decisions' fields; a decision must state its choice.
fn decision_fields<'a>(input: &'a CheckpointInput, fields: &mut Vec<Field<'a>>) -> Result<()> {
    for (i, d) in input.decisions.iter().enumerate() {
        if d.choice.trim().is_empty() {
            return Err(Error::bad_input(format!(
                "decisions[{i}].choice is empty; state the choice in one line"
            )));
        }
        fields.push((format!("decisions[{i}].choice"), &d.choice, MAX_FIELD_BYTES));
        for (name, v) in [
            ("over", &d.over),
            ("because", &d.because),
            ("area", &d.area),
            ("supersedes", &d.supersedes),
            ("topic", &d.topic),
            ("review", &d.review),
        ] {
            if let Some(v) = v {
                fields.push((format!("decisions[{i}].{name}"), v, MAX_FIELD_BYTES));
            }
        }
    }
    Ok(())
}

/// The PROJECT edits' fields; an edit gives `text` or `line` (and `replaces` only with `line`).
fn project_fields<'a>(input: &'a CheckpointInput, fields: &mut Vec<Field<'a>>) -> Result<()> {
    for (i, p) in input.project.iter().enumerate() {
        match (&p.text, &p.line) {
            (Some(_), Some(_)) => {
                return Err(Error::bad_input(format!(
                    "project[{i}]: give either `text` (whole section) or `line` (one line), not both"
                )));
            }
            (None, None) => {
                return Err(Error::bad_input(format!(
                    "project[{i}]: missing `text` (the new section body; `{}` when there is nothing) or `line`",
                    empty_marker(Lang::Zh)
                )));
            }
            _ => {}
        }
        if p.replaces.is_some() && p.line.is_none() {
            return Err(Error::bad_input(format!(
                "project[{i}]: `replaces` needs `line` (the line that takes its place)"
            )));
        }
        fields.push((format!("project[{i}].section"), &p.section, MAX_FIELD_BYTES));
        for (name, v, max) in [
            ("text", &p.text, MAX_SECTION_BYTES),
            ("line", &p.line, MAX_FIELD_BYTES),
            ("replaces", &p.replaces, MAX_FIELD_BYTES),
            ("review", &p.review, MAX_FIELD_BYTES),
        ] {
            if let Some(v) = v {
                fields.push((format!("project[{i}].{name}"), v, max));
            }
        }
    }
    Ok(())
}

/// The user lines' fields; each is one non-empty line.
fn user_fields<'a>(input: &'a CheckpointInput, fields: &mut Vec<Field<'a>>) -> Result<()> {
    for (i, u) in input.user.iter().enumerate() {
        if u.line.trim().is_empty() {
            return Err(Error::bad_input(format!(
                "user[{i}].line is empty; give one line that holds in every project, like `answer with the conclusion first`"
            )));
        }
        if u.line.trim().contains('\n') {
            return Err(Error::bad_input(format!(
                "user[{i}].line holds several lines; USER.md takes one line per item: send one item per line"
            )));
        }
        fields.push((format!("user[{i}].section"), &u.section, MAX_FIELD_BYTES));
        fields.push((format!("user[{i}].line"), &u.line, MAX_FIELD_BYTES));
        if let Some(r) = &u.replaces {
            fields.push((format!("user[{i}].replaces"), r, MAX_FIELD_BYTES));
        }
    }
    Ok(())
}

/// Areas, topics and review dates are short, and topics and reviews one line.
fn check_names(input: &CheckpointInput) -> Result<()> {
    let areas = input
        .sessions
        .iter()
        .map(|s| &s.area)
        .enumerate()
        .map(|(i, a)| (format!("sessions[{i}].area"), a))
        .chain(
            input
                .decisions
                .iter()
                .enumerate()
                .map(|(i, d)| (format!("decisions[{i}].area"), &d.area)),
        );
    for (name, area) in areas {
        let chars = area.as_deref().map_or(0, |a| area_name(a).chars().count());
        if chars > MAX_AREA_CHARS {
            return Err(Error::bad_input(format!(
                "{name} is {chars} characters long; the limit is {MAX_AREA_CHARS}: an area is a short name like `deploy` or `search`, and the rest belongs in the text"
            )));
        }
    }
    for (i, d) in input.decisions.iter().enumerate() {
        let Some(t) = d.topic.as_deref() else {
            continue;
        };
        let chars = area_name(t).chars().count();
        if t.contains(['\n', '\r']) || chars > MAX_TOPIC_CHARS {
            return Err(Error::bad_input(format!(
                "decisions[{i}].topic must be one line of at most {MAX_TOPIC_CHARS} characters (it is {chars}): a topic names the question a decision answers, like `storage engine` or `重试策略`"
            )));
        }
    }
    let reviews = input
        .decisions
        .iter()
        .enumerate()
        .map(|(i, d)| (format!("decisions[{i}].review"), &d.review))
        .chain(
            input
                .project
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("project[{i}].review"), &p.review)),
        );
    for (name, review) in reviews {
        let Some(r) = review else { continue };
        let chars = r.chars().count();
        if r.contains(['\n', '\r']) || chars > MAX_REVIEW_CHARS {
            return Err(Error::bad_input(format!(
                "{name} must be one line of at most {MAX_REVIEW_CHARS} characters (it is {chars}): a date like 2027-03-01, `3 months`, `2周后`, or a short phrase"
            )));
        }
    }
    Ok(())
}

/// Each field within its size, free of control characters and secrets; the batch within its
/// size.
fn check_fields(fields: &[Field]) -> Result<()> {
    let mut total = 0usize;
    for (name, value, max) in fields {
        total += value.len();
        if value.len() > *max {
            return Err(Error::bad_input(format!(
                "{name} is {} bytes; the limit is {max} bytes per field: keep memory short, or split it",
                value.len()
            )));
        }
        if let Some(c) = control_character(value) {
            return Err(Error::bad_input(format!(
                "{name}: holds {} (U+{:04X}) at {}; remove it and retry: nothing was stored",
                c.what,
                u32::from(c.ch),
                c.place
            )));
        }
        if let Some(f) = secrets::find(value) {
            let why = match name.starts_with("user[") {
                true => "the user memory is injected into every session of every project",
                false => "memory files are committed to git and injected into every session",
            };
            return Err(Error::bad_input(format!(
                "refused: {name} line {} column {} looks like {} ({}); {why}, so nothing was stored: remove the secret and retry",
                f.line, f.column, f.kind, f.masked
            )));
        }
    }
    if total > MAX_BATCH_BYTES {
        return Err(Error::bad_input(format!(
            "the batch is {total} bytes; the limit is {MAX_BATCH_BYTES} bytes per call: split it"
        )));
    }
    Ok(())
}

/// A character a field may not hold, and where.
struct Refused {
    ch: char,
    what: &'static str,
    /// `column 12`, or `line 3 column 4` in a text of several lines.
    place: String,
}

/// The first control character of `text` other than tab, line feed and the CR of a CRLF.
fn control_character(text: &str) -> Option<Refused> {
    let mut line = 1;
    let mut column = 0;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        column += 1;
        let allowed = match ch {
            '\t' => true,
            '\n' => {
                line += 1;
                column = 0;
                true
            }
            '\r' => chars.peek() == Some(&'\n'),
            c => !c.is_control(),
        };
        if allowed {
            continue;
        }
        let what = match ch {
            '\0' => "a NUL character",
            '\r' => "a carriage return that is not part of a CRLF line ending",
            '\u{1b}' => "an escape character",
            '\u{7f}' => "a delete character",
            '\u{8}' => "a backspace character",
            _ => "a control character",
        };
        let place = if line == 1 && !text.contains('\n') {
            format!("column {column}")
        } else {
            format!("line {line} column {column}")
        };
        return Some(Refused { ch, what, place });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::{DecisionInput, SessionInput};
    use super::*;

    fn done(text: &str) -> CheckpointInput {
        CheckpointInput {
            sessions: vec![SessionInput {
                done: text.into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn error(input: &CheckpointInput) -> String {
        validate(input).unwrap_err().to_string()
    }

    #[test]
    fn control_characters_are_refused_with_field_and_column() {
        assert_eq!(
            error(&done("ran tests\0 ok")),
            "sessions[0].done: holds a NUL character (U+0000) at column 10; remove it and retry: nothing was stored"
        );
        let e = error(&done("line one\nline \u{1b}[31mtwo"));
        assert!(
            e.contains("an escape character (U+001B) at line 2 column 6"),
            "{e}"
        );
        let e = error(&done("ok\u{85} tested"));
        assert!(e.contains("a control character (U+0085)"), "{e}");
        let e = error(&done("ok\u{7f} tested"));
        assert!(e.contains("(U+007F)"), "{e}");
        let e = error(&done("old mac\rline tested"));
        assert!(e.contains("carriage return"), "{e}");
    }

    #[test]
    fn tabs_newlines_and_crlf_are_text() {
        validate(&done("a\tb\r\nc\nd tested\r\n")).unwrap();
        validate(&done("文字 emoji 🦀 and U+200B\u{200b}")).unwrap();
    }

    #[test]
    fn every_field_is_checked() {
        let input = CheckpointInput {
            decisions: vec![DecisionInput {
                choice: "x".into(),
                because: Some("a\u{7}b".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(
            error(&input).starts_with("decisions[0].because: holds a control character (U+0007)")
        );
        let input = CheckpointInput {
            notes: Some("\u{1}".into()),
            ..Default::default()
        };
        assert!(error(&input).starts_with("notes: holds"));
    }

    #[test]
    fn area_names_are_short() {
        let mut input = done("x tested");
        input.sessions[0].area = Some("a".repeat(MAX_AREA_CHARS));
        validate(&input).unwrap();
        // counted in characters, not bytes
        input.sessions[0].area = Some("部".repeat(MAX_AREA_CHARS));
        validate(&input).unwrap();
        input.sessions[0].area = Some("a".repeat(MAX_AREA_CHARS + 1));
        let e = error(&input);
        assert!(
            e.starts_with("sessions[0].area is 65 characters long; the limit is 64")
                && e.contains("`deploy`"),
            "{e}"
        );
        let input = CheckpointInput {
            decisions: vec![DecisionInput {
                choice: "x".into(),
                area: Some("x".repeat(12_000)),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(error(&input).starts_with("decisions[0].area is 12000 characters long"));
    }
}
