//! An edited entry, told from a new one. An entry a save's writer removed and an entry it
//! added are one entry edited when most of their words are the same (a line's label aside),
//! when their headings are the same and a good part of their words are, or when their headings
//! and their places (the same entry above them in both versions) are. Asked only for sure
//! pairs, nearly all words must be the same, or all of one's words be in the other and make
//! most of it (for decisions, the heading alone says it). Never by place alone: a new entry on top of the file, under the same date as the one
//! that was there, is an addition. Linear in the words: candidates come from maps of headings,
//! words and places, never from comparing every pair.

use std::collections::{HashMap, HashSet};

/// One side of a possible pair: heading, body, and the entry above it that both versions hold
/// (`None`: the top of the file).
pub(in crate::workspace::sync) struct Side<'a> {
    pub id: &'a str,
    pub heading: &'a str,
    pub body: &'a str,
    pub above: Option<&'a str>,
}

/// How sure a pairing must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::workspace::sync) enum Sure {
    /// Nearly every word shared, or a decision's own heading: sure enough to say the save's
    /// writer saw the entry (it chooses the save's base).
    Words,
    /// Most words, the heading and some words, or the heading and the place: between entries
    /// the writer is known to have removed and added.
    Place,
}

/// A word shared by more removed entries than this says nothing about which one was edited.
const COMMON_WORD: usize = 16;

/// How many removed entries under an added entry's heading are weighed (each heading's first).
const SAME_HEADING: usize = 64;

/// The words of a body: runs of letters and digits, each CJK character one word, lower-cased;
/// a line's leading label (`完成：`, `Done:`) left out.
fn words_of(body: &str) -> HashSet<u64> {
    let mut out = HashSet::new();
    for line in body.lines() {
        let line = line.trim_start();
        let text = match line.find(['：', ':']) {
            Some(i) if line[..i].chars().count() <= 12 && !line[..i].contains(' ') => {
                &line[i + line[i..].chars().next().map_or(1, char::len_utf8)..]
            }
            _ => line,
        };
        let mut word = String::new();
        for c in text.chars() {
            let cjk = c as u32 >= 0x2E80;
            if c.is_alphanumeric() && !cjk {
                word.extend(c.to_lowercase());
                continue;
            }
            if !word.is_empty() {
                out.insert(super::fnv64(word.as_bytes()));
                word.clear();
            }
            if cjk && c.is_alphanumeric() {
                let mut b = [0u8; 4];
                out.insert(super::fnv64(c.encode_utf8(&mut b).as_bytes()));
            }
        }
        if !word.is_empty() {
            out.insert(super::fnv64(word.as_bytes()));
        }
    }
    out
}

/// For each entry of `removed`, the entry of `added` that is its edit, if any (each used once).
/// `decisions`: the entries are decisions, whose headings name them.
pub(in crate::workspace::sync) fn pair(
    removed: &[Side],
    added: &[Side],
    sure: Sure,
    decisions: bool,
) -> HashMap<String, String> {
    let mut out = HashMap::new();
    if removed.is_empty() || added.is_empty() {
        return out;
    }
    let words: Vec<HashSet<u64>> = removed.iter().map(|s| words_of(s.body)).collect();
    let mut by_heading: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_word: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, s) in removed.iter().enumerate() {
        by_heading.entry(s.heading).or_default().push(i);
        for w in &words[i] {
            by_word.entry(*w).or_default().push(i);
        }
    }
    let mut taken = vec![false; removed.len()];
    for a in added {
        let mine = words_of(a.body);
        let mut shared: HashMap<usize, usize> = HashMap::new();
        for w in &mine {
            if let Some(v) = by_word.get(w).filter(|v| v.len() <= COMMON_WORD) {
                for i in v {
                    *shared.entry(*i).or_default() += 1;
                }
            }
        }
        // a place alone never pairs: candidates share words or the heading (of those under one
        // heading, the nearest few: sessions of one day share it)
        let same_heading: &[usize] = by_heading.get(a.heading).map_or(&[], Vec::as_slice);
        let mut best: Option<(u64, usize)> = None;
        let candidates = (shared.keys().copied()).chain(
            same_heading
                .iter()
                .copied()
                .filter(|i| !taken[*i])
                .take(SAME_HEADING),
        );
        for i in candidates {
            if taken[i] {
                continue;
            }
            let common = shared.get(&i).copied().unwrap_or(0);
            let union = words[i].len() + mine.len() - common;
            // both without words: the same (empty) text
            let likeness = if union == 0 {
                1.0
            } else {
                common as f64 / union as f64
            };
            let heading = removed[i].heading == a.heading;
            let place = removed[i].above == a.above;
            // sure: nearly all words the same (or all of one's words in the other, and most of
            // the other's), or a decision under its own heading; else most
            // words, or the heading with a good part of them, or the heading and the place
            // (words added to an entry keep every word it had: held in the other, they count)
            let smaller = words[i].len().min(mine.len()).max(1);
            let held = common as f64 / smaller as f64;
            let sure_pair = likeness >= 0.8
                || (held >= 0.9 && likeness >= 0.6 && smaller >= 3)
                || (decisions && heading);
            let likely = likeness >= 0.5 || (heading && (likeness >= 0.3 || place));
            if !(sure_pair || (sure == Sure::Place && likely)) {
                continue;
            }
            // most words shared first, then heading, then place
            let score = (likeness * 1000.0) as u64 * 4 + u64::from(heading) * 2 + u64::from(place);
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, i));
            }
        }
        if let Some((_, i)) = best {
            taken[i] = true;
            out.insert(removed[i].id.to_string(), a.id.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side<'a>(id: &'a str, heading: &'a str, body: &'a str, above: Option<&'a str>) -> Side<'a> {
        Side {
            id,
            heading,
            body,
            above,
        }
    }

    #[test]
    fn a_new_entry_on_top_under_the_same_date_is_not_an_edit() {
        let removed = [side("x", "## 2026-12-01 · cli", "完成：CLI-X\n", None)];
        let added = [side(
            "p",
            "## 2026-12-01 · cli",
            "完成：the person's entry\n",
            Some("a"),
        )];
        assert!(pair(&removed, &added, Sure::Place, false).is_empty());
    }

    #[test]
    fn an_entry_edited_in_place_pairs_by_heading_and_place() {
        let removed = [side(
            "x",
            "## 2026-12-01 · cli",
            "完成：the parser\n",
            Some("a"),
        )];
        let added = [side(
            "y",
            "## 2026-12-01 · cli",
            "完成：a lexer\n",
            Some("a"),
        )];
        let got = pair(&removed, &added, Sure::Place, false);
        assert_eq!(got.get("x").map(String::as_str), Some("y"));
        // sure pairs only: nothing in the words says so
        assert!(pair(&removed, &added, Sure::Words, false).is_empty());
        // a decision's heading names it
        assert_eq!(pair(&removed, &added, Sure::Words, true).len(), 1);
    }

    #[test]
    fn a_word_fixed_in_a_short_entry_under_its_heading_is_a_likely_edit_not_a_sure_one() {
        let removed = [side(
            "x",
            "## 2026-12-01 · cli",
            "完成：typo here; tested\n",
            None,
        )];
        let added = [side(
            "y",
            "## 2026-12-01 · cli",
            "完成：typo fixed; tested\n",
            Some("b"),
        )];
        assert_eq!(pair(&removed, &added, Sure::Place, false).len(), 1);
        assert!(pair(&removed, &added, Sure::Words, false).is_empty());
    }

    #[test]
    fn entries_of_one_template_that_differ_in_a_number_are_not_sure_edits() {
        let removed = [side(
            "x",
            "## 2026-12-01",
            "完成：build 123 passed; tested\n",
            None,
        )];
        let added = [side(
            "y",
            "## 2026-12-01",
            "完成：build 124 passed; tested\n",
            None,
        )];
        assert!(pair(&removed, &added, Sure::Words, false).is_empty());
        let removed = [side(
            "x",
            "## 2026-12-01",
            "完成：the parser reads every fence and table, tests pass\n",
            None,
        )];
        let added = [side(
            "y",
            "## 2026-12-01",
            "完成：the parser reads every fence and table, all tests pass\n",
            None,
        )];
        assert_eq!(pair(&removed, &added, Sure::Words, false).len(), 1);
        // words added to an entry
        let removed = [side(
            "x",
            "## d",
            "完成：the parser reads fences; tested\n",
            None,
        )];
        let added = [side(
            "y",
            "## d",
            "完成：the parser reads fences and tables; tested\n",
            None,
        )];
        assert_eq!(pair(&removed, &added, Sure::Words, false).len(), 1);
    }

    #[test]
    fn most_lines_shared_pairs_whatever_the_heading_and_place() {
        let body_a = "完成：one\n决定：two\n下一步：three\n";
        let body_b = "完成：one\n决定：two\n下一步：four\n";
        let removed = [
            side("x", "## 2026-11-30 · a", "完成：other\n", None),
            side("z", "## 2026-11-29 · b", body_a, Some("x")),
        ];
        let added = [side("y", "## 2026-11-29 · renamed", body_b, None)];
        let got = pair(&removed, &added, Sure::Place, false);
        assert_eq!(got.len(), 1);
        assert_eq!(got.get("z").map(String::as_str), Some("y"));
    }

    #[test]
    fn each_removed_entry_pairs_once() {
        let removed = [side("x", "## h", "a\nb\n", None)];
        let added = [
            side("y", "## h", "a\nb\nc\n", None),
            side("w", "## h", "a\nb\nd\n", None),
        ];
        let got = pair(&removed, &added, Sure::Place, false);
        assert_eq!(got.len(), 1);
    }
}
