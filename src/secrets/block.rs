//! A private key is a block of lines (PEM, OpenSSH, PGP): its BEGIN line, a body of base64
//! lines (with a few `Name: value` headers in older PEM), its END line. The whole block is the
//! secret, so a finding on either marker line is widened to every line of the block that the
//! text holds: from BEGIN to END, or to the last body line when the END is not there (a key
//! cut short), or back from an END whose BEGIN is not there (a message that holds the rest of
//! a key pasted before it).

use std::sync::OnceLock;

use regex::Regex;

/// The END line of a private key block.
pub(super) const END: &str = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----";

fn end_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(END).expect("the END line pattern is a valid regex"))
}

/// Shortest line taken as body without a digit or a base64 sign in it (a short word after a
/// key cut short is the person's text, not the key).
const SHORT_BODY: usize = 16;

/// Whether `line` can be part of a key's body: base64, a PEM header (`Proc-Type: 4,ENCRYPTED`),
/// or blank.
fn body_line(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return true;
    }
    let base64 = t
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if base64 {
        return t.len() >= SHORT_BODY
            || t.bytes()
                .any(|b| b.is_ascii_digit() || matches!(b, b'+' | b'/' | b'='));
    }
    // an encrypted PEM key's headers
    t.split_once(": ").is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
    })
}

/// Where the block whose BEGIN line ends at byte `from` of `text` ends: after its END line
/// when one follows before another BEGIN, else after its last body line.
pub(super) fn end_of(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    let next = rest.find("-----BEGIN").unwrap_or(rest.len());
    if let Some(m) = end_line().find(&rest[..next]) {
        return from + m.end();
    }
    let mut end = from;
    let mut at = from;
    for line in rest.split_inclusive('\n') {
        if !body_line(line) {
            break;
        }
        at += line.len();
        if !line.trim().is_empty() {
            end = at - (line.len() - line.trim_end().len());
        }
    }
    end
}

/// Where the block whose END line starts at byte `at` of `text` starts, its BEGIN line not
/// being in `text`: at the first of the body lines right above it.
pub(super) fn start_of(text: &str, at: usize) -> usize {
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    if !body_line(&text[line_start..at]) {
        return at;
    }
    let mut start = line_start;
    for line in text[..line_start].split_inclusive('\n').rev() {
        if !body_line(line) {
            break;
        }
        start -= line.len();
    }
    // blank lines above the body are not the key's
    start + text[start..].len() - text[start..].trim_start().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACCr+k2Xh0dFZ0yX9m==\n-----END OPENSSH PRIVATE KEY-----";

    #[test]
    fn a_whole_block_ends_after_its_end_line() {
        let text = format!("here:\n{KEY}\nthanks");
        let from = text.find("KEY-----").unwrap() + "KEY-----".len();
        assert_eq!(&text[end_of(&text, from)..], "\nthanks");
    }

    #[test]
    fn a_block_cut_short_ends_after_its_last_body_line() {
        let cut = &KEY[..KEY.find("-----END").unwrap()];
        let text = format!("{cut}Thanks, that was it");
        let from = "-----BEGIN OPENSSH PRIVATE KEY-----".len();
        let end = end_of(&text, from);
        assert!(text[..end].ends_with("m=="), "{:?}", &text[..end]);
        assert_eq!(&text[end..], "\nThanks, that was it");
    }

    #[test]
    fn a_block_without_its_begin_starts_at_its_first_body_line() {
        let rest = &KEY[KEY.find('\n').unwrap() + 1..];
        let text = format!("the rest of it:\n\n{rest}");
        let at = text.find("-----END").unwrap();
        assert!(text[start_of(&text, at)..].starts_with("b3Bl"));
        // an END line with prose right above it covers only itself
        let lone = "see the -----END RSA PRIVATE KEY----- line";
        assert_eq!(start_of(lone, lone.find("-----END").unwrap()), 8);
    }

    #[test]
    fn pem_headers_and_short_base64_lines_are_body_but_words_are_not() {
        assert!(body_line("Proc-Type: 4,ENCRYPTED\n"));
        assert!(body_line("DEK-Info: AES-128-CBC,9F8E\n"));
        assert!(body_line("Zm9v=\n"));
        assert!(body_line("   \n"));
        assert!(!body_line("Thanks\n"));
        assert!(!body_line("now run ssh-add\n"));
    }
}
