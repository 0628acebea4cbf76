//! [`Sessions`]: the MCP sessions of the Streamable HTTP transport (the
//! 2025-11-25 handshake), bounded in number and in memory.
//!
//! rmcp runs one session worker per session (its `LocalSessionWorker`, about
//! 60 KiB with its tasks and channels). Here a session is first of all its
//! handshake (rmcp's `SessionState`; about 5 KiB a session in all): at most
//! `max_live_sessions` sessions keep a running worker; past that, the least
//! recently used idle one is *parked* (its worker stops, its handshake stays)
//! and rmcp's own restore path (`SessionStore` + `restore_session`) brings it
//! back, replaying the handshake, when its next request comes. While a
//! restored worker replays its handshake the session is *starting*: requests
//! that arrive then wait for the replay (rmcp serialises restores).
//!
//! Limits: at most `max_sessions` sessions; a new `initialize` past it closes
//! the least recently used idle session (first one of the same caller, so
//! that a caller opening session after session closes its own and not
//! another's; then those that never served a request after their
//! handshake), or is refused when every session is busy.
//! A session unused for `session_idle` is closed. "Idle" means no HTTP
//! request in progress and no response or notification stream open; rmcp's
//! own idle timer is off, since it cannot see either.
//!
//! With a `RedisSessionStore` (feature `redis`), handshakes are also kept in
//! Redis, so that a session goes on across replicas and restarts: each
//! request renews the session there and learns whether another replica ended
//! it. Closing a session to make room, or because it idled here, only drops
//! this server's copy; a `DELETE` ends it everywhere.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    EventIdParseError, LocalSessionHandle, LocalSessionWorker, SessionConfig, SessionError,
    create_local_session,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager, SessionState, SessionStore,
    SessionStoreError,
};
use tokio_util::sync::CancellationToken;

use crate::metrics_names as names;

#[cfg(not(feature = "redis"))]
use super::no_session_store::NoSessionStore as Store;
#[cfg(feature = "redis")]
use super::session_store::RedisSessionStore as Store;

/// The limits of [`Sessions`] (see [`crate::transport::HttpOptions`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_sessions: usize,
    pub max_live: usize,
    pub idle: Duration,
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    #[error("no live session {0}")]
    NotLive(SessionId),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    EventId(#[from] EventIdParseError),
}

/// The worker of a session.
enum Worker {
    /// Running, reached through this handle.
    Live(LocalSessionHandle),
    /// Restored and replaying its handshake: requests wait for rmcp's restore.
    Starting(LocalSessionHandle),
    /// Stopped; the handshake is replayed on the next request.
    Parked,
}

impl Worker {
    fn handle(&self) -> Option<&LocalSessionHandle> {
        match self {
            Worker::Live(handle) | Worker::Starting(handle) => Some(handle),
            Worker::Parked => None,
        }
    }
}

struct Entry {
    worker: Worker,
    /// The handshake, once it succeeded (needed to park and to restore), as
    /// compact JSON: a parsed one takes several times its size.
    state: Option<Arc<str>>,
    last_used: Instant,
    /// HTTP requests in progress plus streams open on this session.
    busy: usize,
    /// Whether it served a request after its handshake.
    served: bool,
    /// Workers of this session we stopped ourselves whose exit rmcp has not
    /// reported yet (rmcp calls `close_session` once when a worker ends).
    stopping: usize,
    /// Whether Redis holds its handshake (with a Redis store).
    in_redis: bool,
    /// The ids of its requests in progress.
    requests: std::collections::HashSet<String>,
    /// Whom the session belongs to (`sub:<subject>` or `anonymous`), on a
    /// server with a token verifier.
    owner: Option<String>,
}

impl Entry {
    fn new(now: Instant) -> Self {
        Entry {
            worker: Worker::Parked,
            state: None,
            last_used: now,
            busy: 0,
            served: false,
            stopping: 0,
            in_redis: false,
            requests: std::collections::HashSet::new(),
            owner: None,
        }
    }

    fn is_live(&self) -> bool {
        matches!(self.worker, Worker::Live(_))
    }

    fn runs(&self) -> bool {
        self.worker.handle().is_some()
    }

    fn idle(&self) -> bool {
        self.busy == 0
    }

    /// Whether its `initialize` is being answered: created less than
    /// [`HANDSHAKE_GRACE`] ago, its handshake not stored yet. Closing it
    /// then would fail the `initialize` it was made for.
    fn in_handshake(&self) -> bool {
        self.state.is_none() && self.last_used.elapsed() < HANDSHAKE_GRACE
    }
}

/// How long a new session whose handshake is not stored yet is spared by
/// the session limit's closing (a client that never finishes its
/// `initialize` loses that protection after it).
const HANDSHAKE_GRACE: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Table {
    entries: HashMap<SessionId, Entry>,
    /// `initialize` requests admitted whose session is not created yet.
    pending: usize,
    /// Entries with a running worker (live or starting).
    running: usize,
    /// What the session gauges were last told by this table (open, live,
    /// parked): each table adds its own share, so that several servers in
    /// one process add up.
    published: [usize; 3],
}

impl Table {
    /// Brings the session gauges up to date with this table.
    fn publish(&mut self) {
        let open = self.entries.len();
        let now = [open, self.running, open.saturating_sub(self.running)];
        self.move_gauges(now);
    }

    /// Takes this table's share out of the session gauges.
    fn unpublish(&mut self) {
        self.move_gauges([0; 3]);
    }

    fn move_gauges(&mut self, now: [usize; 3]) {
        if now == self.published {
            return;
        }
        for ((name, now), before) in SESSION_GAUGES.into_iter().zip(now).zip(self.published) {
            if now != before {
                metrics::gauge!(name).increment(now as f64 - before as f64);
            }
        }
        self.published = now;
    }

    /// The least recently used idle session, those of `owner` first (a
    /// caller that opens session after session closes its own, not
    /// another's), then those that never served a request; never one whose
    /// handshake is being answered.
    fn eviction_victim(&self, owner: Option<&str>) -> Option<SessionId> {
        self.entries
            .iter()
            .filter(|(_, e)| e.idle() && !e.in_handshake())
            .min_by_key(|(_, e)| {
                let others = owner.is_none() || e.owner.as_deref() != owner;
                (others, e.served, e.last_used)
            })
            .map(|(id, _)| id.clone())
    }
}

struct Inner {
    limits: Limits,
    config: SessionConfig,
    table: Mutex<Table>,
    redis: Option<Store>,
    shutdown: CancellationToken,
    sweeper: OnceLock<()>,
}

/// The session manager and store given to rmcp's `StreamableHttpService`.
/// Cheap to clone.
#[derive(Clone)]
pub(crate) struct Sessions {
    inner: Arc<Inner>,
}

/// An `initialize` admitted past the session limit: holds its place until
/// the request is answered.
pub(crate) struct Admission {
    inner: Arc<Inner>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut table = lock(&self.inner.table);
        table.pending = table.pending.saturating_sub(1);
    }
}

/// Marks a session busy while it lives (an HTTP request, or an open stream).
pub(crate) struct Busy {
    inner: Arc<Inner>,
    id: SessionId,
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
    inner: Arc<Inner>,
    session: SessionId,
    request: String,
}

impl Drop for RequestClaim {
    fn drop(&mut self) {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(&self.session) {
            entry.requests.remove(&self.request);
        }
    }
}

/// A stream of a session's messages, keeping the session busy until dropped.
struct Tracked {
    inner: tokio::sync::mpsc::Receiver<ServerSseMessage>,
    _busy: Busy,
}

impl Stream for Tracked {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        self.inner.poll_recv(cx)
    }
}

/// The session gauges, in the order of `Table::published`.
const SESSION_GAUGES: [&str; 3] = [
    names::SESSIONS_OPEN,
    names::SESSIONS_LIVE,
    names::SESSIONS_PARKED,
];

/// The table, locked; the session gauges follow its changes when the lock
/// is released.
struct Locked<'a>(MutexGuard<'a, Table>);

impl std::ops::Deref for Locked<'_> {
    type Target = Table;

    fn deref(&self) -> &Table {
        &self.0
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.0
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        self.0.publish();
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.table
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .unpublish();
    }
}

fn lock(table: &Mutex<Table>) -> Locked<'_> {
    // A panic while holding the lock leaves the table consistent enough:
    // every change to it is one statement.
    Locked(
        table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
}

/// A handshake kept as JSON text, read back.
fn parse_state(text: &str) -> Option<SessionState> {
    serde_json::from_str(text).ok()
}

/// Refusal of an `initialize`: every session is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    pub sessions: usize,
}

impl Sessions {
    pub fn new(limits: Limits, redis: Option<Store>, shutdown: CancellationToken) -> Self {
        let mut config = SessionConfig::default();
        // Idle sessions are closed by the sweeper, which sees requests in
        // progress and open streams; rmcp's timer does not.
        config.keep_alive = None;
        // Shown (at 0) from the start, not from the first change.
        for name in SESSION_GAUGES {
            metrics::gauge!(name).increment(0.0);
        }
        Sessions {
            inner: Arc::new(Inner {
                limits,
                config,
                table: Mutex::new(Table::default()),
                redis,
                shutdown,
                sweeper: OnceLock::new(),
            }),
        }
    }

    /// Makes room for one more session of `owner` (the caller, as the
    /// bearer layer names it), closing (here only) the least recently used
    /// idle one when the limit is reached: one of `owner`'s own first.
    ///
    /// # Errors
    /// [`Full`] when every session is busy.
    pub fn admit(&self, owner: &str) -> Result<Admission, Full> {
        let mut table = lock(&self.inner.table);
        if table.entries.len() + table.pending >= self.inner.limits.max_sessions {
            let Some(victim) = table.eviction_victim(Some(owner)) else {
                return Err(Full {
                    sessions: table.entries.len(),
                });
            };
            tracing::debug!(session = %victim, "session limit reached: closing the least recently used idle session");
            self.remove(&mut table, &victim);
        }
        table.pending += 1;
        Ok(Admission {
            inner: Arc::clone(&self.inner),
        })
    }

    /// Marks session `id` busy for the life of the guard, as used now; `None`
    /// when this server does not hold it (it may be in Redis).
    pub fn enter(&self, id: &str) -> Option<Busy> {
        let mut table = lock(&self.inner.table);
        let entry = table.entries.get_mut(id)?;
        entry.busy += 1;
        entry.last_used = Instant::now();
        entry.served |= entry.state.is_some();
        Some(Busy {
            inner: Arc::clone(&self.inner),
            id: SessionId::from(id),
        })
    }

    /// Claims request id `request` in session `id` until the claim drops;
    /// `Ok(None)` when this server does not hold the session.
    ///
    /// # Errors
    /// `Err(())` when the id is already in use in the session.
    pub fn claim_request(&self, id: &str, request: String) -> Result<Option<RequestClaim>, ()> {
        let mut table = lock(&self.inner.table);
        let Some(entry) = table.entries.get_mut(id) else {
            return Ok(None);
        };
        if !entry.requests.insert(request.clone()) {
            return Err(());
        }
        Ok(Some(RequestClaim {
            inner: Arc::clone(&self.inner),
            session: SessionId::from(id),
            request,
        }))
    }

    /// With a Redis store: renews session `id` there, and tells whether it
    /// still exists (`false`: another replica ended it, and this server's
    /// copy is dropped too). A session Redis has not seen yet (it was down
    /// when the session began) is written now. Without a store, or while
    /// Redis does not answer, `true`.
    pub async fn still_open(&self, id: &str) -> bool {
        let Some(redis) = &self.inner.redis else {
            return true;
        };
        let unsaved = {
            let table = lock(&self.inner.table);
            match table.entries.get(id) {
                Some(entry) if entry.in_redis => None,
                Some(entry) => entry.state.as_deref().and_then(parse_state),
                None => return true,
            }
        };
        let idle = self.inner.limits.idle;
        match unsaved {
            Some(state) => {
                if redis.save(id, &state, idle).await.is_ok()
                    && let Some(entry) = lock(&self.inner.table).entries.get_mut(id)
                {
                    entry.in_redis = true;
                }
                true
            }
            None => match redis.touch(id, idle).await {
                Ok(true) | Err(_) => true,
                Ok(false) => {
                    tracing::debug!(session = %id, "session ended on another replica");
                    let mut table = lock(&self.inner.table);
                    self.remove(&mut table, &SessionId::from(id));
                    false
                }
            },
        }
    }

    /// Records that session `id` belongs to `owner` (here, and in Redis for
    /// the other replicas).
    pub async fn bind_owner(&self, id: &str, owner: &str) {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.owner = Some(owner.to_owned());
        }
        if let Some(redis) = &self.inner.redis
            && let Err(e) = redis.save_owner(id, owner, self.inner.limits.idle).await
        {
            tracing::debug!(session = %id, "the session's owner is not in Redis: {e}");
        }
    }

    /// Keeps `owner` as session `id`'s owner on this server, when it holds
    /// the session and has no owner for it yet (one taken up from Redis,
    /// whose owner the edge has just checked there).
    pub fn remember_owner(&self, id: &str, owner: &str) {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id)
            && entry.owner.is_none()
        {
            entry.owner = Some(owner.to_owned());
        }
    }

    /// Whom session `id` belongs to: this server's record, else Redis's;
    /// `None` when neither knows (a session opened without a verifier, an
    /// unknown session, Redis down or its record gone), which the edge
    /// refuses under a verifier.
    pub async fn owner(&self, id: &str) -> Option<String> {
        let kept = lock(&self.inner.table)
            .entries
            .get(id)
            .and_then(|entry| entry.owner.clone());
        if kept.is_some() {
            return kept;
        }
        let redis = self.inner.redis.as_ref()?;
        let owner = redis.load_owner(id).await.ok().flatten()?;
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.owner = Some(owner.clone());
        }
        Some(owner)
    }

    /// Whether session `id` exists, here or in Redis.
    pub async fn knows(&self, id: &str) -> bool {
        if lock(&self.inner.table).entries.contains_key(id) {
            return true;
        }
        match &self.inner.redis {
            Some(redis) => redis.exists(id).await.unwrap_or(false),
            None => false,
        }
    }

    /// Removes session `id` from this server, stopping its worker. Redis
    /// keeps it: another replica may be using it.
    fn remove(&self, table: &mut Table, id: &SessionId) {
        let Some(entry) = table.entries.remove(id) else {
            return;
        };
        if let Some(handle) = entry.worker.handle().cloned() {
            table.running = table.running.saturating_sub(1);
            tokio::spawn(async move {
                let _ = handle.close().await;
            });
        }
    }

    /// Parks the least recently used idle live workers while more than
    /// `max_live` run, sparing `keep`.
    fn park_excess(&self, table: &mut Table, keep: &SessionId) {
        while table.running > self.inner.limits.max_live {
            let victim = table
                .entries
                .iter()
                .filter(|(id, e)| *id != keep && e.is_live() && e.idle() && e.state.is_some())
                .min_by_key(|(_, e)| e.last_used)
                .map(|(id, _)| id.clone());
            let Some(victim) = victim else {
                return;
            };
            let Some(entry) = table.entries.get_mut(&victim) else {
                return;
            };
            let Worker::Live(handle) = std::mem::replace(&mut entry.worker, Worker::Parked) else {
                return;
            };
            entry.stopping += 1;
            table.running -= 1;
            tracing::debug!(session = %victim, "parking an idle session");
            tokio::spawn(async move {
                let _ = handle.close().await;
            });
        }
    }

    /// A new running worker for session `id`: live for a new session,
    /// starting for a restored one.
    fn start_worker(
        &self,
        table: &mut Table,
        id: &SessionId,
        restored: bool,
    ) -> WorkerTransport<LocalSessionWorker> {
        let (handle, worker) = create_local_session(id.clone(), self.inner.config.clone());
        let now = Instant::now();
        let entry = table
            .entries
            .entry(id.clone())
            .or_insert_with(|| Entry::new(now));
        entry.worker = if restored {
            Worker::Starting(handle)
        } else {
            Worker::Live(handle)
        };
        entry.last_used = now;
        table.running += 1;
        self.park_excess(table, id);
        self.start_sweeper();
        WorkerTransport::spawn(worker)
    }

    /// The handle of a running worker (live, or starting for the restore's
    /// own messages).
    fn running_handle(&self, id: &SessionId) -> Result<LocalSessionHandle, SessionsError> {
        lock(&self.inner.table)
            .entries
            .get(id)
            .and_then(|e| e.worker.handle().cloned())
            .ok_or_else(|| SessionsError::NotLive(id.clone()))
    }

    fn track(
        &self,
        id: &SessionId,
        stream: tokio::sync::mpsc::Receiver<ServerSseMessage>,
    ) -> Tracked {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.busy += 1;
        }
        Tracked {
            inner: stream,
            _busy: Busy {
                inner: Arc::clone(&self.inner),
                id: id.clone(),
            },
        }
    }

    /// Starts, once, the task that closes sessions unused for `session_idle`.
    fn start_sweeper(&self) {
        self.inner.sweeper.get_or_init(|| {
            let sessions = self.clone();
            let tick = (self.inner.limits.idle / 10)
                .clamp(Duration::from_millis(100), Duration::from_secs(30));
            tokio::spawn(async move {
                let mut interval = tokio::time::interval(tick);
                loop {
                    tokio::select! {
                        () = sessions.inner.shutdown.cancelled() => return,
                        _ = interval.tick() => sessions.sweep(),
                    }
                }
            });
        });
    }

    /// Closes the sessions idle for longer than `session_idle` (here: Redis
    /// lets its copy expire by itself).
    fn sweep(&self) {
        let idle = self.inner.limits.idle;
        let mut table = lock(&self.inner.table);
        let expired: Vec<SessionId> = table
            .entries
            .iter()
            .filter(|(_, e)| e.idle() && e.last_used.elapsed() >= idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            tracing::debug!(session = %id, "closing an idle session");
            self.remove(&mut table, id);
        }
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionsError> {
        let id = rmcp::transport::common::server_side_http::session_id();
        let transport = self.start_worker(&mut lock(&self.inner.table), &id, false);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionsError> {
        Ok(self.running_handle(id)?.initialize(message).await?)
    }

    /// Only live sessions: a starting one is reported absent, so that rmcp
    /// makes its request wait for the restore in progress.
    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionsError> {
        Ok(lock(&self.inner.table)
            .entries
            .get(id)
            .is_some_and(Entry::is_live))
    }

    /// Called by rmcp for a `DELETE` (then `SessionStore::delete` follows),
    /// and once when a worker ends, whatever ended it.
    async fn close_session(&self, id: &SessionId) -> Result<(), SessionsError> {
        let handle = {
            let mut table = lock(&self.inner.table);
            let Some(entry) = table.entries.get_mut(id) else {
                return Ok(());
            };
            if entry.stopping > 0 {
                // The end of a worker we stopped (parked or closed) ourselves.
                entry.stopping -= 1;
                return Ok(());
            }
            let Some(handle) = std::mem::replace(&mut entry.worker, Worker::Parked)
                .handle()
                .cloned()
            else {
                return Ok(());
            };
            table.running = table.running.saturating_sub(1);
            handle
        };
        match handle.close().await {
            // A DELETE: the worker stops now and reports its end later.
            Ok(()) => {
                if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
                    entry.stopping += 1;
                }
            }
            // The worker ended on its own (a failed handshake, an error):
            // keep the session parked if its handshake is known.
            Err(_) => {
                let mut table = lock(&self.inner.table);
                if table.entries.get(id).is_some_and(|e| e.state.is_none()) {
                    table.entries.remove(id);
                }
            }
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let handle = self.running_handle(id)?;
        let receiver = handle.establish_request_wise_channel().await?;
        handle
            .push_message(message, receiver.http_request_id)
            .await?;
        Ok(self.track(id, receiver.inner))
    }

    /// A restore's replayed `notifications/initialized` ends its start: the
    /// session is live from then on.
    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionsError> {
        let initialized = matches!(
            &message,
            ClientJsonRpcMessage::Notification(n)
                if matches!(n.notification, ClientNotification::InitializedNotification(_))
        );
        self.running_handle(id)?.push_message(message, None).await?;
        if initialized
            && let Some(entry) = lock(&self.inner.table).entries.get_mut(id)
            && let Worker::Starting(handle) = &entry.worker
        {
            entry.worker = Worker::Live(handle.clone());
        }
        Ok(())
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let receiver = self.running_handle(id)?.establish_common_channel().await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let receiver = self
            .running_handle(id)?
            .resume(last_event_id.parse()?)
            .await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, SessionsError> {
        let mut table = lock(&self.inner.table);
        if table.entries.get(&id).is_some_and(Entry::runs) {
            return Ok(RestoreOutcome::AlreadyPresent);
        }
        tracing::debug!(session = %id, "restoring a parked session");
        Ok(RestoreOutcome::Restored(
            self.start_worker(&mut table, &id, true),
        ))
    }
}

#[async_trait::async_trait]
impl SessionStore for Sessions {
    /// The handshake of session `id`: this server's copy, else Redis's. Redis
    /// failing counts as "unknown" (the client gets 404 and starts a new
    /// session here), never as a server error.
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let kept = lock(&self.inner.table)
            .entries
            .get(id)
            .and_then(|entry| entry.state.clone());
        if let Some(state) = kept {
            return Ok(parse_state(&state));
        }
        let Some(redis) = &self.inner.redis else {
            return Ok(None);
        };
        let Ok(Some(state)) = redis.load(id).await else {
            return Ok(None);
        };
        // A session of another replica, or of an earlier run of this one.
        let mut table = lock(&self.inner.table);
        if table.entries.len() + table.pending >= self.inner.limits.max_sessions
            && let Some(victim) = table.eviction_victim(None)
        {
            self.remove(&mut table, &victim);
        }
        let entry = table
            .entries
            .entry(id.into())
            .or_insert_with(|| Entry::new(Instant::now()));
        entry.state = serde_json::to_string(&state).ok().map(Arc::from);
        entry.served = true;
        entry.in_redis = true;
        Ok(Some(state))
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let text: Option<Arc<str>> = serde_json::to_string(state).ok().map(Arc::from);
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.state = text;
        }
        if let Some(redis) = &self.inner.redis {
            redis.save(id, state, self.inner.limits.idle).await?;
            if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
                entry.in_redis = true;
            }
        }
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        {
            let mut table = lock(&self.inner.table);
            self.remove(&mut table, &SessionId::from(id));
        }
        if let Some(redis) = &self.inner.redis {
            redis.delete(id).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(age: Duration, owner: &str, handshake_stored: bool) -> Entry {
        let mut entry = Entry::new(Instant::now().checked_sub(age).unwrap());
        entry.owner = Some(owner.to_owned());
        entry.state = handshake_stored.then(|| Arc::from("{}"));
        entry
    }

    #[test]
    fn room_is_made_from_the_callers_own_sessions_never_from_one_being_opened() {
        let mut table = Table::default();
        let second = Duration::from_secs(1);
        table
            .entries
            .insert("ada-old".into(), entry(second * 3, "sub:ada", true));
        table
            .entries
            .insert("bob-old".into(), entry(second * 5, "sub:bob", true));
        table
            .entries
            .insert("ada-opening".into(), entry(second, "sub:ada", false));
        let victim = |table: &Table, owner| table.eviction_victim(owner).map(|id| id.to_string());
        assert_eq!(victim(&table, Some("sub:ada")).as_deref(), Some("ada-old"));
        assert_eq!(victim(&table, Some("sub:eve")).as_deref(), Some("bob-old"));
        assert_eq!(victim(&table, None).as_deref(), Some("bob-old"));
        // A handshake never finished is spared only for a while.
        table.entries.insert(
            "ada-abandoned".into(),
            entry(HANDSHAKE_GRACE + second, "sub:ada", false),
        );
        assert_eq!(
            victim(&table, Some("sub:ada")).as_deref(),
            Some("ada-abandoned")
        );
    }
}
