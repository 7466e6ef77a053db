//! The signals that ask a long-running server to stop: Ctrl-C (SIGINT) and, where there is
//! one, SIGTERM.

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
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
