//! Damage at the store boundary: redb answers a damaged file (cut short, pages overwritten)
//! with errors or, on some pages, with a panic. Both become [`Error::StoreDamaged`], whose
//! message says to run `trilogy doctor --fix`; nothing of redb's panic reaches the terminal.
//!
//! A panic raised by trilogy's own code while redb is being read (a visitor passed to a scan)
//! is not damage: it is let through as it was.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::Path;
use std::sync::Once;

use crate::error::{Error, Result};

thread_local! {
    /// Depth of guarded calls on this thread: their panics are reported as errors, not printed.
    static QUIET: Cell<u32> = const { Cell::new(0) };
}

static HOOK: Once = Once::new();

/// Install (once) a panic hook that stays silent inside [`guard`] and defers to the hook it
/// replaced everywhere else.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Run `f`, which reads or writes the store at `path`; a panic inside it is damage.
pub(super) fn guard<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    install_hook();
    QUIET.with(|q| q.set(q.get() + 1));
    let out = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(q.get().saturating_sub(1)));
    out.unwrap_or_else(|payload| {
        Err(damaged(
            path,
            format!("reading it failed: {}", panic_text(payload.as_ref())),
        ))
    })
}

/// Run trilogy's own code `f` from inside a [`guard`]: its panics are printed as usual and
/// kept (`Err`) to be resumed once the guard is left, so they are never taken for damage.
pub(super) fn unguarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, Box<dyn Any + Send>> {
    let depth = QUIET.with(|q| q.replace(0));
    let out = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(depth));
    out
}

/// Resume a panic kept by [`unguarded`].
pub(super) fn resume(escaped: Option<Box<dyn Any + Send>>) {
    if let Some(p) = escaped {
        resume_unwind(p);
    }
}

/// The error for a damaged store file.
pub(super) fn damaged(path: &Path, detail: impl Into<String>) -> Error {
    Error::StoreDamaged {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

/// Whether a redb error message describes a damaged file rather than a refusal (locks,
/// permissions, a full disk).
pub(super) fn is_damage(message: &str) -> bool {
    const SIGNS: [&str; 5] = [
        "DB corrupted",
        "failed to fill whole buffer",
        "unexpected end of file",
        // the magic number is gone: a header torn or overwritten, or never finished
        "Not a redb database",
        "Database file is empty",
    ];
    SIGNS.iter().any(|s| message.contains(s))
}

/// A store file shorter than its own header says, read without opening it read-write: a
/// read-only handle neither repairs nor checks the file's length (a writer would find the
/// damage when it opens), so a cut file could otherwise serve reads from the pages it still
/// has. Reads the geometry of redb 4.6's file header (redb is pinned to that exact version):
/// page size, region header and data pages, full regions, trailing region data pages, all
/// little-endian `u32` at bytes 12–31. Only a header a writer left clean is trusted: a live
/// writer's may be mid-resize. `Some(detail)` when the file is shorter than that geometry.
pub(super) fn cut_short(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut h = [0u8; 32];
    if f.read_exact(&mut h).is_err() {
        return Some(format!("the file is {len} bytes, shorter than its header"));
    }
    if h[..9] != MAGIC || h[9] & RECOVERY_REQUIRED != 0 {
        return None;
    }
    let u = |at: usize| u64::from(u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]));
    let (page, header_pages, max_data, full, trailing) = (u(12), u(16), u(20), u(24), u(28));
    let trailing_len = if trailing > 0 {
        (header_pages + trailing) * page
    } else {
        0
    };
    let expected = page + full * (header_pages + max_data) * page + trailing_len;
    (len < expected).then(|| format!("the file is {len} bytes; its header says {expected}"))
}

/// redb's magic number, the first bytes of every store file it finished making.
const MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];
/// Flags of the byte after it (redb 4.6's "god byte").
const RECOVERY_REQUIRED: u8 = 2;
/// Where the two commit slots begin; each starts with the file format's version.
const SLOTS: [usize; 2] = [64, 192];
/// The file format redb 4.6 writes.
pub(super) const FORMAT: u8 = 3;

/// `Some(version)` when the store file at `path` is a redb file of a later format than this
/// trilogy's redb reads (a newer trilogy made it): its magic number is whole and both commit
/// slots name the same later format, which a torn header does not.
pub(super) fn newer_format(path: &Path) -> Option<u8> {
    use std::io::Read;
    let mut h = [0u8; 256];
    std::fs::File::open(path).ok()?.read_exact(&mut h).ok()?;
    let [a, b] = SLOTS.map(|at| h[at]);
    (h[..9] == MAGIC && a == b && a > FORMAT && a < 64).then_some(a)
}

/// Give a copy of a store file whose first bytes are gone (the magic number, the flags, the page
/// size: a header torn or overwritten at its start) what redb needs to read the rest: the magic
/// number, "recovery required" (so redb takes the newer commit slot whose checksum holds and
/// reckons the layout from the file's length), and redb's page size where that is not one.
/// The region geometry after them is kept: when it is gone too, nothing can be read. Only ever
/// called on a copy; returns whether it changed anything.
pub(super) fn mend_header(copy: &Path) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom, Write};
    const PAGE: u32 = 4096;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(copy)?;
    let mut h = [0u8; 16];
    f.read_exact(&mut h)?;
    if h[..9] == MAGIC {
        return Ok(false);
    }
    h[..9].copy_from_slice(&MAGIC);
    h[9] = RECOVERY_REQUIRED;
    h[10..12].fill(0);
    let page = u32::from_le_bytes([h[12], h[13], h[14], h[15]]);
    if !page.is_power_of_two() || page < 512 {
        h[12..16].copy_from_slice(&PAGE.to_le_bytes());
    }
    f.seek(SeekFrom::Start(0))?;
    f.write_all(&h)?;
    Ok(true)
}
