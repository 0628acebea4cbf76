//! [`Session`]: what the server keeps about one client connection (a stdio
//! connection, or one Streamable HTTP session while its worker runs): the
//! peer to send notifications to, the log level the client asked for, the
//! resources it subscribed to, its open `subscriptions/listen` streams.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use rmcp::Peer;
use rmcp::model::ServerNotification;
use rmcp::service::RoleServer;

use super::listen::listener::Listener;
use crate::handler::LogLevel;

/// The most resources one connection may be subscribed to at once (and the
/// most `taskIds` one `subscriptions/listen` stream names): a
/// template matches endless URIs, so subscriptions are bounded like every
/// other per-connection table.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// A number told to each connection, unique in the process.
#[derive(Debug)]
pub(crate) struct ConnectionId(pub u64);

impl Default for ConnectionId {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ConnectionId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Every client connection of a server opened so far (dead ones pruned as
/// new ones open): whom to tell of list changes and resource updates.
#[derive(Debug, Default)]
pub(crate) struct Connections {
    sessions: Mutex<Vec<Weak<Session>>>,
}

impl Connections {
    /// Registers a new connection's session.
    pub(crate) fn open(&self) -> Arc<Session> {
        let session = Arc::new(Session::default());
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|s| s.strong_count() > 0);
        sessions.push(Arc::downgrade(&session));
        session
    }

    /// The connections still open.
    pub(crate) fn live(&self) -> Vec<Arc<Session>> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }
}

/// The most notifications kept for streams being opened (see
/// [`Listening::missed`]).
const MAX_MISSED: usize = 64;

/// A connection's `subscriptions/listen` streams.
#[derive(Debug, Default)]
struct Listening {
    /// The open ones.
    open: Vec<Listener>,
    /// How many are being opened: accepted, their acknowledgement on its
    /// way, not registered yet.
    opening: usize,
    /// What the server told while some were being opened (at most
    /// [`MAX_MISSED`]): replayed to each once it is registered, so that a
    /// change made after the client read its acknowledgement is never lost.
    missed: Vec<ServerNotification>,
}

/// One client connection's state. Shared by the requests of the connection;
/// the server holds it weakly to notify every live connection.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// This connection's number (the caller of a stdio connection).
    pub(crate) id: ConnectionId,
    peer: OnceLock<Peer<RoleServer>>,
    /// The caller key of the connection's requests (see
    /// `super::adapter::caller::caller_of`): whom a per-caller tools list change
    /// concerns. Set once, read without a lock.
    caller: OnceLock<Arc<str>>,
    /// The lowest level the client wants (`logging/setLevel`); `None`: all.
    log_level: Mutex<Option<LogLevel>>,
    /// The URIs of `resources/subscribe`.
    subscriptions: Mutex<HashSet<String>>,
    /// The `subscriptions/listen` streams (MCP 2026-07-28).
    listening: Mutex<Listening>,
    /// Whether the client was told, at initialization, that the server has
    /// tools, prompts and resources: only then is it told when they change.
    tools_advertised: AtomicBool,
    prompts_advertised: AtomicBool,
    resources_advertised: AtomicBool,
}

impl Session {
    /// Records the connection's peer (the first one seen stays: a connection
    /// has one).
    pub(crate) fn bind(&self, peer: &Peer<RoleServer>) {
        if self.peer.get().is_none() {
            let _ = self.peer.set(peer.clone());
        }
    }

    /// The caller key recorded for this connection's requests.
    pub(crate) fn caller(&self) -> Option<&Arc<str>> {
        self.caller.get()
    }

    /// Records the caller key of a request of this connection (the first
    /// one stays).
    pub(crate) fn record_caller(&self, caller: &Arc<str>) {
        if self.caller.get().is_none() {
            let _ = self.caller.set(Arc::clone(caller));
        }
    }

    /// Whether the connection's requests came from `caller`.
    pub(crate) fn is_caller(&self, caller: &str) -> bool {
        self.caller.get().is_some_and(|key| **key == *caller)
    }

    /// The connection's peer, once a request or notification arrived.
    pub(crate) fn peer(&self) -> Option<&Peer<RoleServer>> {
        self.peer.get()
    }

    /// Records which list capabilities the client was given.
    pub(crate) fn advertised(&self, tools: bool, prompts: bool, resources: bool) {
        self.tools_advertised.store(tools, Ordering::Relaxed);
        self.prompts_advertised.store(prompts, Ordering::Relaxed);
        self.resources_advertised
            .store(resources, Ordering::Relaxed);
    }

    /// Whether the client was given the `tools` capability.
    pub(crate) fn has_tools(&self) -> bool {
        self.tools_advertised.load(Ordering::Relaxed)
    }

    /// Whether the client was given the `prompts` capability.
    pub(crate) fn has_prompts(&self) -> bool {
        self.prompts_advertised.load(Ordering::Relaxed)
    }

    /// Whether the client was given the `resources` capability.
    pub(crate) fn has_resources(&self) -> bool {
        self.resources_advertised.load(Ordering::Relaxed)
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    /// Whether a message at `level` reaches the client.
    pub(crate) fn logs(&self, level: LogLevel) -> bool {
        self.log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none_or(|min| level >= min)
    }

    /// Subscribes to `uri`; `false` when the connection already holds
    /// [`MAX_SUBSCRIPTIONS`] others.
    pub(crate) fn subscribe(&self, uri: &str) -> bool {
        let mut subscriptions = self
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if subscriptions.len() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(uri) {
            return false;
        }
        subscriptions.insert(uri.to_owned());
        true
    }

    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri)
    }

    /// Notes that a `subscriptions/listen` stream was accepted and is being
    /// acknowledged: what the server tells until it is registered is kept
    /// for it.
    pub(crate) fn listen_opening(&self) {
        self.listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .opening += 1;
    }

    /// Registers an open `subscriptions/listen` stream; returns what the
    /// server told while it was being opened, to be sent to it.
    pub(crate) fn add_listener(&self, listener: Listener) -> Vec<ServerNotification> {
        let mut listening = self
            .listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listening.open.push(listener);
        listening.opening = listening.opening.saturating_sub(1);
        if listening.opening == 0 {
            std::mem::take(&mut listening.missed)
        } else {
            listening.missed.clone()
        }
    }

    /// Forgets the stream whose subscription id is `id` (it closed).
    pub(crate) fn remove_listener(&self, id: &str) {
        self.listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .open
            .retain(|listener| listener.id() != id);
    }

    /// The open `subscriptions/listen` streams to tell `notification`
    /// (kept too for the streams being opened).
    pub(crate) fn listeners_for(&self, notification: &ServerNotification) -> Vec<Listener> {
        let mut listening = self
            .listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if listening.opening > 0 && listening.missed.len() < MAX_MISSED {
            listening.missed.push(notification.clone());
        }
        listening.open.clone()
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_level_filters_lower_levels() {
        let session = Session::default();
        assert!(session.logs(LogLevel::Debug));
        session.set_log_level(LogLevel::Warning);
        assert!(!session.logs(LogLevel::Info));
        assert!(session.logs(LogLevel::Warning));
        assert!(session.logs(LogLevel::Emergency));
    }

    #[test]
    fn subscriptions_are_kept_until_unsubscribed() {
        let session = Session::default();
        assert!(session.subscribe("test://a"));
        assert!(session.is_subscribed("test://a"));
        assert!(session.unsubscribe("test://a"));
        assert!(!session.unsubscribe("test://a"));
        assert!(!session.is_subscribed("test://a"));
    }

    #[test]
    fn subscriptions_are_bounded() {
        let session = Session::default();
        for i in 0..MAX_SUBSCRIPTIONS {
            assert!(session.subscribe(&format!("test://{i}")));
        }
        assert!(!session.subscribe("test://one-more"));
        assert!(session.subscribe("test://0"), "an existing one is kept");
        assert!(session.unsubscribe("test://0"));
        assert!(session.subscribe("test://one-more"));
    }
}
