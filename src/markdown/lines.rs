//! The three-way merge of a section's lines (PROJECT.md and USER.md): a save of the section
//! (`theirs`) against the version it was made from (`base`, known by its lines' hashes only)
//! and the store's text now (`ours`).
//!
//! A place only one side changed takes that side's lines; a place both changed the same way
//! takes them once; lines both sides added at one place are all kept. Where both changed the
//! same lines differently, both sides' lines are kept (the save's first) and the place is
//! returned as a clash for the caller to report: the files never hold conflict markers, and no
//! line anyone wrote is dropped without its writer having seen it.

use std::collections::HashMap;

/// The hash a version keeps of a line (the same for every copy of the text).
pub fn line_hash(line: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in line.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as u32
}

/// The hashes of `lines`, in order.
pub fn line_hashes(lines: &[&str]) -> Vec<u32> {
    lines.iter().map(|l| line_hash(l)).collect()
}

/// A place both sides changed differently: the lines each put there (both kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    pub theirs: Vec<String>,
    pub ours: Vec<String>,
}

/// What [`merge_lines`] gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineMerge {
    pub lines: Vec<String>,
    pub clashes: Vec<Clash>,
    /// Lines `ours` added that the save lacks, kept (its writer never saw them).
    pub kept: Vec<String>,
}

/// For each base line, the line of `side` it is matched with (a longest common subsequence).
fn matching(base: &[u32], side: &[u32]) -> Vec<Option<usize>> {
    let mut out = vec![None; base.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, base, side) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                out[old_index + k] = Some(new_index + k);
            }
        }
    }
    out
}

/// Merge `theirs` (a save) and `ours` (the store's lines) against `base` (hashes of the lines
/// of the version the save was made from).
pub fn merge_lines(base: &[u32], ours: &[&str], theirs: &[&str]) -> LineMerge {
    let (oh, th) = (line_hashes(ours), line_hashes(theirs));
    let (mo, mt) = (matching(base, &oh), matching(base, &th));
    let mut out = LineMerge::default();
    // the places between base lines both sides kept, each merged on its own
    let (mut b0, mut o0, mut t0) = (0, 0, 0);
    let syncs = (0..base.len()).filter_map(|k| Some((k, mo[k]?, mt[k]?)));
    for (b1, o1, t1) in syncs.chain([(base.len(), ours.len(), theirs.len())]) {
        let chunk = Chunk {
            base: &base[b0..b1],
            ours: &ours[o0..o1],
            ours_h: &oh[o0..o1],
            theirs: &theirs[t0..t1],
            theirs_h: &th[t0..t1],
        };
        chunk.merge_into(&mut out);
        if b1 < base.len() {
            out.lines.push(theirs[t1].to_string());
        }
        (b0, o0, t0) = (b1 + 1, o1 + 1, t1 + 1);
    }
    out
}

/// One place between two lines both sides kept.
struct Chunk<'a> {
    base: &'a [u32],
    ours: &'a [&'a str],
    ours_h: &'a [u32],
    theirs: &'a [&'a str],
    theirs_h: &'a [u32],
}

/// How many times each line hash occurs.
pub fn line_counts(hashes: &[u32]) -> HashMap<u32, usize> {
    let mut m = HashMap::new();
    for h in hashes {
        *m.entry(*h).or_insert(0) += 1;
    }
    m
}

/// Take one `h` from `m` (see [`line_counts`]); whether there was one.
pub fn take_line(m: &mut HashMap<u32, usize>, h: u32) -> bool {
    match m.get_mut(&h) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

impl Chunk<'_> {
    fn merge_into(&self, out: &mut LineMerge) {
        let strings = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        if self.ours_h == self.base || self.ours == self.theirs {
            out.lines.extend(strings(self.theirs));
            return;
        }
        if self.theirs_h == self.base {
            let mut base = line_counts(self.base);
            for (l, h) in self.ours.iter().zip(self.ours_h) {
                if !take_line(&mut base, *h) {
                    out.kept.push(l.to_string());
                }
            }
            out.lines.extend(strings(self.ours));
            return;
        }
        self.both_changed(out);
    }

    /// Both sides changed this place: a base line stays when both kept it, every line either
    /// side added stays (once), in the order of the base lines each follows.
    fn both_changed(&self, out: &mut LineMerge) {
        let base = line_counts(self.base);
        let (mut kept_by_ours, mut kept_by_theirs) =
            (line_counts(self.ours_h), line_counts(self.theirs_h));
        kept_by_ours.retain(|h, n| {
            *n = (*n).min(base.get(h).copied().unwrap_or(0));
            *n > 0
        });
        kept_by_theirs.retain(|h, n| {
            *n = (*n).min(base.get(h).copied().unwrap_or(0));
            *n > 0
        });
        // each line of a side with the index of the base line above it there (0: none)
        let anchored = |lines: &[u32]| -> Vec<usize> {
            let mut free = line_counts(self.base);
            let mut at = 0;
            let mut pos: HashMap<u32, Vec<usize>> = HashMap::new();
            for (i, h) in self.base.iter().enumerate() {
                pos.entry(*h).or_default().push(i + 1);
            }
            lines
                .iter()
                .map(|h| {
                    let here = at;
                    if take_line(&mut free, *h)
                        && let Some(p) = pos.get(h).and_then(|v| v.iter().find(|p| **p > at))
                    {
                        at = *p;
                    }
                    here
                })
                .collect()
        };
        let (t_at, o_at) = (anchored(self.theirs_h), anchored(self.ours_h));
        // (anchor, side, index, line): the save's lines first where both put lines
        let mut placed: Vec<(usize, u8, usize, &str)> = Vec::new();
        let mut both = kept_by_ours.clone();
        let (mut t_added, mut o_added) = (Vec::new(), Vec::new());
        let mut t_left = kept_by_theirs.clone();
        for (i, (l, h)) in self.theirs.iter().zip(self.theirs_h).enumerate() {
            let from_base = take_line(&mut t_left, *h);
            if !from_base {
                t_added.push(*l);
                placed.push((t_at[i], 0, i, l));
            } else if take_line(&mut both, *h) {
                placed.push((t_at[i], 0, i, l));
            }
        }
        let mut theirs_new = line_counts(&line_hashes(&t_added));
        let mut o_left = kept_by_ours.clone();
        for (i, (l, h)) in self.ours.iter().zip(self.ours_h).enumerate() {
            if take_line(&mut o_left, *h) || take_line(&mut theirs_new, *h) {
                continue;
            }
            o_added.push(*l);
            out.kept.push(l.to_string());
            placed.push((o_at[i], 1, i, l));
        }
        placed.sort_by_key(|(at, side, i, _)| (*at, *side, *i));
        out.lines.extend(placed.iter().map(|p| p.3.to_string()));
        // a base line neither side kept, replaced by both: the same line changed two ways
        let mut dropped = line_counts(self.base);
        for (h, n) in kept_by_ours.iter().chain(kept_by_theirs.iter()) {
            if let Some(m) = dropped.get_mut(h) {
                *m = m.saturating_sub(*n);
            }
        }
        let both_dropped = dropped.values().any(|n| *n > 0);
        if both_dropped && !t_added.is_empty() && !o_added.is_empty() {
            out.clashes.push(Clash {
                theirs: t_added.iter().map(|l| l.to_string()).collect(),
                ours: o_added.iter().map(|l| l.to_string()).collect(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(base: &[&str], ours: &[&str], theirs: &[&str]) -> LineMerge {
        let b: Vec<u32> = base.iter().map(|l| line_hash(l)).collect();
        merge_lines(&b, ours, theirs)
    }

    #[test]
    fn a_side_left_alone_takes_the_other() {
        let m = merge(&["a", "b"], &["a", "b", "agent"], &["a", "b"]);
        assert_eq!(m.lines, ["a", "b", "agent"]);
        assert_eq!(m.kept, ["agent"]);
        let m = merge(&["a", "b"], &["a", "b"], &["a", "B"]);
        assert_eq!(m.lines, ["a", "B"]);
        assert!(m.clashes.is_empty() && m.kept.is_empty());
    }

    #[test]
    fn changes_at_different_places_both_land() {
        let m = merge(
            &["", "a", "b", "c"],
            &["", "a", "b", "c", "agent"],
            &["", "A", "b", "c"],
        );
        assert_eq!(m.lines, ["", "A", "b", "c", "agent"]);
        // neighbouring lines changed by each side: both changes, no clash
        let m = merge(&["a", "b"], &["a2", "b"], &["a", "b2"]);
        assert_eq!(m.lines, ["a2", "b2"]);
        assert!(m.clashes.is_empty());
    }

    #[test]
    fn the_same_line_changed_two_ways_keeps_both_and_is_a_clash() {
        let m = merge(
            &["x", "a", "y"],
            &["x", "agent's a", "y"],
            &["x", "person's a", "y"],
        );
        assert_eq!(m.lines, ["x", "person's a", "agent's a", "y"]);
        assert_eq!(
            m.clashes,
            [Clash {
                theirs: vec!["person's a".into()],
                ours: vec!["agent's a".into()],
            }]
        );
        // the same change made on both sides is no clash
        let m = merge(&["a"], &["b"], &["b"]);
        assert_eq!((m.lines, m.clashes.len()), (vec!["b".to_string()], 0));
    }

    #[test]
    fn additions_at_one_place_are_all_kept_and_deletions_honoured() {
        let m = merge(&["a"], &["a", "mine"], &["a", "yours"]);
        assert_eq!(m.lines, ["a", "yours", "mine"]);
        assert!(m.clashes.is_empty());
        // a line the save deleted goes; the agent's line beside it stays
        let m = merge(&["a", "b"], &["a", "b", "agent"], &["b"]);
        assert_eq!(m.lines, ["b", "agent"]);
        // a deletion on one side against an edit on the other keeps the edit
        let m = merge(&["a", "b"], &["a", "b2"], &["a"]);
        assert_eq!(m.lines, ["a", "b2"]);
        assert!(m.clashes.is_empty());
    }

    fn count(lines: &[String], l: &str) -> usize {
        lines.iter().filter(|x| *x == l).count()
    }

    fn added(side: &[&str], base: &[&str], l: &str) -> usize {
        let n = |v: &[&str]| v.iter().filter(|x| **x == l).count();
        n(side).saturating_sub(n(base))
    }

    proptest::proptest! {
        /// A side left as it was takes the other; what either side added is never dropped; a
        /// line neither side has stays out.
        #[test]
        fn merging_lines_keeps_what_either_side_added(
            base in proptest::collection::vec(0u8..6, 0..8),
            ours in proptest::collection::vec(0u8..6, 0..8),
            theirs in proptest::collection::vec(0u8..6, 0..8),
        ) {
            let text = |v: &[u8]| v.iter().map(|k| ["", "a", "b", "c", "d", "暂无"][*k as usize]).collect::<Vec<_>>();
            let (b, o, t) = (text(&base), text(&ours), text(&theirs));
            let m = merge(&b, &o, &t);
            proptest::prop_assert_eq!(&merge(&b, &b, &t).lines, &t);
            proptest::prop_assert_eq!(&merge(&b, &o, &b).lines, &o);
            proptest::prop_assert_eq!(&merge(&b, &o, &o).lines, &o);
            for l in o.iter().chain(&t) {
                let want = added(&o, &b, l).max(added(&t, &b, l));
                proptest::prop_assert!(count(&m.lines, l) >= want, "{l:?} in {:?}", m.lines);
            }
            for l in &m.lines {
                proptest::prop_assert!(o.contains(&l.as_str()) || t.contains(&l.as_str()));
            }
        }
    }

    #[test]
    fn repeated_lines_are_counted() {
        let m = merge(&["", "a", "", "a"], &["", "a", "", "a", "z"], &["", "a"]);
        assert_eq!(m.lines, ["", "a", "z"]);
    }
}
