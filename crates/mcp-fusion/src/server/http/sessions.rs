//! [`Sessions`]: the MCP sessions of the Streamable HTTP transport (the
//! 2025-11-25 handshake), bounded in number and in memory.
//!
//! rmcp runs one session worker per session (its `LocalSessionWorker`, about
//! 60 KiB with its tasks and channels). Here a session is first of all its
//! handshake (rmcp's `SessionState`; about 5 KiB a session in all): at most
//! `max_live_sessions` sessions keep a running worker; past that, the least
//! recently used idle one is *parked* (its worker stops, its handshake stays)
//! and rmcp's own restore path (`SessionStore` + `restore_session`) brings it
//! back, replaying the handshake, when its next request comes.
//!
//! Limits: at most `max_sessions` sessions; a new `initialize` past it closes
//! the least recently used idle session (first those that never served a
//! request after their handshake), or is refused when every session is busy.
//! A session unused for `session_idle` is closed. "Idle" means no HTTP
//! request in progress and no response or notification stream open.
//!
//! With a [`RedisSessionStore`], handshakes are also kept in Redis, so that a
//! session goes on across replicas and restarts.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
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

use super::session_store::RedisSessionStore;

/// The limits of [`Sessions`] (see [`super::HttpOptions`]).
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
    /// Stopped; the handshake is replayed on the next request.
    Parked,
}

struct Entry {
    worker: Worker,
    /// The handshake, once it succeeded (needed to park and to restore).
    state: Option<SessionState>,
    last_used: Instant,
    /// HTTP requests in progress plus streams open on this session.
    busy: usize,
    /// Whether it served a request after its handshake.
    served: bool,
    /// Workers of this session we stopped ourselves whose exit rmcp has not
    /// reported yet (rmcp calls `close_session` once when a worker ends).
    stopping: usize,
    /// When its time to live in Redis was last renewed.
    renewed: Instant,
}

impl Entry {
    fn is_live(&self) -> bool {
        matches!(self.worker, Worker::Live(_))
    }

    fn idle(&self) -> bool {
        self.busy == 0
    }
}

#[derive(Default)]
struct Table {
    entries: HashMap<SessionId, Entry>,
    /// `initialize` requests admitted whose session is not created yet.
    pending: usize,
    live: usize,
}

struct Inner {
    limits: Limits,
    config: SessionConfig,
    table: Mutex<Table>,
    redis: Option<RedisSessionStore>,
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

fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    // A panic while holding the lock leaves the table consistent enough:
    // every change to it is one statement.
    table
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `SERVER_BUSY`-like refusal of an `initialize`: every session is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    pub sessions: usize,
}

impl Sessions {
    pub fn new(
        limits: Limits,
        redis: Option<RedisSessionStore>,
        shutdown: CancellationToken,
    ) -> Self {
        let mut config = SessionConfig::default();
        config.keep_alive = Some(limits.idle);
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

    /// Makes room for one more session, closing the least recently used idle
    /// one when the limit is reached.
    ///
    /// # Errors
    /// [`Full`] when every session is busy.
    pub fn admit(&self) -> Result<Admission, Full> {
        let mut table = lock(&self.inner.table);
        if table.entries.len() + table.pending >= self.inner.limits.max_sessions {
            let victim = table
                .entries
                .iter()
                .filter(|(_, e)| e.idle())
                .min_by_key(|(_, e)| (e.served, e.last_used))
                .map(|(id, _)| id.clone());
            let Some(victim) = victim else {
                return Err(Full {
                    sessions: table.entries.len(),
                });
            };
            tracing::debug!(session = %victim, "session limit reached: closing the least recently used idle session");
            self.remove(&mut table, &victim, true);
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
        let renew = self
            .inner
            .redis
            .clone()
            .filter(|_| entry.renewed.elapsed() >= self.inner.limits.idle / 4);
        if renew.is_some() {
            entry.renewed = Instant::now();
        }
        let (id, _) = table.entries.get_key_value(id)?;
        let id = id.clone();
        drop(table);
        if let Some(redis) = renew {
            let idle = self.inner.limits.idle;
            let key = id.clone();
            tokio::spawn(async move {
                let _ = redis.touch(&key, idle).await;
            });
        }
        Some(Busy {
            inner: Arc::clone(&self.inner),
            id,
        })
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

    /// Removes session `id` from the table, stopping its worker; with
    /// `everywhere`, from Redis too.
    fn remove(&self, table: &mut Table, id: &SessionId, everywhere: bool) {
        let Some(entry) = table.entries.remove(id) else {
            return;
        };
        if let Worker::Live(handle) = entry.worker {
            table.live = table.live.saturating_sub(1);
            tokio::spawn(async move {
                let _ = handle.close().await;
            });
        }
        if everywhere && let Some(redis) = self.inner.redis.clone() {
            let id = id.clone();
            tokio::spawn(async move {
                let _ = redis.delete(&id).await;
            });
        }
    }

    /// Parks the least recently used idle workers while more than
    /// `max_live` run, sparing `keep`.
    fn park_excess(&self, table: &mut Table, keep: &SessionId) {
        while table.live > self.inner.limits.max_live {
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
            table.live -= 1;
            tracing::debug!(session = %victim, "parking an idle session");
            tokio::spawn(async move {
                let _ = handle.close().await;
            });
        }
    }

    /// A new running worker for session `id`, registered as live.
    fn start_worker(
        &self,
        table: &mut Table,
        id: &SessionId,
    ) -> WorkerTransport<LocalSessionWorker> {
        let (handle, worker) = create_local_session(id.clone(), self.inner.config.clone());
        let now = Instant::now();
        let entry = table.entries.entry(id.clone()).or_insert_with(|| Entry {
            worker: Worker::Parked,
            state: None,
            last_used: now,
            busy: 0,
            served: false,
            stopping: 0,
            renewed: now,
        });
        entry.worker = Worker::Live(handle);
        entry.last_used = now;
        table.live += 1;
        self.park_excess(table, id);
        self.start_sweeper();
        WorkerTransport::spawn(worker)
    }

    fn live_handle(&self, id: &SessionId) -> Result<LocalSessionHandle, SessionsError> {
        match lock(&self.inner.table).entries.get(id).map(|e| &e.worker) {
            Some(Worker::Live(handle)) => Ok(handle.clone()),
            _ => Err(SessionsError::NotLive(id.clone())),
        }
    }

    fn track(
        &self,
        id: &SessionId,
        stream: tokio::sync::mpsc::Receiver<ServerSseMessage>,
    ) -> Tracked {
        let busy = {
            let mut table = lock(&self.inner.table);
            if let Some(entry) = table.entries.get_mut(id) {
                entry.busy += 1;
            }
            Busy {
                inner: Arc::clone(&self.inner),
                id: id.clone(),
            }
        };
        Tracked {
            inner: stream,
            _busy: busy,
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

    /// Closes the sessions idle for longer than `session_idle`.
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
            // Redis lets it expire by itself: another replica may be using it.
            self.remove(&mut table, id, false);
        }
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionsError> {
        let id = rmcp::transport::common::server_side_http::session_id();
        let transport = self.start_worker(&mut lock(&self.inner.table), &id);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionsError> {
        Ok(self.live_handle(id)?.initialize(message).await?)
    }

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
            let Worker::Live(handle) = std::mem::replace(&mut entry.worker, Worker::Parked) else {
                return Ok(());
            };
            table.live = table.live.saturating_sub(1);
            handle
        };
        match handle.close().await {
            // A DELETE: the worker stops now and reports its end later.
            Ok(()) => {
                if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
                    entry.stopping += 1;
                }
            }
            // The worker ended on its own (idle limit, failed handshake):
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
        let handle = self.live_handle(id)?;
        let receiver = handle.establish_request_wise_channel().await?;
        handle
            .push_message(message, receiver.http_request_id)
            .await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionsError> {
        Ok(self.live_handle(id)?.push_message(message, None).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let receiver = self.live_handle(id)?.establish_common_channel().await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let receiver = self.live_handle(id)?.resume(last_event_id.parse()?).await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, SessionsError> {
        let mut table = lock(&self.inner.table);
        if table.entries.get(&id).is_some_and(Entry::is_live) {
            return Ok(RestoreOutcome::AlreadyPresent);
        }
        tracing::debug!(session = %id, "restoring a parked session");
        Ok(RestoreOutcome::Restored(self.start_worker(&mut table, &id)))
    }
}

#[async_trait::async_trait]
impl SessionStore for Sessions {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        if let Some(entry) = lock(&self.inner.table).entries.get(id)
            && let Some(state) = &entry.state
        {
            return Ok(Some(state.clone()));
        }
        let Some(redis) = &self.inner.redis else {
            return Ok(None);
        };
        let Some(state) = redis.load(id).await? else {
            return Ok(None);
        };
        // A session of another replica, or of an earlier run of this one.
        let mut table = lock(&self.inner.table);
        if table.entries.len() + table.pending >= self.inner.limits.max_sessions
            && let Some(victim) = table
                .entries
                .iter()
                .filter(|(_, e)| e.idle())
                .min_by_key(|(_, e)| (e.served, e.last_used))
                .map(|(id, _)| id.clone())
        {
            self.remove(&mut table, &victim, true);
        }
        let now = Instant::now();
        let entry = table.entries.entry(id.into()).or_insert_with(|| Entry {
            worker: Worker::Parked,
            state: None,
            last_used: now,
            busy: 0,
            served: true,
            stopping: 0,
            renewed: now,
        });
        entry.state = Some(state.clone());
        Ok(Some(state))
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.state = Some(state.clone());
        }
        if let Some(redis) = &self.inner.redis {
            redis.save(id, state, self.inner.limits.idle).await?;
        }
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        {
            let mut table = lock(&self.inner.table);
            let id: SessionId = id.into();
            self.remove(&mut table, &id, false);
        }
        if let Some(redis) = &self.inner.redis {
            redis.delete(id).await?;
        }
        Ok(())
    }
}
