//! The signals that ask a long-running server to stop: Ctrl-C and SIGTERM on Unix, Ctrl-C and
//! Ctrl-Break on Windows.

use std::future::Future;

/// Listen, from this call on, for the signals that ask the process to stop; the future
/// resolves when one comes. The handlers are in place when this returns, so a signal sent the
/// moment after (a script that stops the server as soon as it announced itself) is heard and
/// never kills the process by its default action. Call it inside the runtime.
pub fn stop_requests() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let (first, second) = {
        use tokio::signal::unix::{SignalKind, signal};
        let on = |kind| {
            signal(kind)
                .ok()
                .map(|mut s| async move { s.recv().await.map(drop) })
        };
        (on(SignalKind::interrupt()), on(SignalKind::terminate()))
    };
    #[cfg(windows)]
    let (first, second) = {
        use tokio::signal::windows::{ctrl_break, ctrl_c};
        let c = ctrl_c()
            .ok()
            .map(|mut s| async move { s.recv().await.map(drop) });
        let b = ctrl_break()
            .ok()
            .map(|mut s| async move { s.recv().await.map(drop) });
        (c, b)
    };
    async move {
        tokio::select! {
            _ = heard(first) => {},
            _ = heard(second) => {},
        }
    }
}

/// Resolve when the signal a listener waits for comes; a listener that could not be set never
/// resolves (the other one still can).
async fn heard(listener: Option<impl Future<Output = Option<()>>>) {
    match listener {
        Some(l) => {
            l.await;
        }
        None => std::future::pending::<()>().await,
    }
}
