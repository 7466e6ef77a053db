//! The crate error: one enum that every module's failures fold into, and the single place
//! where a failure's kind becomes a CLI exit code ([`Exit`], the table of every code), a
//! JSON-RPC error code and an HTTP status.
//!
//! Messages are lowercase, name the file, line, field or id involved, and say how to fix it.

use std::path::PathBuf;

mod exit;
pub use exit::Exit;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, grouped by what the caller can do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input (JSON batch, flag, config value) is invalid; fix the input.
    BadInput,
    /// The thing asked for does not exist (no workspace, no entry, no section).
    NotFound,
    /// A memory file cannot be parsed; it is left untouched until fixed.
    Unparseable,
    /// Another writer held the workspace past the lock timeout.
    Busy,
    /// The filesystem refused (permissions, symlink escaping the root, disk full).
    Io,
    /// The store is damaged or from an incompatible version.
    Store,
    /// A save made from a copy that something else changed since (the panel's `version`).
    Conflict,
    /// A bug or an unexpected state.
    Internal,
}

impl ErrorKind {
    /// How the CLI exits on a failure of this kind.
    pub fn exit(self) -> Exit {
        match self {
            ErrorKind::Internal => Exit::Internal,
            ErrorKind::BadInput => Exit::BadInput,
            ErrorKind::NotFound => Exit::NotFound,
            ErrorKind::Unparseable => Exit::Unparseable,
            ErrorKind::Busy => Exit::Busy,
            ErrorKind::Io => Exit::Io,
            ErrorKind::Store => Exit::Store,
            ErrorKind::Conflict => Exit::Conflict,
        }
    }

    /// Process exit code for the CLI: the code of [`ErrorKind::exit`].
    pub fn exit_code(self) -> i32 {
        self.exit().code()
    }

    /// JSON-RPC error code for the MCP surface.
    pub fn jsonrpc_code(self) -> i64 {
        match self {
            ErrorKind::BadInput => -32602,
            ErrorKind::NotFound => -32001,
            ErrorKind::Unparseable => -32002,
            ErrorKind::Busy => -32003,
            ErrorKind::Io => -32004,
            ErrorKind::Store => -32005,
            ErrorKind::Conflict => -32006,
            ErrorKind::Internal => -32603,
        }
    }

    /// HTTP status for the web panel.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorKind::BadInput => 400,
            ErrorKind::NotFound => 404,
            ErrorKind::Unparseable => 409,
            ErrorKind::Busy => 503,
            ErrorKind::Io => 500,
            ErrorKind::Store => 500,
            ErrorKind::Conflict => 409,
            ErrorKind::Internal => 500,
        }
    }

    /// Short stable name used in `--json` error output.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::BadInput => "bad_input",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Unparseable => "unparseable",
            ErrorKind::Busy => "busy",
            ErrorKind::Io => "io",
            ErrorKind::Store => "store",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Internal => "internal",
        }
    }

    /// Every kind.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::BadInput,
        ErrorKind::NotFound,
        ErrorKind::Unparseable,
        ErrorKind::Busy,
        ErrorKind::Io,
        ErrorKind::Store,
        ErrorKind::Conflict,
        ErrorKind::Internal,
    ];

    /// The kind named by [`ErrorKind::as_str`].
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// Every failure trilogy reports.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Invalid input with a message that says what and how to fix it.
    #[error("{0}")]
    BadInput(String),
    /// A config file or variable is wrong.
    #[error("config {source_name}: {message}")]
    Config {
        source_name: String,
        message: String,
    },
    /// Something asked for is not there.
    #[error("{0}")]
    NotFound(String),
    /// A memory file that cannot be parsed.
    #[error(
        "{}:{line}: {reason}; the file was left untouched: fix it by hand, then rerun",
        shown_path(path)
    )]
    Unparseable {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// A write that would overwrite an unparseable file.
    #[error(
        "refusing to write {}: it does not parse ({reason} at line {line}); nothing was changed. If a program is still saving it, wait until it is done; otherwise fix the file by hand (`trilogy doctor` shows what is wrong), then rerun",
        shown_path(path)
    )]
    WouldOverwrite {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// A folder that can never be a workspace (`/`, the home folder, a system folder).
    #[error("{0}")]
    NoProject(String),
    /// A save made from a copy in which something it changes was changed since by another
    /// writer: nothing was written.
    #[error("{0}")]
    Conflict(String),
    /// Lock wait exceeded.
    #[error(
        "workspace busy: another trilogy process held {} for more than {waited_ms} ms; nothing was changed, retry (or raise lock_timeout_ms)",
        shown_path(path)
    )]
    Busy { path: PathBuf, waited_ms: u64 },
    /// The memory files kept changing while trilogy tried to write them.
    #[error(
        "the files in {} kept changing while trilogy was writing them ({attempts} attempts); nothing was changed: retry when the other writer is done",
        shown_path(path)
    )]
    FilesChanging { path: PathBuf, attempts: usize },
    /// A filesystem failure on a named path.
    #[error("{}: {message}", shown_path(path))]
    Io { path: PathBuf, message: String },
    /// A failure inside the store.
    #[error("store {}: {message}", shown_path(path))]
    Store { path: PathBuf, message: String },
    /// The store file is damaged (cut short, pages overwritten).
    #[error(
        "store {} is damaged ({detail}); run `trilogy doctor --fix`: it keeps the damaged file aside, rebuilds the store from the Markdown and recovers what history it can",
        shown_path(path)
    )]
    StoreDamaged { path: PathBuf, detail: String },
    /// A bug.
    #[error("internal error: {0}")]
    Internal(String),
    /// An error another process met on this process's behalf (a group commit's leader
    /// applying its batch), passed on as it was said, with its kind.
    #[error("{message}")]
    Relayed { kind: ErrorKind, message: String },
}

/// `text` (a path, a file name) as it may be printed to a terminal: a control character (an
/// escape sequence, a line break) or a character that reorders text (a bidi override) is
/// written as its escape (`\u{1b}`, `\n`), so a file named to look like something else, or to
/// drive the terminal, is shown as what it is. Everything else is kept as it is.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c as u32, 0x61C | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
    };
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match hidden(c) {
            true => out.extend(c.escape_debug()),
            false => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A path as it may be printed to a terminal (see [`printable`]).
pub fn shown_path(path: &std::path::Path) -> String {
    printable(&path.display().to_string()).into_owned()
}

impl Error {
    /// The kind, which fixes exit code, JSON-RPC code and HTTP status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::BadInput(_) | Error::Config { .. } | Error::NoProject(_) => ErrorKind::BadInput,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unparseable { .. } | Error::WouldOverwrite { .. } => ErrorKind::Unparseable,
            Error::Busy { .. } | Error::FilesChanging { .. } => ErrorKind::Busy,
            Error::Io { .. } => ErrorKind::Io,
            Error::Store { .. } | Error::StoreDamaged { .. } => ErrorKind::Store,
            Error::Conflict(_) => ErrorKind::Conflict,
            Error::Internal(_) => ErrorKind::Internal,
            Error::Relayed { kind, .. } => *kind,
        }
    }

    /// An I/O error on `path`, with a hint for the common cases.
    pub fn io(path: impl Into<PathBuf>, err: std::io::Error) -> Error {
        let hint = match err.kind() {
            std::io::ErrorKind::PermissionDenied => {
                "permission denied; give the user write access to it or run from a writable checkout"
                    .to_string()
            }
            std::io::ErrorKind::NotFound => "not found".to_string(),
            _ => err.to_string(),
        };
        Error::Io {
            path: path.into(),
            message: hint,
        }
    }

    /// Shorthand for [`Error::BadInput`].
    pub fn bad_input(msg: impl Into<String>) -> Error {
        Error::BadInput(msg.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_printed_with_its_control_and_reordering_characters_escaped() {
        assert_eq!(printable("memory/项目 notes.md"), "memory/项目 notes.md");
        assert_eq!(
            printable("a\u{1b}[31mred\u{7}\nb.md"),
            "a\\u{1b}[31mred\\u{7}\\nb.md"
        );
        assert_eq!(printable("x\u{202e}dm.exe"), "x\\u{202e}dm.exe");
        let e = Error::io("/w/\u{1b}]0;pwned\u{7}.md", std::io::Error::other("gone"));
        assert_eq!(e.to_string(), "/w/\\u{1b}]0;pwned\\u{7}.md: gone");
    }

    /// Each kind exits with its own code, named as the kind is in `--json` errors; the codes
    /// no kind takes are the ones the CLI gives itself (success, usage, doctor's finding).
    #[test]
    fn every_error_kind_has_its_own_exit_named_as_the_kind() {
        let mut codes = Vec::new();
        for kind in ErrorKind::ALL {
            assert_eq!(kind.exit().name(), kind.as_str(), "{kind:?}");
            assert_eq!(kind.exit_code(), kind.exit().code());
            codes.push(kind.exit().code());
        }
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), ErrorKind::ALL.len());
        let others: Vec<Exit> = Exit::ALL
            .into_iter()
            .filter(|e| !codes.contains(&e.code()))
            .collect();
        assert_eq!(others, [Exit::Ok, Exit::Usage, Exit::Doctor]);
    }
}
