//! [`Session`]: what the server keeps about one client connection (a stdio
//! connection, or one Streamable HTTP session while its worker runs): the
//! peer to send notifications to, the log level the client asked for, the
//! resources it subscribed to, its open `subscriptions/listen` streams.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use rmcp::Peer;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::RoleServer;
use tokio_util::sync::CancellationToken;

pub(crate) use super::list_changes::CloseSession;
use super::list_changes::{ListChanges, ListKind};
use super::listen::listener::{Listener, filter_takes};
use crate::handler::LogLevel;

/// The most resources one connection may be subscribed to at once (and the
/// most `taskIds` one `subscriptions/listen` stream names): a
/// template matches endless URIs, so subscriptions are bounded like every
/// other per-connection table.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// What the HTTP edge puts in the head of a request on a Streamable HTTP
/// session: the session's end as the server needs to know it.
#[derive(Clone)]
pub(crate) struct SessionEnd {
    /// Cancelled when the session ends on this server (a `DELETE`, its
    /// expiry, its end on another replica). The calls still running on it
    /// are cancelled then, at once, rather than after the grace rmcp gives
    /// a closed session's handlers (5 s).
    pub(crate) ended: CancellationToken,
    /// Ends the session on this server (as its expiry does): called when
    /// its client stopped reading (`super::list_changes`).
    pub(crate) close: CloseSession,
}

impl std::fmt::Debug for SessionEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionEnd")
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

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

/// How long a stream accepted but not registered yet is waited for: rmcp
/// registers it right after writing its acknowledgement, and one it never
/// registers (its client left first) is forgotten after this.
const OPENING_WAIT: Duration = Duration::from_secs(30);

/// A connection's `subscriptions/listen` streams.
#[derive(Debug, Default)]
struct Listening {
    /// The open ones.
    open: Vec<Listener>,
    /// The ones being opened: accepted, their acknowledgement on its way,
    /// not registered yet.
    opening: Vec<Opening>,
    /// What the server told while some were being opened (at most
    /// [`MAX_MISSED`]): replayed to each once it is registered, so that a
    /// change made after the client read its acknowledgement is never lost.
    /// Each with the owner of the task it tells of, for a task's status
    /// ([`Listener::tell`]).
    missed: Vec<Missed>,
}

/// A notification kept for streams being opened, with the owner of the task
/// it tells of (a task's status).
pub(crate) type Missed = (ServerNotification, Option<Arc<str>>);

/// A `subscriptions/listen` stream being opened.
#[derive(Debug)]
struct Opening {
    /// The filter its client sent (how its registration finds it).
    requested: SubscriptionFilter,
    /// The filter the server accepted (what is kept for it).
    accepted: SubscriptionFilter,
    /// When it was accepted.
    since: Instant,
}

impl Listening {
    /// Forgets the stream being opened that asked for `requested`, and those
    /// waited for longer than [`OPENING_WAIT`]; what was kept meanwhile, to
    /// be sent to the stream.
    fn opened(&mut self, requested: &SubscriptionFilter) -> Vec<Missed> {
        if let Some(at) = self.opening.iter().position(|o| o.requested == *requested) {
            self.opening.remove(at);
        }
        self.opening.retain(|o| o.since.elapsed() < OPENING_WAIT);
        if self.opening.is_empty() {
            std::mem::take(&mut self.missed)
        } else {
            self.missed.clone()
        }
    }
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
    /// Whether the connection's `initialize` was answered.
    initialized: AtomicBool,
    /// The list changes it is owed, coalesced per kind.
    list_changes: ListChanges,
}

impl Session {
    /// Records the connection's peer (the first one seen stays: a connection
    /// has one).
    pub(crate) fn bind(&self, peer: &Peer<RoleServer>) {
        if self.peer.get().is_none() {
            let _ = self.peer.set(peer.clone());
        }
        self.list_changes.start(peer);
    }

    /// Notes the connection's `initialize`; whether it is the first one (a
    /// connection is initialized once, MCP 2025-11-25 "Lifecycle").
    pub(crate) fn first_initialize(&self) -> bool {
        !self.initialized.swap(true, Ordering::AcqRel)
    }

    /// Cancelled when the server drops the client because it stopped
    /// reading (`super::list_changes`): the transport closes the connection.
    pub(crate) fn dropped(&self) -> CancellationToken {
        self.list_changes.stopped_reading()
    }

    /// Records how to end the connection's Streamable HTTP session (the
    /// first one stays: a connection is one session).
    pub(crate) fn record_end(&self, end: &SessionEnd) {
        self.list_changes.record_close(&end.close);
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

    /// Tells the client that the list `kind` changed, unless it was told at
    /// initialization that the server has none of it (or has no peer yet):
    /// the notification is coalesced with any of its kind not yet written
    /// and sent by the connection's own task (`super::list_changes`), so
    /// this never waits and needs no runtime. Whether the client is told.
    pub(crate) fn tell_list_changed(&self, kind: ListKind) -> bool {
        let advertised = match kind {
            ListKind::Tools => self.has_tools(),
            ListKind::Prompts => self.has_prompts(),
            ListKind::Resources => self.has_resources(),
        };
        advertised && self.list_changes.owe(kind)
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

    /// Notes that a `subscriptions/listen` stream asking for `requested` was
    /// accepted (as `accepted`) and is being acknowledged: what the server
    /// tells until it is registered ([`Self::add_listener`]) or refused
    /// ([`Self::listen_refused`]) is kept for it.
    pub(crate) fn listen_opening(
        &self,
        requested: &SubscriptionFilter,
        accepted: &SubscriptionFilter,
    ) {
        let mut listening = self.listening();
        listening
            .opening
            .retain(|o| o.since.elapsed() < OPENING_WAIT);
        if listening.opening.is_empty() {
            listening.missed.clear();
        }
        listening.opening.push(Opening {
            requested: requested.clone(),
            accepted: accepted.clone(),
            since: Instant::now(),
        });
    }

    /// Registers an open `subscriptions/listen` stream, which asked for
    /// `requested`; returns what the server told while it was being
    /// opened, to be sent to it (each with its task's owner, for a task's
    /// status).
    pub(crate) fn add_listener(
        &self,
        listener: Listener,
        requested: &SubscriptionFilter,
    ) -> Vec<Missed> {
        let mut listening = self.listening();
        listening.open.push(listener);
        listening.opened(requested)
    }

    /// Forgets the stream being opened that asked for `requested`: it was
    /// refused after its acknowledgement.
    pub(crate) fn listen_refused(&self, requested: &SubscriptionFilter) {
        self.listening().opened(requested);
    }

    /// Forgets the stream whose subscription id is `id` (it closed).
    pub(crate) fn remove_listener(&self, id: &str) {
        self.listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .open
            .retain(|listener| listener.id() != id);
    }

    /// The open `subscriptions/listen` streams to tell `notification` (of a
    /// task of `task_owner`, for a task's status), and for how many streams
    /// being opened that ask for it it was kept.
    pub(crate) fn listeners_for(
        &self,
        notification: &ServerNotification,
        task_owner: Option<&str>,
    ) -> (Vec<Listener>, usize) {
        let mut listening = self.listening();
        let mut kept = 0;
        if !listening.opening.is_empty() && listening.missed.len() < MAX_MISSED {
            listening
                .missed
                .push((notification.clone(), task_owner.map(Arc::from)));
            kept = listening
                .opening
                .iter()
                .filter(|o| filter_takes(&o.accepted, notification))
                .count();
        }
        (listening.open.clone(), kept)
    }

    fn listening(&self) -> MutexGuard<'_, Listening> {
        self.listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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

    fn updated(uri: &str) -> ServerNotification {
        ServerNotification::ResourceUpdatedNotification(
            rmcp::model::ResourceUpdatedNotification::new(
                rmcp::model::ResourceUpdatedNotificationParam::new(uri),
            ),
        )
    }

    fn asking_for(uri: &str) -> SubscriptionFilter {
        let mut filter = SubscriptionFilter::default();
        filter.resource_subscriptions = Some(vec![uri.to_string()]);
        filter
    }

    fn listener(id: &str, filter: &SubscriptionFilter) -> Listener {
        Listener::new(
            id.into(),
            filter.clone(),
            HashSet::new(),
            HashSet::new(),
            "session:1",
        )
        .0
    }

    #[test]
    fn what_is_told_while_a_stream_opens_is_counted_and_kept_for_it() {
        let session = Session::default();
        let wanted = asking_for("test://a");
        session.listen_opening(&wanted, &wanted);
        let (open, kept) = session.listeners_for(&updated("test://a"), None);
        assert_eq!((open.len(), kept), (0, 1));
        let (_, kept) = session.listeners_for(&updated("test://b"), None);
        assert_eq!(kept, 0, "not asked for: kept, not counted");
        let missed = session.add_listener(listener("7", &wanted), &wanted);
        assert_eq!(missed.len(), 2);
        let (open, kept) = session.listeners_for(&updated("test://a"), None);
        assert_eq!((open.len(), kept), (1, 0));
    }

    #[test]
    fn a_refused_stream_leaves_nothing_for_the_next_one() {
        let session = Session::default();
        let refused = asking_for("test://a");
        session.listen_opening(&refused, &refused);
        session.listeners_for(&updated("test://a"), None);
        session.listen_refused(&refused);
        let (_, kept) = session.listeners_for(&updated("test://a"), None);
        assert_eq!(kept, 0);
        let next = asking_for("test://b");
        session.listen_opening(&next, &next);
        assert!(session.add_listener(listener("8", &next), &next).is_empty());
    }
}
