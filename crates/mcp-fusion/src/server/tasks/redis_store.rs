//! [`RedisTaskStore`]: tasks in Redis, shared by every replica using it.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{DetailedTask, InputResponses};

use super::store::{TaskStore, TaskStoreError};
use super::{DEFAULT_TASK_LEASE, MAX_TASK_LEASE};
use crate::redis_connection::{RedisConnection, RedisUrlError};

/// Replaces a task unless it is terminal or gone. KEYS[1]: the task's hash;
/// KEYS[2]: its kept `tasks/update` entries and KEYS[3]: its lease (both
/// deleted when the new status is terminal); ARGV[1]: its new status;
/// ARGV[2]: its new JSON. Returns 1 when replaced. `HSET` on an existing key
/// keeps its expiry.
const UPDATE: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'task', ARGV[2])
if ARGV[1] == 'completed' or ARGV[1] == 'failed' or ARGV[1] == 'cancelled' then
  redis.call('DEL', KEYS[2], KEYS[3])
end
return 1
";

/// Renews a task's lease unless the task is terminal or gone. KEYS[1]: the
/// task's hash; KEYS[2]: its lease; ARGV[1]: the lease in milliseconds.
/// Returns 1 when renewed.
const RENEW: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1
";

/// Records a task `failed` when it was created with a lease (field
/// `lease_ms`) and that lease has lapsed (its key expired), unless it is
/// terminal or gone. KEYS[1]: the task's hash; KEYS[2]: its kept
/// `tasks/update` entries (deleted); KEYS[3]: its lease; ARGV[1]: its
/// `failed` JSON. Returns 1 when recorded.
const FAIL_LAPSED: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
if not redis.call('HGET', KEYS[1], 'lease_ms') then return 0 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'failed', 'task', ARGV[1])
redis.call('DEL', KEYS[2])
return 1
";

/// Keeps `tasks/update` entries for a task unless it is terminal or gone.
/// KEYS[1]: the task's hash; KEYS[2]: its entries' hash; ARGV: key, JSON,
/// key, JSON, …. The entries' hash expires with the task. Returns 1 when
/// kept.
const PUT_RESPONSES: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
";

/// Tasks in Redis (feature `redis`): a task created on one replica is read,
/// cancelled and completed through any other using the same Redis
/// (`fusion serve --task-store redis://…`).
///
/// Each task is one hash at `{prefix}{taskId}` (default prefix
/// `mcp-fusion:task:`) with the fields `status` (`working`, …), `task`
/// (the `DetailedTask` JSON `tasks/get` answers) and `owner` (who created
/// it, [`TaskStore::create`]), expiring `ttlMs` after its
/// creation (`PEXPIRE`; `ttlMs: null`: no expiry). A change is one Lua script
/// that leaves a terminal task as it is. The `tasks/update` entries kept for
/// the replica running a task are one hash at `{prefix}{taskId}:responses`
/// (field: the `inputResponses` key; value: its JSON), expiring with the
/// task, deleted when it ends, taken (`HGETALL` and `DEL` in one
/// transaction) by the running replica.
///
/// A running task holds a lease, the key `{prefix}{taskId}:lease` expiring
/// [`lease`](Self::lease) after its last renewal (default 30 s, `PX`); the
/// task's hash records its length (field `lease_ms`). The replica running
/// the task writes it with the task and renews it every third of its length
/// while the handler runs; it is deleted when the task ends. When the
/// process running the task dies (`kill -9`, a lost host), the lease
/// lapses, and the next `tasks/get`, `tasks/update` or `tasks/cancel` of the
/// task, on any replica, records it `failed` ([`TaskStore::fail_lapsed`],
/// one Lua script: a terminal task is never overwritten) and tells the
/// change to that replica's `subscriptions/listen` streams naming it. A
/// task written without `lease_ms` (by a version without leases) never
/// lapses. The lease's expiry is Redis's clock, not the replicas'.
///
/// Every command is bounded by
/// [`timeout`](Self::timeout) (default 1 s); past it, or while Redis is down,
/// [`TaskStoreError::Unavailable`]. Reuses the crate's Redis connection
/// handling (lazy, shared, one probe a second after a failure). Cheap to
/// clone.
#[derive(Clone)]
pub struct RedisTaskStore {
    prefix: String,
    timeout: Duration,
    lease: Duration,
    shared: Arc<Shared>,
}

struct Shared {
    connection: RedisConnection,
    update: redis::Script,
    put_responses: redis::Script,
    renew: redis::Script,
    fail_lapsed: redis::Script,
}

/// A task lease [`RedisTaskStore::lease`] refuses: not a whole number of
/// seconds from 1 to 3600 ([`MAX_TASK_LEASE`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error(
    "the task lease must be a whole number of seconds from 1 to {max}, not {given} ms",
    max = MAX_TASK_LEASE.as_secs(),
    given = lease.as_millis()
)]
pub struct InvalidLease {
    /// The lease refused.
    pub lease: Duration,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("url", &self.shared.connection.url())
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// A store at `url` (`redis://host:port/db`). Nothing is connected yet:
    /// the first use connects, so a server can start while Redis is down.
    ///
    /// # Errors
    /// [`RedisUrlError`] when the URL is not a Redis URL.
    pub fn new(url: &str) -> Result<Self, RedisUrlError> {
        Ok(RedisTaskStore {
            prefix: String::from("mcp-fusion:task:"),
            timeout: Duration::from_secs(1),
            lease: DEFAULT_TASK_LEASE,
            shared: Arc::new(Shared {
                connection: RedisConnection::new(url, "task store")?,
                update: redis::Script::new(UPDATE),
                put_responses: redis::Script::new(PUT_RESPONSES),
                renew: redis::Script::new(RENEW),
                fail_lapsed: redis::Script::new(FAIL_LAPSED),
            }),
        })
    }

    /// The longest one use may take, connecting included; default 1 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long a running task's lease lasts (see the type's doc): a whole
    /// number of seconds from 1 to 3600; default [`DEFAULT_TASK_LEASE`]
    /// (30 s). The replica running a task renews it every third of this; a
    /// task whose replica stopped reads `failed` this long after its last
    /// renewal. Shorter finds a stopped replica sooner; longer tolerates a
    /// longer stall (Redis unreachable, a paused process) of the replica
    /// running the task before its task is failed. Every replica sharing the
    /// store should use the same lease.
    ///
    /// # Errors
    /// [`InvalidLease`] for zero, a fraction of a second, or more than an
    /// hour.
    pub fn lease(mut self, lease: Duration) -> Result<Self, InvalidLease> {
        if lease.is_zero() || lease.subsec_nanos() != 0 || lease > MAX_TASK_LEASE {
            return Err(InvalidLease { lease });
        }
        self.lease = lease;
        Ok(self)
    }

    /// The prefix of every key this store writes; default `mcp-fusion:task:`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The store's URL with its credentials masked, fit for logs and banners.
    pub fn url(&self) -> &str {
        self.shared.connection.url()
    }

    /// The key of task `task_id`.
    pub fn key(&self, task_id: &str) -> String {
        format!("{}{task_id}", self.prefix)
    }

    /// The key of the `tasks/update` entries kept for task `task_id`.
    pub fn responses_key(&self, task_id: &str) -> String {
        format!("{}{task_id}:responses", self.prefix)
    }

    /// The key of the lease of task `task_id` (present while it is held).
    pub fn lease_key(&self, task_id: &str) -> String {
        format!("{}{task_id}:lease", self.prefix)
    }

    /// The lease in milliseconds, as Redis takes it.
    fn lease_ms(&self) -> u64 {
        u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX)
    }

    /// Runs `command` on the connection within the timeout.
    async fn run<T, F, Fut>(&self, command: F) -> Result<T, TaskStoreError>
    where
        F: FnOnce(redis::aio::ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        let consequence = || String::from("the task store is unavailable");
        self.shared
            .connection
            .run(self.timeout, consequence, command)
            .await
            .map_err(|why| unavailable(&why.to_string()))
    }
}

fn unavailable(reason: &str) -> TaskStoreError {
    TaskStoreError::Unavailable {
        reason: reason.to_owned(),
    }
}

fn to_json(task: &DetailedTask) -> String {
    serde_json::to_string(task).unwrap_or_default()
}

impl TaskStore for RedisTaskStore {
    fn create(
        &self,
        task: DetailedTask,
        owner: String,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let key = self.key(&task.task.task_id);
            let lease_key = self.lease_key(&task.task.task_id);
            let lease_ms = self.lease_ms();
            let status = task.status();
            let json = to_json(&task);
            self.run(|mut conn| async move {
                let mut pipe = redis::pipe();
                pipe.atomic()
                    .hset_multiple(
                        &key,
                        &[
                            ("status", status_word(status)),
                            ("task", &json),
                            ("owner", &owner),
                            ("lease_ms", &lease_ms.to_string()),
                        ],
                    )
                    .ignore()
                    .pset_ex(&lease_key, "1", lease_ms)
                    .ignore();
                if let Some(ms) = task.task.ttl_ms {
                    pipe.pexpire(&key, i64::try_from(ms).unwrap_or(i64::MAX))
                        .ignore();
                }
                pipe.query_async::<()>(&mut conn).await
            })
            .await
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>> {
        Box::pin(async move {
            let key = self.key(task_id);
            let json: Option<String> = self
                .run(|mut conn| async move {
                    redis::cmd("HGET")
                        .arg(&key)
                        .arg("task")
                        .query_async(&mut conn)
                        .await
                })
                .await?;
            json.map(|json| {
                serde_json::from_str(&json).map_err(|e| TaskStoreError::Corrupt {
                    task_id: task_id.to_owned(),
                    reason: e.to_string(),
                })
            })
            .transpose()
        })
    }

    fn owner<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, TaskStoreError>> {
        Box::pin(async move {
            let key = self.key(task_id);
            self.run(|mut conn| async move {
                redis::cmd("HGET")
                    .arg(&key)
                    .arg("owner")
                    .query_async(&mut conn)
                    .await
            })
            .await
        })
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let key = self.key(&task.task.task_id);
            let responses = self.responses_key(&task.task.task_id);
            let lease_key = self.lease_key(&task.task.task_id);
            let status = status_word(task.status());
            let json = to_json(&task);
            let script = &self.shared.update;
            let replaced: i64 = self
                .run(|mut conn| async move {
                    script
                        .key(&key)
                        .key(&responses)
                        .key(&lease_key)
                        .arg(status)
                        .arg(&json)
                        .invoke_async(&mut conn)
                        .await
                })
                .await?;
            Ok(replaced == 1)
        })
    }

    fn put_responses<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let key = self.key(task_id);
            let kept = self.responses_key(task_id);
            let script = &self.shared.put_responses;
            let mut invocation = script.key(&key);
            invocation.key(&kept);
            for (name, value) in &responses {
                invocation.arg(name).arg(value.to_string());
            }
            let stored: i64 = self
                .run(|mut conn| async move { invocation.invoke_async(&mut conn).await })
                .await?;
            Ok(stored == 1)
        })
    }

    fn take_responses<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>> {
        Box::pin(async move {
            let kept = self.responses_key(task_id);
            let (entries,): (Vec<(String, String)>,) = self
                .run(|mut conn| async move {
                    redis::pipe()
                        .atomic()
                        .hgetall(&kept)
                        .del(&kept)
                        .ignore()
                        .query_async(&mut conn)
                        .await
                })
                .await?;
            entries
                .into_iter()
                .map(|(name, json)| {
                    serde_json::from_str(&json)
                        .map(|value| (name, value))
                        .map_err(|e| TaskStoreError::Corrupt {
                            task_id: task_id.to_owned(),
                            reason: e.to_string(),
                        })
                })
                .collect()
        })
    }

    fn lease(&self) -> Option<Duration> {
        Some(self.lease)
    }

    fn renew<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(self.renew_lease(task_id))
    }

    fn fail_lapsed(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(async move { self.fail_if_lapsed(&task).await })
    }
}

impl RedisTaskStore {
    /// [`TaskStore::renew`]: the `RENEW` script.
    async fn renew_lease(&self, task_id: &str) -> Result<bool, TaskStoreError> {
        let key = self.key(task_id);
        let lease_key = self.lease_key(task_id);
        let lease_ms = self.lease_ms();
        let script = &self.shared.renew;
        let renewed: i64 = self
            .run(|mut conn| async move {
                script
                    .key(&key)
                    .key(&lease_key)
                    .arg(lease_ms)
                    .invoke_async(&mut conn)
                    .await
            })
            .await?;
        Ok(renewed == 1)
    }

    /// [`TaskStore::fail_lapsed`]: the `FAIL_LAPSED` script.
    async fn fail_if_lapsed(&self, task: &DetailedTask) -> Result<bool, TaskStoreError> {
        let task_id = &task.task.task_id;
        let key = self.key(task_id);
        let responses = self.responses_key(task_id);
        let lease_key = self.lease_key(task_id);
        let json = to_json(task);
        let script = &self.shared.fail_lapsed;
        let failed: i64 = self
            .run(|mut conn| async move {
                script
                    .key(&key)
                    .key(&responses)
                    .key(&lease_key)
                    .arg(&json)
                    .invoke_async(&mut conn)
                    .await
            })
            .await?;
        Ok(failed == 1)
    }
}

/// The status's word on the wire (`working`, `input_required`, …).
fn status_word(status: rmcp::model::TaskStatus) -> &'static str {
    use rmcp::model::TaskStatus;
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "unknown",
    }
}
