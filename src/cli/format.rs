//! Human output of each command (the `--json` output is the serde form of the same values).

use serde::Serialize;

use crate::config::{KEYS, Loaded};
use crate::error::{Exit, Result};
use crate::index::Hit;
use crate::ops::search::SearchOutcome;
use crate::ops::{CheckpointOutcome, InitOutcome, LogView, ReadOutput, RestoreOutcome, Status};
use crate::workspace::SyncReport;

use super::Context;

/// Write a line to stdout; a closed pipe (`trilogy log | head`) ends the process quietly.
pub fn emit(text: &str) {
    emit_bytes(format!("{text}\n").as_bytes());
}

/// Write `bytes` to stdout as they are, ending the process quietly on a closed pipe.
pub fn emit_bytes(bytes: &[u8]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(Exit::Ok.code());
        }
        eprintln!("trilogy: error: writing to stdout: {e}");
        std::process::exit(Exit::Io.code());
    }
}

/// Print `v` as JSON with `--json`, else with its human formatter.
pub fn print<T: Serialize>(ctx: &Context, v: &T, human: impl Fn(&T) -> String) -> Result<()> {
    if ctx.json {
        let s = serde_json::to_string_pretty(v)
            .map_err(|e| crate::Error::Internal(format!("json output: {e}")))?;
        emit(&s);
    } else {
        let s = human(v);
        if !s.is_empty() {
            emit(s.trim_end());
        }
    }
    Ok(())
}

/// Tell the user, on stderr, about files left untouched and edits absorbed.
pub fn warn_sync(r: &SyncReport) {
    for line in absorbed_lines(&r.absorbed) {
        eprintln!("trilogy: absorbed from the files: {line}");
    }
    for b in &r.unparseable {
        eprintln!("trilogy: warning: {b}");
    }
    if let Some(why) = &r.files_deferred {
        eprintln!(
            "trilogy: the memory files were not written because {why}; the store has the change and the next command after that writes them"
        );
    }
}

pub fn resolved(done: &[crate::ops::gitmerge::Resolved]) -> String {
    if done.is_empty() {
        return "no memory file is unmerged; nothing to resolve".into();
    }
    let line = |r: &crate::ops::gitmerge::Resolved| match (r.conflicts, r.line_merge) {
        (0, false) => format!("merged {} by entry and staged it", r.file),
        (0, true) => format!(
            "merged {} line by line (a version does not parse) and staged it",
            r.file
        ),
        (n, _) => format!(
            "{}: {n} place(s) changed on both sides; resolve the markers, then `git add {}`",
            r.file, r.file
        ),
    };
    done.iter().map(line).collect::<Vec<_>>().join("\n")
}

pub fn init(o: &InitOutcome, lang_from: &str) -> String {
    let mut s = format!("workspace {}\nmemory    {}\n", o.root, o.memory_dir);
    let f = &o.scaffolded;
    for (word, files, how) in [
        ("created", &f.created, "from the templates"),
        (
            "restored",
            &f.restored,
            "deleted here; written again from the store",
        ),
        ("kept", &f.kept, "already here; not overwritten"),
    ] {
        if !files.is_empty() {
            s.push_str(&format!("{word:<9} {} ({how})\n", files.join(", ")));
        }
    }
    let recorded = match o.lang_recorded {
        true => "; recorded in trilogy.toml",
        false => "",
    };
    s.push_str(&format!(
        "language  {} (from {lang_from}{recorded})\n",
        o.lang
    ));
    for line in &o.git {
        s.push_str(&format!("git       {line}\n"));
    }
    if let Some(b) = o.scaffolded.boot_block {
        s.push_str(&format!(
            "boot block {}\n",
            serde_json::to_value(b)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ));
    }
    if let Some(r) = &o.scaffolded.rescued {
        s.push_str(&format!(
            "kept      the old plugin's block as it was, at {r} (compare, then delete it)\n"
        ));
    }
    for b in &o.sync.unparseable {
        s.push_str(&format!("warning   {b}\n"));
    }
    s
}

pub fn checkpoint(o: &CheckpointOutcome) -> String {
    let mut s = o.summary.clone();
    for w in &o.warnings {
        s.push_str(&format!("\nwarning: {w}"));
    }
    for l in &o.dropped_lines {
        s.push_str(&format!("\ndropped (kept in history): {l}"));
    }
    if !o.areas.is_empty() {
        s.push('\n');
        s.push_str(&o.area_line);
    }
    s
}

pub fn read(o: &ReadOutput) -> String {
    match o {
        ReadOutput::File(f) => format!("==> {} <==\n{}", f.path, f.content),
        ReadOutput::Section(s) => format!("## {}\n\n{}\n", s.heading, s.text),
        ReadOutput::Entries { file, entries } => {
            if entries.is_empty() {
                return format!("(no matching entries in {file})");
            }
            entries
                .iter()
                .map(|e| format!("## {}\n{}\n[{} · {}]\n", e.heading, e.body, e.id, e.state))
                .collect::<Vec<_>>()
                .join("\n")
        }
    }
}

/// Each hit: its line, then its whole entry indented, the best-matching line marked `>`.
pub fn search(o: &SearchOutcome) -> String {
    if o.hits.is_empty() {
        return "no match".into();
    }
    let hit = |h: &Hit| {
        let weak = if h.weak {
            ", weak: single characters"
        } else {
            ""
        };
        let also = match h.also {
            0 => String::new(),
            n => format!(", and {n} more with the same text"),
        };
        let branch = h
            .branch
            .as_deref()
            .map_or(String::new(), |b| format!(", branch {b}"));
        let branch = match &h.worktree {
            Some(w) => format!("{branch}, in sibling work tree {w}"),
            None => branch,
        };
        let mut s = format!(
            "{} · {}  [{} {}, {:.2}{weak}{also}{branch}]",
            h.file, h.heading, h.kind, h.id, h.score
        );
        let mut marked = false;
        for line in h.text.lines() {
            let best = !marked && is_snippet(line, &h.snippet);
            marked |= best;
            s.push_str(if best { "\n  > " } else { "\n    " });
            s.push_str(line);
        }
        if !marked {
            s.push_str(&format!("\n  > {}", h.snippet));
        }
        s
    };
    o.hits.iter().map(hit).collect::<Vec<_>>().join("\n\n")
}

/// Whether `line` of a hit's text is its snippet (trimmed, shortened with `…` when long, the
/// heading without its `## `).
fn is_snippet(line: &str, snippet: &str) -> bool {
    let line = line.trim();
    let line = line.strip_prefix("## ").unwrap_or(line);
    match snippet.strip_suffix('…') {
        Some(start) => line.starts_with(start),
        None => line == snippet,
    }
}

/// `trilogy status`: the files, then the counts, what needs a person, and the lists.
pub fn status(s: &Status) -> String {
    let mut out = format!(
        "workspace {}\nstore     {}\nlang      {}\n\n",
        s.root, s.store, s.lang
    );
    for f in &s.files {
        let owed = if f.write_owed {
            "  (the store has more: the next write, or doctor --fix, writes it)"
        } else {
            ""
        };
        if f.exists {
            out.push_str(&format!(
                "{:<22} {:>8} bytes  {:>6} entries{owed}\n",
                f.file, f.bytes, f.entries
            ));
        } else {
            out.push_str(&format!("{:<22} (absent){owed}\n", f.file));
        }
    }
    status_counts(&mut out, s);
    status_warnings(&mut out, s);
    status_lists(&mut out, s);
    out
}

/// The PROJECT sections filled, entry counts, areas, proposals and open reports.
fn status_counts(out: &mut String, s: &Status) {
    let filled = s.sections.iter().filter(|x| !x.empty).count();
    out.push_str(&format!(
        "\nPROJECT sections filled: {filled}/{}{}\n",
        s.sections.len(),
        if s.project_empty {
            "  (empty: fill it in)"
        } else {
            ""
        }
    ));
    out.push_str(&format!(
        "sessions: {} live, {} archived · decisions: {} · restorable: {}\n",
        s.sessions_live, s.sessions_archived, s.decisions, s.restorable
    ));
    if s.elsewhere > 0 {
        out.push_str(&format!(
            "on other branches only: {} entries (live again when their branch is checked out)\n",
            s.elsewhere
        ));
    }
    if !s.areas.is_empty() {
        out.push_str(&s.area_line);
        out.push('\n');
    }
    if s.proposals_pending > 0 {
        out.push_str(&format!(
            "proposals waiting for review: {} (`trilogy review list`)\n",
            s.proposals_pending
        ));
    }
    if !s.open_reports.is_empty() {
        out.push_str(&format!("\nopen reports ({}):\n", s.open_reports.len()));
        for r in &s.open_reports {
            out.push_str(&format!(
                "  #{} {} ({}): {}\n",
                r.seq, r.at, r.actor, r.text
            ));
        }
    }
}

/// What does not parse, is stale, unclosed, secret or unmerged: each needs a person.
fn status_warnings(out: &mut String, s: &Status) {
    for b in &s.unparseable {
        out.push_str(&format!("\nNOT PARSED: {b}\n"));
    }
    if let Some(st) = &s.stale {
        out.push_str(&format!(
            "\nSTALE: PROJECT.md's last change is {} days older than the newest entry, with {} entries since: update it in place\n",
            st.behind_days, st.entries_since
        ));
    }
    for b in &s.unclosed {
        out.push_str(&format!(
            "\nUNCLOSED FENCE: {}:{}: {}; the file still reads and records\n",
            b.path, b.line, b.reason
        ));
    }
    for x in &s.secrets {
        out.push_str(&format!("\nSECRET: {x}: {}\n", crate::ops::secrets::ACTION));
    }
    for (f, how) in s.unmerged.iter().zip(&s.unmerged_how) {
        out.push_str(&format!(
            "\nUNMERGED: {f}: {how}; run `trilogy resolve` before committing\n"
        ));
    }
}

/// Sibling work trees, what is due, conflicts, kept entries and the last change.
fn status_lists(out: &mut String, s: &Status) {
    if !s.siblings.is_empty() {
        out.push_str(&format!("\nsibling work trees ({}):\n", s.siblings.len()));
        for w in &s.siblings {
            out.push_str(&format!(
                "  {} {}: {} decisions, {} sessions\n",
                w.branch.as_deref().unwrap_or("(detached)"),
                w.worktree,
                w.decisions,
                w.sessions
            ));
        }
    }
    if !s.due.is_empty() {
        out.push_str(&format!("\ndue for review ({}):\n", s.due.len()));
        for d in &s.due {
            out.push_str(&format!("  {}\n", due_line(d)));
        }
    }
    for c in &s.topic_conflicts {
        out.push_str(&format!(
            "\nTOPIC `{}` has {} live decisions; supersede or retire all but one (until then a new decision on it is refused):\n",
            c.topic,
            c.decisions.len()
        ));
        for d in &c.decisions {
            out.push_str(&format!("  {d}\n"));
        }
    }
    for c in &s.section_conflicts {
        out.push_str(&format!(
            "\nCONFLICT: {} `{}` ({}): a save and another writer changed the same line; both are kept:\n  the save:         {}\n  the other writer: {}\n  delete the one that is no longer true from {}\n",
            c.file,
            c.section,
            c.at,
            c.saved.join(" / "),
            c.other.join(" / "),
            c.path
        ));
    }
    for e in &s.kept {
        out.push_str(&format!(
            "\nKEPT: {} {}: a save was made from an older copy; trilogy kept {} (`trilogy log` shows them; remove them again if that was meant)\n",
            e.at, e.actor, e.detail
        ));
    }
    if let Some(e) = &s.last_event {
        out.push_str(&format!(
            "\nlast change: {} {} {} {}\n",
            e.at, e.actor, e.op, e.detail
        ));
    }
}

pub fn log(v: &LogView) -> String {
    match v {
        LogView::Events { events } => {
            if events.is_empty() {
                return "(no events)".into();
            }
            events
                .iter()
                .map(|l| {
                    let e = &l.event;
                    let ids = if e.ids.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", e.ids.join(", "))
                    };
                    let branch = match &l.branch {
                        Some(b) => format!(" (on {b})"),
                        None => String::new(),
                    };
                    format!(
                        "{:>5}  {}  {:<10} {:<14} {}{}{}",
                        e.seq, e.at, e.actor, e.op, e.detail, ids, branch
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        LogView::History { key, revisions } => revisions
            .iter()
            .map(|r| {
                format!(
                    "revision {} of {} ({key}) · {} · {}\n{}\n",
                    r.revision,
                    r.heading,
                    r.at,
                    r.actor,
                    r.body.trim()
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

pub fn restore(o: &RestoreOutcome) -> String {
    format!("restored {} ({}): {} → {}", o.id, o.heading, o.from, o.to)
}

/// A report just closed.
pub fn closed_report(r: &crate::model::Report) -> String {
    format!("closed report #{}: {}", r.seq, r.text)
}

pub fn config(l: &Loaded) -> String {
    let v = serde_json::to_value(&l.config).unwrap_or_default();
    KEYS.iter()
        .map(|(k, _)| {
            let val = v.get(*k).map(|x| x.to_string()).unwrap_or_default();
            format!(
                "{k:<26} {val:<24} {}",
                l.sources.get(*k).map(String::as_str).unwrap_or("default")
            )
        })
        .chain(l.warnings.iter().map(|w| format!("warning: {w}")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Most changes absorbed from the files to show one per line; past that, a count per kind of
/// change (`add ×300`), so pasting a long history by hand does not flood the terminal.
const ABSORBED_SHOWN: usize = 8;

fn absorbed_lines(absorbed: &[String]) -> Vec<String> {
    if absorbed.len() <= ABSORBED_SHOWN {
        return absorbed.to_vec();
    }
    let mut counts: Vec<(String, usize)> = Vec::new();
    for a in absorbed {
        let op = a.split_whitespace().next().unwrap_or_default().to_string();
        match counts.iter_mut().find(|(o, _)| *o == op) {
            Some((_, n)) => *n += 1,
            None => counts.push((op, 1)),
        }
    }
    let summary = counts
        .iter()
        .map(|(op, n)| format!("{op} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ");
    vec![format!(
        "{} changes ({summary}); `trilogy log` lists them",
        absorbed.len()
    )]
}

/// One item due for review.
pub fn due_line(d: &crate::ops::truth::due::Due) -> String {
    let line = format!(
        "{} {} {} {} ({})",
        d.review, d.file, d.kind, d.heading, d.id
    );
    match &d.moved {
        Some(drift) => format!(
            "{line}: code moved: {}",
            crate::ops::anchors::said(drift, false)
        ),
        None => line,
    }
}

pub fn due(v: &[crate::ops::truth::due::Due]) -> String {
    if v.is_empty() {
        return "nothing is due for review".into();
    }
    v.iter().map(due_line).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod absorbed_tests {
    use super::absorbed_lines;

    #[test]
    fn a_long_list_of_absorbed_changes_becomes_one_line_of_counts() {
        let few: Vec<String> = (0..3).map(|i| format!("add SESSIONS.md: {i}")).collect();
        assert_eq!(absorbed_lines(&few), few);
        let mut many: Vec<String> = (0..300).map(|i| format!("add SESSIONS.md: {i}")).collect();
        many.push("remove SESSIONS.md: old".into());
        assert_eq!(
            absorbed_lines(&many),
            ["301 changes (add ×300, remove ×1); `trilogy log` lists them"]
        );
    }
}
