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
    /// How the bytes sit around the blocks, so the file can be written back as it was.
    pub shape: Shape,
    /// A fence (or HTML block) that is never closed and so runs to the end of the file,
    /// hiding the `## ` lines below it inside the block that opened it.
    pub unclosed: Option<Unclosed>,
}

/// The text of a file around its parsed blocks: the head (everything above the first block)
/// and each block, as written, with the whitespace that follows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    /// The file starts with a byte-order mark.
    pub bom: bool,
    /// Every line ends with CRLF.
    pub crlf: bool,
    /// The head, then one region per block.
    pub regions: Vec<Region>,
}

/// One stretch of a file: its text as written when that differs from how the parsed block
/// (or preamble) renders, and the whitespace after it up to the next block (for the last
/// region: to the end of the file, archive pointer included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Region {
    pub raw: Option<String>,
    pub gap: String,
    /// The region holds an unclosed fence: it swallows whatever follows it.
    pub open_end: bool,
}

/// An unclosed fence: the 1-based line it opens on and how many `## ` lines it hides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclosed {
    pub line: usize,
    pub what: &'static str,
    pub hidden: usize,
}

impl std::fmt::Display for Unclosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "this {} is never closed, so the {} `## ` heading(s) below it are read as its text; close it to make them entries again",
            self.what, self.hidden
        )
    }
}

impl Parsed {
    /// The unclosed fence as an error, for a reader that must not let one hide headings (the
    /// merge driver, which moves entries around).
    pub fn require_closed(&self) -> Result<(), ParseError> {
        match &self.unclosed {
            None => Ok(()),
            Some(u) => Err(ParseError {
                line: u.line,
                reason: u.to_string(),
            }),
        }
    }

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

/// Where comrak found the blocks that matter: entry headings, code and HTML blocks.
#[derive(Default)]
struct Blocks {
    /// 1-based lines of the top-level `## ` headings in column 0.
    starts: Vec<usize>,
    /// 1-based line ranges of code and HTML blocks.
    code_lines: Vec<(usize, usize)>,
    /// Blocks that run to the end of the file because nothing closed them.
    unclosed: Vec<(usize, usize, &'static str)>,
}

/// How much text comrak is given at a time.
const PIECE_BYTES: usize = 256 * 1024;

/// Find the blocks a piece of the text at a time. A piece ends before a `## ` line in column 0
/// that follows a blank line: there no block can stay open but a fence or an HTML block waiting
/// for its terminator, and a piece that leaves one open is parsed again with the rest of the
/// text. So the result is the whole text's, while the arena comrak builds (several times the
/// text's size) stays the size of a piece, not of a 20 MB archive.
fn scan_blocks(text: &str, lines: &[&str]) -> Blocks {
    let cut_before = |i: usize| {
        i > 0 && (lines[i].starts_with("## ") || lines[i] == "##") && lines[i - 1].trim().is_empty()
    };
    let mut out = Blocks::default();
    let (mut first, mut off) = (0usize, 0usize);
    while first < lines.len() {
        let (mut end, mut bytes) = (first, 0usize);
        while end < lines.len() && !(end > first && bytes >= PIECE_BYTES && cut_before(end)) {
            bytes += lines[end].len() + 1;
            end += 1;
        }
        let stop = (off + bytes).min(text.len());
        let last = end == lines.len();
        match scan_piece(&text[off..stop], lines, first, last) {
            Some(b) => {
                out.starts.extend(b.starts);
                out.code_lines.extend(b.code_lines);
                out.unclosed.extend(b.unclosed);
                first = end;
                off = stop;
            }
            None => {
                // a block stays open across the cut: the rest is read in one piece
                let rest = scan_piece(&text[off..], lines, first, true).unwrap_or_default();
                out.starts.extend(rest.starts);
                out.code_lines.extend(rest.code_lines);
                out.unclosed.extend(rest.unclosed);
                break;
            }
        }
    }
    out
}

/// The blocks of `piece`, which starts at 0-based line `first` of `lines`; `None` when a block
/// is left open at its end and more text follows (`last` false).
fn scan_piece(piece: &str, lines: &[&str], first: usize, last: bool) -> Option<Blocks> {
    let arena = Arena::new();
    let opts = Options::default();
    let root = parse_document(&arena, piece, &opts);
    let mut out = Blocks::default();
    for node in root.descendants() {
        let ast = node.data.borrow();
        let Sourcepos { start, end } = ast.sourcepos;
        let (start_line, end_line) = (start.line + first, end.line + first);
        match &ast.value {
            NodeValue::Heading(h) if h.level == 2 && !h.setext => {
                let top_level = node
                    .parent()
                    .is_some_and(|p| matches!(p.data.borrow().value, NodeValue::Document));
                // as the original reads it: `##` at column 0; an indented one is body text
                let column_zero = lines
                    .get(start_line - 1)
                    .is_some_and(|l| l.starts_with("##"));
                if top_level && column_zero {
                    out.starts.push(start_line);
                }
            }
            NodeValue::CodeBlock(c) => {
                out.code_lines.push((start_line, end_line));
                if c.fenced && !c.closed {
                    if !last {
                        return None;
                    }
                    out.unclosed.push((start_line, end_line, "code fence"));
                }
            }
            NodeValue::HtmlBlock(h) => {
                out.code_lines.push((start_line, end_line));
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
                    if !last {
                        return None;
                    }
                    out.unclosed.push((start_line, end_line, "HTML block"));
                }
            }
            _ => {}
        }
    }
    Some(out)
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
    let crlf = text.contains("\r\n") && text.matches('\n').count() == text.matches("\r\n").count();
    let bom = text.starts_with('\u{feff}');
    let text = normalize_newlines(text);
    let text = text.trim_start_matches('\u{feff}');
    let lines: Vec<&str> = text.split('\n').collect();
    let Blocks {
        starts,
        code_lines,
        unclosed,
    } = scan_blocks(text, &lines);
    let in_code = |line: usize| code_lines.iter().any(|(s, e)| line >= *s && line <= *e);
    // git's markers are seven signs and a space (or nothing, or any white space, which a render
    // trims away): `>>>>>>>> x` is a blockquote
    let marker = |line: &str, sign: &str| {
        line.strip_prefix(sign)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    };
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let conflict = marker(line, "<<<<<<<") || marker(line, ">>>>>>>");
        if conflict && !in_code(n) {
            return Err(ParseError {
                line: n,
                reason: "unresolved merge conflict marker".into(),
            });
        }
    }

    // an unclosed fence runs to the end of the file as text of the block that opened it (the
    // original plugin read it the same way): the file still reads, and says what it hides
    let unclosed = unclosed.iter().find_map(|(from, to, what)| {
        let hidden = lines
            .iter()
            .take(*to)
            .skip(*from)
            .filter(|l| l.starts_with("## "))
            .count();
        (hidden > 0).then_some(Unclosed {
            line: *from,
            what,
            hidden,
        })
    });

    let mut stripped = Vec::new();
    // a pointer line is trilogy's only where it stands as a paragraph of its own (a run of
    // them followed by a blank line, a heading or the end): one that text runs on from is part
    // of that text, which would read otherwise without it
    let stands_alone = |i: usize| {
        let after = lines[i + 1..].iter().find(|l| !is_pointer_line(l));
        after.is_none_or(|l| l.trim().is_empty() || l.starts_with("##"))
    };
    let keep = |i: usize, stripped: &mut Vec<String>| -> bool {
        let line = lines[i];
        if strip_pointer && is_pointer_line(line) && !in_code(i + 1) && stands_alone(i) {
            stripped.push(line.to_string());
            return false;
        }
        true
    };
    let join = |from: usize, to: usize, stripped: &mut Vec<String>| -> String {
        // sized up front: grown by doubling, the bodies of a 20 MB archive take a third more
        let size: usize = (lines.iter().take(to).skip(from))
            .map(|l| l.len() + 1)
            .sum();
        let mut out = String::with_capacity(size);
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
    // a U+FEFF that a taken-out pointer line left first would be read as a BOM next time
    let preamble = join(0, first, &mut stripped)
        .trim_start_matches('\u{feff}')
        .to_string();
    let mut blocks = Vec::with_capacity(starts.len());
    for (k, start) in starts.iter().enumerate() {
        let idx = start - 1;
        let end = starts.get(k + 1).map(|l| l - 1).unwrap_or(lines.len());
        let heading = heading_text(lines[idx]);
        let body = join(idx + 1, end, &mut stripped);
        blocks.push(Block { heading, body });
    }
    let doc = Doc { preamble, blocks };
    let shape = shape_of(
        text,
        &lines,
        &starts,
        &doc,
        strip_pointer,
        &in_code,
        bom,
        crlf,
        unclosed.as_ref(),
    );
    Ok(Parsed {
        doc,
        lines: starts,
        stripped,
        shape,
        unclosed,
    })
}

/// The regions of `text` (head, then one per block starting at `starts`), each split into the
/// text up to its last non-blank line and the whitespace after it; trailing archive pointer
/// lines of the last region go with its whitespace, since the pointer follows the last block.
#[allow(clippy::too_many_arguments)]
fn shape_of(
    text: &str,
    lines: &[&str],
    starts: &[usize],
    doc: &Doc,
    strip_pointer: bool,
    in_code: &dyn Fn(usize) -> bool,
    bom: bool,
    crlf: bool,
    unclosed: Option<&Unclosed>,
) -> Shape {
    let mut offsets = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for l in lines {
        offsets.push(at.min(text.len()));
        at += l.len() + 1;
    }
    offsets.push(text.len());
    // region k covers lines [bounds[k], bounds[k + 1]) (0-based)
    let mut bounds = vec![0];
    bounds.extend(starts.iter().map(|l| l - 1));
    bounds.push(lines.len());
    let n = bounds.len() - 1;
    let mut regions = Vec::with_capacity(n);
    for k in 0..n {
        let (a, b) = (bounds[k], bounds[k + 1]);
        let region = &text[offsets[a]..offsets[b]];
        let mut end = region.trim_end().len();
        if strip_pointer && k == n - 1 {
            loop {
                let content = &region[..end];
                let line_start = content.rfind('\n').map_or(0, |i| i + 1);
                let line_no = a + content[..line_start].matches('\n').count() + 1;
                if end > 0 && is_pointer_line(&content[line_start..]) && !in_code(line_no) {
                    end = content[..line_start].trim_end().len();
                } else {
                    break;
                }
            }
        }
        let content = &region[..end];
        let canonical = if k == 0 {
            doc.preamble.clone()
        } else {
            doc.blocks[k - 1].text()
        };
        let open_end = unclosed.is_some_and(|u| u.line > a && u.line <= b);
        regions.push(Region {
            raw: (content != canonical).then(|| content.to_string()),
            gap: region[end..].to_string(),
            open_end,
        });
    }
    Shape { bom, crlf, regions }
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

    /// Parsed, rendered and parsed again, a text renders the same.
    fn reads_back(text: &str) {
        let p = parse(text, true).unwrap();
        let once = crate::markdown::render(&p.doc, None);
        let again = parse(&once, true).expect("rendered text parses");
        assert_eq!(crate::markdown::render(&again.doc, None), once);
    }

    #[test]
    fn a_pointer_line_text_runs_on_from_is_that_texts() {
        let pointer = crate::markdown::pointer_line(4, crate::model::Lang::Zh);
        // lines that read as a quote's with it and as a conflict marker without it
        reads_back(&format!("{pointer}\n <T>.\n <T>\n<<<<<<<\n.>> \n"));
        // a U+FEFF after it is not left first, to be read as a byte-order mark later
        let text = format!("{pointer}\r\n\u{feff}note\n\n## 2026-01-02\nDone: x\n");
        let p = parse(&text, true).unwrap();
        assert_eq!(p.doc.preamble, format!("{pointer}\n\u{feff}note"));
        assert!(p.stripped.is_empty());
        reads_back(&text);
        // standing alone, before a blank line, a heading or the end, it is taken out
        for after in ["\n\nnote\n", "\n## 2026-01-02\nDone: x\n", "\n"] {
            let p = parse(&format!("{pointer}{after}"), true).unwrap();
            assert_eq!(p.stripped, vec![pointer.clone()], "{after:?}");
        }
    }

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
    fn an_unclosed_fence_runs_to_the_end_and_is_named() {
        let p = parse("# S\n\n```\nopen\n\n## 2026-01-02\nx\n", false).unwrap();
        assert_eq!(p.doc.blocks.len(), 0);
        let u = p.unclosed.as_ref().unwrap();
        assert_eq!((u.line, u.hidden), (3, 1));
        assert_eq!(p.require_closed().unwrap_err().line, 3);
        let p = parse("## a\n<!-- never closed\n\n## b\n", false).unwrap();
        assert_eq!(p.doc.blocks.len(), 1);
        assert_eq!(p.unclosed.unwrap().line, 2);
        // at the very end nothing is swallowed: nothing to say
        assert!(parse("## a\n```\nopen", false).unwrap().unclosed.is_none());
    }

    #[test]
    fn an_indented_heading_is_body_text() {
        let p = parse("## a\n  ## b\n##  c\n", false).unwrap();
        let heads: Vec<&str> = p.doc.blocks.iter().map(|b| b.heading.as_str()).collect();
        assert_eq!(heads, ["a", "c"]);
        assert_eq!(p.doc.blocks[0].body, "  ## b");
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
    fn a_deep_blockquote_is_no_conflict_marker() {
        let p = parse("# S\n\n## a\n>>>>>>>> x\n>>>>>>>>\n", false).unwrap();
        assert_eq!(p.doc.blocks[0].body, ">>>>>>>> x\n>>>>>>>>");
        // git's own shape, even half of it, still is one
        let e = parse("# S\n\n## a\nx\n>>>>>>> b\n", false).unwrap_err();
        assert_eq!(e.line, 5);
        let e = parse("# S\n\n## a\nx\n<<<<<<<\n", false).unwrap_err();
        assert_eq!(e.line, 5);
        // a tab after the signs is trimmed by a render: still a marker
        assert_eq!(parse("<<<<<<<\t", false).unwrap_err().line, 1);
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let e = parse_bytes(b"# S\n\n## a\n\xff\n", false).unwrap_err();
        assert_eq!(e.line, 4);
    }
}
