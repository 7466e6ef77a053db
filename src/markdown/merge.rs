//! Three-way merges of docs: entries by identity (union of additions, deletions honoured) and
//! PROJECT sections by key (three-way per section, conflict markers only where both sides
//! changed the same section). Used by the git merge driver and by tests of the sync protocol.

use std::collections::{HashMap, HashSet};

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

/// Place every block of `theirs` that is missing from `kept` right after its nearest
/// predecessor (in `theirs`) that is present, so both sides' orders survive.
fn weave<K: Eq + std::hash::Hash + Clone>(
    mut kept: Vec<(K, Block)>,
    theirs: &[(K, Block)],
    take: impl Fn(&K) -> bool,
) -> Vec<Block> {
    let mut anchor: Option<K> = None;
    for (k, b) in theirs {
        let present = kept.iter().position(|(kk, _)| kk == k);
        match present {
            Some(_) => anchor = Some(k.clone()),
            None if take(k) => {
                let at = match &anchor {
                    Some(a) => kept.iter().position(|(kk, _)| kk == a).map_or(0, |i| i + 1),
                    None => 0,
                };
                kept.insert(at, (k.clone(), b.clone()));
                anchor = Some(k.clone());
            }
            None => {}
        }
    }
    kept.into_iter().map(|(_, b)| b).collect()
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
    let set = |d: &Doc| d.blocks.iter().cloned().collect::<HashSet<Block>>();
    let (b, o, t) = (set(base), set(ours), set(theirs));
    let keep = |x: &Block| (o.contains(x) && t.contains(x)) || !b.contains(x);
    let kept: Vec<(Block, Block)> = ours
        .blocks
        .iter()
        .filter(|x| keep(x))
        .map(|x| (x.clone(), x.clone()))
        .collect();
    let theirs_keyed: Vec<(Block, Block)> = theirs
        .blocks
        .iter()
        .map(|x| (x.clone(), x.clone()))
        .collect();
    let blocks = weave(kept, &theirs_keyed, |x| keep(x));
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
                let merged = merge_text(&base_body, &gap(&ob.body), &gap(&tb.body), &mut conflicts);
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
                kept.push((k, Block { heading, body }));
            }
            // theirs deleted it: drop unless ours changed it
            (Some(bb), None) if bb == ob => {}
            _ => kept.push((k, ob.clone())),
        }
    }
    let theirs_keyed: Vec<(String, Block)> = theirs
        .blocks
        .iter()
        .map(|b| (key(&b.heading), b.clone()))
        .collect();
    let blocks = weave(kept, &theirs_keyed, |k| match (bi.get(k), oi.get(k)) {
        // ours deleted an unchanged section: stays deleted
        (Some(bb), None) => ti.get(k) != Some(bb),
        _ => true,
    });
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
        assert!(m.doc.blocks[0].body.contains("<<<<<<< ours"));
        assert_eq!(m.doc.blocks[1].body, "\n2t");
    }
}
