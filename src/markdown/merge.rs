//! Three-way merges of docs: entries by identity (union of additions, deletions honoured) and
//! PROJECT sections by key (three-way per section, conflict markers only where both sides
//! changed the same section). Used by the git merge driver and by tests of the sync protocol.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::{Block, Doc};

/// A merged doc and how many places needed conflict markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOutcome {
    pub doc: Doc,
    pub conflicts: usize,
}

fn merge_text(base: &str, ours: &str, theirs: &str, conflicts: &mut usize) -> String {
    if ours == theirs || theirs == base {
        ours.to_string()
    } else if ours == base {
        theirs.to_string()
    } else {
        *conflicts += 1;
        format!(
            "<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs",
            ours.trim_end(),
            theirs.trim_end()
        )
    }
}

/// A block whose body would swallow what follows it once blocks are re-ordered (an unclosed
/// fence or HTML block, harmless at the end of its own file) gets it closed or escaped: the
/// same rule the sync applies when it absorbs a file, so the next command renders the same.
fn readable(block: Block) -> Block {
    if !super::may_stay_open(&block.body) || super::reads_back(&block.body) {
        return block;
    }
    Block {
        body: super::safe_body(&block.body),
        ..block
    }
}

/// Where a woven block comes from: ours' survivors or `theirs`, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Kept(usize),
    Theirs(usize),
}

/// Order `kept` (ours' survivors, in ours' order) together with every key of `theirs` that is
/// missing from it and that `take` accepts: each goes right after its nearest predecessor in
/// `theirs` that is present (or at the front when there is none), so both sides' orders survive.
///
/// Linear: a singly linked list gives O(1) insertion after any node, and a hash map from key to
/// the first node holding it replaces scanning for the anchor.
fn weave<K: Eq + Hash>(kept: &[K], theirs: &[K], take: impl Fn(&K) -> bool) -> Vec<Pick> {
    const END: usize = usize::MAX;
    // node 0 is the head sentinel, node i + 1 is kept[i], inserted nodes follow
    let mut picks: Vec<Option<Pick>> = Vec::with_capacity(kept.len() + theirs.len() + 1);
    let mut next: Vec<usize> = Vec::with_capacity(kept.len() + theirs.len() + 1);
    picks.push(None);
    next.push(if kept.is_empty() { END } else { 1 });
    let mut node_of: HashMap<&K, usize> = HashMap::with_capacity(kept.len() + theirs.len());
    for (i, k) in kept.iter().enumerate() {
        picks.push(Some(Pick::Kept(i)));
        next.push(if i + 1 < kept.len() { i + 2 } else { END });
        node_of.entry(k).or_insert(i + 1);
    }
    let mut anchor = 0;
    for (j, k) in theirs.iter().enumerate() {
        if let Some(&node) = node_of.get(k) {
            anchor = node;
            continue;
        }
        if !take(k) {
            continue;
        }
        let node = picks.len();
        picks.push(Some(Pick::Theirs(j)));
        next.push(next[anchor]);
        next[anchor] = node;
        node_of.insert(k, node);
        anchor = node;
    }
    let mut out = Vec::with_capacity(picks.len() - 1);
    let mut at = next[0];
    while at != END {
        out.extend(picks[at]);
        at = next[at];
    }
    out
}

/// Merge append-only entry files: an entry is kept when both sides have it or one side added
/// it; an entry one side deleted (and the other kept unchanged) goes.
pub fn merge_entries(base: &Doc, ours: &Doc, theirs: &Doc) -> MergeOutcome {
    let mut conflicts = 0;
    let preamble = merge_text(
        &base.preamble,
        &ours.preamble,
        &theirs.preamble,
        &mut conflicts,
    );
    fn set(d: &Doc) -> HashSet<&Block> {
        d.blocks.iter().collect()
    }
    let (b, o, t) = (set(base), set(ours), set(theirs));
    let keep = |x: &Block| (o.contains(x) && t.contains(x)) || !b.contains(x);
    let kept: Vec<&Block> = ours.blocks.iter().filter(|x| keep(x)).collect();
    let theirs_keys: Vec<&Block> = theirs.blocks.iter().collect();
    let blocks = weave(&kept, &theirs_keys, |x| keep(x))
        .into_iter()
        .map(|p| match p {
            Pick::Kept(i) => readable(kept[i].clone()),
            Pick::Theirs(j) => readable(theirs.blocks[j].clone()),
        })
        .collect();
    MergeOutcome {
        doc: Doc { preamble, blocks },
        conflicts,
    }
}

/// Merge PROJECT.md by section (`key` maps a heading to its identity).
pub fn merge_sections(
    base: &Doc,
    ours: &Doc,
    theirs: &Doc,
    key: impl Fn(&str) -> String,
) -> MergeOutcome {
    let mut conflicts = 0;
    let preamble = merge_text(
        &base.preamble,
        &ours.preamble,
        &theirs.preamble,
        &mut conflicts,
    );
    let index = |d: &Doc| -> HashMap<String, Block> {
        d.blocks
            .iter()
            .map(|b| (key(&b.heading), b.clone()))
            .collect()
    };
    let (bi, oi, ti) = (index(base), index(ours), index(theirs));
    let mut kept = Vec::new();
    for ob in &ours.blocks {
        let k = key(&ob.heading);
        match (bi.get(&k), ti.get(&k)) {
            (_, Some(tb)) => {
                // the blank line under a heading stays outside any conflict markers
                let gap = |b: &str| b.strip_prefix('\n').unwrap_or(b).to_string();
                let base_body = bi.get(&k).map(|b| gap(&b.body)).unwrap_or_default();
                let before = conflicts;
                let merged = merge_text(&base_body, &gap(&ob.body), &gap(&tb.body), &mut conflicts);
                // conflict markers are for a person to settle: never escaped
                let marked = conflicts > before;
                let body = if ob.body.starts_with('\n') {
                    format!("\n{merged}")
                } else {
                    merged
                };
                let heading = if ob.heading == tb.heading {
                    ob.heading.clone()
                } else {
                    tb.heading.clone()
                };
                let block = Block { heading, body };
                kept.push((k, if marked { block } else { readable(block) }));
            }
            // theirs deleted it: drop unless ours changed it
            (Some(bb), None) if bb == ob => {}
            _ => kept.push((k, readable(ob.clone()))),
        }
    }
    let theirs_keys: Vec<String> = theirs.blocks.iter().map(|b| key(&b.heading)).collect();
    let (kept_keys, mut kept_blocks): (Vec<String>, Vec<Option<Block>>) =
        kept.into_iter().map(|(k, b)| (k, Some(b))).unzip();
    let blocks = weave(&kept_keys, &theirs_keys, |k| match (bi.get(k), oi.get(k)) {
        // ours deleted an unchanged section: stays deleted
        (Some(bb), None) => ti.get(k) != Some(bb),
        _ => true,
    })
    .into_iter()
    .filter_map(|p| match p {
        // each kept index is picked once
        Pick::Kept(i) => kept_blocks[i].take(),
        Pick::Theirs(j) => Some(readable(theirs.blocks[j].clone())),
    })
    .collect();
    MergeOutcome {
        doc: Doc { preamble, blocks },
        conflicts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(blocks: &[(&str, &str)]) -> Doc {
        Doc {
            preamble: "# S".into(),
            blocks: blocks.iter().map(|(h, b)| Block::new(*h, *b)).collect(),
        }
    }

    #[test]
    fn entries_union_additions_and_honour_deletions() {
        let base = doc(&[("2026-01-02", "a"), ("2026-01-01", "b")]);
        let ours = doc(&[
            ("2026-01-03", "mine"),
            ("2026-01-02", "a"),
            ("2026-01-01", "b"),
        ]);
        let theirs = doc(&[("2026-01-03", "yours"), ("2026-01-02", "a")]);
        let m = merge_entries(&base, &ours, &theirs);
        let heads: Vec<&str> = m.doc.blocks.iter().map(|b| b.body.as_str()).collect();
        assert_eq!(heads, ["yours", "mine", "a"]);
        assert_eq!(m.conflicts, 0);
    }

    #[test]
    fn sections_conflict_only_where_both_changed() {
        let key = |h: &str| h.to_string();
        let base = doc(&[("A", "\n1"), ("B", "\n2")]);
        let ours = doc(&[("A", "\n1o"), ("B", "\n2")]);
        let theirs = doc(&[("A", "\n1t"), ("B", "\n2t")]);
        let m = merge_sections(&base, &ours, &theirs, key);
        assert_eq!(m.conflicts, 1);
        // the markers stay markers (not escaped as text that would read as structure)
        assert!(
            m.doc.blocks[0].body.starts_with("\n<<<<<<< ours\n"),
            "{}",
            m.doc.blocks[0].body
        );
        assert_eq!(m.doc.blocks[1].body, "\n2t");
    }
    /// The weave as it was first written (a scan per key): the model the linear one must match.
    fn weave_by_scanning(kept: &[u8], theirs: &[u8], take: impl Fn(&u8) -> bool) -> Vec<Pick> {
        let mut out: Vec<(u8, Pick)> = kept
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, Pick::Kept(i)))
            .collect();
        let mut anchor: Option<u8> = None;
        for (j, k) in theirs.iter().enumerate() {
            match out.iter().position(|(kk, _)| kk == k) {
                Some(_) => anchor = Some(*k),
                None if take(k) => {
                    let at = anchor
                        .and_then(|a| out.iter().position(|(kk, _)| *kk == a))
                        .map_or(0, |i| i + 1);
                    out.insert(at, (*k, Pick::Theirs(j)));
                    anchor = Some(*k);
                }
                None => {}
            }
        }
        out.into_iter().map(|(_, p)| p).collect()
    }

    proptest::proptest! {
        #[test]
        fn weave_matches_the_scanning_model(
            kept in proptest::collection::vec(0u8..12, 0..12),
            theirs in proptest::collection::vec(0u8..12, 0..12),
            refused in proptest::collection::vec(0u8..12, 0..4),
        ) {
            let take = |k: &u8| !refused.contains(k);
            proptest::prop_assert_eq!(
                weave(&kept, &theirs, take),
                weave_by_scanning(&kept, &theirs, take)
            );
        }
    }

    /// A key that counts how often it is compared.
    #[derive(Debug)]
    struct Counted<'a>(u32, &'a std::cell::Cell<usize>);

    impl PartialEq for Counted<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.1.set(self.1.get() + 1);
            self.0 == other.0
        }
    }
    impl Eq for Counted<'_> {}
    impl Hash for Counted<'_> {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.0.hash(state);
        }
    }

    #[test]
    fn merge_of_a_large_archive_compares_each_entry_a_bounded_number_of_times() {
        // ours and theirs each kept the 4000 shared entries and added 4000 of their own
        let n = 4000u32;
        let cmp = std::cell::Cell::new(0);
        let kept: Vec<Counted> = (0..2 * n).map(|k| Counted(k, &cmp)).collect();
        let theirs: Vec<Counted> = (n..3 * n).map(|k| Counted(k, &cmp)).collect();
        let woven = weave(&kept, &theirs, |_| true);
        assert_eq!(woven.len(), 3 * n as usize);
        // a scan per entry would compare about n * n times
        assert!(cmp.get() < 10 * n as usize, "{} comparisons", cmp.get());
    }

    #[test]
    fn an_open_fence_at_the_end_of_one_side_is_closed_when_an_entry_follows_it() {
        let base = doc(&[("2026-01-01", "a")]);
        let ours = doc(&[("2026-01-02", "ours\n```"), ("2026-01-01", "a")]);
        let theirs = doc(&[("2026-01-01", "a")]);
        let m = merge_entries(&base, &ours, &theirs);
        let text = crate::markdown::render(&m.doc, None);
        let back = crate::markdown::parse(&text, false).expect("the merged file parses");
        assert_eq!(back.doc.blocks.len(), 2, "{text}");
    }
}
