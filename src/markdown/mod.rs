//! Markdown in and out: a memory file is a preamble followed by `## ` blocks.
//!
//! `render` is ours and byte-deterministic (LF, blocks separated by one blank line, exactly one
//! trailing newline). `parse` uses comrak to find the top-level ATX level-2 headings, so fences,
//! blockquoted template samples and HTML never split an entry, then slices the original text
//! between them: bodies are kept verbatim. The law `parse(render(d)) == d` holds for every doc
//! whose bodies passed [`safe_body`]; proptests in `tests/` pin it.
//!
//! This module is pure: no I/O, no store, no clock.

mod entry;
mod layout;
mod lines;
mod merge;
mod parse;

pub use entry::{block_of, entry_block, pointer_line};
pub use layout::{Layout, LayoutTop, OnTop, Piece, Unit, text_hash};
pub use lines::{Clash, LineMerge, line_counts, line_hash, line_hashes, merge_lines, take_line};
pub use merge::{MergeOutcome, merge_entries, merge_sections};
pub use parse::{ParseError, Parsed, Region, Shape, Unclosed, is_pointer_line, parse, parse_bytes};

/// One `## ` block: the heading text and the lines below it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Block {
    /// Heading text after `## `, trimmed, one line.
    pub heading: String,
    /// Lines after the heading, verbatim, with trailing whitespace trimmed.
    pub body: String,
}

impl Block {
    pub fn new(heading: impl Into<String>, body: impl Into<String>) -> Block {
        Block {
            heading: heading.into(),
            body: body.into(),
        }
    }
}

/// A memory file: the text above the first block, and the blocks in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Doc {
    /// Everything above the first `## ` heading, trailing whitespace trimmed.
    pub preamble: String,
    pub blocks: Vec<Block>,
}

/// Line prefixes of the archive pointer at the end of SESSIONS.md (zh is the original's).
pub const POINTER_PREFIXES: [&str; 2] = [
    "> 更早的会话条目已归档到",
    "> Older session entries archived",
];

impl Block {
    /// The block as a file holds it: `## heading`, then the body on the lines below.
    pub fn text(&self) -> String {
        if self.body.is_empty() {
            format!("## {}", self.heading)
        } else {
            format!("## {}\n{}", self.heading, self.body)
        }
    }
}

/// Render a doc, with an optional trailer line (the archive pointer) after the blocks.
pub fn render(doc: &Doc, trailer: Option<&str>) -> String {
    let blocks: Vec<String> = doc.blocks.iter().map(Block::text).collect();
    join_units(&doc.preamble, blocks.iter().map(String::as_str), trailer)
}

/// The canonical file of a preamble (trailing whitespace trimmed, left out when empty),
/// rendered units and a trailer: one blank line between parts, one newline at the end.
pub fn join_units<'a>(
    preamble: &'a str,
    units: impl Iterator<Item = &'a str>,
    trailer: Option<&'a str>,
) -> String {
    let mut out = String::new();
    let preamble = preamble.trim_end();
    let head = (!preamble.is_empty()).then_some(preamble);
    for part in head.into_iter().chain(units).chain(trailer) {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(part);
    }
    out.push('\n');
    out
}

/// What a person wrote in a file's preamble: its text without the `# ` title and the
/// blockquoted contract lines templates put there (trilogy's and the original plugin's alike),
/// blank lines at either end trimmed.
pub fn prose(preamble: &str) -> String {
    let kept: Vec<&str> = preamble
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("# ") || t == "#" || t.starts_with('>'))
        })
        .collect();
    crate::model::trim_blank_lines(&kept.join("\n")).to_string()
}

/// Normalise line endings to LF (CRLF and lone CR).
pub fn normalize_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\r') {
        // the usual case, and a 20 MB archive: no copy
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Collapse a heading value to one trimmed line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Make user text safe to place as a block body: kept verbatim when it already reads back as
/// exactly one block; otherwise lines that would be read as structure (headings, fences, HTML,
/// setext underlines, conflict markers, the archive pointer) are backslash-escaped; as a last
/// resort the whole body is fenced.
pub fn safe_body(body: &str) -> String {
    let body = normalize_newlines(body);
    let body = body.trim_end();
    if reads_back(body) {
        return body.to_string();
    }
    // an unclosed fence or comment at the end: close it rather than escape the text
    for closer in ["```", "~~~", "````", "-->"] {
        let closed = format!("{body}\n{closer}");
        if reads_back(&closed) {
            return closed;
        }
    }
    let escaped = body.lines().map(escape_line).collect::<Vec<_>>().join("\n");
    let escaped = escaped.trim_end().to_string();
    if reads_back(&escaped) {
        return escaped;
    }
    let longest = longest_run(body, '`');
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{body}\n{fence}")
}

/// True when `body` could swallow what follows it: it has a fence marker (three backticks or
/// tildes) or a line opening with `<` (after indentation and list or quote markers), the only
/// ways a block can stay open past a blank line, or an archive pointer line (taken out when
/// read). Everything else reads back as itself without asking the parser ([`reads_back`]),
/// which keeps importing 100k entries fast.
pub fn may_stay_open(body: &str) -> bool {
    body.contains("```")
        || body.contains("~~~")
        || body.lines().any(|l| {
            l.trim_start_matches(|c: char| {
                c.is_whitespace()
                    || matches!(c, '>' | '-' | '*' | '+' | '.' | ')')
                    || c.is_ascii_digit()
            })
            .starts_with('<')
                || (is_pointer_line(l) && (l.contains('`') || l.contains('~') || l.contains('<')))
        })
}

/// True when `body` under a heading reads back as exactly that body, whatever follows it.
pub fn reads_back(body: &str) -> bool {
    let probe = format!("## h\n{body}\n\n## end\n");
    match parse(&probe, true) {
        Ok(p) => {
            p.stripped.is_empty()
                && p.doc.preamble.is_empty()
                && p.doc.blocks.len() == 2
                && p.doc.blocks[0].heading == "h"
                && p.doc.blocks[0].body == body
                && p.doc.blocks[1] == Block::new("end", "")
        }
        Err(_) => false,
    }
}

fn escape_line(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    let t = &line[indent..];
    let setext = !t.is_empty()
        && (t.trim_end().chars().all(|c| c == '-') || t.trim_end().chars().all(|c| c == '='));
    let risky = t.starts_with('#')
        || t.starts_with("```")
        || t.starts_with("~~~")
        || t.starts_with('<')
        || t.starts_with(">>>>>>>")
        || setext
        || POINTER_PREFIXES.iter().any(|p| t.starts_with(p));
    if risky {
        format!("{}\\{}", &line[..indent], t)
    } else {
        line.to_string()
    }
}

fn longest_run(text: &str, c: char) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for ch in text.chars() {
        if ch == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_separates_blocks_by_one_blank_line_and_ends_with_one_newline() {
        let doc = Doc {
            preamble: "# T\n\n> c".into(),
            blocks: vec![Block::new("a", "x"), Block::new("b", "")],
        };
        assert_eq!(
            render(&doc, Some("> p")),
            "# T\n\n> c\n\n## a\nx\n\n## b\n\n> p\n"
        );
    }

    #[test]
    fn prose_is_the_preamble_without_title_and_contract() {
        assert_eq!(
            prose(
                "# PROJECT\n\n> edit in place\n>\nIMPORTANT: never run migrations on prod\n\nmore"
            ),
            "IMPORTANT: never run migrations on prod\n\nmore"
        );
        assert_eq!(prose("# SESSIONS\n\n> append only"), "");
    }

    #[test]
    fn safe_body_keeps_harmless_text_verbatim() {
        assert_eq!(
            safe_body("a *b*\n- c\n\n```rust\nfn x() {}\n```"),
            "a *b*\n- c\n\n```rust\nfn x() {}\n```"
        );
    }

    #[test]
    fn safe_body_escapes_heading_setext_and_open_fence() {
        let s = safe_body("## not a heading\ntext\n---\n```\nunclosed");
        assert!(s.contains("\\## not a heading"));
        assert!(reads_back(&s));
    }

    #[test]
    fn safe_body_escapes_pointer_and_conflict_lines() {
        let s = safe_body("> 更早的会话条目已归档到 3 条\n<<<<<<< HEAD");
        assert!(reads_back(&s), "{s}");
        assert!(s.starts_with("\\>"));
    }
}
