//! A Cline (or Roo) memory bank: `memory-bank/` with six core Markdown files — projectbrief.md
//! (the foundation: requirements and goals), productContext.md (why it exists, how it should
//! work), systemPatterns.md (architecture, key technical decisions, patterns), techContext.md
//! (technologies, development setup, constraints, dependencies), activeContext.md (current
//! focus, recent changes, next steps) and progress.md (what works, what is left, known
//! issues). Format from Cline's documentation, docs.cline.bot/best-practices/memory-bank (the
//! file list and the custom instructions that say what each file holds); the files are plain
//! Markdown with no fixed headings, so headings are read by their words.
//!
//! Brief and product go to 这是什么 / What this is; tech context to 怎么跑和怎么测 / Run and test
//! (setup, build, test, commands) or 东西都在哪 / Where things live (the rest); a system pattern
//! that states a choice (under a decisions heading, or saying over / instead of / chose)
//! becomes a decision, the other patterns go to Where things live; active context and
//! progress become one session, dated by the later of the two files.

use chrono::NaiveDate;

use super::plan::{DecisionPlan, Fate, Line, Piece, Plan, SessionPlan, Target};
use super::reading::{Reading, SourceFile};
use super::route::{self, Route};
use super::text::{self, Chunk, Part};
use crate::error::{Error, Result};

const CORE: [&str; 6] = [
    "projectbrief.md",
    "productContext.md",
    "techContext.md",
    "systemPatterns.md",
    "activeContext.md",
    "progress.md",
];

pub fn plan(r: &mut Reading) -> Result<Plan> {
    let top = r.list("")?;
    let holds = |files: &[String], base: &str| {
        CORE.iter()
            .any(|c| files.iter().any(|f| f == &join(base, c)))
    };
    let (base, listing) = if holds(&top.files, "") {
        (String::new(), top)
    } else if top.dirs.iter().any(|d| d == "memory-bank") {
        let l = r.list("memory-bank")?;
        if !holds(&l.files, "memory-bank") {
            return Err(not_a_bank(r));
        }
        (String::from("memory-bank"), l)
    } else {
        return Err(not_a_bank(r));
    };
    let mut p = Plan::default();
    for f in &listing.files {
        let name = f.rsplit('/').next().unwrap_or(f);
        if !CORE.contains(&name) {
            p.skip(
                f.clone(),
                "not one of the memory bank's six core files: not imported",
            );
        }
    }
    for d in &listing.dirs {
        p.skip(d.clone(), "a folder of further context: not read");
    }
    let mut session: Vec<(SourceFile, Vec<Part>)> = Vec::new();
    for name in CORE {
        let rel = join(&base, name);
        if !listing.files.contains(&rel) {
            continue;
        }
        let Some(f) = r.read(&rel)? else { continue };
        let parts = text::parts(&f.text, 1);
        match name {
            "projectbrief.md" | "productContext.md" => {
                for part in &parts {
                    for c in &part.chunks {
                        p.section(at(&f, c), 0, &c.text);
                    }
                }
            }
            "techContext.md" => {
                for part in &parts {
                    let slot = match route_of(part) {
                        Some(Route::Slot(1)) => 1,
                        _ => 2,
                    };
                    for c in &part.chunks {
                        p.section(at(&f, c), slot, &c.text);
                    }
                }
            }
            "systemPatterns.md" => patterns(r, &f, &parts, &mut p)?,
            _ => session.push((f, parts)),
        }
    }
    if let Some(s) = session_of(r, &session)? {
        let from = session
            .iter()
            .map(|(f, _)| f.rel.clone())
            .collect::<Vec<_>>()
            .join(" + ");
        p.pieces.push(Piece {
            from,
            target: Target::Session(s),
        });
    }
    Ok(p)
}

fn not_a_bank(r: &Reading) -> Error {
    Error::bad_input(format!(
        "{}: none of the memory bank's core files ({}) here or in memory-bank/; give the memory-bank folder (or the project holding it)",
        r.root().display(),
        CORE.join(", ")
    ))
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}/{name}")
    }
}

fn at(f: &SourceFile, c: &Chunk) -> String {
    format!("{}:{}", f.rel, c.line)
}

/// The route of a part: its own heading's, else the nearest parent's.
fn route_of(part: &Part) -> Option<Route> {
    std::iter::once(&part.heading)
        .chain(part.parents.iter().rev())
        .find_map(|h| route::route(h))
}

/// The date a file speaks for: its first dated heading, else its modification day.
fn date_of(r: &Reading, f: &SourceFile, parts: &[Part]) -> Result<NaiveDate> {
    parts
        .iter()
        .find_map(|p| text::date_in(&p.heading))
        .or(f.mtime)
        .ok_or_else(|| {
            Error::bad_input(format!(
                "{}: no dated heading and no modification time to date it by",
                r.shown(&f.rel)
            ))
        })
}

const CHOICE_WORDS: [&str; 14] = [
    " over ",
    "instead of",
    "rather than",
    "chose",
    "choose",
    "decided",
    "in favour of",
    "in favor of",
    "采用",
    "选择",
    "选用",
    "而不是",
    "而非",
    "决定",
];

fn patterns(r: &Reading, f: &SourceFile, parts: &[Part], p: &mut Plan) -> Result<()> {
    let date = date_of(r, f, parts)?;
    for part in parts {
        let under_decisions = std::iter::once(&part.heading)
            .chain(&part.parents)
            .any(|h| h.to_lowercase().contains("decision") || h.contains("决策"));
        for c in &part.chunks {
            let plain = c.plain();
            let lower = format!(" {} ", plain.to_lowercase());
            let states = CHOICE_WORDS.iter().any(|w| lower.contains(w));
            if !c.is_fence() && (under_decisions || states) {
                let (choice, over, because) = split_choice(&plain);
                p.pieces.push(Piece {
                    from: at(f, c),
                    target: Target::Decision(DecisionPlan {
                        date,
                        choice,
                        over,
                        because,
                        lines: Vec::new(),
                        fate: Fate::Live,
                        handle: None,
                    }),
                });
            } else {
                p.section(at(f, c), 2, &c.text);
            }
        }
    }
    Ok(())
}

/// `Redux for state, over Context, because …` → (choice, over, because).
fn split_choice(text: &str) -> (String, Option<String>, Option<String>) {
    let cut = |t: &str, marks: &[&str]| -> Option<(String, String)> {
        let lower = t.to_lowercase();
        marks.iter().find_map(|m| {
            lower.find(m).map(|i| {
                let (a, b) = (&t[..i], &t[i + m.len()..]);
                (a.trim().to_string(), b.trim().to_string())
            })
        })
    };
    let clean = |s: String| {
        s.trim_matches(|c: char| {
            c == ',' || c == ';' || c == '，' || c == '；' || c.is_whitespace()
        })
        .to_string()
    };
    let (head, because) = match cut(text, &[" because ", " since ", "因为"]) {
        Some((a, b)) => (a, Some(clean(b)).filter(|b| !b.is_empty())),
        None => (text.to_string(), None),
    };
    let (choice, over) = match cut(
        &head,
        &[" instead of ", " rather than ", " over ", "而不是", "而非"],
    ) {
        Some((a, b)) if !a.is_empty() => (a, Some(clean(b)).filter(|b| !b.is_empty())),
        _ => (head, None),
    };
    (clean(choice), over, because)
}

#[derive(PartialEq, Eq)]
enum Field {
    Done,
    Open,
    Next,
    Other,
}

fn field_of(heading: &str) -> Field {
    let h = heading.to_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| h.contains(w));
    if has(&["next", "下一步"]) {
        Field::Next
    } else if has(&[
        "left",
        "remaining",
        "known issue",
        "issue",
        "current focus",
        "current work",
        "work focus",
        "in progress",
        "todo",
        "to do",
        "blocker",
        "未完成",
        "待办",
        "问题",
    ]) {
        Field::Open
    } else if has(&[
        "recent change",
        "what works",
        "completed",
        "done",
        "status",
        "accomplish",
        "已完成",
        "完成",
        "现状",
    ]) {
        Field::Done
    } else {
        Field::Other
    }
}

/// Active context and progress as one session.
fn session_of(r: &Reading, files: &[(SourceFile, Vec<Part>)]) -> Result<Option<SessionPlan>> {
    let mut date: Option<NaiveDate> = None;
    let (mut done, mut open, mut next) = (Vec::new(), Vec::new(), Vec::new());
    let mut lines = Vec::new();
    for (f, parts) in files {
        let d = date_of(r, f, parts)?;
        date = Some(date.map_or(d, |x| x.max(d)));
        for part in parts {
            let items: Vec<String> = part
                .chunks
                .iter()
                .map(Chunk::plain)
                .filter(|s| !s.is_empty())
                .collect();
            if items.is_empty() {
                continue;
            }
            match field_of(&part.heading) {
                Field::Done => done.extend(items),
                Field::Open => open.extend(items),
                Field::Next => next.extend(items),
                Field::Other if part.level <= 1 => lines.push(Line::Text(items.join("; "))),
                Field::Other => lines.push(Line::Text(format!(
                    "{}: {}",
                    part.heading,
                    items.join("; ")
                ))),
            }
        }
    }
    let Some(date) = date else { return Ok(None) };
    if done.is_empty() {
        match lines.is_empty() {
            true if open.is_empty() && next.is_empty() => return Ok(None),
            true => done.push(open.remove(0)),
            false => {
                if let Line::Text(t) = lines.remove(0) {
                    done.push(t);
                }
            }
        }
    }
    let join = |v: Vec<String>| (!v.is_empty()).then(|| v.join("; "));
    Ok(Some(SessionPlan {
        date,
        done: done.join("; "),
        open: join(open),
        next: join(next),
        lines,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_choice_splits_into_its_fields() {
        let (c, o, b) = split_choice(
            "Redux with a normalised store over React Context, because many screens share it",
        );
        assert_eq!(c, "Redux with a normalised store");
        assert_eq!(o.as_deref(), Some("React Context"));
        assert_eq!(b.as_deref(), Some("many screens share it"));
        let (c, o, b) = split_choice("Repository pattern for data access");
        assert_eq!(
            (c.as_str(), o, b),
            ("Repository pattern for data access", None, None)
        );
    }
}
