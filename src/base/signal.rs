//! The signals that ask a long-running server to stop: Ctrl-C and SIGTERM on Unix, Ctrl-C and
//! Ctrl-Break on Windows.

use std::future::Future;

/// Listen, from this call on, for the signals that ask the process to stop; the future
/// resolves when one comes. The handlers are in place when this returns, so a signal sent the
/// moment after (a script that stops the server as soon as it announced itself) is heard and
/// never kills the process by its default action. Call it inside the runtime.
pub fn stop_requests() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt()).ok();
        let terminate = signal(SignalKind::terminate()).ok();
        // a handler that could not be set never resolves: the other one still can
        async fn heard(s: Option<Signal>) {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        async move {
            tokio::select! {
                _ = heard(interrupt) => {},
                _ = heard(terminate) => {},
            }
        }
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{CtrlBreak, CtrlC, ctrl_break, ctrl_c};
        let interrupt = ctrl_c().ok();
        let breaking = ctrl_break().ok();
        async fn heard_c(s: Option<CtrlC>) {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        async fn heard_break(s: Option<CtrlBreak>) {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        async move {
            tokio::select! {
                _ = heard_c(interrupt) => {},
                _ = heard_break(breaking) => {},
            }
        }
    }
}
