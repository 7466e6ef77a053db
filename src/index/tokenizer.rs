//! One tokenizer for Chinese, Japanese, Korean, English and code names.
//!
//! - A run of CJK characters gives every single character and every overlapping pair, so
//!   `沙箱禁管道` shares `沙箱`, `箱禁`, `管道` and the single characters with `沙箱禁止命名管道`.
//! - A run of letters, digits and `_` gives the whole run and, when it is an identifier, its
//!   parts: `parse_sessions` → `parse_sessions`, `parse`, `sessions`; `parseSessions` →
//!   `parsesessions`, `parse`, `sessions`. Paths and flags split on `/ . - :`.
//!
//! Lowercasing and English stemming are applied after this, by the analyzer chain.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Hiragana, katakana, CJK ideographs, Hangul.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_cjk(c)
}

#[derive(Clone, Default)]
pub struct MemoryTokenizer;

pub struct SpanTokenStream<'a> {
    text: &'a str,
    spans: Vec<(usize, usize)>,
    idx: usize,
    token: Token,
}

impl TokenStream for SpanTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(&(from, to)) = self.spans.get(self.idx) else {
            return false;
        };
        // one token, refilled: indexing 100k entries makes no allocation per token
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = self.idx;
        self.token.position_length = 1;
        self.token.text.clear();
        self.token.text.push_str(&self.text[from..to]);
        self.idx += 1;
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

fn identifier_parts(word: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut start: Option<usize> = None;
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            continue;
        }
        if let Some(s) = start {
            let prev = chars[k - 1].1;
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_alphabetic() && c.is_numeric())
                || (prev.is_numeric() && c.is_alphabetic())
                // "HTTPServer": the last capital of a run starts the next word
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase()));
            if boundary {
                parts.push((s, i));
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    parts
}

/// All tokens of `text` (before lowercasing and stemming).
pub fn tokens(text: &str) -> Vec<Token> {
    (spans(text).into_iter().enumerate())
        .map(|(position, (from, to))| Token {
            offset_from: from,
            offset_to: to,
            position,
            text: text[from..to].to_string(),
            position_length: 1,
        })
        .collect()
}

/// Where the tokens of `text` are, in order (byte ranges; a token's position is its index).
fn spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let push = |from: usize, to: usize, out: &mut Vec<(usize, usize)>| out.push((from, to));
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        if is_cjk(c) {
            let mut e = k;
            while e < chars.len() && is_cjk(chars[e].1) {
                e += 1;
            }
            for m in k..e {
                let from = chars[m].0;
                let to = from + chars[m].1.len_utf8();
                push(from, to, &mut out);
                if m + 1 < e {
                    let to2 = chars[m + 1].0 + chars[m + 1].1.len_utf8();
                    push(from, to2, &mut out);
                }
            }
            k = e;
        } else if is_word(c) {
            let mut e = k;
            while e < chars.len() && is_word(chars[e].1) {
                e += 1;
            }
            let end = chars.get(e).map_or(text.len(), |(j, _)| *j);
            let word = &text[i..end];
            let parts = identifier_parts(word);
            if parts.len() != 1 || parts[0] != (0, word.len()) {
                push(i, end, &mut out);
            }
            for (s, t) in parts {
                push(i + s, i + t, &mut out);
            }
            k = e;
        } else {
            k += 1;
        }
    }
    out
}

/// The CJK characters `text` holds by themselves (each a run of one CJK character), in order:
/// the single characters a query means as words, not as parts of a longer run.
pub fn lone_cjk(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let cjk_at = |k: Option<usize>| {
        k.and_then(|k| chars.get(k))
            .is_some_and(|(_, c)| is_cjk(*c))
    };
    chars
        .iter()
        .enumerate()
        .filter(|&(k, &(_, c))| is_cjk(c) && !cjk_at(k.checked_sub(1)) && !cjk_at(Some(k + 1)))
        .map(|(_, &(i, c))| &text[i..i + c.len_utf8()])
        .collect()
}

impl Tokenizer for MemoryTokenizer {
    type TokenStream<'a> = SpanTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> SpanTokenStream<'a> {
        SpanTokenStream {
            text,
            spans: spans(text),
            idx: 0,
            token: Token::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokens(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn cjk_gives_characters_and_overlapping_pairs() {
        assert_eq!(texts("沙箱禁"), ["沙", "沙箱", "箱", "箱禁", "禁"]);
        assert_eq!(texts("a管道b"), ["a", "管", "管道", "道", "b"]);
    }

    #[test]
    fn lone_characters_are_runs_of_one() {
        assert_eq!(lone_cjk("第 4242 次会话"), ["第"]);
        assert_eq!(lone_cjk("锁 a门b 重复"), ["锁", "门"]);
        assert!(lone_cjk("boot block 重复").is_empty());
        assert!(lone_cjk("plain words").is_empty());
    }

    #[test]
    fn identifiers_split_into_parts() {
        assert_eq!(
            texts("parse_sessions"),
            ["parse_sessions", "parse", "sessions"]
        );
        assert_eq!(
            texts("parseSessions"),
            ["parseSessions", "parse", "Sessions"]
        );
        assert_eq!(texts("HTTPServer2"), ["HTTPServer2", "HTTP", "Server", "2"]);
        assert_eq!(
            texts("src/store/mod.rs --lock-timeout"),
            ["src", "store", "mod", "rs", "lock", "timeout"]
        );
        assert_eq!(texts("plain"), ["plain"]);
    }
}
