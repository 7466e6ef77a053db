//! The progress bar of long work (`reindex`): indicatif on stderr, fed by the library's
//! `(done, total)` callback. Drawn only when stderr is a terminal and the output is not
//! `--json`, and only once the work has run for half a second, so quick runs and scripts
//! see nothing; cleared when the work ends, whether it succeeded or not.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this shows no bar.
const SHOW_AFTER: Duration = Duration::from_millis(500);

/// Whether a progress bar may be drawn: never into a pipe or file, never beside JSON output.
pub fn should_show(stderr_is_terminal: bool, json: bool) -> bool {
    stderr_is_terminal && !json
}

/// A bar that appears once the work has run [`SHOW_AFTER`].
pub struct Bar {
    label: &'static str,
    enabled: bool,
    started: Instant,
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar on this process's stderr, labelled `label` (e.g. "indexing").
    pub fn stderr(label: &'static str, json: bool) -> Bar {
        Bar {
            label,
            enabled: should_show(std::io::stderr().is_terminal(), json),
            started: Instant::now(),
            bar: None,
        }
    }

    /// Report `done` of `total` steps of work named `label`: a new label starts a new bar (the
    /// store rebuilt, then the index built, in one command).
    pub fn update_as(&mut self, label: &'static str, done: usize, total: usize) {
        if label != self.label {
            if let Some(bar) = self.bar.take() {
                bar.finish_and_clear();
            }
            self.label = label;
        }
        self.update(done, total);
    }

    /// Report `done` of `total` steps.
    pub fn update(&mut self, done: usize, total: usize) {
        if self.bar.is_none() && self.enabled && self.started.elapsed() >= SHOW_AFTER {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            // the template is a constant: it parses, and the default bar stands in if not
            let style = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
                .map(|s| s.progress_chars("=> "))
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_message(self.label);
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            if done == total {
                bar.set_message(format!("{}: committing", self.label));
            }
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_shown_only_on_a_terminal_and_never_with_json() {
        assert!(should_show(true, false));
        assert!(!should_show(true, true));
        assert!(!should_show(false, false));
        assert!(!should_show(false, true));
    }

    #[test]
    fn no_bar_when_it_may_not_show_or_before_half_a_second() {
        let mut hidden = Bar {
            label: "indexing",
            enabled: false,
            started: Instant::now() - SHOW_AFTER * 2,
            bar: None,
        };
        hidden.update(1, 10);
        assert!(hidden.bar.is_none());
        let mut quick = Bar {
            label: "indexing",
            enabled: true,
            // a start in the future: no time has passed, however slow the machine
            started: Instant::now() + Duration::from_secs(3600),
            bar: None,
        };
        quick.update(1, 10);
        assert!(quick.bar.is_none());
    }
}
