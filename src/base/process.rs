//! Whether another process still runs, told from its pid: the group commit's spooled batches
//! and the git index lock trilogy holds name their process by pid, and a lock or batch whose
//! process is gone is cleared by the next command.

/// Whether process `pid` (decimal) still runs; true when that cannot be told.
#[cfg(unix)]
pub fn pid_alive(pid: &str) -> bool {
    let Some(pid) = pid
        .parse::<i32>()
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return true;
    };
    if pid.as_raw_nonzero().get() as u32 == std::process::id() {
        return true;
    }
    match rustix::process::test_kill_process(pid) {
        // a process being killed lets go of its locks before it is gone: one that is exiting,
        // or has exited and awaits its parent, waits for nothing
        Ok(()) => !exiting(pid.as_raw_nonzero().get()),
        Err(e) => e != rustix::io::Errno::SRCH,
    }
}

/// Whether process `pid` (decimal) still runs; true when that cannot be told (Windows: whether
/// the system lists it).
#[cfg(windows)]
pub fn pid_alive(pid: &str) -> bool {
    use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};
    let Ok(n) = pid.parse::<u32>() else {
        return true;
    };
    if n == std::process::id() {
        return true;
    }
    let pid = Pid::from_u32(n);
    let mut system = System::new();
    system.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[pid]),
        true,
        ProcessRefreshKind::nothing(),
    );
    system.process(pid).is_some()
}

/// Whether process `pid` is exiting or has exited (Linux: its state and its `PF_EXITING` flag
/// in `/proc/<pid>/stat`, set before the process closes its files and so frees its locks).
#[cfg(unix)]
fn exiting(pid: i32) -> bool {
    const PF_EXITING: u64 = 0x4;
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) state ppid pgrp session tty tpgid flags ...`: the name may hold anything,
    // the fields follow its last `)`
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let gone = fields
        .first()
        .is_some_and(|s| matches!(*s, "Z" | "X" | "x"));
    let flags = fields
        .get(6)
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0);
    gone || flags & PF_EXITING != 0
}
