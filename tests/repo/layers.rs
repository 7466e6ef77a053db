//! The layer map is true: every `crate::…` and `super::…` path in `src/` is read, each module
//! imports only rooms below its own, and no two modules import each other (a parent facade and
//! its own children aside). What is not true yet is listed in `DEBTS`, each line to be fixed and
//! then removed: a new breach fails, and so does a listed one that is gone, so the list can
//! only shrink and never lies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rooms from the foundation up: a room may import the rooms before it, never one after
/// it. The surfaces share the top rank and never import each other (see `LAUNCHES`).
const RANKS: &[&[&str]] = &[
    &["base"],
    &["error"],
    &["secrets"],
    &["model"],
    &["config"],
    &["schema"],
    &["markdown"],
    &["store"],
    &["index"],
    &["workspace"],
    &["recall"],
    &["registry"],
    &["ops"],
    &["cli", "hooks", "mcp", "web"],
];

/// Where one surface starts another: `trilogy hook`, `trilogy mcp` and `trilogy serve` are
/// commands of the CLI, so the CLI may call into the surface it launches.
const LAUNCHES: &[(&str, &str)] = &[("cli", "hooks"), ("cli", "mcp"), ("cli", "web")];

/// The surfaces are thin adapters: they call `ops`, which opens every transaction; none of them
/// names the store itself, or opens a transaction on a workspace (see `TRANSACTIONS`).
const SURFACES: &[&str] = &["cli", "hooks", "mcp", "web"];

/// The workspace's methods that open a store transaction (`Workspace::read`, `read_settling`,
/// `write`), each taking, as its last argument, the closure run inside it.
const TRANSACTIONS: &[&str] = &[".read(", ".read_settling(", ".write("];

/// Breaches the code still has, as `check` prints them. Fix one, then delete its line.
const DEBTS: &[&str] = &[];

/// A module's path inside the crate, as written in `use` (`ops::checkpoint::group`).
type Module = Vec<String>;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every module of the crate with its source text (inline `#[cfg(test)] mod tests { … }`
/// blocks left out: their `super::` names the file's own module).
fn modules() -> BTreeMap<Module, (PathBuf, String)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src_dir()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src_dir()).unwrap();
            let mut module: Module = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|l| l == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = match text.find("#[cfg(test)]\nmod tests {") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            out.insert(module, (path, text));
        }
    }
    out
}

/// Paths a source names, each with its line: `crate::a::b`, `super::c`, and every leaf of a
/// `use` tree (`use crate::a::{b, c::d}` names `crate::a::b` and `crate::a::c::d`).
fn paths(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = find_root(rest) {
            let (found, tail) = path_at(&rest[at..]);
            for p in found {
                out.push((n + 1, p));
            }
            rest = tail;
        }
    }
    out
}

/// Where the next `crate::` or `super::` path starts that is not inside a longer name.
fn find_root(s: &str) -> Option<usize> {
    let mut from = 0;
    loop {
        let at = ["crate::", "super::"]
            .iter()
            .filter_map(|r| s[from..].find(r).map(|i| i + from))
            .min()?;
        let before = s[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            from = at + 1;
            continue;
        }
        return Some(at);
    }
}

/// The paths at the start of `s` (one, or several through a `{…}` group), and what follows.
fn path_at(s: &str) -> (Vec<Vec<String>>, &str) {
    let mut segments = Vec::new();
    let mut rest = s;
    loop {
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            break;
        }
        segments.push(rest[..len].to_string());
        rest = &rest[len..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if let Some(group) = rest.strip_prefix('{') {
        let (inner, after) = split_group(group);
        let mut out = Vec::new();
        for item in top_level_items(inner) {
            let item = item.trim();
            if item.is_empty() || item == "self" {
                out.push(segments.clone());
                continue;
            }
            for tail in path_at(item).0 {
                out.push(segments.iter().cloned().chain(tail).collect());
            }
        }
        return (out, after);
    }
    (vec![segments], rest)
}

/// The inside of a `{…}` group whose opening brace was just taken, and what follows it.
fn split_group(s: &str) -> (&str, &str) {
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (&s[..i], &s[i + 1..]);
                }
            }
            _ => {}
        }
    }
    (s, "")
}

/// The module a path names from inside `from`: `super::` climbs, and the longest known
/// module the path starts with is the one it reaches (an item's path ends in the module
/// that holds or re-exports it).
fn target(from: &Module, path: &[String], known: &BTreeSet<Module>) -> Option<Module> {
    let mut base: Module = Vec::new();
    let mut rest = path;
    if rest.first().is_some_and(|s| s == "crate") {
        rest = &rest[1..];
    } else {
        base = from.clone();
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
    }
    let full: Module = base.into_iter().chain(rest.iter().cloned()).collect();
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| known.contains(m))
}

/// The lines where `text` opens a transaction: it calls one of [`TRANSACTIONS`] with a
/// closure as the last argument (`ws.read(|r| …)`, `ws.write(actor, move |tx| …)`). A call
/// that passes a named function instead of a closure is not seen.
fn transactions(text: &str) -> Vec<usize> {
    let code: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    let code = code.join("\n");
    let mut out = Vec::new();
    for method in TRANSACTIONS {
        let mut from = 0;
        while let Some(i) = code[from..].find(method) {
            let args = from + i + method.len();
            let last = top_level_items(inside_parens(&code[args..]))
                .pop()
                .unwrap_or("")
                .trim_start();
            let last = last.strip_prefix("move").unwrap_or(last).trim_start();
            if last.starts_with('|') {
                out.push(code[..args].matches('\n').count() + 1);
            }
            from = args;
        }
    }
    out.sort_unstable();
    out
}

/// The text of a call's arguments, whose opening parenthesis was just taken: up to the one
/// that closes it (any bracket counted).
fn inside_parens(s: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return &s[..i],
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    s
}

/// Arguments split at their top-level commas (any bracket counted).
fn top_level_items(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn rank(room: &str) -> Option<usize> {
    RANKS.iter().position(|rank| rank.contains(&room))
}

/// Every breach, each with one place that shows it (`file:line`).
fn breaches() -> BTreeMap<String, String> {
    let modules = modules();
    let known: BTreeSet<Module> = modules.keys().cloned().collect();
    let mut found = BTreeMap::new();
    // between siblings under one parent: which of them imports which, and where
    let mut siblings: BTreeMap<Module, BTreeMap<(String, String), String>> = BTreeMap::new();
    for (module, (file, text)) in &modules {
        let room = &module[0];
        let here = rank(room);
        if here.is_none() {
            found.insert(
                format!("{room}: a room without a rank"),
                file.display().to_string(),
            );
        }
        if SURFACES.contains(&room.as_str())
            && let Some(line) = transactions(text).first()
        {
            let place = format!("{}:{line}", file.strip_prefix(src_dir()).unwrap().display());
            found
                .entry(format!(
                    "{room} opens a transaction itself: a surface calls ops, which opens it"
                ))
                .or_insert(place);
        }
        for (line, path) in paths(text) {
            let Some(to) = target(module, &path, &known) else {
                continue;
            };
            let place = format!("{}:{line}", file.strip_prefix(src_dir()).unwrap().display());
            let common = module.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == module.len() || common == to.len() {
                continue; // a module and its own ancestor or descendant
            }
            let (a, b) = (module[common].clone(), to[common].clone());
            if common == 0 && SURFACES.contains(&a.as_str()) && b == "store" {
                found
                    .entry(format!(
                        "{a} names the store: a surface calls ops, which opens the transaction"
                    ))
                    .or_insert(place.clone());
            }
            if common == 0 {
                let there = rank(&b);
                let launch = LAUNCHES.contains(&(a.as_str(), b.as_str()));
                if here.zip(there).is_some_and(|(h, t)| t >= h) && !launch {
                    found
                        .entry(format!("{a} imports {b}, a room above or beside it"))
                        .or_insert(place.clone());
                }
            }
            let parent = module[..common].to_vec();
            siblings
                .entry(parent)
                .or_default()
                .entry((a, b))
                .or_insert(place);
        }
    }
    for (parent, edges) in &siblings {
        for ((a, b), place) in edges {
            if a < b
                && let Some(back) = edges.get(&(b.clone(), a.clone()))
            {
                let under = if parent.is_empty() {
                    "crate".to_string()
                } else {
                    parent.join("::")
                };
                found.insert(
                    format!("{under}: {a} and {b} import each other"),
                    format!("{place} and {back}"),
                );
            }
        }
    }
    found
}

#[test]
fn every_import_points_down_and_no_two_modules_import_each_other() {
    let found = breaches();
    let new: Vec<String> = found
        .iter()
        .filter(|(b, _)| !DEBTS.contains(&b.as_str()))
        .map(|(b, at)| format!("  {b:?},  // {at}"))
        .collect();
    let gone: Vec<&&str> = DEBTS.iter().filter(|d| !found.contains_key(**d)).collect();
    assert!(
        new.is_empty(),
        "imports against the layer map (DESIGN.md §1): move the code to the room it belongs in \
         (or, for a debt that is known, list it in DEBTS):\n{}",
        new.join("\n")
    );
    assert!(gone.is_empty(), "fixed, so remove from DEBTS: {gone:?}");
}

#[test]
fn use_trees_are_read_to_their_leaves() {
    let got: Vec<Vec<String>> = paths("use crate::a::{b, c::{d, self}};\nlet x = super::e::f();")
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    let want: Vec<Vec<String>> = [
        "crate::a::b",
        "crate::a::c::d",
        "crate::a::c",
        "super::e::f",
    ]
    .iter()
    .map(|p| p.split("::").map(String::from).collect())
    .collect();
    assert_eq!(got, want);
}

#[test]
fn a_path_reaches_the_longest_module_it_names() {
    let known: BTreeSet<Module> = [
        vec!["ops"],
        vec!["ops", "checkpoint"],
        vec!["ops", "checkpoint", "group"],
    ]
    .into_iter()
    .map(|m| m.into_iter().map(String::from).collect())
    .collect();
    let from: Module = ["ops", "checkpoint", "drain"].map(String::from).to_vec();
    let path = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        target(&from, &path("super::group::Item"), &known),
        Some(path("ops::checkpoint::group"))
    );
    assert_eq!(
        target(&from, &path("crate::ops::apply"), &known),
        Some(path("ops"))
    );
    assert_eq!(target(&from, &path("crate::elsewhere::x"), &known), None);
}

#[test]
fn a_call_with_a_closure_last_is_a_transaction_and_one_without_is_not() {
    let text = "let a = ws.read(|r| r.count(f, (1, 2)))?;\n\
                let b = ws\n    .write(ACTOR, move |tx| {\n        tx.log(a, b)\n    })?;\n\
                let c = ws.read_settling(\"hook\", |_| Ok(()));\n\
                file.write(true);\n\
                let d = lock.read();\n\
                // ws.read(|r| r.all()) in a comment\n\
                app.writing(&key, || ops::init(&ws));\n\
                io.read(&mut buf[..n]);";
    assert_eq!(transactions(text), vec![1, 3, 6]);
}
