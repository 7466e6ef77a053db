//! The text the patterns see: zero-width and other invisible format characters removed and
//! compatibility forms folded (NFKC: `ｇｈｐ＿` → `ghp_`), with a map back to the original
//! text so a finding is reported where the person sees it.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

/// Text prepared for matching.
pub(super) struct Normalized<'a> {
    pub text: Cow<'a, str>,
    /// Byte offset in the original text of each byte of `text`, plus one past the end; empty
    /// when `text` is the original.
    origin: Vec<usize>,
}

impl Normalized<'_> {
    /// Byte offset in the original text of byte `at` of the normalised text.
    pub fn original(&self, at: usize) -> usize {
        if self.origin.is_empty() {
            at
        } else {
            self.origin[at.min(self.origin.len() - 1)]
        }
    }
}

/// Characters that can hide a token from the patterns: format characters (zero-width space
/// and joiners, soft hyphen, BOM, direction marks), full-width letters, digits, `-` and `_`,
/// and mathematical letters. Full-width punctuation such as `：` is ordinary Chinese text and
/// does not need the slow path.
pub(super) const DISGUISE: &str = r"[\p{Cf}\x{FF0D}\x{FF10}-\x{FF19}\x{FF21}-\x{FF3A}\x{FF3F}\x{FF41}-\x{FF5A}\x{1D400}-\x{1D7FF}]";

fn disguise() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(DISGUISE).expect("the disguise class is a valid regex"))
}

/// Prepare `text` for matching; text without a disguising character is used as it is.
pub(super) fn normalize(text: &str) -> Normalized<'_> {
    if !disguise().is_match(text) {
        return Normalized {
            text: Cow::Borrowed(text),
            origin: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    let mut buf = [0u8; 4];
    for (at, c) in text.char_indices() {
        if is_invisible(c) {
            continue;
        }
        for n in std::iter::once(c).nfkc() {
            let s = n.encode_utf8(&mut buf);
            out.push_str(s);
            origin.extend(std::iter::repeat_n(at, s.len()));
        }
    }
    origin.push(text.len());
    Normalized {
        text: Cow::Owned(out),
        origin,
    }
}

/// Format characters (Unicode category Cf) render as nothing.
fn is_invisible(c: char) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    let re = R.get_or_init(|| Regex::new(r"^\p{Cf}$").expect("a valid regex"));
    let mut buf = [0u8; 4];
    re.is_match(c.encode_utf8(&mut buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        let n = normalize("完成：ordinary text（全角括号）");
        assert!(matches!(n.text, Cow::Borrowed(_)));
        assert_eq!(n.original(5), 5);
    }

    #[test]
    fn zero_width_and_full_width_are_undone_with_offsets_kept() {
        let text = "x g\u{200b}hp_ ｇｈｐ";
        let n = normalize(text);
        assert_eq!(n.text, "x ghp_ ghp");
        // `h` after the zero-width space
        assert_eq!(&text[n.original(3)..n.original(3) + 1], "h");
        // the full-width `ｇ`
        let at = n.text.rfind("ghp").unwrap();
        assert!(text[n.original(at)..].starts_with('ｇ'));
        assert_eq!(n.original(n.text.len()), text.len());
    }
}
