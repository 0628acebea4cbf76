//! The list changes one connection is owed, delivered by a task of its own:
//! `notifications/tools/list_changed`, `prompts/list_changed` and
//! `resources/list_changed`, coalesced per kind.
//!
//! A change marks its kind owed and wakes the connection's delivery task;
//! the task sends one notification per kind owed, and a kind marked again
//! while it sends is sent once more, after. So a burst of hundreds of
//! changes costs a reading client a notification or two per kind, never a
//! queue of hundreds, and the server's own change (`add_tool`, …) never
//! waits for a client to read. A client that reads nothing for
//! [`STOPPED_READING`] while a notification is being written is dropped: a
//! warning says that it stopped reading, with the bound, and its connection
//! is closed (stdio and in-memory: the transport ends; Streamable HTTP: its
//! session ends, as on expiry).

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::Peer;
use rmcp::service::RoleServer;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long one list change may wait for the client to read it before the
/// client is dropped: 30 seconds.
pub(crate) const STOPPED_READING: Duration = Duration::from_secs(30);

/// Ends one Streamable HTTP session on this server (given by the HTTP edge,
/// `super::session::SessionEnd`).
pub(crate) type CloseSession = Arc<dyn Fn() + Send + Sync>;

/// A list whose changes a connection is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    const ALL: [ListKind; 3] = [ListKind::Tools, ListKind::Prompts, ListKind::Resources];

    /// The kind's bit in the owed set.
    fn bit(self) -> u8 {
        match self {
            ListKind::Tools => 1,
            ListKind::Prompts => 2,
            ListKind::Resources => 4,
        }
    }

    /// Sends this kind's `list_changed` to `peer`; an error when the
    /// connection is closed.
    async fn send(self, peer: &Peer<RoleServer>) -> Result<(), rmcp::service::ServiceError> {
        match self {
            ListKind::Tools => peer.notify_tool_list_changed().await,
            ListKind::Prompts => peer.notify_prompt_list_changed().await,
            ListKind::Resources => peer.notify_resource_list_changed().await,
        }
    }
}

/// The kinds a connection is owed, and the wake of its delivery task
/// (started with the connection, on its runtime; it ends with the
/// connection's state, when the connection closes, or when the client
/// stopped reading).
#[derive(Default)]
pub(crate) struct ListChanges {
    owed: Arc<AtomicU8>,
    wake: OnceLock<mpsc::Sender<()>>,
    /// What dropping the client does ([`STOPPED_READING`]).
    drop: Dropping,
}

/// How a connection's client is dropped when it stopped reading.
#[derive(Clone, Default)]
struct Dropping {
    /// Cancelled then (stdio and in-memory transports end on it).
    stopped_reading: CancellationToken,
    /// Ends its Streamable HTTP session, once the edge said how.
    close: Arc<OnceLock<CloseSession>>,
}

impl Dropping {
    fn drop_client(&self) {
        self.stopped_reading.cancel();
        if let Some(close) = self.close.get() {
            close();
        }
    }
}

impl std::fmt::Debug for ListChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListChanges")
            .field("owed", &self.owed)
            .finish_non_exhaustive()
    }
}

impl ListChanges {
    /// Starts the delivery task of the connection of `peer`, once, on the
    /// runtime serving it (the caller's: a request of that connection).
    pub(crate) fn start(&self, peer: &Peer<RoleServer>) {
        self.wake.get_or_init(|| {
            // One wake waiting is enough: the task reads every kind owed.
            let (wake, woken) = mpsc::channel(1);
            let drop = self.drop.clone();
            tokio::spawn(deliver(peer.clone(), Arc::clone(&self.owed), woken, drop));
            wake
        });
    }

    /// Cancelled when the client is dropped for not reading.
    pub(crate) fn stopped_reading(&self) -> CancellationToken {
        self.drop.stopped_reading.clone()
    }

    /// Records how to end the connection's Streamable HTTP session (the
    /// first one stays).
    pub(crate) fn record_close(&self, close: &CloseSession) {
        if self.drop.close.get().is_none() {
            let _ = self.drop.close.set(Arc::clone(close));
        }
    }

    /// Marks `kind` owed and wakes the delivery task; whether the
    /// connection is told list changes (false before it was started, once
    /// it closed or once it stopped reading). Never waits, and needs no
    /// runtime: any thread may change the server.
    pub(crate) fn owe(&self, kind: ListKind) -> bool {
        let Some(wake) = self.wake.get() else {
            return false;
        };
        self.owed.fetch_or(kind.bit(), Ordering::AcqRel);
        match wake.try_send(()) {
            Ok(()) | Err(mpsc::error::TrySendError::Full(())) => true,
            Err(mpsc::error::TrySendError::Closed(())) => false,
        }
    }
}

/// Sends `peer` the kinds `owed` holds each time it is woken, until the
/// connection's state is dropped, the connection closes or the client
/// stops reading (then it is dropped, as `drop` says).
async fn deliver(
    peer: Peer<RoleServer>,
    owed: Arc<AtomicU8>,
    mut woken: mpsc::Receiver<()>,
    drop: Dropping,
) {
    while woken.recv().await.is_some() {
        let kinds = owed.swap(0, Ordering::AcqRel);
        for kind in ListKind::ALL.into_iter().filter(|k| kinds & k.bit() != 0) {
            match tokio::time::timeout(STOPPED_READING, kind.send(&peer)).await {
                Ok(Ok(())) => {}
                Ok(Err(_closed)) => return,
                Err(_) => {
                    tracing::warn!(
                        ?kind,
                        bound_seconds = STOPPED_READING.as_secs(),
                        "the client stopped reading: a list_changed notification waited {} seconds to be written; its connection is closed",
                        STOPPED_READING.as_secs()
                    );
                    drop.drop_client();
                    return;
                }
            }
        }
    }
}
