//! Terminal styling: whether a stream gets colour (`--color`, `NO_COLOR`, a terminal or not),
//! and the one place that writes ANSI escape codes. Every other line trilogy prints is plain
//! text, so output piped into `less`, a file or another program never holds escapes.

use std::ffi::OsStr;
use std::io::IsTerminal;

use clap::ColorChoice;

/// Styling for one output stream: escape codes, or plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Colour as `choice` asks: `auto` colours a terminal unless `NO_COLOR` (`no_color`) holds
    /// a non-empty value; `always` and `never` ignore both (an explicit flag wins, as
    /// no-color.org asks).
    pub fn new(choice: ColorChoice, is_terminal: bool, no_color: Option<&OsStr>) -> Style {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && no_color.is_none_or(OsStr::is_empty),
        };
        Style { color }
    }

    /// Styling for this process's stdout.
    pub fn stdout(choice: ColorChoice) -> Style {
        Style::new(
            choice,
            std::io::stdout().is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
        )
    }

    /// `text` in bold.
    pub fn bold(self, text: &str) -> String {
        if self.color {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_only_a_terminal_without_no_color() {
        let set = Some(OsStr::new("1"));
        let empty = Some(OsStr::new(""));
        for (choice, tty, no_color, colored) in [
            (ColorChoice::Auto, true, None, true),
            (ColorChoice::Auto, true, empty, true),
            (ColorChoice::Auto, true, set, false),
            (ColorChoice::Auto, false, None, false),
            (ColorChoice::Always, false, set, true),
            (ColorChoice::Never, true, None, false),
        ] {
            let bold = Style::new(choice, tty, no_color).bold("x");
            assert_eq!(
                bold.contains('\x1b'),
                colored,
                "{choice:?} tty={tty} NO_COLOR={no_color:?}: {bold:?}"
            );
            assert!(bold.contains('x'));
        }
    }
}
