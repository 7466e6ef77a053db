//! The shells that run the command line an agent host is given for a hook, and how trilogy's
//! program is written as the first word of one and read back. A host hands the whole line to a
//! shell, and which shell depends on the host and the operating system:
//!
//! - Linux and macOS: every host runs it through a POSIX shell (Claude Code `bash`/`$SHELL`,
//!   Codex `$SHELL -lc`, Gemini CLI `bash -c`, Cursor the user's shell).
//! - Windows: Claude Code runs it through Git Bash when it finds one and PowerShell otherwise,
//!   so install says `"shell": "powershell"` and writes for PowerShell; Gemini CLI and Cursor
//!   run it through PowerShell (`-Command`); Codex through `cmd.exe /C`, handing the line over
//!   as one argument that Rust's argument quoting has escaped (`"` becomes `\"`, which cmd does
//!   not undo): a program path cmd could only take inside quotes is started through PowerShell
//!   instead, with no `"` in the line.
//!
//! MCP server entries name the program and its arguments apart (`command` + `args`), spawned
//! without a shell: they need none of this. What this module must not do: decide which file a
//! host reads, or run anything.

use crate::model::host::Host;

/// The operating systems whose hosts run hook commands differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux, macOS and the other Unixes.
    Unix,
    Windows,
}

impl Os {
    /// The system this trilogy was built for.
    pub const HOST: Os = if cfg!(windows) { Os::Windows } else { Os::Unix };
}

/// A shell a host hands a hook's command line to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// `sh -c`, `bash -c`, `$SHELL -lc` (zsh and fish read single quotes the same way).
    Posix,
    /// `cmd.exe /C`, as Codex calls it.
    Cmd,
    /// `powershell.exe -Command` or `pwsh -Command`.
    PowerShell,
}

/// Before a PowerShell call, in a line cmd reads: starts Windows PowerShell on it (`^&` is
/// cmd's escape of PowerShell's call operator).
const CMD_TO_POWERSHELL: &str = "powershell -NoProfile -NonInteractive -Command ^& ";

/// The characters PowerShell takes for a single quote (it doubles any of them to mean one).
const PS_QUOTES: [char; 5] = ['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'];

/// The characters cmd gives a meaning outside double quotes.
const CMD_SPECIAL: &str = "&|<>()^%!\",;=";

impl Shell {
    /// The shell `host` runs a hook's command line with on `os`.
    pub fn of_hooks(host: Host, os: Os) -> Shell {
        match (os, host) {
            (Os::Unix, _) => Shell::Posix,
            (Os::Windows, Host::Codex) => Shell::Cmd,
            (Os::Windows, _) => Shell::PowerShell,
        }
    }

    /// The line that runs `program` with `args` (words that need no quoting in any shell).
    pub fn command_line(self, program: &str, args: &[&str]) -> String {
        let head = match self {
            Shell::Posix => posix_quote(program),
            Shell::PowerShell => powershell_call(program),
            Shell::Cmd if cmd_bare(program) => program.to_string(),
            Shell::Cmd => format!("{CMD_TO_POWERSHELL}{}", cmd_escape(&ps_quote(program))),
        };
        std::iter::once(head.as_str())
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The program `line` runs, read the way this shell reads it; `None` when this shell would
    /// not run a program from it (an unclosed quote; in PowerShell, a quoted path without `&`,
    /// which is a string and not a command).
    pub fn program(self, line: &str) -> Option<String> {
        let line = line.trim_start();
        match self {
            Shell::Posix => posix_word(line),
            Shell::PowerShell => powershell_program(line),
            Shell::Cmd => match line.strip_prefix(CMD_TO_POWERSHELL) {
                Some(rest) => powershell_program(&format!("& {}", cmd_unescape(rest))),
                None => cmd_program(line),
            },
        }
    }
}

/// `s` as one POSIX shell word (quoted only when it needs to be).
pub fn posix_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `program` as PowerShell runs it: bare when it is one plain word, else a single-quoted
/// string after the call operator `&`.
fn powershell_call(program: &str) -> String {
    let plain = program
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || "\\/._".contains(c))
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "\\/._-:".contains(c));
    if plain {
        program.to_string()
    } else {
        format!("& {}", ps_quote(program))
    }
}

/// A PowerShell single-quoted string: nothing in it is special but the quote, doubled.
fn ps_quote(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        if PS_QUOTES.contains(&c) {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// Can cmd take `program` as its first word as it is (no space, nothing cmd treats)?
fn cmd_bare(program: &str) -> bool {
    !program.is_empty()
        && !program
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || CMD_SPECIAL.contains(c))
}

/// `s` for cmd outside double quotes: its special characters escaped with `^`, and `%` made
/// `%^`, so no `%name%` is expanded (cmd drops the caret after looking for the variable).
fn cmd_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '%' => out.push_str("%^"),
            c if "&|<>()^!".contains(c) => {
                out.push('^');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// What cmd hands on from a line written by [`cmd_escape`].
fn cmd_unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '^' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// cmd's first word: a double-quoted path, or everything up to the first space.
fn cmd_program(line: &str) -> Option<String> {
    if let Some(rest) = line.strip_prefix('"') {
        return rest.find('"').map(|end| rest[..end].to_string());
    }
    let word = line.split(char::is_whitespace).next().unwrap_or("");
    Some(cmd_unescape(word)).filter(|w| !w.is_empty())
}

/// PowerShell's program: `& '…'`, `& "…"`, or a bare word.
fn powershell_program(line: &str) -> Option<String> {
    let (called, rest) = match line.strip_prefix('&') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, line),
    };
    let mut chars = rest.chars().peekable();
    let first = *chars.peek()?;
    if PS_QUOTES.contains(&first) || first == '"' {
        if !called {
            return None;
        }
        chars.next();
        let mut out = String::new();
        while let Some(c) = chars.next() {
            let closes = if first == '"' {
                c == '"'
            } else {
                PS_QUOTES.contains(&c)
            };
            if !closes {
                out.push(c);
            } else if chars.peek().is_some_and(|n| *n == c) {
                out.push(c);
                chars.next();
            } else {
                return Some(out);
            }
        }
        return None;
    }
    let word: String = chars.take_while(|c| !c.is_whitespace()).collect();
    Some(word).filter(|w| !w.is_empty())
}

/// The first word of a POSIX command line, its quotes and escapes undone.
fn posix_word(line: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => break,
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' if chars.peek().is_some_and(|n| "\"\\$`".contains(*n)) => {
                        out.extend(chars.next());
                    }
                    c => out.push(c),
                }
            },
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    Some(out).filter(|w| !w.is_empty())
}

/// Does `program` name trilogy's binary (`trilogy`, or `trilogy.exe` in any case), whatever
/// the folder and whichever separator the path uses?
pub fn is_trilogy(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name == "trilogy" || name.eq_ignore_ascii_case("trilogy.exe")
}

/// Does the part of a hook's command line before ` hook <host> ` run trilogy, in any of the
/// forms install writes for any shell (or a hand-written quote around the path)?
pub fn runs_trilogy(head: &str) -> bool {
    let head = head.trim();
    let head = match head.strip_prefix(CMD_TO_POWERSHELL) {
        Some(rest) => cmd_unescape(rest),
        None => head.to_string(),
    };
    let head = head.strip_prefix('&').unwrap_or(&head).trim();
    is_trilogy(head.trim_matches(|c| c == '"' || PS_QUOTES.contains(&c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOOK: [&str; 3] = ["hook", "codex", "stop"];

    #[test]
    fn unix_lines_stay_as_trilogy_always_wrote_them() {
        for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Cursor] {
            assert_eq!(Shell::of_hooks(host, Os::Unix), Shell::Posix);
        }
        let sh = Shell::Posix;
        assert_eq!(sh.command_line("trilogy", &HOOK), "trilogy hook codex stop");
        assert_eq!(
            sh.command_line("/opt/my tools/trilogy", &HOOK),
            "'/opt/my tools/trilogy' hook codex stop"
        );
        assert_eq!(
            sh.command_line("/opt/it's/trilogy", &HOOK),
            "'/opt/it'\\''s/trilogy' hook codex stop"
        );
    }

    #[test]
    fn windows_hosts_get_the_shell_they_run_hooks_with() {
        assert_eq!(
            Shell::of_hooks(Host::Claude, Os::Windows),
            Shell::PowerShell
        );
        assert_eq!(
            Shell::of_hooks(Host::Gemini, Os::Windows),
            Shell::PowerShell
        );
        assert_eq!(
            Shell::of_hooks(Host::Cursor, Os::Windows),
            Shell::PowerShell
        );
        assert_eq!(Shell::of_hooks(Host::Codex, Os::Windows), Shell::Cmd);
    }

    #[test]
    fn powershell_calls_a_quoted_path_and_doubles_its_quotes() {
        let ps = Shell::PowerShell;
        assert_eq!(ps.command_line("trilogy", &HOOK), "trilogy hook codex stop");
        assert_eq!(
            ps.command_line(r"C:\tools\trilogy.exe", &HOOK),
            r"C:\tools\trilogy.exe hook codex stop"
        );
        let spaced = r"C:\Program Files\trilogy\trilogy.exe";
        assert_eq!(
            ps.command_line(spaced, &HOOK),
            r"& 'C:\Program Files\trilogy\trilogy.exe' hook codex stop"
        );
        // `$` and backticks mean nothing between single quotes; a quote is doubled
        let odd = "C:\\Users\\O'Brien $x `y\\trilogy.exe";
        let line = ps.command_line(odd, &HOOK);
        assert_eq!(
            line,
            "& 'C:\\Users\\O''Brien $x `y\\trilogy.exe' hook codex stop"
        );
        assert_eq!(ps.program(&line).as_deref(), Some(odd));
        let curly = "C:\\it\u{2019}s\\trilogy.exe";
        assert_eq!(
            ps.program(&ps.command_line(curly, &HOOK)).as_deref(),
            Some(curly)
        );
        // a quoted path without `&` is a string to PowerShell, not a command
        assert_eq!(ps.program("'C:\\x\\trilogy.exe' hook codex stop"), None);
    }

    #[test]
    fn cmd_takes_a_plain_path_as_it_is_and_starts_powershell_for_the_rest() {
        let cmd = Shell::Cmd;
        assert_eq!(
            cmd.command_line(r"C:\Users\ada\.cargo\bin\trilogy.exe", &HOOK),
            r"C:\Users\ada\.cargo\bin\trilogy.exe hook codex stop"
        );
        let spaced = r"C:\Program Files\trilogy\trilogy.exe";
        let line = cmd.command_line(spaced, &HOOK);
        assert_eq!(
            line,
            r"powershell -NoProfile -NonInteractive -Command ^& 'C:\Program Files\trilogy\trilogy.exe' hook codex stop"
        );
        // Codex's argument quoting escapes `"`, which cmd never undoes: the line has none
        assert!(!line.contains('"'));
        assert_eq!(cmd.program(&line).as_deref(), Some(spaced));
        // `%` and `^` reach PowerShell unexpanded, `&` and parentheses do not end the command
        let odd = r"C:\100% (x86)\a^b & c\trilogy.exe";
        let line = cmd.command_line(odd, &HOOK);
        assert_eq!(
            line,
            r"powershell -NoProfile -NonInteractive -Command ^& 'C:\100%^ ^(x86^)\a^^b ^& c\trilogy.exe' hook codex stop"
        );
        assert_eq!(cmd.program(&line).as_deref(), Some(odd));
        // a path someone quoted by hand
        assert_eq!(
            cmd.program(r#""C:\Program Files\t\trilogy.exe" hook codex stop"#)
                .as_deref(),
            Some(r"C:\Program Files\t\trilogy.exe")
        );
    }

    #[test]
    fn posix_reading_undoes_every_quote_form() {
        let sh = Shell::Posix;
        for program in [
            "trilogy",
            "/opt/my tools/trilogy",
            "/opt/it's/tri\"logy",
            "/a\\b",
        ] {
            let line = sh.command_line(program, &HOOK);
            assert_eq!(sh.program(&line).as_deref(), Some(program), "{line}");
        }
        assert_eq!(
            sh.program(r#""/opt/my \"x\"/trilogy" hook"#).as_deref(),
            Some(r#"/opt/my "x"/trilogy"#)
        );
        assert_eq!(
            sh.program(r"/opt/my\ tools/trilogy hook").as_deref(),
            Some("/opt/my tools/trilogy")
        );
        assert_eq!(sh.program("'/opt/unclosed hook"), None);
    }

    #[test]
    fn trilogy_is_recognised_in_every_form_install_writes() {
        for program in [
            "trilogy",
            "/opt/my tools/trilogy",
            r"C:\Program Files\trilogy\trilogy.exe",
            r"C:\it's\Trilogy.EXE",
            r"C:\100% (x86)\trilogy.exe",
        ] {
            for shell in [Shell::Posix, Shell::Cmd, Shell::PowerShell] {
                let line = shell.command_line(program, &[]);
                assert!(runs_trilogy(&line), "{shell:?}: {line}");
                let read = shell.program(&line).unwrap();
                assert!(is_trilogy(&read), "{shell:?}: {read}");
            }
        }
        assert!(!is_trilogy("/usr/bin/trilogy-old"));
        assert!(!is_trilogy(r"C:\tools\notrilogy.exe"));
        assert!(!runs_trilogy("& 'C:\\tools\\other.exe'"));
    }
}
