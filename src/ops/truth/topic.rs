//! Topics: one live decision per topic (see the room's header).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::{Error, Result};

use crate::model::marks::{self, topic_in, topic_key};
use crate::model::{EntryKind, EntryRecord};
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

/// The topic a decision names, as written (`None` for sessions and decisions without one).
pub fn of(e: &EntryRecord) -> Option<String> {
    if e.kind != EntryKind::Decision {
        return None;
    }
    topic_in(&e.body)
}

fn named(e: &EntryRecord) -> String {
    format!("{} {}", e.id, e.heading)
}

/// The live decisions on topic `key` (a [`topic_key`]), newest first: read through the
/// store's topic marks, so it costs what the topic holds, not what DECISIONS.md holds.
fn live_on(r: &dyn Reader, key: &str) -> Result<Vec<EntryRecord>> {
    let mut out = Vec::new();
    for m in r.marks(&marks::on_topic(key))? {
        if let Some(e) = r.entry(marks::parts(&m).1)? {
            out.push(e);
        }
    }
    out.sort_by_key(|e| std::cmp::Reverse((e.sort_date, e.seq)));
    Ok(out)
}

/// Topics holding two or more live decisions: the topic marks are read in key order and only
/// the decisions of a topic marked twice are loaded.
pub fn conflicts(r: &dyn Reader) -> Result<Vec<TopicConflict>> {
    let all = r.marks(marks::topics())?;
    let mut out = Vec::new();
    let mut at = 0;
    while at < all.len() {
        let key = marks::parts(&all[at]).0;
        let run = all[at..]
            .iter()
            .take_while(|m| marks::parts(m).0 == key)
            .count();
        if run > 1 {
            let v = live_on(r, key)?;
            if v.len() > 1 {
                out.push(TopicConflict {
                    topic: of(&v[0]).unwrap_or_default(),
                    decisions: v.iter().map(named).collect(),
                });
            }
        }
        at += run;
    }
    Ok(out)
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
        let on_topic = live_on(r, &key)?;
        if on_topic.is_empty() {
            continue;
        }
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
