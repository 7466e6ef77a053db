//! The process exit codes of the `trilogy` command: one table (code, name, meaning) that the
//! error kinds map onto, every exit of the process uses, and the help text (`trilogy --help`,
//! `trilogy help exit-codes`) is generated from. The codes are a promise to scripts: a code
//! never changes its number or its meaning.
//!
//! This module only names the codes; it never ends the process itself.

/// How a `trilogy` command ended, as its exit code says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The command did what it was asked.
    Ok,
    /// A bug or an unexpected state.
    Internal,
    /// The command line itself is wrong (clap's own errors).
    Usage,
    /// The input (JSON batch, flag, config value) is invalid.
    BadInput,
    /// The thing asked for does not exist (no workspace, no entry, no section).
    NotFound,
    /// A memory file does not parse; it is left untouched.
    Unparseable,
    /// Another writer held the workspace past the lock timeout.
    Busy,
    /// The filesystem refused.
    Io,
    /// The store is damaged or from a newer trilogy.
    Store,
    /// `trilogy doctor` found an error-level problem.
    Doctor,
    /// A save made from a copy that something else changed since.
    Conflict,
}

impl Exit {
    /// Every exit, in the order of its code.
    pub const ALL: [Exit; 11] = [
        Exit::Ok,
        Exit::Internal,
        Exit::Usage,
        Exit::BadInput,
        Exit::NotFound,
        Exit::Unparseable,
        Exit::Busy,
        Exit::Io,
        Exit::Store,
        Exit::Doctor,
        Exit::Conflict,
    ];

    /// The table: code, stable name, what it means (the words the help and the README show).
    const fn row(self) -> (i32, &'static str, &'static str) {
        match self {
            Exit::Ok => (0, "ok", "success"),
            Exit::Internal => (1, "internal", "internal error (a bug: please report it)"),
            Exit::Usage => (2, "usage", "usage error (unknown flag, missing argument)"),
            Exit::BadInput => (
                3,
                "bad_input",
                "bad input (invalid JSON batch, unknown section or config key, secret refused, too large)",
            ),
            Exit::NotFound => (
                4,
                "not_found",
                "not found (no memory here: run `trilogy init`; unknown id or section)",
            ),
            Exit::Unparseable => (
                5,
                "unparseable",
                "a memory file does not parse (left untouched; the message names file and line)",
            ),
            Exit::Busy => (
                6,
                "busy",
                "workspace busy (another writer held the lock past lock_timeout_ms; nothing changed)",
            ),
            Exit::Io => (
                7,
                "io",
                "filesystem refused (permissions, symlink leaving the workspace)",
            ),
            Exit::Store => (
                8,
                "store",
                "store damaged (run `trilogy doctor --fix`: it keeps it aside and rebuilds it) or from a newer trilogy (upgrade)",
            ),
            Exit::Doctor => (
                9,
                "doctor",
                "`trilogy doctor` found an error-level problem (each finding names the action to take)",
            ),
            Exit::Conflict => (
                10,
                "conflict",
                "a save conflicts with a change made since its copy was read (nothing was written)",
            ),
        }
    }

    /// The process exit code.
    pub const fn code(self) -> i32 {
        self.row().0
    }

    /// The stable name (an error's kind in `--json` output where the exit is an error's).
    pub const fn name(self) -> &'static str {
        self.row().1
    }

    /// What the code means, in the words the help and the README use.
    pub const fn meaning(self) -> &'static str {
        self.row().2
    }

    /// The exit whose code is `code`.
    pub fn from_code(code: i32) -> Option<Exit> {
        Exit::ALL.into_iter().find(|e| e.code() == code)
    }

    /// The table as plain text, one code a line: `trilogy --help`'s "Exit codes:" part.
    pub fn help_text() -> String {
        let mut out = String::from("Exit codes:\n");
        for e in Exit::ALL {
            out.push_str(&format!("  {:>2}  {}\n", e.code(), e.meaning()));
        }
        out
    }

    /// The table as Markdown (`| code | name | meaning |`): `trilogy help exit-codes` and the
    /// README carry it.
    pub fn markdown_table() -> String {
        let mut out = String::from("| code | name | meaning |\n|---|---|---|\n");
        for e in Exit::ALL {
            out.push_str(&format!(
                "| `{}` | `{}` | {} |\n",
                e.code(),
                e.name(),
                e.meaning()
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_run_from_zero_without_a_gap_and_names_are_unique() {
        for (i, e) in Exit::ALL.into_iter().enumerate() {
            assert_eq!(e.code(), i as i32, "{e:?}");
            assert_eq!(Exit::from_code(e.code()), Some(e));
            assert!(
                !e.meaning().is_empty() && !e.meaning().contains('|'),
                "{e:?}"
            );
        }
        let mut names: Vec<&str> = Exit::ALL.iter().map(|e| e.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Exit::ALL.len());
        assert_eq!(Exit::from_code(11), None);
    }

    #[test]
    fn the_help_text_has_every_code_once_with_its_meaning() {
        let text = Exit::help_text();
        assert!(text.starts_with("Exit codes:\n"), "{text}");
        assert_eq!(text.lines().count(), Exit::ALL.len() + 1, "{text}");
        for e in Exit::ALL {
            let line = format!("  {:>2}  {}", e.code(), e.meaning());
            assert_eq!(text.lines().filter(|l| *l == line).count(), 1, "{line}");
        }
        assert!(text.contains("  10  a save conflicts"), "{text}");
    }
}
