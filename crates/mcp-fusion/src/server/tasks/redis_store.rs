//! [`RedisTaskStore`]: tasks in Redis, shared by every replica using it.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{DetailedTask, InputResponses};

use super::store::{TaskStore, TaskStoreError};
use crate::redis_connection::{RedisConnection, RedisUrlError};

/// Replaces a task unless it is terminal or gone. KEYS[1]: the task's hash;
/// KEYS[2]: its kept `tasks/update` entries (deleted when the new status is
/// terminal); ARGV[1]: its new status; ARGV[2]: its new JSON. Returns 1 when
/// replaced. `HSET` on an existing key keeps its expiry.
const UPDATE: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'task', ARGV[2])
if ARGV[1] == 'completed' or ARGV[1] == 'failed' or ARGV[1] == 'cancelled' then
  redis.call('DEL', KEYS[2])
end
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
/// transaction) by the running replica. Every command is bounded by
/// [`timeout`](Self::timeout) (default 1 s); past it, or while Redis is down,
/// [`TaskStoreError::Unavailable`]. Reuses the crate's Redis connection
/// handling (lazy, shared, one probe a second after a failure). Cheap to
/// clone.
#[derive(Clone)]
pub struct RedisTaskStore {
    prefix: String,
    timeout: Duration,
    shared: Arc<Shared>,
}

struct Shared {
    connection: RedisConnection,
    update: redis::Script,
    put_responses: redis::Script,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("url", &self.shared.connection.url())
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
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
            shared: Arc::new(Shared {
                connection: RedisConnection::new(url, "task store")?,
                update: redis::Script::new(UPDATE),
                put_responses: redis::Script::new(PUT_RESPONSES),
            }),
        })
    }

    /// The longest one use may take, connecting included; default 1 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
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

    /// Runs `command` on the connection within the timeout.
    async fn run<T, F, Fut>(&self, command: F) -> Result<T, TaskStoreError>
    where
        F: FnOnce(redis::aio::ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        let redis = &self.shared.connection;
        if redis.recently_failed() {
            return Err(unavailable("it failed less than a second ago"));
        }
        let attempt = async {
            let conn = redis.get(self.timeout).await?;
            Some(command(conn).await)
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Some(Ok(value))) => {
                redis.succeeded();
                Ok(value)
            }
            Ok(Some(Err(e))) => {
                redis.failed(&e.to_string());
                Err(unavailable(&e.to_string()))
            }
            Ok(None) => Err(unavailable("not connected")),
            Err(_) => {
                redis.failed("no answer within the time limit");
                Err(unavailable(&format!(
                    "no answer within {} ms",
                    self.timeout.as_millis()
                )))
            }
        }
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
                        ],
                    )
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
            let status = status_word(task.status());
            let json = to_json(&task);
            let script = &self.shared.update;
            let replaced: i64 = self
                .run(|mut conn| async move {
                    script
                        .key(&key)
                        .key(&responses)
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
