//! Bytes → [`Doc`]: comrak finds the block boundaries, the original text supplies the bytes.
//!
//! The only module that names comrak.

use comrak::nodes::{NodeValue, Sourcepos};
use comrak::{Arena, Options, parse_document};

use super::{Block, Doc, POINTER_PREFIXES, normalize_newlines};

/// Why a file could not be parsed, with the 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub doc: Doc,
    /// 1-based line of each block's heading in the (LF-normalised) input.
    pub lines: Vec<usize>,
    /// Archive pointer lines that were taken out (when asked to strip them).
    pub stripped: Vec<String>,
}

impl Parsed {
    /// The archived-entry count an original-style pointer line states (`… 12 条…`).
    pub fn pointer_count(&self) -> Option<u64> {
        self.stripped.iter().find_map(|line| {
            let digits: String = line
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(|c| c.is_ascii_digit())
                .collect();
            digits.parse().ok()
        })
    }
}

/// Parse raw bytes: invalid UTF-8 is an error naming the line.
pub fn parse_bytes(bytes: &[u8], strip_pointer: bool) -> Result<Parsed, ParseError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text, strip_pointer),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|b| **b == b'\n').count() + 1;
            Err(ParseError {
                line,
                reason: "invalid UTF-8 (memory files must be UTF-8 text)".into(),
            })
        }
    }
}

/// Parse text into a doc. With `strip_pointer`, archive pointer lines (outside code) are taken
/// out wherever they are, so they never travel with an entry.
pub fn parse(text: &str, strip_pointer: bool) -> Result<Parsed, ParseError> {
    let text = normalize_newlines(text);
    let text = text.trim_start_matches('\u{feff}');
    let arena = Arena::new();
    let opts = Options::default();
    let root = parse_document(&arena, text, &opts);

    let mut starts: Vec<usize> = Vec::new();
    let mut code_lines: Vec<(usize, usize)> = Vec::new();
    // blocks that run to the end of the file because nothing closed them
    let mut unclosed: Vec<(usize, usize, &'static str)> = Vec::new();
    for node in root.descendants() {
        let ast = node.data.borrow();
        let Sourcepos { start, end } = ast.sourcepos;
        match &ast.value {
            NodeValue::Heading(h) if h.level == 2 && !h.setext => {
                let top_level = node
                    .parent()
                    .is_some_and(|p| matches!(p.data.borrow().value, NodeValue::Document));
                if top_level {
                    starts.push(start.line);
                }
            }
            NodeValue::CodeBlock(c) => {
                code_lines.push((start.line, end.line));
                if c.fenced && !c.closed {
                    unclosed.push((start.line, end.line, "code fence"));
                }
            }
            NodeValue::HtmlBlock(h) => {
                code_lines.push((start.line, end.line));
                let terminators: &[&str] = match h.block_type {
                    1 => &["</script>", "</pre>", "</style>", "</textarea>"],
                    2 => &["-->"],
                    3 => &["?>"],
                    4 => &[">"],
                    5 => &["]]>"],
                    _ => &[],
                };
                let lower = h.literal.to_lowercase();
                if !terminators.is_empty() && !terminators.iter().any(|t| lower.contains(t)) {
                    unclosed.push((start.line, end.line, "HTML block"));
                }
            }
            _ => {}
        }
    }
    let in_code = |line: usize| code_lines.iter().any(|(s, e)| line >= *s && line <= *e);

    let lines: Vec<&str> = text.split('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if (line.starts_with("<<<<<<<") || line.starts_with(">>>>>>>")) && !in_code(n) {
            return Err(ParseError {
                line: n,
                reason: "unresolved merge conflict marker".into(),
            });
        }
    }

    for (from, to, what) in &unclosed {
        let swallowed = lines
            .iter()
            .take(*to)
            .skip(*from)
            .any(|l| l.starts_with("## "));
        if swallowed {
            return Err(ParseError {
                line: *from,
                reason: format!(
                    "this {what} is never closed, so the `## ` headings below it are read as its text; close it (or delete it)"
                ),
            });
        }
    }

    let mut stripped = Vec::new();
    let keep = |i: usize, stripped: &mut Vec<String>| -> bool {
        let line = lines[i];
        if strip_pointer && is_pointer_line(line) && !in_code(i + 1) {
            stripped.push(line.to_string());
            return false;
        }
        true
    };
    let join = |from: usize, to: usize, stripped: &mut Vec<String>| -> String {
        let mut out = String::new();
        let mut first = true;
        for (i, line) in lines.iter().enumerate().take(to).skip(from) {
            if !keep(i, stripped) {
                continue;
            }
            if !first {
                out.push('\n');
            }
            first = false;
            out.push_str(line);
        }
        out.truncate(out.trim_end().len());
        out
    };

    let first = starts.first().map(|l| l - 1).unwrap_or(lines.len());
    let preamble = join(0, first, &mut stripped);
    let mut blocks = Vec::with_capacity(starts.len());
    for (k, start) in starts.iter().enumerate() {
        let idx = start - 1;
        let end = starts.get(k + 1).map(|l| l - 1).unwrap_or(lines.len());
        let heading = heading_text(lines[idx]);
        let body = join(idx + 1, end, &mut stripped);
        blocks.push(Block { heading, body });
    }
    Ok(Parsed {
        doc: Doc { preamble, blocks },
        lines: starts,
        stripped,
    })
}

/// The archive pointer line, in any of the forms trilogy or the original plugin wrote:
/// the prefix followed by a count or the archive's file name. Other text after the prefix
/// is a person's, and is kept.
pub fn is_pointer_line(line: &str) -> bool {
    let line = line.trim_end();
    if let Some(rest) = line.strip_prefix(POINTER_PREFIXES[0]) {
        let rest = rest.trim_start();
        return rest.starts_with(|c: char| c.is_ascii_digit())
            || rest.starts_with("`SESSIONS-archive.md`")
            || rest.starts_with("SESSIONS-archive.md");
    }
    if let Some(rest) = line.strip_prefix(POINTER_PREFIXES[1]) {
        return rest
            .strip_prefix(": ")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    }
    false
}

/// Text of an ATX heading line after its `##` marker.
fn heading_text(line: &str) -> String {
    let t = line.trim_start();
    let t = t.strip_prefix("##").unwrap_or(t);
    t.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_and_quoted_headings_do_not_split() {
        let text = "# S\n\n> ```\n> ## YYYY-MM-DD\n> ```\n\n## 2026-01-02\nDone: x\n```\n## inside\n```\n~~~\n## tilde\n~~~\n";
        let p = parse(text, false).unwrap();
        assert_eq!(p.doc.blocks.len(), 1);
        assert_eq!(p.doc.preamble, "# S\n\n> ```\n> ## YYYY-MM-DD\n> ```");
        assert!(p.doc.blocks[0].body.ends_with("## tilde\n~~~"));
    }

    #[test]
    fn crlf_is_normalised_and_prose_kept() {
        let p = parse("## 2026-01-02\r\n\r\nfree prose\r\n完成：a\r\n", false).unwrap();
        assert_eq!(p.doc.blocks[0].body, "\nfree prose\n完成：a");
    }

    #[test]
    fn pointer_is_stripped_and_counted() {
        let p = parse("# S\n\n## 2026-01-02\nx\n\n> 更早的会话条目已归档到 7 条（见 `SESSIONS-archive.md`）。\n", true).unwrap();
        assert_eq!(p.doc.blocks[0].body, "x");
        assert_eq!(p.pointer_count(), Some(7));
    }

    #[test]
    fn only_real_pointer_lines_are_stripped() {
        let p = parse(
            "## 2026-01-02\n> 更早的会话条目已归档到 the old wiki\n> Older session entries archived by hand\n",
            true,
        )
        .unwrap();
        assert!(p.stripped.is_empty());
        assert_eq!(p.doc.blocks[0].body.lines().count(), 2);
        assert!(is_pointer_line(
            "> 更早的会话条目已归档到 `SESSIONS-archive.md`"
        ));
        assert!(is_pointer_line(
            "> Older session entries archived: 3 in `SESSIONS-archive.md`."
        ));
    }

    #[test]
    fn unclosed_fence_swallowing_headings_is_an_error() {
        let e = parse("# S\n\n```\nopen\n\n## 2026-01-02\nx\n", false).unwrap_err();
        assert_eq!(e.line, 3);
        let e = parse("## a\n<!-- never closed\n\n## b\n", false).unwrap_err();
        assert_eq!(e.line, 2);
        // at the very end nothing is swallowed: fine
        assert!(parse("## a\n```\nopen", false).is_ok());
    }

    #[test]
    fn conflict_marker_is_an_error_with_line() {
        let e = parse(
            "# S\n\n## a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n",
            false,
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let e = parse_bytes(b"# S\n\n## a\n\xff\n", false).unwrap_err();
        assert_eq!(e.line, 4);
    }
}
