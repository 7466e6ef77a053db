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
    const SIGNS: [&str; 3] = [
        "DB corrupted",
        "failed to fill whole buffer",
        "unexpected end of file",
    ];
    SIGNS.iter().any(|s| message.contains(s))
}
