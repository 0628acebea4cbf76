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

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    EventIdParseError, LocalSessionHandle, LocalSessionWorker, SessionConfig, SessionError,
    create_local_session,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use tokio_util::sync::CancellationToken;

use crate::server::session::{CloseSession, SessionEnd};

mod guards;
mod manager;
mod table;

use guards::Tracked;
pub(crate) use guards::{Admission, Busy, RequestClaim};
pub(crate) use table::Claimant;
use table::{Entry, SESSION_GAUGES, Table, Worker, lock, parse_state};

#[cfg(not(feature = "redis"))]
use super::no_session_store::NoSessionStore as Store;
#[cfg(feature = "redis")]
use super::session_store::RedisSessionStore as Store;

/// The limits of [`Sessions`] (see [`crate::transport::HttpOptions`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_sessions: usize,
    /// The most sessions one caller key may hold, busy ones included.
    pub max_per_caller: usize,
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

impl Drop for Inner {
    fn drop(&mut self) {
        self.table
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .unpublish();
    }
}

/// Refusal of an `initialize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The table holds its most `sessions`, none of them closable by this
    /// caller (busy, or a signed-in caller's to one without credentials).
    Table { sessions: usize },
    /// The caller holds its most, `max`, every one of them busy.
    Caller { max: usize },
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

    /// Makes room for one more session of `claimant`: past its own bound
    /// ([`Limits::max_per_caller`]) by closing (here only) its own least
    /// recently used idle session; past the table's, the least recently
    /// used idle one it may close (its own first; a caller without
    /// credentials never closes a signed-in caller's).
    ///
    /// # Errors
    /// [`Full::Caller`] when the caller holds its most and all are busy,
    /// [`Full::Table`] when no session it may close is idle.
    pub fn admit(&self, claimant: Claimant<'_>) -> Result<Admission, Full> {
        let mut table = lock(&self.inner.table);
        let limits = self.inner.limits;
        if table.held_by(claimant.caller) >= limits.max_per_caller {
            let Some(victim) = table.own_victim(claimant.caller) else {
                return Err(Full::Caller {
                    max: limits.max_per_caller,
                });
            };
            tracing::debug!(session = %victim, "a caller at its session bound: closing its least recently used idle session");
            self.remove(&mut table, &victim);
        } else if table.entries.len() + table.pending >= limits.max_sessions {
            let Some(victim) = table.eviction_victim(Some(claimant)) else {
                return Err(Full::Table {
                    sessions: table.entries.len(),
                });
            };
            tracing::debug!(session = %victim, "session limit reached: closing the least recently used idle session");
            self.remove(&mut table, &victim);
        }
        table.pending += 1;
        *table
            .pending_of
            .entry(claimant.caller.to_owned())
            .or_default() += 1;
        Ok(Admission {
            inner: Arc::clone(&self.inner),
            caller: claimant.caller.to_owned(),
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

    /// What the server needs to know of session `id`'s end
    /// ([`SessionEnd`]: its token, cancelled when it ends on this server,
    /// and how to end it); `None` when this server does not hold it.
    pub fn end_of(&self, id: &str) -> Option<SessionEnd> {
        let mut table = lock(&self.inner.table);
        let entry = table.entries.get_mut(id)?;
        let close = entry.close.get_or_insert_with(|| self.closer(id)).clone();
        Some(SessionEnd {
            ended: entry.ended.clone(),
            close,
        })
    }

    /// Ends session `id` here and in Redis, as if it had expired (its
    /// client stopped reading).
    fn closer(&self, id: &str) -> CloseSession {
        let inner = Arc::downgrade(&self.inner);
        let id = SessionId::from(id);
        Arc::new(move || {
            let Some(inner) = inner.upgrade() else {
                return;
            };
            let sessions = Sessions { inner };
            sessions.remove(&mut lock(&sessions.inner.table), &id);
            if sessions.inner.redis.is_some() {
                let id = id.clone();
                tokio::spawn(async move {
                    if let Some(redis) = &sessions.inner.redis {
                        let _ = redis.delete(&id).await;
                    }
                });
            }
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
        let Some(mut entry) = table.entries.remove(id) else {
            return;
        };
        entry.end_calls();
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

#[cfg(test)]
mod tests {
    use rmcp::transport::streamable_http_server::session::SessionManager;

    use super::*;

    #[tokio::test]
    async fn a_closed_session_is_gone_and_its_calls_are_cancelled() {
        let limits = Limits {
            max_sessions: 4,
            max_per_caller: 4,
            max_live: 4,
            idle: Duration::from_secs(60),
        };
        let sessions = Sessions::new(limits, None, CancellationToken::new());
        let (id, _transport) = sessions.create_session().await.unwrap();
        assert!(sessions.has_session(&id).await.unwrap());
        let end = sessions.end_of(&id).expect("held here");
        assert!(!end.ended.is_cancelled());
        (end.close)();
        assert!(end.ended.is_cancelled());
        assert!(!sessions.knows(&id).await);
        assert!(sessions.end_of(&id).is_none());
    }
}
