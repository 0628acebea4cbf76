//! [`RedisGuardStore`]: the state gate's session states and the mutation
//! serializer's locks, shared by a fleet of servers in Redis (wire contract
//! §10).
//!
//! States are plain keys (`<prefix>state:<machine>:<session>`, kept a day
//! after their last move). A serializer's lock is `SET key token NX PX
//! lease`, renewed while its call runs and released by a compare-and-delete
//! script, so that a replica that dies holding one frees it within a lease.
//! Every command is bounded in time (default 200 ms); when Redis does not
//! answer, the guards go on with this process's own view (its states, its
//! locks) and log it at most once every 10 seconds.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::state_gate::STATE_TTL;
use crate::redis_connection::RedisConnection;
pub use crate::redis_connection::RedisUrlError;

/// Deletes KEYS[1] if it holds ARGV[1] (the holder's token).
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// Extends KEYS[1] to ARGV[2] ms if it holds ARGV[1]; 1 if it did.
/// Sets a state (`KEYS[1]`) to `ARGV[3]` for `ARGV[4]` seconds if it is
/// `ARGV[1]`, or absent and `ARGV[1]` is the initial state `ARGV[2]`.
const MOVE: &str = r"
local now = redis.call('GET', KEYS[1])
if now == ARGV[1] or (now == false and ARGV[1] == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
  return 1
end
return 0
";

const RENEW: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
";

/// A Redis-backed store for the state gate and the mutation serializer
/// ([`ServerBuilder::guard_store`](crate::ServerBuilder::guard_store)):
/// with it, a move made on one replica is seen by the next call on any
/// other, and a key serialized on one replica waits for its holder on any
/// other. Cheap to clone.
///
/// What holds across replicas: at most one call per serialized key holds its
/// Redis lock at a time while Redis answers; a lock whose holder stops
/// renewing it (its process died) frees itself after its lease (default 10
/// seconds). Waiters on other replicas poll every 50 ms, so across replicas
/// the order is not first come first served (within one replica it is).
/// While Redis does not answer, each replica serializes and keeps states on
/// its own.
#[derive(Clone)]
pub struct RedisGuardStore {
    prefix: String,
    timeout: Duration,
    lease: Duration,
    shared: Arc<Shared>,
}

struct Shared {
    connection: RedisConnection,
    release: redis::Script,
    renew: redis::Script,
    move_state: redis::Script,
    /// Numbers the locks this process takes (part of their token).
    next: AtomicU64,
}

impl std::fmt::Debug for RedisGuardStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisGuardStore")
            .field("url", &self.shared.connection.url())
            .field("prefix", &self.prefix)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

impl RedisGuardStore {
    /// A store at `url` (`redis://host:port/db`), not connected until first
    /// used. Defaults: commands bounded by 200 ms, leases of 10 seconds,
    /// keys prefixed `mcp-fusion:guard:`.
    ///
    /// # Errors
    /// [`RedisUrlError`] when the URL is not a Redis URL.
    pub fn new(url: &str) -> Result<Self, RedisUrlError> {
        Ok(RedisGuardStore {
            prefix: String::from("mcp-fusion:guard:"),
            timeout: Duration::from_millis(200),
            lease: Duration::from_secs(10),
            shared: Arc::new(Shared {
                connection: RedisConnection::new(url, "guard store")?,
                release: redis::Script::new(RELEASE),
                renew: redis::Script::new(RENEW),
                move_state: redis::Script::new(MOVE),
                next: AtomicU64::new(1),
            }),
        })
    }

    /// The prefix of every key this store writes; default
    /// `mcp-fusion:guard:`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The longest one Redis command may take; default 200 ms.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long a serializer's lock lives without renewal (its holder
    /// renews it every third of it); default 10 seconds, at least 100 ms.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// The lease of its locks.
    pub(crate) fn lease_of(&self) -> Duration {
        self.lease
    }

    /// Runs one command (`run` gets the connection) within the timeout;
    /// `None` when Redis did not answer (logged with `what` was done).
    async fn run<T, F, Fut>(&self, what: &str, run: F) -> Option<T>
    where
        F: FnOnce(redis::aio::ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let consequence = || format!("{what}: the guards use this process's view");
        self.shared
            .connection
            .run(self.timeout, consequence, run)
            .await
            .ok()
    }

    fn state_key(&self, machine: &str, session: &str) -> String {
        format!("{}state:{machine}:{session}", self.prefix)
    }

    /// The state of `session` in `machine`: `Some(None)` when it never
    /// moved, `None` when Redis did not answer.
    pub(crate) async fn state(&self, machine: &str, session: &str) -> Option<Option<String>> {
        let key = self.state_key(machine, session);
        self.run("reading a state", |mut conn| async move {
            redis::cmd("GET").arg(&key).query_async(&mut conn).await
        })
        .await
    }

    /// Moves `session` in `machine` to `to` if its state is still `from`
    /// (no state: `initial`), atomically: a move another replica made
    /// meanwhile is never undone by one that ends later. `Some(true)`:
    /// moved; `Some(false)`: the state was no longer `from`; `None`: Redis
    /// did not answer.
    pub(crate) async fn move_state(
        &self,
        machine: &str,
        session: &str,
        (from, initial, to): (&str, &str, &str),
    ) -> Option<bool> {
        let key = self.state_key(machine, session);
        let ttl = STATE_TTL.as_secs();
        let script = &self.shared.move_state;
        self.run("recording a move", |mut conn| async move {
            let moved: i64 = script
                .key(&key)
                .arg(from)
                .arg(initial)
                .arg(to)
                .arg(ttl)
                .invoke_async(&mut conn)
                .await?;
            Ok(moved == 1)
        })
        .await
    }

    /// A token no other lock holder has.
    pub(crate) fn token(&self) -> String {
        let n = self.shared.next.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{}-{nanos}-{n}", std::process::id())
    }

    /// The Redis key of a serializer's lock.
    pub(crate) fn lock_key(&self, action: &str, key: &str) -> String {
        format!("{}lock:{action}:{key}", self.prefix)
    }

    /// Takes `lock` for `token` if free: `Some(true)` taken, `Some(false)`
    /// held by another, `None` Redis did not answer.
    pub(crate) async fn try_lock(&self, lock: &str, token: &str) -> Option<bool> {
        let lease = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        self.run("taking a lock", |mut conn| async move {
            let set: Option<String> = redis::cmd("SET")
                .arg(lock)
                .arg(token)
                .arg("NX")
                .arg("PX")
                .arg(lease)
                .query_async(&mut conn)
                .await?;
            Ok(set.is_some())
        })
        .await
    }

    /// Extends `lock` by a lease if `token` still holds it.
    pub(crate) async fn renew(&self, lock: &str, token: &str) {
        let lease = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        let script = &self.shared.renew;
        let _: Option<i64> = self
            .run("renewing a lock", |mut conn| async move {
                script
                    .key(lock)
                    .arg(token)
                    .arg(lease)
                    .invoke_async(&mut conn)
                    .await
            })
            .await;
    }

    /// Releases `lock` if `token` holds it.
    pub(crate) async fn release(&self, lock: &str, token: &str) {
        let script = &self.shared.release;
        let _: Option<i64> = self
            .run("releasing a lock", |mut conn| async move {
                script.key(lock).arg(token).invoke_async(&mut conn).await
            })
            .await;
    }
}
