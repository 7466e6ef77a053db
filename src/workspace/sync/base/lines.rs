//! A version of PROJECT.md (or USER.md) as the `versions` table keeps it: the lines of its
//! sections, each a print, so the likeliest base of a save is chosen by the rule the entry
//! files use (the lines it shares, the lines it lacks) and each section of it is merged line by
//! line against that base (`markdown::merge_lines`).
//!
//! A line's print is its section's tag (16 bits), which copy of the same text in the section it
//! is (16 bits) and the hash of its text (32 bits), with its place in the section as the value.
//! Each section also has a print of its own (copy `HEADER`, its key's hash, its place in the
//! file), which says which tag its lines carry in that version. Tags come from the key's hash;
//! two sections of one version whose hashes meet get the next free tag.

use std::collections::{HashMap, HashSet};

use crate::markdown::line_hash;
use crate::model::is_empty_body;
use crate::store::Print;

use super::Prints;
use super::pair::{Side, Sure, pair};

/// The copy number that marks a section's own print.
const HEADER: u16 = 0xFFFF;

fn print_id(tag: u16, copy: u16, hash: u32) -> u64 {
    (u64::from(tag) << 48) | (u64::from(copy) << 32) | u64::from(hash)
}

fn tag_of(id: u64) -> u16 {
    (id >> 48) as u16
}

fn copy_of(id: u64) -> u16 {
    (id >> 32) as u16
}

/// The lines of a section body as they are merged and kept: the body split at its newlines,
/// without the "nothing yet" marker of an empty section.
pub(in crate::workspace::sync) fn body_lines(body: &str) -> Vec<&str> {
    let empty = is_empty_body(body);
    body.split('\n')
        .filter(|l| !empty || l.trim().is_empty())
        .collect()
}

/// The prints of a version whose sections are `sections` (key, body), in file order.
pub(in crate::workspace::sync) fn section_prints<'a>(
    sections: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<Print> {
    printed_lines(sections)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// [`section_prints`], each with its line (`None`: a section's own print).
pub(in crate::workspace::sync) fn printed_lines<'a>(
    sections: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<(Print, Option<&'a str>)> {
    let mut tags: HashSet<u16> = HashSet::new();
    let mut out = Vec::new();
    for (place, (key, body)) in sections.into_iter().enumerate() {
        let key_hash = line_hash(key);
        let mut tag = (key_hash >> 16) as u16;
        while !tags.insert(tag) {
            tag = tag.wrapping_add(1);
        }
        out.push(((print_id(tag, HEADER, key_hash), place as u32), None));
        let mut copies: HashMap<u32, u16> = HashMap::new();
        for (i, line) in body_lines(body).into_iter().enumerate() {
            let h = line_hash(line);
            let n = copies.entry(h).or_insert(0);
            out.push(((print_id(tag, *n, h), i as u32), Some(line)));
            *n = (*n + 1).min(HEADER - 1);
        }
    }
    out
}

/// The store's lines (`ours`) a save (`theirs`) plainly edited: gone from it, with a line of
/// it in their place that shares nearly all their words (as entries are paired, see `pair`).
/// Their writer saw them: they count as held when the save's base is chosen.
pub(in crate::workspace::sync) fn edited_lines<'a>(
    ours: &[(Print, Option<&'a str>)],
    theirs: &[(Print, Option<&'a str>)],
) -> Vec<u64> {
    let ids =
        |v: &[(Print, Option<&str>)]| -> HashSet<u64> { v.iter().map(|(p, _)| p.0).collect() };
    let (in_ours, in_theirs) = (ids(ours), ids(theirs));
    let keys: Vec<String> = (ours.iter().chain(theirs))
        .map(|(p, _)| p.0.to_string())
        .collect();
    let sides = |v: &[(Print, Option<&'a str>)], other: &HashSet<u64>, from: usize| {
        let mut out = Vec::new();
        for (i, (p, line)) in v.iter().enumerate() {
            if let Some(line) = line
                && !other.contains(&p.0)
            {
                out.push((from + i, *line));
            }
        }
        out
    };
    let gone = sides(ours, &in_theirs, 0);
    let new = sides(theirs, &in_ours, ours.len());
    let as_sides = |v: &[(usize, &'a str)]| -> Vec<Side<'_>> {
        (v.iter())
            .map(|(i, line)| Side {
                id: &keys[*i],
                heading: "",
                body: line,
                above: None,
            })
            .collect()
    };
    let (removed, added) = (as_sides(&gone), as_sides(&new));
    (pair(&removed, &added, Sure::Words, false).keys())
        .filter_map(|k| k.parse().ok())
        .collect()
}

/// The sections of a version: key hash → the hashes of its lines, in order.
pub(in crate::workspace::sync) fn sections_of(prints: &Prints) -> HashMap<u32, Vec<u32>> {
    let tags: HashMap<u16, u32> = (prints.keys())
        .filter(|id| copy_of(**id) == HEADER)
        .map(|id| (tag_of(*id), *id as u32))
        .collect();
    let mut lines: HashMap<u16, Vec<(u32, u32)>> = HashMap::new();
    for (id, place) in prints.iter().filter(|(id, _)| copy_of(**id) != HEADER) {
        lines
            .entry(tag_of(*id))
            .or_default()
            .push((*place, *id as u32));
    }
    (tags.into_iter())
        .map(|(tag, key_hash)| {
            let mut l = lines.remove(&tag).unwrap_or_default();
            l.sort_unstable();
            (key_hash, l.into_iter().map(|(_, h)| h).collect())
        })
        .collect()
}

/// The lines of section `key` in a version read by [`sections_of`]; `None` when it lacks it.
pub(in crate::workspace::sync) fn lines_in<'a>(
    sections: &'a HashMap<u32, Vec<u32>>,
    key: &str,
) -> Option<&'a [u32]> {
    sections.get(&line_hash(key)).map(Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_gives_back_each_sections_lines_in_order() {
        let sections = [
            ("1", "\nsame\nother\nsame"),
            ("4", "\n暂无"),
            ("x:notes", "\nsame"),
        ];
        let prints: Prints = section_prints(sections).into_iter().collect();
        let read = sections_of(&prints);
        let hashes = |ls: &[&str]| ls.iter().map(|l| line_hash(l)).collect::<Vec<_>>();
        assert_eq!(
            lines_in(&read, "1").unwrap(),
            hashes(&["", "same", "other", "same"])
        );
        // an empty section is its blank line alone
        assert_eq!(lines_in(&read, "4").unwrap(), hashes(&[""]));
        assert_eq!(lines_in(&read, "x:notes").unwrap(), hashes(&["", "same"]));
        assert!(lines_in(&read, "5").is_none());
    }

    #[test]
    fn sections_whose_tags_meet_keep_their_own_lines() {
        // many sections: some of their 16-bit tags may meet, none of their lines mix
        let bodies: Vec<(String, String)> = (0..3000)
            .map(|i| (format!("x:s{i}"), format!("\nline of {i}")))
            .collect();
        let prints: Prints = section_prints(bodies.iter().map(|(k, b)| (k.as_str(), b.as_str())))
            .into_iter()
            .collect();
        let read = sections_of(&prints);
        for (k, b) in &bodies {
            let want: Vec<u32> = body_lines(b).iter().map(|l| line_hash(l)).collect();
            assert_eq!(lines_in(&read, k).unwrap(), want.as_slice(), "{k}");
        }
    }
}
