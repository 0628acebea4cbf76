//! The table of sessions behind [`super::Sessions`]: each session's worker
//! and handshake, its use, and the session gauges, which follow the table
//! each time its lock is released.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::LocalSessionHandle;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionState};
use tokio_util::sync::CancellationToken;

use crate::metrics_names as names;
use crate::server::session::CloseSession;

/// The worker of a session.
pub(super) enum Worker {
    /// Running, reached through this handle.
    Live(LocalSessionHandle),
    /// Restored and replaying its handshake: requests wait for rmcp's restore.
    Starting(LocalSessionHandle),
    /// Stopped; the handshake is replayed on the next request.
    Parked,
}

impl Worker {
    pub(super) fn handle(&self) -> Option<&LocalSessionHandle> {
        match self {
            Worker::Live(handle) | Worker::Starting(handle) => Some(handle),
            Worker::Parked => None,
        }
    }
}

pub(super) struct Entry {
    pub(super) worker: Worker,
    /// The handshake, once it succeeded (needed to park and to restore), as
    /// compact JSON: a parsed one takes several times its size.
    pub(super) state: Option<Arc<str>>,
    pub(super) last_used: Instant,
    /// HTTP requests in progress plus streams open on this session.
    pub(super) busy: usize,
    /// Whether it served a request after its handshake.
    pub(super) served: bool,
    /// Workers of this session we stopped ourselves whose exit rmcp has not
    /// reported yet (rmcp calls `close_session` once when a worker ends).
    pub(super) stopping: usize,
    /// Whether Redis holds its handshake (with a Redis store).
    pub(super) in_redis: bool,
    /// The ids of its requests in progress.
    pub(super) requests: std::collections::HashSet<String>,
    /// Whom the session belongs to (`sub:<subject>` or `anonymous`), on a
    /// server with a token verifier.
    pub(super) owner: Option<String>,
    /// Cancelled when the session ends on this server (a `DELETE`, its
    /// expiry, its end on another replica): the calls still running on it
    /// are cancelled at once ([`crate::server::session::SessionEnd`]).
    pub(super) ended: CancellationToken,
    /// Ends the session (made once, when the edge first needs it).
    pub(super) close: Option<CloseSession>,
}

impl Entry {
    pub(super) fn new(now: Instant) -> Self {
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
            ended: CancellationToken::new(),
            close: None,
        }
    }

    /// Cancels the calls running on the session's worker now, and gives
    /// the session a fresh token for a worker that may serve it later (a
    /// restore).
    pub(super) fn end_calls(&mut self) {
        std::mem::replace(&mut self.ended, CancellationToken::new()).cancel();
    }

    pub(super) fn is_live(&self) -> bool {
        matches!(self.worker, Worker::Live(_))
    }

    pub(super) fn runs(&self) -> bool {
        self.worker.handle().is_some()
    }

    /// Whether nothing uses the session now: no HTTP request or stream in
    /// progress, and no call running (a 2025-11-25 call goes on when its
    /// stream drops, and holds its request id until it ends).
    pub(super) fn idle(&self) -> bool {
        self.busy == 0 && self.requests.is_empty()
    }

    /// Whether its `initialize` is being answered: created less than
    /// [`HANDSHAKE_GRACE`] ago, its handshake not stored yet. Closing it
    /// then would fail the `initialize` it was made for.
    pub(super) fn in_handshake(&self) -> bool {
        self.state.is_none() && self.last_used.elapsed() < HANDSHAKE_GRACE
    }
}

/// How long a new session whose handshake is not stored yet is spared by
/// the session limit's closing (a client that never finishes its
/// `initialize` loses that protection after it).
pub(super) const HANDSHAKE_GRACE: Duration = Duration::from_secs(10);

#[derive(Default)]
pub(super) struct Table {
    pub(super) entries: HashMap<SessionId, Entry>,
    /// `initialize` requests admitted whose session is not created yet.
    pub(super) pending: usize,
    /// Entries with a running worker (live or starting).
    pub(super) running: usize,
    /// What the session gauges were last told by this table (open, live,
    /// parked): each table adds its own share, so that several servers in
    /// one process add up.
    pub(super) published: [usize; 3],
}

impl Table {
    /// Brings the session gauges up to date with this table.
    pub(super) fn publish(&mut self) {
        let open = self.entries.len();
        let now = [open, self.running, open.saturating_sub(self.running)];
        self.move_gauges(now);
    }

    /// Takes this table's share out of the session gauges.
    pub(super) fn unpublish(&mut self) {
        self.move_gauges([0; 3]);
    }

    pub(super) fn move_gauges(&mut self, now: [usize; 3]) {
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
    pub(super) fn eviction_victim(&self, owner: Option<&str>) -> Option<SessionId> {
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

/// The session gauges, in the order of `Table::published`.
pub(super) const SESSION_GAUGES: [&str; 3] = [
    names::SESSIONS_OPEN,
    names::SESSIONS_LIVE,
    names::SESSIONS_PARKED,
];

/// The table, locked; the session gauges follow its changes when the lock
/// is released.
pub(super) struct Locked<'a>(MutexGuard<'a, Table>);

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

pub(super) fn lock(table: &Mutex<Table>) -> Locked<'_> {
    // A panic while holding the lock leaves the table consistent enough:
    // every change to it is one statement.
    Locked(
        table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
}

/// A handshake kept as JSON text, read back.
pub(super) fn parse_state(text: &str) -> Option<SessionState> {
    serde_json::from_str(text).ok()
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
