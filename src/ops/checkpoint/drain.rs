//! Long-lived writers drain the queue. An MCP server keeps its store open for writing, so a
//! checkpoint it applies for a short-lived process (the CLI, a hook's command) costs neither an
//! open nor a close of the store: the CLI and the server take the same path, one sync per file
//! written, one for the folder and one durable store commit (a CLI that leads itself adds the
//! open and the close, five more).
//!
//! - A server with a workspace that has memory opens a mailbox on the loopback interface
//!   ([`Mailbox`]: a UDP port, the same on Linux, macOS and Windows) and announces it with a file
//!   `queue/drain/<settings>-<pid>` holding the mailbox's port (`<settings>`: the fingerprint
//!   batches are matched by).
//! - A writer that has spooled its batch sends its ticket to every announced server of its
//!   settings whose process runs, from a mailbox of its own.
//! - A server that hears one takes the lead (waiting at most [`GRACE`] for a leader that holds
//!   it), applies the queue like any leader, and then tells every writer it heard from that the
//!   outcomes are written. No send blocks: a word that does not fit a full queue is dropped.
//! - The writer waits for that word at most [`GRACE`]; then, or when the word came and its
//!   outcome did not, it goes on as any writer does (waits for a leader, or leads). A busy,
//!   stuck or vanished server costs a delay, never a checkpoint, and every crash rule of the
//!   group commit holds unchanged.
//!
//! The loopback interface belongs to the network namespace: a writer in another one (a
//! sandbox) is not heard, and leads itself. An announcement whose process is gone is removed
//! by the next writer that finds it; one whose port another program took gets a word it
//! ignores, and the writer goes on after [`GRACE`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::group::{fingerprint, lead_round, queue_dir, try_lead};
use crate::base::process::pid_alive;
use crate::base::wake::Mailbox;
use crate::workspace::Workspace;

/// How long a writer whose batch a server heard of waits for the server's word.
pub(super) const GRACE: Duration = Duration::from_millis(250);

/// How often the drain thread looks whether its server stops.
const WAKE: Duration = Duration::from_millis(500);

/// Most groups one wake applies (a spool entry that cannot be taken away is not applied
/// forever).
const MAX_ROUNDS: usize = 16;

/// This process's drain, once it serves one: its announcement, its mailbox's address and its
/// thread.
static SERVING: Mutex<Option<Serving>> = Mutex::new(None);

/// Set when the server stops: the drain thread ends at its next wake.
static STOP: AtomicBool = AtomicBool::new(false);

struct Serving {
    marker: PathBuf,
    address: String,
    thread: std::thread::JoinHandle<()>,
}

/// The announcements' folder, through the workspace's fence (`.trilogy/` comes with the
/// repository, and may hold links out of it).
fn announcements(ws: &Workspace, queue: &Path) -> Option<PathBuf> {
    ws.inside(&queue.join("drain")).ok()
}

/// Most bytes an announcement holds (a port).
const ANNOUNCEMENT_MAX: u64 = 16;

/// A writer whose batch a server heard of.
pub(super) struct Waiter {
    sock: Mailbox,
}

impl Waiter {
    /// Wait at most `d` for a server's word; true when it came.
    pub(super) fn wait(&self, d: Duration) -> bool {
        let d = d.max(Duration::from_micros(100));
        if self.sock.set_read_timeout(Some(d)).is_err() {
            std::thread::sleep(d);
            return false;
        }
        let mut buf = [0u8; 16];
        self.sock.recv(&mut buf).is_ok()
    }
}

/// Tell the servers of `ws`'s settings that `ticket` waits in `queue`; `None` when none heard.
pub(super) fn nudge(ws: &Workspace, queue: &Path, ticket: &str) -> Option<Waiter> {
    let rd = std::fs::read_dir(announcements(ws, queue)?).ok()?;
    let settings = fingerprint(ws);
    let me = std::process::id().to_string();
    let mut sock = None;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((fp, pid)) = name.rsplit_once('-') else {
            continue;
        };
        if fp != settings || pid == me {
            continue;
        }
        // a port outlives nothing of its process: a word to a gone server's port would be
        // lost (or reach whoever took the port), so the process is looked at first
        if !pid_alive(pid) {
            let _ = std::fs::remove_file(e.path());
            continue;
        }
        let Some(address) = crate::base::fence::read_small_text(&e.path(), ANNOUNCEMENT_MAX) else {
            continue;
        };
        if sock.is_none() {
            let s = Mailbox::open().ok()?;
            // a full queue (a stuck server, a stranger's port) is not heard: never block
            s.set_nonblocking(true).ok()?;
            sock = Some(s);
        }
        let Some(s) = &sock else { continue };
        if s.send_to(&address, ticket.as_bytes()).is_ok() {
            return sock
                .filter(|s| s.set_nonblocking(false).is_ok())
                .map(|sock| Waiter { sock });
        }
    }
    None
}

/// Drain the queue of `ws` from a thread of this process until [`withdraw`] (once per process;
/// nothing when the queue folder cannot be made or the socket bound). The thread holds the
/// workspace weakly: the store is closed by whoever lets go of it last, never left open by
/// a thread the process exits under.
pub fn serve(ws: Arc<Workspace>, actor: String) {
    let Ok(mut serving) = SERVING.lock() else {
        return;
    };
    if serving.is_some() || STOP.load(Ordering::Acquire) || !ws.has_memory() {
        return;
    }
    if ws.ensure_state_dir().is_err() {
        return;
    }
    let Ok(queue) = queue_dir(&ws) else { return };
    let Some(dir) = announcements(&ws, &queue) else {
        return;
    };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let name = format!("{}-{}", fingerprint(&ws), std::process::id());
    let Some((sock, address)) = Mailbox::open()
        .ok()
        .and_then(|s| s.address().ok().map(|a| (s, a)))
    else {
        return;
    };
    let marker = dir.join(&name);
    // made new, never through a link the repository may hold at that name (one left by an
    // earlier process of the same pid is removed first)
    let _ = std::fs::remove_file(&marker);
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&marker)
        .and_then(|mut f| std::io::Write::write_all(&mut f, address.as_bytes()));
    if made.is_err() || sock.set_read_timeout(Some(WAKE)).is_err() {
        let _ = std::fs::remove_file(&marker);
        return;
    }
    let weak = Arc::downgrade(&ws);
    drop(ws);
    let stopping = || STOP.load(Ordering::Acquire);
    let run = move || {
        let mut buf = [0u8; 128];
        while !stopping() {
            // woken at least every WAKE, so a stop is seen even if its word was taken for a
            // writer's
            let Ok((_, first)) = sock.recv_from(&mut buf) else {
                continue;
            };
            // everyone who called meanwhile is served by the same rounds
            let mut heard = vec![first];
            let _ = sock.set_nonblocking(true);
            while let Ok((_, from)) = sock.recv_from(&mut buf) {
                heard.push(from);
            }
            if stopping() {
                return;
            }
            drain_once(&weak, &queue, &actor);
            // answers never block: a writer that cannot take one has stopped waiting for it
            for to in &heard {
                let _ = sock.reply(to, b"done");
            }
            let _ = sock.set_nonblocking(false);
        }
    };
    match std::thread::Builder::new()
        .name("trilogy-drain".into())
        .spawn(run)
    {
        Ok(thread) => {
            *serving = Some(Serving {
                marker,
                address,
                thread,
            })
        }
        Err(_) => {
            let _ = std::fs::remove_file(&marker);
        }
    }
}

/// Stop draining (a server that stops): the announcement goes, and a round under way ends
/// before this returns.
pub fn withdraw() {
    STOP.store(true, Ordering::Release);
    let Some(s) = SERVING.lock().ok().and_then(|mut g| g.take()) else {
        return;
    };
    let _ = std::fs::remove_file(&s.marker);
    // the word only hastens the stop: the thread also looks every WAKE
    let _ = Mailbox::open().and_then(|u| {
        u.set_nonblocking(true)?;
        u.send_to(&s.address, b"stop")
    });
    let _ = s.thread.join();
}

/// One wake's work: lead, if the lead comes within [`GRACE`] (the writers stop waiting for
/// this server then), and apply what waits, at most [`MAX_ROUNDS`] groups.
fn drain_once(weak: &Weak<Workspace>, queue: &Path, actor: &str) {
    let deadline = Instant::now() + GRACE;
    let lead = loop {
        match try_lead(queue) {
            Ok(Some(lead)) => break lead,
            Ok(None) if Instant::now() < deadline && !STOP.load(Ordering::Acquire) => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, "the checkpoint queue's lock");
                return;
            }
        }
    };
    // the store is held only while leading
    let Some(ws) = weak.upgrade() else { return };
    for _ in 0..MAX_ROUNDS {
        match lead_round(&ws, queue, actor) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                tracing::warn!(error = %e, "draining the checkpoint queue failed");
                break;
            }
        }
    }
    drop(ws);
    drop(lead);
}
