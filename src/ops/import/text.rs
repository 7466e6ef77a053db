//! The shapes every source shares: a YAML-style frontmatter block (flat `key: value` lines,
//! inline `[a, b]` and block `- a` lists, which is all the four formats write), and Markdown
//! cut at its headings into chunks (a paragraph, one list item, one fenced block), each with
//! its line in the source file.
//!
//! Pure: no I/O. Frontmatter it cannot read is an error naming the file, line and field.

use chrono::NaiveDate;

use crate::error::{Error, Result};

/// A frontmatter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    List(Vec<String>),
    /// `null`, `~` or nothing.
    Null,
    /// A nested map or a block scalar: read over, never used.
    Nested,
}

/// The frontmatter of a file and where its body starts.
#[derive(Debug, Clone, Default)]
pub struct Front {
    /// (key, value, 1-based line), in file order.
    pub fields: Vec<(String, Value, usize)>,
    /// Whether the file opened with a frontmatter block at all.
    pub present: bool,
    /// The text after the block.
    pub body: String,
    /// The 1-based line the body starts on.
    pub body_line: usize,
}

impl Front {
    fn get(&self, key: &str) -> Option<(&Value, usize)> {
        self.fields
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, l)| (v, *l))
    }

    /// A text field (a one-item list reads as its item), trimmed, `None` when empty.
    pub fn text(&self, key: &str) -> Option<String> {
        match self.get(key)?.0 {
            Value::Text(t) if !t.trim().is_empty() => Some(t.trim().to_string()),
            Value::List(l) if l.len() == 1 => Some(l[0].clone()),
            _ => None,
        }
    }

    /// A list field; a text one is split at commas.
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.get(key).map(|(v, _)| v) {
            Some(Value::List(l)) => l.clone(),
            Some(Value::Text(t)) => t
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The line a field is on (1 when absent, for messages).
    pub fn line(&self, key: &str) -> usize {
        self.get(key).map_or(1, |(_, l)| l)
    }

    /// A date field (`2026-01-05`, or a datetime starting with one); a value that is not a
    /// date is an error naming `file`, the line and the field.
    pub fn date(&self, key: &str, file: &str) -> Result<Option<NaiveDate>> {
        let Some(t) = self.text(key) else {
            return Ok(None);
        };
        parse_date(&t).map(Some).ok_or_else(|| {
            Error::bad_input(format!(
                "{file}: line {}: field `{key}`: `{t}` is not a date (YYYY-MM-DD); fix it in the source (nothing was imported)",
                self.line(key)
            ))
        })
    }
}

/// `YYYY-MM-DD` at the start of `t` (a datetime's date part).
pub fn parse_date(t: &str) -> Option<NaiveDate> {
    let t = t.trim().trim_matches(|c| c == '"' || c == '\'');
    let head = t.get(..10)?;
    let rest = &t[10..];
    if !(rest.is_empty() || rest.starts_with(['T', ' ', 't'])) {
        return None;
    }
    NaiveDate::parse_from_str(head, "%Y-%m-%d").ok()
}

/// The first `YYYY-MM-DD` in a line (a dated heading such as `## 2026-01-05 · sprint`).
pub fn date_in(line: &str) -> Option<NaiveDate> {
    let b = line.as_bytes();
    (0..b.len().saturating_sub(9)).find_map(|i| {
        let s = line.get(i..i + 10)?;
        let ok = s.bytes().enumerate().all(|(j, c)| match j {
            4 | 7 => c == b'-',
            _ => c.is_ascii_digit(),
        });
        let bounded = i == 0 || !b[i - 1].is_ascii_digit();
        if ok && bounded {
            NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
        } else {
            None
        }
    })
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_string();
        }
    }
    v.to_string()
}

/// Whether a frontmatter line belongs to the field above it (an item of its block list, a
/// line of its nested map, or a blank line) rather than starting a field of its own.
fn continues(line: &str) -> bool {
    let t = line.trim_end();
    t.trim().is_empty() || t.starts_with([' ', '\t']) || t.starts_with("- ") || t == "-"
}

/// Read the frontmatter block at the top of `text` (`file` names it in errors). Each line is
/// looked at once or twice (a field's block lines are read with it and not again): linear in
/// the lines, however many there are.
pub fn front(text: &str, file: &str) -> Result<Front> {
    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok(Front {
            body: text.to_string(),
            body_line: 1,
            ..Front::default()
        });
    };
    let lines: Vec<&str> = rest.split('\n').collect();
    let Some(end) = lines
        .iter()
        .position(|l| l.trim_end() == "---" || l.trim_end() == "...")
    else {
        return Err(Error::bad_input(format!(
            "{file}: line 1: the frontmatter opened by `---` is never closed; add a `---` line after it (nothing was imported)"
        )));
    };
    let mut fields: Vec<(String, Value, usize)> = Vec::new();
    let mut i = 0;
    while i < end {
        let line = lines[i];
        let n = i + 2; // 1-based, after the opening `---`
        i += 1;
        let t = line.trim_end();
        if continues(t) || t.trim_start().starts_with('#') {
            // a comment, or what belongs to the field above (read with it)
            continue;
        }
        let Some((k, v)) = t.split_once(':') else {
            return Err(Error::bad_input(format!(
                "{file}: line {n}: frontmatter line `{t}` is not `key: value`; fix it in the source (nothing was imported)"
            )));
        };
        let key = k.trim().to_string();
        let v = v.trim();
        let value = if v.is_empty() {
            // a block list, a nested map, or nothing
            let mut items = Vec::new();
            let mut nested = false;
            let mut j = i;
            while j < end && continues(lines[j]) {
                let item = lines[j].trim();
                if let Some(x) = item
                    .strip_prefix("- ")
                    .or(item.strip_prefix('-').filter(|x| x.is_empty()))
                {
                    items.push(unquote(x));
                } else if !item.is_empty() {
                    nested = true;
                }
                j += 1;
            }
            // the block's lines are this field's: not looked at again
            i = j;
            if nested {
                Value::Nested
            } else if items.is_empty() {
                Value::Null
            } else {
                Value::List(items.into_iter().filter(|s| !s.is_empty()).collect())
            }
        } else if v == "null" || v == "~" {
            Value::Null
        } else if v.starts_with('[') && v.ends_with(']') {
            Value::List(
                v[1..v.len() - 1]
                    .split(',')
                    .map(unquote)
                    .filter(|s| !s.is_empty())
                    .collect(),
            )
        } else if v.starts_with('{')
            || v == "|"
            || v == ">"
            || v.starts_with("|-")
            || v.starts_with(">-")
        {
            Value::Nested
        } else {
            Value::Text(unquote(v))
        };
        fields.push((key, value, n));
    }
    let body: String = lines[end + 1..].join("\n");
    Ok(Front {
        fields,
        present: true,
        body,
        body_line: end + 3,
    })
}

/// A part of a Markdown text under one heading.
#[derive(Debug, Clone, Default)]
pub struct Part {
    /// Heading text (without `#`s); empty for the text above the first heading.
    pub heading: String,
    /// 1..6, or 0 for the text above the first heading.
    pub level: usize,
    /// The headings above this one, outermost first (their text).
    pub parents: Vec<String>,
    /// 1-based line of the heading (of the first line, for the text above the first heading).
    pub line: usize,
    pub chunks: Vec<Chunk>,
}

/// A paragraph, one list item (with its continuation lines) or one fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub line: usize,
    pub text: String,
}

impl Chunk {
    /// The chunk as one line of prose: list marker and checkbox taken off, lines joined.
    pub fn plain(&self) -> String {
        let joined = self
            .text
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let t = strip_marker(&joined);
        t.trim().to_string()
    }

    pub fn is_fence(&self) -> bool {
        fence_marker(self.text.lines().next().unwrap_or("")).is_some()
    }
}

/// `text` without a leading list marker (`- `, `* `, `+ `, `1. `) and checkbox (`[ ] `, `[x] `).
pub fn strip_marker(text: &str) -> &str {
    let t = text.trim_start();
    let t = if let Some(r) = t
        .strip_prefix(['-', '*', '+'])
        .filter(|r| r.starts_with(' '))
    {
        r.trim_start()
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        match t[digits..].strip_prefix(['.', ')']) {
            Some(r) if digits > 0 && r.starts_with(' ') => r.trim_start(),
            _ => t,
        }
    };
    for b in ["[ ] ", "[x] ", "[X] "] {
        if let Some(r) = t.strip_prefix(b) {
            return r;
        }
    }
    t
}

fn heading_of(line: &str) -> Option<(usize, String)> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim();
    Some((hashes, text.to_string()))
}

/// The fence character and length opening a fence on this line (up to 3 spaces indent).
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

fn is_item_start(line: &str) -> bool {
    let indent = line.len() - line.trim_start().len();
    indent <= 1 && strip_marker(line).len() != line.trim_start().len()
}

/// Cut `body` (whose first line is line `first_line` of its file) at its headings.
pub fn parts(body: &str, first_line: usize) -> Vec<Part> {
    let mut out = vec![Part {
        line: first_line,
        ..Part::default()
    }];
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut current: Option<Chunk> = None;
    let mut fence: Option<(char, usize)> = None;
    let flush = |out: &mut Vec<Part>, current: &mut Option<Chunk>| {
        if let Some(mut c) = current.take() {
            c.text = c.text.trim_end().to_string();
            if !c.text.trim().is_empty()
                && let Some(p) = out.last_mut()
            {
                p.chunks.push(c);
            }
        }
    };
    for (i, line) in body.split('\n').enumerate() {
        let n = first_line + i;
        if let Some((c, len)) = fence {
            let closes = fence_marker(line).is_some_and(|(c2, l2)| {
                c2 == c && l2 >= len && line.trim().chars().all(|x| x == c)
            });
            if let Some(ch) = current.as_mut() {
                ch.text.push('\n');
                ch.text.push_str(line);
            }
            if closes {
                fence = None;
                flush(&mut out, &mut current);
            }
            continue;
        }
        if let Some(m) = fence_marker(line) {
            flush(&mut out, &mut current);
            fence = Some(m);
            current = Some(Chunk {
                line: n,
                text: line.to_string(),
            });
            continue;
        }
        if let Some((level, text)) = heading_of(line) {
            flush(&mut out, &mut current);
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            out.push(Part {
                heading: text.clone(),
                level,
                parents: stack.iter().map(|(_, t)| t.clone()).collect(),
                line: n,
                chunks: Vec::new(),
            });
            stack.push((level, text));
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut out, &mut current);
            continue;
        }
        if is_item_start(line) {
            flush(&mut out, &mut current);
        }
        match current.as_mut() {
            Some(c) => {
                c.text.push('\n');
                c.text.push_str(line);
            }
            None => {
                current = Some(Chunk {
                    line: n,
                    text: line.to_string(),
                })
            }
        }
    }
    flush(&mut out, &mut current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_reads_the_shapes_the_sources_write() {
        let f = front(
            "---\nid: a\ntags: [windows, disk]\nstatus: active\nsupersedes: []\nsuperseded_by: null\naliases:\n  - one\n  - \"two\"\nschema:\n  name: x\ntitle: \"Quoted: yes\"\n---\n\nbody\n",
            "f.md",
        )
        .unwrap();
        assert_eq!(f.text("id").as_deref(), Some("a"));
        assert_eq!(f.list("tags"), vec!["windows", "disk"]);
        assert!(f.list("supersedes").is_empty());
        assert_eq!(f.text("superseded_by"), None);
        assert_eq!(f.list("aliases"), vec!["one", "two"]);
        assert_eq!(f.get("schema").unwrap().0, &Value::Nested);
        assert_eq!(f.text("title").as_deref(), Some("Quoted: yes"));
        assert_eq!(f.body, "\nbody\n");
        assert_eq!(f.body_line, 14);
        assert_eq!(f.line("status"), 4);
    }

    #[test]
    fn keys_that_start_with_a_dash_are_fields_not_items_of_the_list_above() {
        let mut text = "---\ntags:\n  - a\n- b\n".to_string();
        for k in 0..20_000 {
            text.push_str(&format!("-k{k}:\n"));
        }
        text.push_str("key: last\n---\nbody\n");
        let f = front(&text, "f.md").unwrap();
        assert_eq!(f.list("tags"), vec!["a", "b"]);
        assert_eq!(f.fields.len(), 20_002);
        assert_eq!(f.get("-k19999").unwrap(), (&Value::Null, 20_004));
        assert_eq!(f.text("key").as_deref(), Some("last"));
        assert_eq!(f.body, "body\n");
    }

    #[test]
    fn bad_frontmatter_names_file_line_and_field() {
        let e = front("---\nid: a\n", "x.md").unwrap_err().to_string();
        assert!(
            e.contains("x.md: line 1") && e.contains("never closed"),
            "{e}"
        );
        let e = front("---\nid: a\njust words\n---\n", "x.md")
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.md: line 3"), "{e}");
        let f = front("---\ndate: 2026-13-40\n---\n", "x.md").unwrap();
        let e = f.date("date", "x.md").unwrap_err().to_string();
        assert!(e.contains("x.md: line 2: field `date`"), "{e}");
        let f = front("---\ncreated: 2025-10-24T09:30:00+02:00\n---\n", "x.md").unwrap();
        assert_eq!(
            f.date("created", "x.md").unwrap(),
            NaiveDate::from_ymd_opt(2025, 10, 24)
        );
    }

    #[test]
    fn parts_cut_at_headings_and_chunks_at_items_and_fences() {
        let p = parts(
            "intro line\n\n# T\n## Build\n- one\n  more\n- two\n\n```sh\n# not a heading\n\ncargo test\n```\n### Sub\npara\n",
            1,
        );
        assert_eq!(p[0].chunks[0].text, "intro line");
        let build = &p[2];
        assert_eq!(build.heading, "Build");
        assert_eq!(build.parents, vec!["T".to_string()]);
        let texts: Vec<&str> = build.chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "- one\n  more",
                "- two",
                "```sh\n# not a heading\n\ncargo test\n```"
            ]
        );
        assert_eq!(build.chunks[1].line, 7);
        assert_eq!(build.chunks[0].plain(), "one more");
        assert!(build.chunks[2].is_fence());
        assert_eq!(p[3].parents, vec!["T".to_string(), "Build".to_string()]);
        assert_eq!(
            date_in("## 2026-01-05 · x"),
            NaiveDate::from_ymd_opt(2026, 1, 5)
        );
        assert_eq!(date_in("v12026-01-05"), None);
    }
}
