//! Topics: one live decision per topic (see the room's header).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::{Error, Result};
use unicode_normalization::UnicodeNormalization;

use crate::model::{EntryKind, EntryRecord, FileKind, State, read_fields};
use crate::ops::DecisionInput;
use crate::store::Reader;

/// A topic with more than one live decision (a hand edit or a merge brought the second).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TopicConflict {
    /// The topic as the newest of its decisions writes it.
    pub topic: String,
    /// The live decisions on it, newest first: `id date — choice`.
    pub decisions: Vec<String>,
}

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

/// The topic a decision names, as written (`None` for sessions and decisions without one).
pub fn of(e: &EntryRecord) -> Option<String> {
    if e.kind != EntryKind::Decision {
        return None;
    }
    topic_in(&e.body)
}

/// The topic a decision body's `主题：` / `Topic:` line names, if any.
fn topic_in(body: &str) -> Option<String> {
    read_fields(body)
        .topic
        .map(|t| t.lines().next().unwrap_or_default().trim().to_string())
        .filter(|t| !t.is_empty())
}

fn named(e: &EntryRecord) -> String {
    format!("{} {}", e.id, e.heading)
}

/// Live decisions by topic key, newest first within each.
fn live_by_topic(r: &dyn Reader) -> Result<BTreeMap<String, Vec<EntryRecord>>> {
    let mut by: BTreeMap<String, Vec<EntryRecord>> = BTreeMap::new();
    for e in r.file_entries(FileKind::Decisions, 0, usize::MAX)? {
        if e.state != State::Live {
            continue;
        }
        if let Some(t) = of(&e) {
            by.entry(topic_key(&t)).or_default().push(e);
        }
    }
    Ok(by)
}

/// Topics holding two or more live decisions.
pub fn conflicts(r: &dyn Reader) -> Result<Vec<TopicConflict>> {
    Ok(live_by_topic(r)?
        .into_values()
        .filter(|v| v.len() > 1)
        .map(|v| TopicConflict {
            topic: of(&v[0]).unwrap_or_default(),
            decisions: v.iter().map(named).collect(),
        })
        .collect())
}

/// Refuse a batch whose decisions would leave a topic with two live decisions. `planned`
/// holds, per decision of the batch, its heading and body as they will be stored and the
/// id of the decision it supersedes (resolved already). A decision already stored with the
/// same heading and body (a retried call) passes.
pub fn check(
    r: &dyn Reader,
    decisions: &[DecisionInput],
    planned: &[(String, String, Option<String>)],
) -> Result<()> {
    let live = live_by_topic(r)?;
    let mut in_call: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (_, (heading, body, supersedes))) in decisions.iter().zip(planned).enumerate() {
        // the topic as the stored entry will read back (a `Topic:` line inside another field's
        // text counts too, so text cannot slip a second live decision onto a topic)
        let Some(raw) = topic_in(body) else {
            continue;
        };
        let raw = raw.as_str();
        let key = topic_key(raw);
        if let Some(first) = in_call.insert(key.clone(), i) {
            return Err(Error::bad_input(format!(
                "decisions[{first}] and decisions[{i}] are both on topic `{raw}`: one topic has one live decision; record one, or make the later one supersede the earlier in another call"
            )));
        }
        let Some(on_topic) = live.get(&key) else {
            continue;
        };
        if on_topic
            .iter()
            .any(|e| &e.heading == heading && &e.body == body)
        {
            continue; // the same decision again: recorded already
        }
        let left: Vec<&EntryRecord> = on_topic
            .iter()
            .filter(|e| supersedes.as_deref() != Some(e.id.as_str()))
            .collect();
        if left.is_empty() {
            continue; // it supersedes the one live decision
        }
        let names = left
            .iter()
            .map(|e| format!("  {}", named(e)))
            .collect::<Vec<_>>();
        return Err(Error::bad_input(if on_topic.len() > 1 {
            format!(
                "decisions[{i}]: topic `{raw}` has {} live decisions (a hand edit or a merge brought them); a person settles them first: supersede or retire all but one of\n{}",
                on_topic.len(),
                on_topic
                    .iter()
                    .map(|e| format!("  {}", named(e)))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        } else {
            format!(
                "decisions[{i}]: topic `{raw}` already has a live decision:\n{}\nto replace it, add \"supersedes\": \"{}\" (a new decision on a topic must supersede the live one)",
                names.join("\n"),
                left[0].id
            )
        }));
    }
    Ok(())
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
}
