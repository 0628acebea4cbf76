//! [`TaskStore`]: where tasks live between their creation and their TTL, so
//! that any replica answers `tasks/get` and `tasks/cancel` for a task another
//! one runs.

use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{DetailedTask, InputResponses};

/// Why a task store could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store's backend (Redis) did not answer; `reason` says why (never
    /// the URL's credentials). A `tasks/get`, `tasks/update` or
    /// `tasks/cancel` is answered with JSON-RPC error `-32603`.
    #[error("the task store is unavailable: {reason}")]
    Unavailable {
        /// What failed.
        reason: String,
    },
    /// The store holds as many tasks as it may, none of them finished or
    /// past its TTL: it takes no new one until some end
    /// ([`MemoryTaskStore::max_tasks`](super::MemoryTaskStore::max_tasks)).
    /// The `tools/call` is answered with a `SERVER_BUSY` `<tool_error>`.
    #[error("the task store is full: it holds {max} tasks, none of them finished")]
    Full {
        /// The most tasks the store holds.
        max: usize,
    },
    /// A stored task could not be read back (written by an incompatible
    /// version).
    #[error("the stored task {task_id} cannot be read: {reason}")]
    Corrupt {
        /// The task's id.
        task_id: String,
        /// The JSON error.
        reason: String,
    },
}

/// Where a server keeps its tasks (the 2026-07-28 Tasks extension
/// `io.modelcontextprotocol/tasks`, SEP-2663): each one as the `DetailedTask`
/// `tasks/get` answers (status, timestamps, `ttlMs`, and the `result`,
/// `error` or `inputRequests` of its status).
///
/// A task is kept until its `ttlMs` (milliseconds from its creation) has
/// passed; `ttlMs: null` keeps it until the store evicts it. Once a task is
/// terminal (`completed`, `failed`, `cancelled`) it never changes again: a
/// cancel that arrives after the result, or a result that arrives after the
/// cancel, is dropped ([`TaskStore::update`] returns `false`).
///
/// Each task is bound to its owner, the authorization context of the
/// request that created it (the Tasks extension, "Security Considerations":
/// "Servers **MUST** perform authentication and authorization checks on
/// each task-related request to ensure that the client has permission to
/// access a task"): `tasks/get`, `tasks/update` and `tasks/cancel` from
/// anyone else are answered as for a task that does not exist.
///
/// A store shared by replicas may keep a lease per running task
/// ([`lease`](Self::lease)): the replica running the task renews it
/// ([`renew`](Self::renew)) while the handler runs, and a replica that reads
/// the task after its lease lapsed (the process running it was killed)
/// records it `failed` ([`fail_lapsed`](Self::fail_lapsed)), so that no task
/// stays `working` forever. The three have defaults for a store without
/// leases.
///
/// Two implementations: [`MemoryTaskStore`](super::MemoryTaskStore) (the
/// default: one process, bounded, no leases: its tasks die with the process
/// running them) and, with the `redis` feature,
/// `RedisTaskStore` (shared by every replica using
/// the same Redis, with leases).
pub trait TaskStore: Send + Sync + 'static {
    /// Records a new task, owned by `owner` (an opaque key: `subject:` and
    /// the verified principal's subject, else the caller key). When the future resolves the task is durable: a
    /// `get` of its id on any replica finds it (SEP-2663 "Task Creation":
    /// no `CreateTaskResult` before that).
    ///
    /// # Errors
    /// [`TaskStoreError::Unavailable`] when the backend did not take it,
    /// [`TaskStoreError::Full`] when the store is full.
    fn create(
        &self,
        task: DetailedTask,
        owner: String,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The owner the task `task_id` was created with
    /// ([`create`](Self::create)); `None` when there is no such task (as
    /// for [`get`](Self::get)).
    ///
    /// # Errors
    /// [`TaskStoreError::Unavailable`] when the backend did not answer.
    fn owner<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, TaskStoreError>>;

    /// The task `task_id`; `None` when there is none (never created, or its
    /// TTL has passed, or evicted).
    ///
    /// # Errors
    /// [`TaskStoreError`] when the backend did not answer or the stored task
    /// cannot be read.
    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>>;

    /// Replaces the stored state of `task.task.task_id` with `task`, keeping
    /// its expiry, unless the stored one is terminal or gone: `true` when it
    /// was replaced.
    ///
    /// # Errors
    /// [`TaskStoreError::Unavailable`] when the backend did not answer.
    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>>;

    /// Keeps `responses` (a `tasks/update`'s `inputResponses` entries, by
    /// key) for the replica running task `task_id`, which takes them with
    /// [`take_responses`](Self::take_responses) once a poll interval
    /// (SEP-2663 "Task Update Requests": the acknowledgement is eventually
    /// consistent). An entry of a key already kept is replaced. `false`, and
    /// nothing kept, when the task is terminal or gone. Kept entries go with
    /// the task: when it ends (an [`update`](Self::update) to a terminal
    /// status) or its TTL passes.
    ///
    /// # Errors
    /// [`TaskStoreError::Unavailable`] when the backend did not answer.
    fn put_responses<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// Removes and returns the entries kept for task `task_id` by
    /// [`put_responses`](Self::put_responses) (empty when there are none),
    /// so that each is taken once, by one replica.
    ///
    /// # Errors
    /// [`TaskStoreError`] when the backend did not answer or a kept entry
    /// cannot be read.
    fn take_responses<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>>;

    /// How long the lease of a running task lasts: the replica running it
    /// renews it every third of this ([`renew`](Self::renew)); a task whose
    /// lease was not renewed for this long is recorded `failed` by the next
    /// replica reading it ([`fail_lapsed`](Self::fail_lapsed)). `None` (the
    /// default) when the store keeps no leases, as a store in the memory of
    /// the process running its tasks needs none.
    fn lease(&self) -> Option<Duration> {
        None
    }

    /// Renews the lease of the task `task_id`, running on this replica, for
    /// another [`lease`](Self::lease): `true` when renewed, `false` when the
    /// task is terminal or gone (nothing renewed; its handler's result would
    /// be dropped). The default, for a store without leases: `true`.
    ///
    /// # Errors
    /// [`TaskStoreError::Unavailable`] when the backend did not answer.
    fn renew<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(true) })
    }

    /// Replaces the stored state of `task.task.task_id` with `task` (its
    /// `failed` state) when its lease has lapsed, in one step: `true` when
    /// replaced. A terminal or gone task, one whose lease is held, and one
    /// stored without a lease are left as they are (`false`), so that two
    /// replicas reading a lapsed task, or its owner settling it late, never
    /// overwrite each other. Like [`update`](Self::update), the kept
    /// `tasks/update` entries go with it. The default, for a store without
    /// leases: `false`.
    ///
    /// # Errors
    /// [`TaskStoreError::Unavailable`] when the backend did not answer.
    fn fail_lapsed(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        drop(task);
        Box::pin(async { Ok(false) })
    }
}
