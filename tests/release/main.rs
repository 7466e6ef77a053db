//! The binary a user installs carries no fault points: `cargo build --release` (no `faults`
//! feature) leaves none of the variables that stop, slow or gate a process for the crash and
//! race tests in it, while the binary the tests drive (built with the feature through the
//! dev-dependency) has every one of them — the control that shows the search can find them.
//! It builds the release binary, which takes minutes: built and run only when named (`--test release`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variables the fault points read (`src/base/fault.rs`).
const FAULT_VARS: [&str; 6] = [
    "TRILOGY_CRASH_AT",
    "TRILOGY_PAUSE_AT",
    "TRILOGY_PAUSE_MARK",
    "TRILOGY_GROUP_GATE",
    "TRILOGY_BENCH_NO_VERSIONS",
    "TRILOGY_WITHOUT",
];

/// The names of `FAULT_VARS` found in the file at `path`.
fn fault_vars_in(path: &Path) -> Vec<&'static str> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    FAULT_VARS
        .into_iter()
        .filter(|name| bytes.windows(name.len()).any(|w| w == name.as_bytes()))
        .collect()
}

/// Build the release binary as a user would and return where cargo put it.
fn release_binary() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["build", "--release", "--locked", "--bin", "trilogy"])
        .args(["--message-format", "json-render-diagnostics"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo build --release failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "trilogy")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the release binary it built")
}

#[test]
fn the_release_binary_has_no_fault_points_and_the_test_binary_has_them_all() {
    let tested = Path::new(env!("CARGO_BIN_EXE_trilogy"));
    assert_eq!(
        fault_vars_in(tested),
        FAULT_VARS,
        "the binary the tests drive is built with every fault point"
    );
    let release = release_binary();
    assert_ne!(release, tested);
    assert_eq!(
        fault_vars_in(&release),
        Vec::<&str>::new(),
        "{} carries fault points",
        release.display()
    );
}
