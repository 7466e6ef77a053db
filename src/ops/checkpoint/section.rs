//! One PROJECT (or USER) edit of a checkpoint: which section it names, its new text (whole,
//! a line added, or a line replaced), the review line kept last, and the revision written.
//! The batch around it (and its validation) is the parent's; this never writes another file.

use crate::error::{Error, Result};
use crate::markdown::{normalize_newlines, safe_body};
use crate::model::{
    FileKind, Lang, SectionRecord, empty_marker, is_empty_body, section_heading, section_key,
    section_names_help, section_slot,
};
use crate::store::Reader;
use crate::workspace::Tx;

use super::{CheckpointOutcome, ProjectInput, canonical_place, section_text};

/// Apply one PROJECT edit; `dry`: only check it (a proposal), writing nothing.
pub(crate) fn edit_section(
    tx: &mut Tx,
    i: usize,
    p: &ProjectInput,
    out: &mut CheckpointOutcome,
    dry: bool,
) -> Result<()> {
    let lang = tx.lang();
    let sections = tx.store().sections()?;
    let user = tx.ws.is_user();
    let field = if user { "user" } else { "project" };
    // USER.md's sections are its own four (either language) and what the person added
    let user_heading = match user {
        true => Some(crate::model::user::resolve_section(
            &p.section,
            &sections,
            lang,
            &format!("user[{i}]"),
        )?),
        false => None,
    };
    let key = key_of(i, p, &sections, user_heading.as_deref())?;
    let current = sections.iter().find(|s| s.key == key).cloned();
    let heading = match (&current, &user_heading, section_slot(&p.section)) {
        (Some(c), _, _) => c.heading.clone(),
        (None, Some(h), _) => h.clone(),
        (None, None, Some(slot)) => section_heading(slot, lang).to_string(),
        (None, None, None) => p.section.trim().to_string(),
    };
    let old_text = current
        .as_ref()
        .filter(|c| !c.removed)
        .map(|c| c.text().to_string())
        .unwrap_or_default();
    let edit = Edit {
        i,
        field,
        heading: &heading,
        old_text: &old_text,
    };
    let (new_text, dropped) = edit.new_text(p, lang, out)?;
    let new_text = with_review(&new_text, p, lang, tx.author().today);
    let body = format!("\n{}", safe_body(&new_text));
    if dry {
        return Ok(());
    }
    if let Some(c) = &current
        && !c.removed
        && (c.body == body || c.text() == crate::model::trim_blank_lines(&body))
    {
        return Ok(());
    }
    let order = match &current {
        Some(c) => c.order,
        None => canonical_place(tx, &sections, &key)?,
    };
    let rec = SectionRecord {
        key: key.clone(),
        heading: heading.clone(),
        body,
        order,
        removed: false,
        revision: current.as_ref().map_or(1, |c| c.revision + 1),
    };
    tx.put_section(&rec)?;
    let mut detail = heading.clone();
    if !dropped.is_empty() {
        detail.push_str(&format!(" (dropped {} line(s))", dropped.len()));
    }
    tx.log("section", vec![key], &detail)?;
    out.written
        .push(format!("{}: {heading}", tx.ws.file_name(FileKind::Project)));
    out.dropped_lines.extend(dropped);
    Ok(())
}

/// `text` with the review line edit `p` asks for, which stays the section's last.
fn with_review(text: &str, p: &ProjectInput, lang: Lang, today: chrono::NaiveDate) -> String {
    let review = p
        .review
        .as_deref()
        .filter(|r| !r.trim().is_empty())
        .map(|r| {
            let label = crate::ops::truth::due::label(lang);
            format!("{label}{}", crate::ops::truth::due::resolve(r, today))
        });
    crate::ops::truth::due::settle(text, review)
}

/// The key of the section edit `i` names: USER.md's resolved heading, one of the five fixed
/// sections, or a section the file has by that heading.
fn key_of(
    i: usize,
    p: &ProjectInput,
    sections: &[SectionRecord],
    user_heading: Option<&str>,
) -> Result<String> {
    Ok(match (user_heading, section_slot(&p.section)) {
        (Some(h), _) => section_key(h),
        (None, Some(_)) => section_key(&p.section),
        (None, None) => {
            let lower = p.section.trim().to_lowercase();
            match sections
                .iter()
                .find(|s| s.heading.to_lowercase() == lower && !s.removed)
            {
                Some(s) => s.key.clone(),
                None => {
                    return Err(Error::bad_input(format!(
                        "project[{i}].section: unknown section `{}`; valid sections: {}",
                        p.section.trim(),
                        section_names_help()
                    )));
                }
            }
        }
    })
}

/// Edit `i` of section `heading`, whose text is `old_text` (`field`: `project` or `user`).
struct Edit<'a> {
    i: usize,
    field: &'static str,
    heading: &'a str,
    old_text: &'a str,
}

impl Edit<'_> {
    fn old_lines(&self) -> Vec<&str> {
        if is_empty_body(self.old_text) {
            Vec::new()
        } else {
            self.old_text.lines().collect()
        }
    }

    /// The section's new text, and the lines it no longer has.
    fn new_text(
        &self,
        p: &ProjectInput,
        lang: Lang,
        out: &mut CheckpointOutcome,
    ) -> Result<(String, Vec<String>)> {
        let old_lines = self.old_lines();
        Ok(match (&p.text, &p.line) {
            (Some(text), _) => {
                let t = section_text(text);
                let t = if t.is_empty() {
                    empty_marker(lang).to_string()
                } else {
                    t
                };
                let new_lines: Vec<&str> = t.lines().collect();
                let dropped = old_lines
                    .iter()
                    .filter(|l| !l.trim().is_empty() && !new_lines.contains(l))
                    .map(|l| l.to_string())
                    .collect();
                (t, dropped)
            }
            (None, Some(line)) => {
                let line = section_text(line);
                match &p.replaces {
                    Some(rep) => self.replace_line(&old_lines, rep, line, out)?,
                    None => {
                        if old_lines.iter().any(|l| l.trim_end() == line) {
                            (self.old_text.to_string(), Vec::new())
                        } else {
                            let mut lines: Vec<String> =
                                old_lines.iter().map(|l| l.to_string()).collect();
                            lines.push(line);
                            (lines.join("\n"), Vec::new())
                        }
                    }
                }
            }
            (None, None) => unreachable!("validate() requires text or line"),
        })
    }

    /// `line` in place of the line that is exactly `rep`.
    fn replace_line(
        &self,
        old_lines: &[&str],
        rep: &str,
        line: String,
        out: &mut CheckpointOutcome,
    ) -> Result<(String, Vec<String>)> {
        let Edit {
            i, field, heading, ..
        } = *self;
        let rep_n = normalize_newlines(rep);
        let rep = rep_n.trim_end();
        Ok(match old_lines.iter().position(|l| l.trim_end() == rep) {
            Some(pos) => {
                let mut lines: Vec<String> = old_lines.iter().map(|l| l.to_string()).collect();
                let dropped = vec![lines[pos].clone()];
                lines[pos] = line;
                (lines.join("\n"), dropped)
            }
            // a retry of a replacement that already landed (or a `replaces` that
            // names no line while `line` is there already: said, not guessed at)
            None if old_lines.iter().any(|l| l.trim_end() == line) => {
                out.warnings.push(format!(
                    "{field}[{i}]: `{heading}` has no line `{rep}` but already has `{line}`; nothing changed (a retry of this replacement?)"
                ));
                (self.old_text.to_string(), Vec::new())
            }
            None => {
                let listing = if old_lines.is_empty() {
                    "  (the section is empty)".to_string()
                } else {
                    old_lines
                        .iter()
                        .map(|l| format!("  {l}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                return Err(Error::bad_input(format!(
                    "{field}[{i}].replaces: no line of `{heading}` is exactly `{rep}`; its lines are:\n{listing}"
                )));
            }
        })
    }
}
