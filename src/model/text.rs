//! Text measured and cut for a reader with little room: the session-start block, a recall hit,
//! the user memory's part. Pure string work on whole characters; no store, no I/O.

/// Rough token estimate: ASCII at four characters per token, other characters one each.
pub fn estimate_tokens(text: &str) -> usize {
    let (ascii, other) = text.chars().fold((0usize, 0usize), |(a, o), c| {
        if c.is_ascii() { (a + 1, o) } else { (a, o + 1) }
    });
    ascii.div_ceil(4) + other
}

/// Cut `text` to at most `room` bytes on a line boundary (or, for one long line, at the last
/// sentence end or character boundary that fits).
pub fn cut_to(text: &str, room: usize) -> &str {
    if text.len() <= room {
        return text;
    }
    let mut end = room;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    if let Some(i) = head.rfind('\n') {
        let by_line = head[..i].trim_end();
        if by_line.len() >= room / 2 {
            return by_line;
        }
    }
    let sentence = head
        .char_indices()
        .rev()
        .find(|(_, c)| matches!(c, '。' | '！' | '？' | '.' | '!' | '?' | '；' | ';'))
        .map(|(i, c)| i + c.len_utf8());
    match sentence {
        Some(i) if i > room / 2 => &head[..i],
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_prefers_lines_then_sentences() {
        assert_eq!(cut_to("one\ntwo\nthree", 9), "one\ntwo");
        assert_eq!(cut_to("第一句。第二句很长很长", 20), "第一句。");
        assert_eq!(cut_to("abc", 10), "abc");
    }
}
