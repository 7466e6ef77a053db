//! Fault points: named places where a test stops, slows or gates a real trilogy process to
//! check what a crash or a race there leaves behind. They read the process environment, and
//! they exist only in a build with the `faults` feature (the test suite turns it on through
//! its dev-dependency on this crate); in any other build each is an empty inline function and
//! none of their variables' names is in the binary.

/// Die like `kill -9` at `name` when `TRILOGY_CRASH_AT` names it: the crash tests stop a real
/// process between writing the files and committing the store.
#[inline]
pub fn crash_point(name: &str) {
    #[cfg(feature = "faults")]
    if std::env::var_os("TRILOGY_CRASH_AT").is_some_and(|v| v == name) {
        std::process::abort();
    }
    #[cfg(not(feature = "faults"))]
    let _ = name;
}

/// Sleep at `name` when `TRILOGY_PAUSE_AT=<name>:<ms>` names it, so the race tests can change
/// a file while a real process is between absorbing and writing; `TRILOGY_PAUSE_MARK=<file>`
/// is created on arrival, so a test knows the pause began.
#[inline]
pub fn pause_point(name: &str) {
    #[cfg(feature = "faults")]
    if let Some(v) = std::env::var_os("TRILOGY_PAUSE_AT")
        && let Some((n, ms)) = v.to_string_lossy().split_once(':')
        && n == name
        && let Ok(ms) = ms.parse::<u64>()
    {
        if let Some(mark) = std::env::var_os("TRILOGY_PAUSE_MARK") {
            let _ = std::fs::write(mark, name);
        }
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    #[cfg(not(feature = "faults"))]
    let _ = name;
}

/// Stop at `name` when `TRILOGY_GROUP_GATE=<dir>` is set: create `<dir>/<name>.ready`, then
/// wait (at most a minute) for `<dir>/<name>.go`.
#[inline]
pub fn gate_point(name: &str) {
    #[cfg(feature = "faults")]
    if let Some(dir) = std::env::var_os("TRILOGY_GROUP_GATE") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::write(dir.join(format!("{name}.ready")), b"");
        let go = dir.join(format!("{name}.go"));
        let start = std::time::Instant::now();
        while !go.exists() && start.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    #[cfg(not(feature = "faults"))]
    let _ = name;
}

/// True when `TRILOGY_BENCH_NO_VERSIONS` turns the files' version history off, for the bench
/// that measures what it costs (`benches/absorb.rs`).
#[inline]
pub fn versions_off() -> bool {
    #[cfg(feature = "faults")]
    return std::env::var_os("TRILOGY_BENCH_NO_VERSIONS").is_some();
    #[cfg(not(feature = "faults"))]
    false
}

/// True when `TRILOGY_WITHOUT` (a comma-separated list) names `call`: a test pretends this
/// system lacks it (`exchange`, `no-replace`), so Linux runs the fallbacks Windows takes.
#[inline]
pub fn without(call: &str) -> bool {
    #[cfg(feature = "faults")]
    return std::env::var("TRILOGY_WITHOUT").is_ok_and(|v| v.split(',').any(|c| c == call));
    #[cfg(not(feature = "faults"))]
    {
        let _ = call;
        false
    }
}

/// `default`, or the byte count `TRILOGY_CHUNK_BYTES` gives: a test reads a small file in
/// many chunks to show it reads as it does whole.
#[inline]
pub fn chunk_bytes(default: usize) -> usize {
    #[cfg(feature = "faults")]
    return number("TRILOGY_CHUNK_BYTES", default);
    #[cfg(not(feature = "faults"))]
    default
}

/// The number the variable `var` holds, else `default`.
#[cfg(feature = "faults")]
fn number<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `default`, or the byte count `TRILOGY_WHOLE_READ_CAP` gives: a test shows what becomes of an
/// archive past what is read whole without writing a quarter of a gigabyte.
#[inline]
pub fn whole_read_cap(default: u64) -> u64 {
    #[cfg(feature = "faults")]
    return number("TRILOGY_WHOLE_READ_CAP", default);
    #[cfg(not(feature = "faults"))]
    default
}
