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
    /// Whom the per-caller bound counts it against (`limit_key`: the
    /// principal's subject, else the address), once its `initialize` was
    /// answered here.
    pub(super) caller: Option<String>,
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
            caller: None,
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
    /// Whether a verified principal opened it (its owner is `sub:…`).
    fn signed_in(&self) -> bool {
        self.owner.as_deref().is_some_and(|o| o.starts_with("sub:"))
    }

    /// Whether it may be closed to make room: idle, and not being opened.
    fn closable(&self) -> bool {
        self.idle() && !self.in_handshake()
    }
}

/// Who asks for room in the table: its caller key
/// ([`limit_key`](crate::transport::http::limit_key::limit_key)), and
/// whether it carried verified credentials.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Claimant<'a> {
    pub(crate) caller: &'a str,
    pub(crate) signed_in: bool,
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
    /// Of those, how many each caller key made.
    pub(super) pending_of: HashMap<String, usize>,
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

    /// The least recently used idle session, those of the `claimant`'s
    /// caller first (a caller that opens session after session closes its
    /// own, not another's), then those that never served a request; never
    /// one whose handshake is being answered, and, for a claimant without
    /// credentials, never one a signed-in caller opened (an anonymous
    /// caller does not close a signed-in caller's session).
    pub(super) fn eviction_victim(&self, claimant: Option<Claimant<'_>>) -> Option<SessionId> {
        self.entries
            .iter()
            .filter(|(_, e)| e.closable())
            .filter(|(_, e)| claimant.is_none_or(|c| c.signed_in || !e.signed_in()))
            .min_by_key(|(_, e)| {
                let others = claimant.is_none_or(|c| e.caller.as_deref() != Some(c.caller));
                (others, e.served, e.last_used)
            })
            .map(|(id, _)| id.clone())
    }

    /// How many sessions `caller` holds here, those being opened included.
    pub(super) fn held_by(&self, caller: &str) -> usize {
        let open = self
            .entries
            .values()
            .filter(|e| e.caller.as_deref() == Some(caller))
            .count();
        open + self.pending_of.get(caller).copied().unwrap_or(0)
    }

    /// The least recently used idle session of `caller` (one that never
    /// served a request first), to make room for its next one.
    pub(super) fn own_victim(&self, caller: &str) -> Option<SessionId> {
        self.entries
            .iter()
            .filter(|(_, e)| e.closable() && e.caller.as_deref() == Some(caller))
            .min_by_key(|(_, e)| (e.served, e.last_used))
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
        entry.caller = Some(owner.replace("sub:", "subject:"));
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
        let by = |caller| {
            Some(Claimant {
                caller,
                signed_in: true,
            })
        };
        let victim = |table: &Table, claimant| {
            table
                .eviction_victim(claimant)
                .map(|id: SessionId| id.to_string())
        };
        assert_eq!(
            victim(&table, by("subject:ada")).as_deref(),
            Some("ada-old")
        );
        assert_eq!(
            victim(&table, by("subject:eve")).as_deref(),
            Some("bob-old")
        );
        assert_eq!(victim(&table, None).as_deref(), Some("bob-old"));
        // A handshake never finished is spared only for a while.
        table.entries.insert(
            "ada-abandoned".into(),
            entry(HANDSHAKE_GRACE + second, "sub:ada", false),
        );
        assert_eq!(
            victim(&table, by("subject:ada")).as_deref(),
            Some("ada-abandoned")
        );
    }

    #[test]
    fn a_caller_without_credentials_closes_no_signed_in_callers_session() {
        let mut table = Table::default();
        let second = Duration::from_secs(1);
        table
            .entries
            .insert("ada".into(), entry(second * 9, "sub:ada", true));
        let anonymous = Claimant {
            caller: "address:10.0.0.9",
            signed_in: false,
        };
        assert_eq!(table.eviction_victim(Some(anonymous)), None);
        let mut other = entry(second * 2, "anonymous", true);
        other.caller = Some(String::from("address:10.0.0.1"));
        table.entries.insert("other".into(), other);
        let victim = table.eviction_victim(Some(anonymous));
        assert_eq!(victim.as_deref(), Some("other"));
        // Its own count: open ones and those being opened.
        table.pending_of.insert(String::from("address:10.0.0.1"), 2);
        assert_eq!(table.held_by("address:10.0.0.1"), 3);
        assert_eq!(
            table.own_victim("address:10.0.0.1").as_deref(),
            Some("other")
        );
        assert_eq!(table.own_victim("address:10.0.0.9"), None);
    }
}
