//! Writers and a person's git, at once, with real processes: CLI and MCP writers in two clones
//! of one repository while, in the first, a loop runs random git operations on the memory files
//! (commit, pull and merge from the second clone, switching branches, `checkout --` of a file,
//! stash and pop, rebase). Afterwards every acknowledged entry is live and in the files of both
//! clones, unless the event log names git as what took it out (a checkout or stash that discarded
//! it); `doctor` finds nothing wrong. Each seed is a different order of operations and writes;
//! `TRILOGY_GIT_SEEDS=N` runs N of them (default 24, in three tests that run side by side);
//! `TRILOGY_GIT_KINDS=commit,stash` makes only the operations named.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Rng, Ws, env_or, git_output, text};
use serde_json::{Value, json};

const KINDS: [&str; 7] = [
    "commit",
    "pull",
    "merge",
    "switch",
    "checkout-file",
    "stash",
    "rebase",
];
/// The kinds made only on `main` (on `side` they are not tried).
const ON_MAIN: [&str; 3] = ["pull", "merge", "rebase"];
/// Successful operations of each kind a seed must make.
const MIN_EACH: usize = 5;
/// Acknowledged writes a seed must make.
const MIN_ACKED: usize = 50;
/// Runs of one git command trilogy's hold on the index refused, before the loop moves on.
const TRIES: usize = 5;
/// Past this a seed that has not done enough fails.
const LIMIT: Duration = Duration::from_secs(240);
/// Operations a seed picks at random, or for how long, before it turns to the kinds still
/// short of [`MIN_EACH`]. A seed on a quiet machine has enough of every kind long before; on a
/// loaded one, where a pull takes seconds and is often refused, picking at random would spend
/// most of [`LIMIT`] on kinds it has enough of.
const RANDOM_OPS: usize = 150;
const RANDOM_FOR: Duration = Duration::from_secs(60);

fn git(ws: &Ws, args: &[&str]) -> std::process::Output {
    git_output(ws.root(), args)
}

fn git_ok(ws: &Ws, args: &[&str]) {
    let o = git(ws, args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

/// What the git loop did.
#[derive(Default, Debug)]
struct Tally {
    ok: BTreeMap<&'static str, usize>,
    /// Git commands refused because trilogy held the index.
    refused: usize,
    /// Rebases a refused step left half ended.
    half_done: usize,
    /// Merges and pulls a refused step stopped before they merged, holding their autostash.
    autostash_held: usize,
    commands: usize,
    /// Operations tried, and of those picked because their kind was short.
    tried: usize,
    directed: usize,
}

impl Tally {
    /// Run one git command, counting whether trilogy's lock refused it. A refused command is
    /// run again a moment later, at most [`TRIES`] times in all, as a person does who reads
    /// git's "index.lock exists": on a loaded machine trilogy holds the index longer, and a
    /// loop that never retried would rarely get a many-step command (a pull with its
    /// autostash) through at all.
    fn run(&mut self, ws: &Ws, args: &[&str]) -> bool {
        for attempt in 1..=TRIES {
            let o = git(ws, args);
            self.commands += 1;
            let refused = !o.status.success() && text(&o.stderr).contains("index.lock");
            if refused {
                self.refused += 1;
            }
            if !o.status.success() && std::env::var_os("TRILOGY_GIT_DEBUG").is_some() {
                eprintln!("git {args:?}: {}", text(&o.stderr).trim());
            }
            if !refused || attempt == TRIES {
                return o.status.success();
            }
            std::thread::sleep(Duration::from_millis(20 * attempt as u64));
        }
        unreachable!("the last attempt returns")
    }
}

/// Two clones of one repository, both with memory and the merge driver installed; the first
/// has a branch `side`.
pub(crate) fn clones() -> (tempfile::TempDir, Ws, Ws) {
    let origin = tempfile::Builder::new()
        .prefix("trilogy-origin-")
        .tempdir()
        .unwrap();
    let o = git_output(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    assert!(o.status.success());
    let a = Ws::init();
    git_ok(&a, &["init", "-q", "-b", "main"]);
    std::fs::write(a.root().join(".gitignore"), "no-user-config.toml\n").unwrap();
    a.ok(&["install", "git"]);
    a.ok(&["checkpoint", "--session-done", "start; tested"]);
    git_ok(&a, &["add", "-A"]);
    git_ok(&a, &["commit", "-qm", "start"]);
    let url = origin.path().to_str().unwrap();
    git_ok(&a, &["remote", "add", "origin", url]);
    git_ok(&a, &["push", "-q", "-u", "origin", "main"]);
    git_ok(&a, &["branch", "side"]);
    let b = Ws::new();
    git_ok(&b, &["clone", "-q", url, "."]);
    b.ok(&["install", "git"]);
    b.ok(&["status"]);
    (origin, a, b)
}

/// Acknowledged entries: id → (clone, text).
type Acked = Arc<Mutex<HashMap<String, (char, String)>>>;

/// How long an agent thinks between two writes.
fn think(rng: &mut Rng) {
    std::thread::sleep(Duration::from_millis(20 + rng.below(150) as u64));
}

fn cli_writer(ws: &Ws, clone: char, tag: String, acked: Acked, stop: Arc<AtomicBool>) {
    let mut rng = Rng(tag.bytes().fold(0x51_7cc1_b727_220a, |h, b| {
        h.wrapping_mul(31).wrapping_add(u64::from(b))
    }));
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        think(&mut rng);
        n += 1;
        let line = format!("{tag} {n}");
        let out = ws.run(&[
            "checkpoint",
            "--json",
            "--session-done",
            &format!("{line}; tested"),
        ]);
        if out.status.success() {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            for id in v["ids"].as_array().unwrap() {
                let id = id.as_str().unwrap().to_string();
                acked.lock().unwrap().insert(id, (clone, line.clone()));
            }
        }
    }
}

fn mcp_writer(ws: &Ws, acked: Acked, stop: Arc<AtomicBool>) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        think(&mut rng);
        n += 1;
        let line = format!("mcp {n}");
        let args = json!({"sessions": [{"done": line, "verified": "tested"}]});
        let r = ws.mcp_tool("mcp-writer", "memory_checkpoint", args);
        if r["isError"] == true {
            continue;
        }
        let body = r["structuredContent"].clone();
        let body = match body.is_null() {
            true => serde_json::from_str::<Value>(r["content"][0]["text"].as_str().unwrap_or(""))
                .unwrap_or(Value::Null),
            false => body,
        };
        for id in body["ids"].as_array().into_iter().flatten() {
            let id = id.as_str().unwrap().to_string();
            acked.lock().unwrap().insert(id, ('a', line.clone()));
        }
    }
}

/// The operations a run makes: all of them, or those `TRILOGY_GIT_KINDS` names (comma-separated),
/// to look at one at a time.
fn kinds() -> Vec<&'static str> {
    let only = std::env::var("TRILOGY_GIT_KINDS").unwrap_or_default();
    let named: Vec<&'static str> = KINDS
        .into_iter()
        .filter(|k| only.split(',').any(|o| o.trim() == *k))
        .collect();
    if named.is_empty() {
        KINDS.to_vec()
    } else {
        named
    }
}

/// The kind of the next operation: a random one while `exploring` or once every kind has
/// [`MIN_EACH`]; else one of the kinds with the fewest successes, or a switch back to `main`
/// first when that kind is made only there and `a` is on `side`.
fn next_kind(t: &mut Tally, rng: &mut Rng, exploring: bool, on_side: bool) -> &'static str {
    let kinds = kinds();
    let done = |k: &str| t.ok.get(k).copied().unwrap_or(0);
    let fewest = kinds.iter().map(|k| done(k)).min().unwrap_or(MIN_EACH);
    if exploring || fewest >= MIN_EACH {
        return kinds[rng.below(kinds.len())];
    }
    let short: Vec<&'static str> = kinds.into_iter().filter(|k| done(k) == fewest).collect();
    let kind = short[rng.below(short.len())];
    t.directed += 1;
    if on_side && ON_MAIN.contains(&kind) {
        "switch"
    } else {
        kind
    }
}

/// One git operation of `kind` in `a`; whether it succeeded.
fn git_op(a: &Ws, kind: &str, rng: &mut Rng, on_side: &mut bool, t: &mut Tally) -> bool {
    t.tried += 1;
    let commit = |t: &mut Tally| {
        t.run(a, &["add", "-A", "memory"]) && t.run(a, &["commit", "-qm", "memory"])
    };
    let ok = match kind {
        _ if *on_side && ON_MAIN.contains(&kind) => false,
        "commit" => commit(t),
        "pull" => {
            commit(t);
            // what the writers added since the commit is stashed around the merge, as most
            // people's pull does
            let pull = [
                "pull",
                "-q",
                "--no-rebase",
                "--autostash",
                "--no-edit",
                "origin",
                "main",
            ];
            // the pull is what happens beside the writers; its push may be refused as not a
            // fast-forward when the other clone pushed meanwhile, as in any team, and the next
            // pull takes that in
            let pulled = t.run(a, &pull);
            if pulled {
                t.run(a, &["push", "-q", "origin", "main"]);
            }
            pulled
        }
        "merge" => {
            commit(t);
            t.run(a, &["fetch", "-q", "origin"])
                && t.run(
                    a,
                    &["merge", "-q", "--autostash", "--no-edit", "origin/main"],
                )
        }
        "switch" => {
            commit(t);
            let to = if *on_side { "main" } else { "side" };
            let ok = t.run(a, &["checkout", "-q", to]);
            if ok {
                *on_side = !*on_side;
                if !*on_side {
                    // back on main: what was recorded on side comes home
                    t.run(a, &["merge", "-q", "--no-edit", "side"]);
                }
            }
            ok
        }
        "checkout-file" => t.run(a, &["checkout", "--", "memory/SESSIONS.md"]),
        "stash" => {
            let stashed = t.run(a, &["stash", "-q"]);
            std::thread::sleep(Duration::from_millis(rng.below(80) as u64));
            stashed && t.run(a, &["stash", "pop", "-q"])
        }
        "rebase" => {
            commit(t);
            // as `pull --rebase --autostash` does: what the writers added since is stashed
            // around the rebase
            let ok = t.run(a, &["fetch", "-q", "origin"])
                && t.run(a, &["rebase", "-q", "--autostash", "origin/main"]);
            if !ok && !git(a, &["rebase", "--abort"]).status.success() {
                // a rebase whose last step (applying its autostash) was refused is left half
                // ended: quit it, keeping the autostash in the stash list
                let _ = git(a, &["rebase", "--quit"]);
                t.half_done += 1;
            }
            ok
        }
        _ => false,
    };
    // a merge or pull the writers kept from finishing is undone, as a person would
    if a.root().join(".git/MERGE_HEAD").exists() {
        git(a, &["merge", "--abort"]);
    }
    // one stopped before it merged still holds its autostash, and git refuses every later
    // autostash ("MERGE_AUTOSTASH: reference already exists"): quit it as a person would,
    // keeping what it held in the stash list
    if a.root().join(".git/MERGE_AUTOSTASH").exists() {
        git(a, &["merge", "--quit"]);
        t.autostash_held += 1;
    }
    ok
}

/// Bring both clones to one history: `a` back on main with side merged, both pushed and pulled.
fn settle(a: &Ws, b: &Ws) {
    let mut t = Tally::default();
    // a rebase a refused step left half done is ended as a person would: abort, else quit
    // (what its autostash held is kept in the stash list)
    let rebasing =
        a.root().join(".git/rebase-merge").exists() || a.root().join(".git/rebase-apply").exists();
    if rebasing && !git(a, &["rebase", "--abort"]).status.success() {
        git_ok(a, &["rebase", "--quit"]);
    }
    git(a, &["merge", "--abort"]);
    a.ok(&["status"]);
    t.run(a, &["add", "-A", "memory"]);
    t.run(a, &["commit", "-qm", "settle"]);
    t.run(a, &["checkout", "-q", "main"]);
    t.run(a, &["merge", "-q", "--no-edit", "side"]);
    // each clone's agent writes again (bringing every file up to date: an entry a read kept,
    // a write git kept waiting), its person commits, pulls and pushes; three rounds
    for round in 0..3 {
        for ws in [a, b] {
            ws.ok(&[
                "checkpoint",
                "--session-done",
                &format!("settled {round}; tested"),
            ]);
            t.run(ws, &["add", "-A", "memory"]);
            t.run(ws, &["commit", "-qm", "settle"]);
            t.run(
                ws,
                &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
            );
            t.run(ws, &["push", "-q", "origin", "main"]);
        }
    }
    a.ok(&["checkpoint", "--session-done", "settled; tested"]);
}

/// Ids live in `ws` and the text of its session files.
fn live(ws: &Ws) -> (std::collections::HashSet<String>, String) {
    let mut ids = std::collections::HashSet::new();
    let mut files = String::new();
    for f in ["SESSIONS.md", "SESSIONS-archive.md"] {
        if !ws.path(f).exists() {
            continue;
        }
        files.push_str(&ws.read(f));
        let r = ws.json(&["read", f, "-n", "1000000"]);
        for e in r["entries"].as_array().unwrap() {
            if e["state"] == "live" || e["state"] == "archived" {
                ids.insert(e["id"].as_str().unwrap().to_string());
            }
        }
    }
    (ids, files)
}

/// Entry ids the event log of `ws` says git took out.
fn taken_by_git(ws: &Ws) -> std::collections::HashSet<String> {
    let log = ws.json(&["log", "-n", "10000000"]);
    (log["events"].as_array().unwrap().iter())
        .filter(|e| e["actor"] == "git" || e["actor"] == "git-checkout")
        .filter(|e| matches!(e["op"].as_str(), Some("remove" | "replace" | "elsewhere")))
        .flat_map(|e| e["ids"].as_array().unwrap().clone())
        .filter_map(|i| i.as_str().map(str::to_string))
        .collect()
}

fn doctor_clean(ws: &Ws, which: char) {
    let out = ws.run(&["doctor", "--json"]);
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bad: Vec<&Value> = (d["findings"].as_array().unwrap().iter())
        .filter(|f| f["level"] == "error")
        .collect();
    assert!(bad.is_empty(), "doctor in clone {which}: {bad:#?}");
}

/// The writers of both clones (CLI in each, MCP in `a`) and the second clone's person, who
/// commits, pulls and pushes now and then; all until `stop`.
fn start_writers(
    a: &Arc<Ws>,
    b: &Arc<Ws>,
    acked: &Acked,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<()>> {
    let mut writers = Vec::new();
    for (ws, clone, tag) in [(a, 'a', "a1"), (a, 'a', "a2"), (b, 'b', "b1")] {
        let (ws, acked, stop, tag) = (ws.clone(), acked.clone(), stop.clone(), tag.to_string());
        writers.push(std::thread::spawn(move || {
            cli_writer(&ws, clone, tag, acked, stop)
        }));
    }
    {
        let (ws, acked, stop) = (a.clone(), acked.clone(), stop.clone());
        writers.push(std::thread::spawn(move || mcp_writer(&ws, acked, stop)));
    }
    // the second clone's person commits, pulls and pushes now and then
    let (b, stop) = (b.clone(), stop.clone());
    writers.push(std::thread::spawn(move || {
        let mut t = Tally::default();
        while !stop.load(Ordering::Relaxed) {
            t.run(&b, &["add", "-A", "memory"]);
            t.run(&b, &["commit", "-qm", "b"]);
            t.run(
                &b,
                &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
            );
            if b.root().join(".git/MERGE_HEAD").exists() {
                git(&b, &["merge", "--abort"]);
            }
            t.run(&b, &["push", "-q", "origin", "main"]);
            std::thread::sleep(Duration::from_millis(300));
        }
    }));
    writers
}

/// The person's git in `a` while the writers write: operations for a random time of 2 to 5
/// seconds and until every kind has [`MIN_EACH`] successes and [`MIN_ACKED`] writes are
/// acknowledged, or [`LIMIT`] has passed. At random first; past [`RANDOM_OPS`] operations
/// or [`RANDOM_FOR`], the kinds still short of [`MIN_EACH`] are picked.
fn person_git(a: &Ws, acked: &Acked, seed: u64) -> Tally {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut tally = Tally::default();
    let mut on_side = false;
    let started = Instant::now();
    // a random time, and at least enough of every operation
    let least = Duration::from_millis(2000 + rng.below(3000) as u64);
    loop {
        let exploring = tally.tried < RANDOM_OPS && started.elapsed() < RANDOM_FOR;
        let kind = next_kind(&mut tally, &mut rng, exploring, on_side);
        if git_op(a, kind, &mut rng, &mut on_side, &mut tally) {
            *tally.ok.entry(kind).or_default() += 1;
        }
        let enough = kinds()
            .iter()
            .all(|k| tally.ok.get(k).copied().unwrap_or(0) >= MIN_EACH)
            && acked.lock().unwrap().len() >= MIN_ACKED;
        if (enough && started.elapsed() >= least) || started.elapsed() > LIMIT {
            return tally;
        }
        std::thread::sleep(Duration::from_millis(rng.below(60) as u64));
    }
}

/// The `acked` entries missing from clone `a` or `b` although git never took them out there.
fn lost_entries(acked: &HashMap<String, (char, String)>, a: &Ws, b: &Ws) -> Vec<String> {
    let (live_a, files_a) = live(a);
    let (live_b, files_b) = live(b);
    let git_a = taken_by_git(a);
    let git_b = taken_by_git(b);
    let mut lost = Vec::new();
    for (id, (clone, line)) in acked {
        // the line as its entry renders it, so `a1 2` is never found inside `a1 20`
        let rendered = format!("{line}; tested");
        let in_a = live_a.contains(id) && files_a.contains(&rendered);
        let git_took = git_a.contains(id) || (*clone == 'b' && git_b.contains(id));
        if !in_a && !git_took {
            lost.push(format!("{id} ({line}) not in clone a"));
        }
        // an entry git discarded in one clone before it was ever pushed never reaches the other
        let discarded = git_a.contains(id) || git_b.contains(id);
        let in_b = live_b.contains(id) && files_b.contains(&rendered);
        if !in_b && !discarded {
            lost.push(format!("{id} ({line}) not in clone b"));
        }
    }
    lost
}

fn run_seed(seed: u64) -> Tally {
    let (_origin, a, b) = clones();
    let (a, b) = (Arc::new(a), Arc::new(b));
    let acked: Acked = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let writers = start_writers(&a, &b, &acked, &stop);
    let tally = person_git(&a, &acked, seed);
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    settle(&a, &b);
    let lost = lost_entries(&acked, &a, &b);
    if !lost.is_empty() {
        // the clones stay for a look
        eprintln!(
            "seed {seed}: clones kept at {} and {}",
            a.root().display(),
            b.root().display()
        );
        std::mem::forget(a.clone());
        std::mem::forget(b.clone());
        std::mem::forget(_origin);
    }
    assert!(
        lost.is_empty(),
        "seed {seed}: {} of {} acknowledged entries lost: {lost:#?}",
        lost.len(),
        acked.len()
    );
    // a seed that did too little proves nothing
    for k in kinds() {
        let n = tally.ok.get(k).copied().unwrap_or(0);
        assert!(
            n >= MIN_EACH,
            "seed {seed}: only {n} successful {k}: {tally:?}"
        );
    }
    assert!(
        acked.len() >= MIN_ACKED,
        "seed {seed}: {} acked",
        acked.len()
    );
    doctor_clean(&a, 'a');
    doctor_clean(&b, 'b');
    tally
}

/// Run this third of the seeds (`TRILOGY_GIT_SEEDS` in all, default 24), reporting how often
/// trilogy's hold on the index refused a git command.
fn run_third(third: u64) {
    let seeds = env_or("TRILOGY_GIT_SEEDS", 24);
    let (mut refused, mut commands, mut half_done) = (0, 0, 0);
    let mine: Vec<u64> = (1..=seeds).filter(|s| s % 3 == third).collect();
    for &seed in &mine {
        let t = run_seed(seed);
        eprintln!(
            "seed {seed}: {:?}; {} of {} git commands refused while trilogy held the index, {} rebases left half ended, {} merges held their autostash; {} operations, {} of them picked as short",
            t.ok, t.refused, t.commands, t.half_done, t.autostash_held, t.tried, t.directed
        );
        refused += t.refused;
        commands += t.commands;
        half_done += t.half_done;
    }
    eprintln!(
        "seeds {mine:?}: {refused} of {commands} git commands refused, {half_done} rebases left half ended"
    );
}

#[test]
fn acknowledged_entries_survive_a_persons_git_beside_writers_first_third() {
    run_third(1);
}

#[test]
fn acknowledged_entries_survive_a_persons_git_beside_writers_second_third() {
    run_third(2);
}

#[test]
fn acknowledged_entries_survive_a_persons_git_beside_writers_last_third() {
    run_third(0);
}
