//! Stopping cleanly: [`shutdown_signal`] (Ctrl-C or SIGTERM) and the drain
//! of the calls in progress every transport runs before it closes.

use std::time::Duration;

use crate::server::in_flight::InFlight;

/// After the last call in progress returns, how long its response gets to be
/// written out before the transport closes, in milliseconds.
const FLUSH_MS: u64 = 250;

/// Waits for the calls in progress (at most `grace`), then for their
/// responses to be written.
pub(crate) async fn drain(in_flight: &InFlight, grace: Duration) {
    in_flight.close();
    let left = in_flight.drain(grace).await;
    if left > 0 {
        // The calls still running end now, each with a result saying so.
        tracing::warn!(
            calls = left,
            "shutting down: stopping the calls still in progress"
        );
        in_flight.stop();
        in_flight.drain(Duration::from_secs(1)).await;
    }
    tokio::time::sleep(Duration::from_millis(FLUSH_MS)).await;
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
