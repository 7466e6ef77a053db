//! Gemini CLI's memory: a `GEMINI.md` (the project's, or `~/.gemini/GEMINI.md`), the context
//! file Gemini CLI loads into every session. Its notes are read as a CLAUDE.md is, by their
//! headings; the facts its `save_memory` tool keeps, one `- ` line each under
//! `## Gemini Added Memories`, go to 现状 / State, a line each, with their place in the file.
//! Format from Gemini CLI's documentation of `save_memory` (geminicli.com/docs/tools/memory)
//! and the section it writes, as seen in its own GEMINI.md files.

use super::plan::Plan;
use super::reading::{Reading, SourceFile};
use crate::error::{Error, Result};

/// The heading `save_memory` writes its facts under.
pub const SAVED: &str = "## Gemini Added Memories";

/// PROJECT's 现状 / State section.
const STATE: usize = 3;

/// Read `file` (a GEMINI.md) when given, else the `GEMINI.md` in the folder at PATH.
pub fn plan(r: &mut Reading, file: Option<&str>) -> Result<Plan> {
    let name = file.unwrap_or("GEMINI.md");
    let f = r.read(name)?.ok_or_else(|| {
        Error::NotFound(format!(
            "{}: no {name} here; give Gemini CLI's GEMINI.md (the project's, or ~/.gemini/GEMINI.md)",
            r.root().display()
        ))
    })?;
    let mut p = Plan::default();
    let (rest, facts) = split(&f.text);
    let notes = SourceFile {
        rel: f.rel.clone(),
        text: rest,
        mtime: f.mtime,
    };
    super::claude::notes(&notes, &mut p);
    for (line, fact) in facts {
        p.section(format!("{}:{line}", f.rel), STATE, &format!("- {fact}"));
    }
    Ok(p)
}

/// The file's text with the saved facts' section blanked (its lines kept, so every other
/// line keeps its number), and the facts with their line numbers.
fn split(text: &str) -> (String, Vec<(usize, String)>) {
    let mut rest: Vec<&str> = Vec::new();
    let mut facts = Vec::new();
    let mut inside = false;
    for (i, line) in text.split('\n').enumerate() {
        let t = line.trim();
        if t.starts_with('#') {
            inside = t == SAVED;
        }
        if !inside {
            rest.push(line);
            continue;
        }
        rest.push("");
        if let Some(fact) = t
            .strip_prefix("- ")
            .map(str::trim)
            .filter(|f| !f.is_empty())
        {
            facts.push((i + 1, fact.to_string()));
        }
    }
    (rest.join("\n"), facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_facts_are_taken_out_with_their_lines_and_the_rest_keeps_its_numbers() {
        let text = "# App\n\nA tool.\n\n## Gemini Added Memories\n- the staging db is db-2\n-  \n- deploys go out on Tuesdays\n\n## Commands\nmake test\n";
        let (rest, facts) = split(text);
        assert_eq!(
            facts,
            vec![
                (6, "the staging db is db-2".to_string()),
                (8, "deploys go out on Tuesdays".to_string())
            ]
        );
        assert_eq!(rest.split('\n').count(), text.split('\n').count());
        assert!(
            !rest.contains("db-2") && rest.contains("make test"),
            "{rest}"
        );
    }
}
