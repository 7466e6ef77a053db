//! What an entry is found by besides its id and its place in a file: the topic a live
//! decision is on, the day a live decision comes up for review, and whether an entry of a file
//! the session block reads holds a credential. The store keeps these marks beside the entries
//! (updated by the write that changes the entry), so a checkpoint, the session start and
//! `status` ask for the few entries marked instead of decoding every decision. Pure: this
//! names keys and reads text; it never touches the store.

use chrono::NaiveDate;
use unicode_normalization::UnicodeNormalization;

use super::{EntryKind, EntryRecord, FileKind, State, read_fields};

/// The key a topic is matched by: what it reads as, whatever a keyboard or a paste put in it.
/// Invisible characters are dropped (zero-width space and joiners, soft hyphen, bidi marks,
/// variation selectors: Unicode's default-ignorable code points), compatibility forms folded
/// (NFKC: full-width letters, ligatures, the ideographic space), case folded to lowercase,
/// white space runs made one space.
pub fn topic_key(raw: &str) -> String {
    let visible: String = raw.chars().filter(|c| !default_ignorable(*c)).collect();
    let lower = visible.nfkc().collect::<String>().to_lowercase();
    let folded: String = lower.nfkc().collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Unicode's Default_Ignorable_Code_Point: characters that render as nothing.
fn default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0xAD | 0x34F | 0x61C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// The topic a decision body's `主题：` / `Topic:` line names, if any.
pub fn topic_in(body: &str) -> Option<String> {
    read_fields(body)
        .topic
        .map(|t| t.lines().next().unwrap_or_default().trim().to_string())
        .filter(|t| !t.is_empty())
}

/// The date a review value names; `None` for a phrase ("when we change machines").
pub fn date_of(value: &str) -> Option<NaiveDate> {
    let v = value.lines().next().unwrap_or_default().trim();
    NaiveDate::parse_from_str(v, "%Y-%m-%d").ok()
}

/// The review date a decision body's `复核：` / `Review:` line names, if it is a date.
pub fn review_in(body: &str) -> Option<NaiveDate> {
    // most decisions carry no review line: skip them without reading their fields
    if !(body.contains("复核") || body.contains("eview")) {
        return None;
    }
    read_fields(body).review.as_deref().and_then(date_of)
}

/// Whether `rec` is a live decision of DECISIONS.md (what topics and reviews are about).
fn live_decision(rec: &EntryRecord) -> bool {
    rec.kind == EntryKind::Decision && rec.state == State::Live
}

const TOPIC: &str = "t\u{0}";
const REVIEW: &str = "r\u{0}";
const SECRET: &str = "s\u{0}";

/// The prefix of the marks of live decisions on topic `key` (a [`topic_key`]).
pub fn on_topic(key: &str) -> String {
    format!("{TOPIC}{key}\u{0}")
}

/// The prefix of every topic mark.
pub fn topics() -> &'static str {
    TOPIC
}

/// The prefix of every review mark.
pub fn reviews() -> &'static str {
    REVIEW
}

/// The prefix of the marks of entries of `file` holding a credential.
pub fn secrets_in(file: FileKind) -> String {
    format!("{SECRET}{}\u{0}", file.code())
}

/// A mark's parts after its prefix: (what it names, the entry id). Topic marks name the key,
/// review marks the day (`YYYY-MM-DD`), secret marks nothing.
pub fn parts(mark_after_prefix: &str) -> (&str, &str) {
    mark_after_prefix
        .rsplit_once('\u{0}')
        .unwrap_or(("", mark_after_prefix))
}

/// The marks `rec` carries, in key form.
pub fn of(rec: &EntryRecord) -> Vec<String> {
    let mut out = Vec::new();
    if live_decision(rec) {
        if let Some(t) = topic_in(&rec.body) {
            out.push(format!("{}{}", on_topic(&topic_key(&t)), rec.id));
        }
        if let Some(d) = review_in(&rec.body) {
            out.push(format!("{REVIEW}{}\u{0}{}", d.format("%Y-%m-%d"), rec.id));
        }
    }
    // the archive is never injected nor scanned for credentials by status: no mark there
    if let Some(f) = rec.file().filter(|f| *f != FileKind::Archive)
        && crate::secrets::in_record(rec).is_some()
    {
        out.push(format!("{}{}", secrets_in(f), rec.id));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_and_compatibility_forms_do_not_make_another_topic() {
        let plain = topic_key("Cache Policy");
        for disguised in [
            "Cache\u{200B} Policy",         // zero-width space
            "Ca\u{200D}che Policy",         // zero-width joiner
            "Cac\u{AD}he Policy",           // soft hyphen
            "\u{200E}Cache Policy\u{202C}", // bidi marks
            "\u{FEFF}cache  policy",        // BOM, case, double space
            "Ｃａｃｈｅ Ｐｏｌｉｃｙ",      // full-width letters
            "Cache\u{3000}Policy",          // ideographic space
            "Cache Polic\u{FE0F}y",         // variation selector
        ] {
            assert_eq!(topic_key(disguised), plain, "{disguised:?}");
        }
        assert_ne!(topic_key("Cache Policies"), plain);
        assert_eq!(topic_key("缓存　策略"), topic_key("缓存 策略"));
    }

    #[test]
    fn a_mark_splits_into_what_it_names_and_the_entry() {
        assert_eq!(parts("cache policy\u{0}abc123"), ("cache policy", "abc123"));
        assert_eq!(parts("2027-03-01\u{0}abc123"), ("2027-03-01", "abc123"));
        assert_eq!(parts("abc123"), ("", "abc123"));
    }
}
