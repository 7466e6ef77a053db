//! `trilogy serve`: the memory panel on 127.0.0.1. The URL (or `{url, port, token}` with
//! `--json`) is the first stdout line, flushed at once (scripts and tests read it); then it
//! serves until Ctrl-C. The panel opens its own workspaces, so this verb builds none.

use clap::Args;

use crate::error::{Error, Result};

use super::super::format;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one)
    #[arg(long, default_value_t = 7788)]
    port: u16,
    /// Open the panel in the default browser
    #[arg(long)]
    open: bool,
}

/// Serve with the `--set` overrides; `json` is the global `--json`.
pub fn run(a: ServeArgs, overrides: Vec<String>, json: bool) -> Result<()> {
    let opts = crate::web::Options {
        port: a.port,
        overrides,
    };
    let open = a.open;
    crate::web::serve(opts, |launch| {
        if json {
            let v = serde_json::to_string(launch)
                .map_err(|e| Error::Internal(format!("json output: {e}")))?;
            format::emit(&v);
        } else {
            format::emit(&launch.url);
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if !json {
            eprintln!(
                "trilogy: serving the memory panel on 127.0.0.1:{} (Ctrl-C stops it)",
                launch.port
            );
        }
        if open {
            open_browser(&launch.url);
        }
        Ok(())
    })
}

/// Open `url` in the default browser; a failure is told, never fatal.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        eprintln!(
            "trilogy: could not open a browser with `{opener}` ({e}); open the URL above yourself"
        );
    }
}
