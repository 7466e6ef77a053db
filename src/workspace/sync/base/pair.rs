//! An edited entry, told from a new one. An entry a save's writer removed and an entry it
//! added are one entry edited when they share most of their lines, or their heading and some
//! line or their place (the same entry above them in both versions). Never by place alone: a
//! new entry on top of the file, under the same date as the one that was there, is an
//! addition. Linear in the number of lines: candidates come from maps of headings, lines and
//! places, never from comparing every pair.

use std::collections::{HashMap, HashSet};

/// One side of a possible pair: heading, body, and the entry above it that both versions hold
/// (`None`: the top of the file).
pub(in crate::workspace::sync) struct Side<'a> {
    pub id: &'a str,
    pub heading: &'a str,
    pub body: &'a str,
    pub above: Option<&'a str>,
}

/// A line shared by more removed entries than this says nothing about which one was edited.
const COMMON_LINE: usize = 16;

fn lines_of(body: &str) -> HashSet<u64> {
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| super::fnv64(l.as_bytes()))
        .collect()
}

/// For each entry of `removed`, the entry of `added` that is its edit, if any (each used once).
pub(in crate::workspace::sync) fn pair(
    removed: &[Side],
    added: &[Side],
) -> HashMap<String, String> {
    let mut out = HashMap::new();
    if removed.is_empty() || added.is_empty() {
        return out;
    }
    let lines: Vec<HashSet<u64>> = removed.iter().map(|s| lines_of(s.body)).collect();
    let mut by_heading: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_above: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    let mut by_line: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, s) in removed.iter().enumerate() {
        by_heading.entry(s.heading).or_default().push(i);
        by_above.entry(s.above).or_default().push(i);
        for l in &lines[i] {
            by_line.entry(*l).or_default().push(i);
        }
    }
    let mut taken = vec![false; removed.len()];
    for a in added {
        let mine = lines_of(a.body);
        let mut shared: HashMap<usize, usize> = HashMap::new();
        for l in &mine {
            if let Some(v) = by_line.get(l).filter(|v| v.len() <= COMMON_LINE) {
                for i in v {
                    *shared.entry(*i).or_default() += 1;
                }
            }
        }
        let same_heading: &[usize] = by_heading.get(a.heading).map_or(&[], Vec::as_slice);
        let same_place: &[usize] = by_above.get(&a.above).map_or(&[], Vec::as_slice);
        let mut best: Option<(u64, usize)> = None;
        let candidates = (shared.keys().copied())
            .chain(same_heading.iter().copied())
            .chain(same_place.iter().copied());
        for i in candidates {
            if taken[i] {
                continue;
            }
            let common = shared.get(&i).copied().unwrap_or(0);
            let union = lines[i].len() + mine.len() - common;
            let heading = same_heading.contains(&i);
            let place = same_place.contains(&i);
            let most = union > 0 && common * 2 >= union;
            let edit = most || (heading && (common > 0 || place));
            if !edit {
                continue;
            }
            // most lines shared first, then heading, then place
            let score = (common as u64 * 1000 / union.max(1) as u64) * 4
                + u64::from(heading) * 2
                + u64::from(place);
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
        assert!(pair(&removed, &added).is_empty());
    }

    #[test]
    fn an_entry_edited_in_place_pairs_by_heading_and_place() {
        let removed = [side(
            "x",
            "## 2026-12-01 · cli",
            "完成：typo here\n",
            Some("a"),
        )];
        let added = [side(
            "y",
            "## 2026-12-01 · cli",
            "完成：typo fixed\n",
            Some("a"),
        )];
        assert_eq!(
            pair(&removed, &added).get("x").map(String::as_str),
            Some("y")
        );
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
        let got = pair(&removed, &added);
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
        let got = pair(&removed, &added);
        assert_eq!(got.len(), 1);
    }
}
