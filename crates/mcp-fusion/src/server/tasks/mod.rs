//! Tools run as tasks (the 2026-07-28 Tasks extension
//! `io.modelcontextprotocol/tasks`, SEP-2663): the [`TaskStore`] trait and
//! its two implementations, and the crate-private [`Tasks`] that creates,
//! settles, reads and cancels a server's tasks.
//!
//! A task's handler runs on the replica that created it, with a
//! cancellation token of its own; `tasks/cancel` on that replica cancels the
//! token (the handler ends with `CANCELLED`), on another one it is recorded
//! in the store (the task reads `cancelled` everywhere; the running replica's
//! result is then dropped).

mod memory;
#[cfg(feature = "redis")]
mod redis_store;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::ErrorData;
use rmcp::model::{DetailedTask, GetTaskResult, Task, TaskPayload, TaskStatus};
use tokio_util::sync::CancellationToken;

pub use memory::{DEFAULT_MAX_TASKS, MemoryTaskStore};
#[cfg(feature = "redis")]
pub use redis_store::RedisTaskStore;
pub use store::{TaskStore, TaskStoreError};

/// The default `ttlMs` of a task: one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// The default `pollIntervalMs` of a task: one second.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A server's tasks: its store, and the cancellation tokens of those running
/// here.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    running: Mutex<HashMap<String, CancellationToken>>,
    ttl: Option<Duration>,
    poll_interval: Duration,
}

/// The time now as RFC 3339 (ISO 8601) UTC with milliseconds
/// (`2026-12-02T07:15:54.123Z`), as `createdAt` / `lastUpdatedAt` carry it.
fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `-32603` for a store that did not answer.
fn store_error(err: &TaskStoreError) -> ErrorData {
    ErrorData::internal_error(err.to_string(), None)
}

/// `-32602` for a task id the store does not hold (SEP-2663 "Task
/// Polling"; the conformance suite's `tasks-dispatch-and-envelope`).
pub(crate) fn unknown_task(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "Unknown task \"{task_id}\": no task has this id, or its ttlMs has passed. Call the tool again to start a new task."
        ),
        Some(serde_json::json!({ "taskId": task_id })),
    )
}

impl Tasks {
    /// Tasks kept in `store`, each with `ttl` (`None`: `ttlMs: null`) and
    /// `poll_interval`.
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        ttl: Option<Duration>,
        poll_interval: Duration,
    ) -> Self {
        Tasks {
            store,
            running: Mutex::new(HashMap::new()),
            ttl,
            poll_interval,
        }
    }

    /// Creates a `working` task, durable in the store when this returns; its
    /// seed (for the `CreateTaskResult`) and the token that cancels its
    /// handler.
    ///
    /// # Errors
    /// `-32603` when the store did not take it.
    pub(crate) async fn create(&self) -> Result<(Task, CancellationToken), ErrorData> {
        let created = now();
        let mut task = Task::new(
            uuid::Uuid::new_v4().to_string(),
            TaskStatus::Working,
            created.clone(),
            created,
        )
        .with_poll_interval_ms(millis(self.poll_interval));
        task.ttl_ms = self.ttl.map(millis);
        let token = CancellationToken::new();
        self.lock().insert(task.task_id.clone(), token.clone());
        if let Err(err) = self
            .store
            .create(DetailedTask::new(task.clone(), TaskPayload::Working))
            .await
        {
            self.lock().remove(&task.task_id);
            return Err(store_error(&err));
        }
        Ok((task, token))
    }

    /// Records the end of the task `seed` started as: `payload` (its
    /// `completed` result, `failed` error or `cancelled`), unless the task is
    /// already terminal (cancelled from another replica).
    pub(crate) async fn settle(&self, seed: &Task, payload: TaskPayload) {
        self.lock().remove(&seed.task_id);
        let mut task = seed.clone();
        task.last_updated_at = now();
        if let Err(err) = self.store.update(DetailedTask::new(task, payload)).await {
            tracing::warn!(task_id = %seed.task_id, "the end of a task was not recorded: {err}");
        }
    }

    /// `tasks/get`: the task as stored.
    ///
    /// # Errors
    /// `-32602` for an unknown task, `-32603` when the store did not answer.
    pub(crate) async fn get(&self, task_id: &str) -> Result<GetTaskResult, ErrorData> {
        match self.store.get(task_id).await {
            Ok(Some(task)) => Ok(GetTaskResult::new(task)),
            Ok(None) => Err(unknown_task(task_id)),
            Err(err) => Err(store_error(&err)),
        }
    }

    /// `tasks/cancel`: a task not yet terminal becomes `cancelled` in the
    /// store, and its handler's token is cancelled when it runs here; a
    /// terminal one stays as it is (the same empty acknowledgement, SEP-2663
    /// "Task Cancellation").
    ///
    /// # Errors
    /// `-32602` for an unknown task, `-32603` when the store did not answer.
    pub(crate) async fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        let stored = match self.store.get(task_id).await {
            Ok(Some(task)) => task,
            Ok(None) => return Err(unknown_task(task_id)),
            Err(err) => return Err(store_error(&err)),
        };
        if !stored.status().is_terminal() {
            let mut task = stored.task;
            task.last_updated_at = now();
            task.status_message = Some(String::from("Cancelled by the client."));
            self.store
                .update(DetailedTask::new(task, TaskPayload::Cancelled))
                .await
                .map_err(|err| store_error(&err))?;
        }
        if let Some(token) = self.lock().remove(task_id) {
            token.cancel();
        }
        Ok(())
    }

    /// `tasks/update`: this server asks no input inside a task yet (a task's
    /// handler has no client link), so there is nothing outstanding to
    /// answer; the responses are ignored as SEP-2663 says for keys not
    /// outstanding, and acknowledged.
    ///
    /// # Errors
    /// `-32602` for an unknown task, `-32603` when the store did not answer.
    pub(crate) async fn update(&self, task_id: &str) -> Result<(), ErrorData> {
        match self.store.get(task_id).await {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(unknown_task(task_id)),
            Err(err) => Err(store_error(&err)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
