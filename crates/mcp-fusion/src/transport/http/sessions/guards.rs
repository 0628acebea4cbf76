//! What holds a place in [`super::Sessions`] while it lives: an admitted
//! `initialize`, a busy session, a request id in use, a stream of a
//! session's messages.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures::Stream;
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};

use super::Inner;
use super::table::lock;

/// An `initialize` admitted past the session limit: holds its place until
/// the request is answered.
pub(crate) struct Admission {
    pub(super) inner: Arc<Inner>,
    /// The caller key it was admitted for.
    pub(super) caller: String,
}

impl Admission {
    /// Counts session `id`, which the admitted `initialize` opened, against
    /// the caller's bound from now on (before the admission ends).
    pub(crate) fn opened(&self, id: &str) {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.caller = Some(self.caller.clone());
        }
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut table = lock(&self.inner.table);
        table.pending = table.pending.saturating_sub(1);
        if let Some(count) = table.pending_of.get_mut(&self.caller) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                table.pending_of.remove(&self.caller);
            }
        }
    }
}

/// Marks a session busy while it lives (an HTTP request, or an open stream).
pub(crate) struct Busy {
    pub(super) inner: Arc<Inner>,
    pub(super) id: SessionId,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut table = lock(&self.inner.table);
        if let Some(entry) = table.entries.get_mut(&self.id) {
            entry.busy = entry.busy.saturating_sub(1);
            entry.last_used = Instant::now();
        }
    }
}

/// A request id in use in a session, released when dropped.
pub(crate) struct RequestClaim {
    pub(super) inner: Arc<Inner>,
    pub(super) session: SessionId,
    pub(super) request: String,
}

impl Drop for RequestClaim {
    fn drop(&mut self) {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(&self.session) {
            entry.requests.remove(&self.request);
        }
    }
}

/// A stream of a session's messages, keeping the session busy until dropped.
pub(super) struct Tracked {
    pub(super) inner: tokio::sync::mpsc::Receiver<ServerSseMessage>,
    pub(super) _busy: Busy,
}

impl Stream for Tracked {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        self.inner.poll_recv(cx)
    }
}
