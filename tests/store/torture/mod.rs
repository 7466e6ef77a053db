//! Nothing lost: many writer processes, a person editing the files, a reader, and writers
//! killed at random points. Sizes come from the environment so the big runs are on demand:
//! `TRILOGY_TORTURE_WRITERS` (16 by default: concurrent writers are applied in groups by one
//! leader, see `ops::checkpoint::group`), `TRILOGY_TORTURE_CHECKPOINTS`, `TRILOGY_TORTURE_KILLS`.
//! This module holds what the runs share: writer threads and a look at everything the store
//! holds; each child is one kind of run.

use crate::common;

use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{Ws, env_or, git_output as git, text};
use trilogy::config::Config;
use trilogy::workspace::{Clock, Workspace};

mod hand_editor_and_reader;
mod kills;
mod late_saves_and_rebases;

/// Every entry body and section text in the store, any state.
fn store_texts(root: &std::path::Path) -> Vec<(String, String)> {
    let ws = Workspace::new(root.to_path_buf(), Config::default(), Clock::default());
    ws.read(|r| {
        let mut v: Vec<(String, String)> = r
            .all_entries()?
            .into_iter()
            .map(|e| (e.state.as_str().to_string(), e.body))
            .collect();
        for s in r.sections()? {
            for rev in r.section_history(&s.key)? {
                v.push(("section".into(), rev.body));
            }
        }
        Ok(v)
    })
    .unwrap()
    .value
}

/// `trilogy --root <root>` as an agent of the workspace runs it: no user config, the
/// workspace's private state folders, and a minute's patience for the store's lock.
fn trilogy_in(root: &std::path::Path, home: &std::path::Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
    c.arg("--root")
        .arg(root)
        .env("TRILOGY_CONFIG", root.join("none.toml"))
        .envs(common::private_env(home))
        .env("TRILOGY_LOCK_TIMEOUT_MS", "60000");
    c
}

/// The checkpoint arguments of writer checkpoint `tag`, its `i`th.
type Record = fn(&str, usize) -> Vec<String>;

/// A session entry.
fn a_session(tag: &str, _: usize) -> Vec<String> {
    vec!["--session-done".into(), format!("{tag} session; tested")]
}

/// Checkpoints from `writers` threads, `per` each, `pause` apart; returns the acknowledged
/// tags.
fn spawn_writers(
    root: &std::path::Path,
    home: &std::path::Path,
    (writers, per): (usize, usize),
    record: Record,
    pause: Duration,
) -> Vec<std::thread::JoinHandle<Vec<String>>> {
    (0..writers)
        .map(|w| {
            let (root, home) = (root.to_path_buf(), home.to_path_buf());
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for i in 0..per {
                    let tag = format!("w{w}-c{i}");
                    let out = trilogy_in(&root, &home)
                        .arg("checkpoint")
                        .args(record(&tag, i))
                        .output()
                        .unwrap();
                    if out.status.success() {
                        acked.push(tag);
                    } else {
                        // a refusal must be a clear, expected one: never a silent loss
                        assert_eq!(
                            out.status.code(),
                            Some(6),
                            "{tag}: only `busy` may refuse: {}",
                            text(&out.stderr)
                        );
                    }
                    std::thread::sleep(pause);
                }
                acked
            })
        })
        .collect()
}
