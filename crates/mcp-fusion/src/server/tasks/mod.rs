//! Tools run as tasks (the 2026-07-28 Tasks extension
//! `io.modelcontextprotocol/tasks`, SEP-2663): the [`TaskStore`] trait and
//! its two implementations, and the crate-private `Tasks` that creates,
//! settles, reads and cancels a server's tasks.
//!
//! A task's handler runs on the replica that created it, with a
//! cancellation token of its own; `tasks/cancel` on that replica cancels the
//! token (the handler ends with `CANCELLED`), on another one it is recorded
//! in the store (the task reads `cancelled` everywhere; the running replica's
//! result is then dropped). Likewise `tasks/update`: on the running replica
//! its responses reach the handler at once, on another one they are kept in
//! the store until the running replica takes them (once a poll interval).
//!
//! With a store that keeps leases ([`TaskStore::lease`], `RedisTaskStore`),
//! the running replica renews its task's lease every third of its length
//! while the handler runs; a replica reading a task whose lease lapsed (the
//! process running it died) records it `failed`
//! ([`lapsed_message`] says why) and tells its listen streams; a replica
//! with listen streams naming a task reads it once every half lease for
//! that, though no client polls it.
//!
//! Files: `call` (a `tools/call` that may become a task, and its run),
//! `input` (a task's questions to the client), `store` (the [`TaskStore`]
//! trait), `memory` and `redis_store` (its two implementations), `tests`.

pub(crate) mod call;
mod input;
mod memory;
#[cfg(feature = "redis")]
mod redis_store;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::ErrorData;
use rmcp::model::{
    DetailedTask, GetTaskResult, InputRequest, InputResponses, ServerNotification, Task,
    TaskPayload, TaskStatus, TaskStatusNotification, TaskStatusNotificationParams,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub(crate) use input::TaskChannel;
use input::{Waits, deliver};
pub use memory::{DEFAULT_MAX_TASKS, MemoryTaskStore};
#[cfg(feature = "redis")]
pub use redis_store::{InvalidLease, RedisTaskStore};
pub use store::{TaskStore, TaskStoreError};

use super::listen::tell_listeners;
use super::session::Connections;

/// The default `ttlMs` of a task: one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// The default `pollIntervalMs` of a task: one second.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The default lease of a running task in a store that keeps leases
/// (`RedisTaskStore::lease`): 30 seconds. A task whose replica stopped
/// reads `failed` this long after the replica's last renewal.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

/// The longest lease `RedisTaskStore::lease` takes: one hour (3600 s).
pub const MAX_TASK_LEASE: Duration = Duration::from_secs(3600);

/// The default most tasks one caller may have running at once on one
/// replica: 100.
pub const DEFAULT_MAX_TASKS_PER_CALLER: usize = 100;

/// The `retry_after` of a task refused for want of room or of a store.
const RETRY_AFTER_SECS: u64 = 5;

/// A task running on this replica.
struct Running {
    /// What `tasks/cancel` cancels.
    token: CancellationToken,
    /// Its seed (id, creation time, TTL), for the states it records.
    seed: Task,
    /// Who created it ([`owner_key`]).
    owner: String,
}

/// Why a task was not created.
#[derive(Debug)]
pub(crate) enum NotCreated {
    /// No room: the caller's running tasks, or the store, are at their
    /// bound; the `SERVER_BUSY` envelope to answer with.
    Busy(crate::ToolError),
    /// The store did not answer.
    Unavailable(TaskStoreError),
}

/// The owner a task is bound to: `subject:` and the verified principal's
/// subject, else the caller key (`session:…`, `address:…`,
/// [`CallContext::caller`](crate::CallContext::caller)). The two never
/// collide (a caller key never starts with `subject:`).
pub(crate) fn owner_key(principal: Option<&crate::handler::Principal>, caller: &str) -> String {
    match principal {
        Some(principal) => format!("subject:{}", principal.subject),
        None => caller.to_owned(),
    }
}

/// The `SERVER_BUSY` answer to a `Required` task call while the store does
/// not answer.
pub(crate) fn store_unreachable(tool: &str) -> crate::ToolError {
    crate::ToolError::server_busy(format!(
        "{tool} runs only as a task, and the task store is unreachable: the task was not started."
    ))
    .suggest("Call again in a few seconds: the task store may be back by then.")
    .retry_after(RETRY_AFTER_SECS)
}

/// A server's tasks: its store, the tasks running here and their
/// outstanding input requests.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    running: Mutex<HashMap<String, Running>>,
    waits: Waits,
    /// Held while a running task's input state is written, so that the
    /// store gets those writes in the order of the changes.
    writes: tokio::sync::Mutex<()>,
    ttl: Option<Duration>,
    poll_interval: Duration,
    /// The server's connections, whose `subscriptions/listen` streams hear
    /// of the tasks' status changes.
    connections: Arc<Connections>,
    /// The most tasks one owner may have running here.
    max_per_caller: usize,
}

/// The time now as RFC 3339 (ISO 8601) UTC with milliseconds
/// (`2026-12-02T07:15:54.123Z`), as `createdAt` / `lastUpdatedAt` carry it.
fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The `statusMessage` (and the `failed` error's `message`) of a task whose
/// lease of `lease` (whole seconds) lapsed: the server running it stopped
/// before it finished. With the default lease: `The server running this
/// task stopped before the task finished: it did not renew the task's lease
/// within 30 seconds. Call the tool again to start a new task.`
pub fn lapsed_message(lease: Duration) -> String {
    let secs = lease.as_secs();
    let unit = if secs == 1 { "second" } else { "seconds" };
    format!(
        "The server running this task stopped before the task finished: it did not renew the task's lease within {secs} {unit}. Call the tool again to start a new task."
    )
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
    /// `poll_interval`; at most [`DEFAULT_MAX_TASKS_PER_CALLER`] running per
    /// caller ([`Tasks::max_per_caller`]). Status changes are told to the
    /// listen streams of `connections`.
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        ttl: Option<Duration>,
        poll_interval: Duration,
        connections: Arc<Connections>,
    ) -> Self {
        Tasks {
            store,
            running: Mutex::new(HashMap::new()),
            waits: Waits::default(),
            writes: tokio::sync::Mutex::new(()),
            ttl,
            poll_interval,
            connections,
            max_per_caller: DEFAULT_MAX_TASKS_PER_CALLER,
        }
    }

    /// At most `max` tasks (at least 1) running at once per owner.
    pub(crate) fn max_per_caller(mut self, max: usize) -> Self {
        self.max_per_caller = max.max(1);
        self
    }

    /// Records `task`'s new state in the store; when it was recorded (the
    /// stored one was not terminal), tells it as `notifications/tasks` to
    /// the listen streams of this replica that asked for its id (SEP-2663
    /// "Task Status Notifications": the `DetailedTask` `tasks/get` answers
    /// from then on).
    ///
    /// # Errors
    /// The store's error; nothing is told then.
    async fn record(&self, task: DetailedTask) -> Result<bool, TaskStoreError> {
        let recorded = self.store.update(task.clone()).await?;
        if recorded {
            self.tell(task).await;
        }
        Ok(recorded)
    }

    /// Tells `task`'s new state as `notifications/tasks` to the listen
    /// streams of this replica that asked for its id and whose caller is
    /// the task's owner (read from the store: none is told when the store
    /// does not answer).
    async fn tell(&self, task: DetailedTask) {
        let owner = match self.store.owner(&task.task.task_id).await {
            Ok(Some(owner)) => owner,
            Ok(None) => return,
            Err(err) => {
                tracing::warn!(task_id = %task.task.task_id, "a task's status was not told: its owner was not read: {err}");
                return;
            }
        };
        let params = TaskStatusNotificationParams::from(task);
        tell_listeners(&self.connections.live(), None, Some(&owner), || {
            ServerNotification::TaskStatusNotification(TaskStatusNotification::new(params.clone()))
        })
        .await;
    }

    /// The task `task_id` as stored; one not terminal whose lease lapsed
    /// (the process running it stopped, [`TaskStore::fail_lapsed`]) is
    /// recorded `failed` first, with [`lapsed_message`], and the change told
    /// to this replica's listen streams. `None` when there is no such task.
    ///
    /// # Errors
    /// The store's error.
    async fn read(&self, task_id: &str) -> Result<Option<DetailedTask>, TaskStoreError> {
        let Some(stored) = self.store.get(task_id).await? else {
            return Ok(None);
        };
        let Some(lease) = self.store.lease() else {
            return Ok(Some(stored));
        };
        if stored.status().is_terminal() {
            return Ok(Some(stored));
        }
        let message = lapsed_message(lease);
        let mut task = stored.task.clone();
        task.last_updated_at = now();
        task.status_message = Some(message.clone());
        let failed = DetailedTask::new(
            task,
            TaskPayload::Failed {
                error: call::to_object(&ErrorData::internal_error(message, None)),
            },
        );
        if self.store.fail_lapsed(failed.clone()).await? {
            tracing::warn!(
                task_id,
                "a task's lease lapsed (the server running it stopped): it is recorded failed"
            );
            self.tell(failed.clone()).await;
            return Ok(Some(failed));
        }
        // Not recorded here: its lease holds, or another replica has just
        // recorded the lapse, or it ended; what it is now is in the store.
        self.store.get(task_id).await
    }

    /// For a `subscriptions/listen` stream naming `task_ids`: reads each of
    /// those tasks once every half [`TaskStore::lease`] as `tasks/get` does
    /// ([`read`](Self::read)), so that one whose replica stopped is recorded
    /// `failed` and told to this replica's streams naming it, though no
    /// client polls it. A task running here (its lease held) is not read; an
    /// ended or unknown one is no longer read. Ends when none is left to
    /// read, at once for a store without leases.
    pub(crate) async fn watch_leases(&self, task_ids: Vec<String>) {
        let Some(lease) = self.store.lease() else {
            return;
        };
        let mut left = task_ids;
        while !left.is_empty() {
            tokio::time::sleep(lease / 2).await;
            let mut still = Vec::with_capacity(left.len());
            for task_id in left {
                if self.lock().contains_key(&task_id) {
                    still.push(task_id);
                    continue;
                }
                match self.read(&task_id).await {
                    Ok(Some(task)) if task.status().is_terminal() => {}
                    Ok(None) => {}
                    // Working elsewhere, or the store did not answer: read
                    // again next time.
                    _ => still.push(task_id),
                }
            }
            left = still;
        }
    }

    /// Holds the lease of the task `seed` while it runs here
    /// ([`TaskStore::renew`], every third of [`TaskStore::lease`]); ends at
    /// once for a store without leases. When the store says the task is
    /// terminal or gone (failed for a lapsed lease, cancelled elsewhere, past
    /// its TTL), `token` is cancelled: the handler's result would be dropped.
    /// Ends when the task no longer runs here or its token is cancelled.
    pub(crate) async fn hold(&self, seed: &Task, token: &CancellationToken) {
        let Some(lease) = self.store.lease() else {
            return;
        };
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(lease / 3) => {}
            }
            if !self.lock().contains_key(&seed.task_id) {
                return;
            }
            match self.store.renew(&seed.task_id).await {
                Ok(true) => {}
                Ok(false) => {
                    token.cancel();
                    return;
                }
                Err(err) => {
                    tracing::warn!(task_id = %seed.task_id, "a task's lease was not renewed: {err}");
                }
            }
        }
    }

    /// Watches the store while the task `seed` runs here: when another
    /// replica records it `cancelled` (its `tasks/cancel`), `token` is
    /// cancelled, so that the handler stops here too; while the handler
    /// waits for input, the `tasks/update` entries another replica kept for
    /// it are taken and delivered. Reads the store once every poll interval;
    /// ends when the task ends or its token is cancelled.
    pub(crate) async fn watch(&self, seed: &Task, token: &CancellationToken) {
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.poll_interval) => {}
            }
            if !self.lock().contains_key(&seed.task_id) {
                return;
            }
            match self.store.get(&seed.task_id).await {
                Ok(Some(task)) if task.status() == TaskStatus::Cancelled => {
                    token.cancel();
                    return;
                }
                // Ended or gone (TTL): nothing left to stop.
                Ok(Some(task)) if task.status().is_terminal() => return,
                Ok(None) => return,
                _ => {}
            }
            self.take_responses(seed).await;
        }
    }

    /// Creates a `working` task of `tool` owned by `owner` ([`owner_key`]),
    /// durable in the store when this returns; its seed (for the
    /// `CreateTaskResult`) and the token that cancels its handler.
    ///
    /// # Errors
    /// [`NotCreated::Busy`] when `owner` already has its most tasks running
    /// here, or the store is full; [`NotCreated::Unavailable`] when the
    /// store did not answer.
    pub(crate) async fn create(
        &self,
        tool: &str,
        owner: &str,
    ) -> Result<(Task, CancellationToken), NotCreated> {
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
        {
            let mut running = self.lock();
            let max = self.max_per_caller;
            if running.values().filter(|r| r.owner == owner).count() >= max {
                let tasks = if max == 1 { "task" } else { "tasks" };
                return Err(NotCreated::Busy(
                    crate::ToolError::server_busy(format!(
                        "{tool} was not started: this caller already has {max} {tasks} running, the most it may have at once."
                    ))
                    .suggest("Wait until one of your tasks ends (tasks/get), or cancel one you no longer need (tasks/cancel), then call again.")
                    .retry_after(RETRY_AFTER_SECS),
                ));
            }
            running.insert(
                task.task_id.clone(),
                Running {
                    token: token.clone(),
                    seed: task.clone(),
                    owner: owner.to_owned(),
                },
            );
        }
        if let Err(err) = self
            .store
            .create(
                DetailedTask::new(task.clone(), TaskPayload::Working),
                owner.to_owned(),
            )
            .await
        {
            self.lock().remove(&task.task_id);
            return Err(match err {
                TaskStoreError::Full { max } => NotCreated::Busy(
                    crate::ToolError::server_busy(format!(
                        "{tool} was not started: the server holds {}, and takes no new one until some end.",
                        if max == 1 {
                            String::from("1 task, not finished")
                        } else {
                            format!("{max} tasks, none of them finished")
                        }
                    ))
                    .suggest("Call again in a few seconds, once some tasks have ended.")
                    .retry_after(RETRY_AFTER_SECS),
                ),
                err => NotCreated::Unavailable(err),
            });
        }
        Ok((task, token))
    }

    /// Records the end of the task `seed` started as: `payload` (its
    /// `completed` result, `failed` error or `cancelled`), unless the task is
    /// already terminal (cancelled from another replica).
    pub(crate) async fn settle(&self, seed: &Task, payload: TaskPayload) {
        self.lock().remove(&seed.task_id);
        self.waits.forget(&seed.task_id);
        let mut task = seed.clone();
        task.last_updated_at = now();
        if let Err(err) = self.record(DetailedTask::new(task, payload)).await {
            tracing::warn!(task_id = %seed.task_id, "the end of a task was not recorded: {err}");
        }
    }

    /// Whether `owner` ([`owner_key`]) may read, answer or cancel the task
    /// `task_id`: the owner it was created with (the Tasks extension,
    /// "Security Considerations", "Auth binding").
    ///
    /// # Errors
    /// `-32602` "Unknown task" for a task of another owner, exactly as for
    /// one that does not exist (its existence is not revealed); `-32603`
    /// when the store did not answer.
    pub(crate) async fn authorize(&self, task_id: &str, owner: &str) -> Result<(), ErrorData> {
        match self.store.owner(task_id).await {
            Ok(Some(stored)) if stored == owner => Ok(()),
            Ok(_) => Err(unknown_task(task_id)),
            Err(err) => Err(store_error(&err)),
        }
    }

    /// Of `task_ids`, in their order, those `owner` may read
    /// ([`authorize`](Self::authorize)): the tasks a `subscriptions/listen`
    /// stream of `owner` is told of. One the store did not answer for is
    /// left out.
    pub(crate) async fn owned(&self, task_ids: Vec<String>, owner: &str) -> Vec<String> {
        let mut kept = Vec::with_capacity(task_ids.len());
        for task_id in task_ids {
            if self.authorize(&task_id, owner).await.is_ok() {
                kept.push(task_id);
            }
        }
        kept
    }

    /// `tasks/get`: the task as stored.
    ///
    /// # Errors
    /// `-32602` for an unknown task, `-32603` when the store did not answer.
    pub(crate) async fn get(&self, task_id: &str) -> Result<GetTaskResult, ErrorData> {
        match self.read(task_id).await {
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
        let stored = match self.read(task_id).await {
            Ok(Some(task)) => task,
            Ok(None) => return Err(unknown_task(task_id)),
            Err(err) => return Err(store_error(&err)),
        };
        if !stored.status().is_terminal() {
            let mut task = stored.task;
            task.last_updated_at = now();
            task.status_message = Some(String::from("Cancelled by the client."));
            self.record(DetailedTask::new(task, TaskPayload::Cancelled))
                .await
                .map_err(|err| store_error(&err))?;
        }
        if let Some(running) = self.lock().remove(task_id) {
            running.token.cancel();
        }
        self.waits.forget(task_id);
        Ok(())
    }

    /// `tasks/update`: the `responses` whose keys are outstanding go to the
    /// task's handler, which resumes once none is left (the task reads
    /// `working` again; until then `input_required` with the keys still
    /// outstanding); others are ignored (SEP-2663 "Task Update Requests").
    /// Acknowledged for any known task.
    ///
    /// For a task running on another replica, the entries whose keys the
    /// stored task lists among its `inputRequests` are kept in the store
    /// ([`TaskStore::put_responses`]); the running replica takes them at its
    /// next read of the store, within one poll interval (the
    /// acknowledgement is eventually consistent, SEP-2663).
    ///
    /// # Errors
    /// `-32602` for an unknown task, `-32603` when the store did not answer.
    pub(crate) async fn update(
        &self,
        task_id: &str,
        responses: InputResponses,
    ) -> Result<(), ErrorData> {
        let stored = match self.read(task_id).await {
            Ok(Some(task)) => task,
            Ok(None) => return Err(unknown_task(task_id)),
            Err(err) => return Err(store_error(&err)),
        };
        if let TaskPayload::InputRequired { input_requests } = &stored.payload
            && let Some(refused) = input::misfit(input_requests, &responses)
        {
            return Err(refused);
        }
        if let Some(answers) = self.waits.answer(task_id, responses.clone()) {
            // Recorded before the handler resumes, so that the status
            // changes are recorded (and told) in their order.
            let seed = self.lock().get(task_id).map(|running| running.seed.clone());
            if let Some(seed) = seed {
                self.record_inputs(&seed).await;
            }
            deliver(answers);
            return Ok(());
        }
        // Running here with nothing outstanding, or ended: nothing to keep.
        if self.lock().contains_key(task_id) {
            return Ok(());
        }
        let TaskPayload::InputRequired { input_requests } = &stored.payload else {
            return Ok(());
        };
        let outstanding: InputResponses = responses
            .into_iter()
            .filter(|(key, _)| input_requests.contains_key(key))
            .collect();
        if outstanding.is_empty() {
            return Ok(());
        }
        self.store
            .put_responses(task_id, outstanding)
            .await
            .map(|_| ())
            .map_err(|err| store_error(&err))
    }

    /// Takes the `tasks/update` entries another replica kept in the store
    /// for the task `seed`, while it waits for input here, and delivers
    /// them as [`update`](Self::update) does.
    async fn take_responses(&self, seed: &Task) {
        if self.waits.outstanding(&seed.task_id).is_empty() {
            return;
        }
        match self.store.take_responses(&seed.task_id).await {
            Ok(responses) if !responses.is_empty() => {
                if let Some(answers) = self.waits.answer(&seed.task_id, responses) {
                    self.record_inputs(seed).await;
                    deliver(answers);
                }
            }
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(task_id = %seed.task_id, "a task's kept input responses were not read: {err}");
            }
        }
    }

    /// Asks the client `request` inside the task `seed` started as: the task
    /// reads `input_required` with it among its `inputRequests` until
    /// `tasks/update` answers its key; the answer.
    pub(crate) async fn ask(
        &self,
        seed: &Task,
        request: InputRequest,
    ) -> Result<Value, crate::handler::ClientFailure> {
        let (key, receiver) = self.waits.add(&seed.task_id, request);
        // Dropped with the handler's future (the task was cancelled): the
        // request is no longer outstanding.
        struct Forget<'a>(&'a Waits, &'a str, &'a str);
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                self.0.forget_key(self.1, self.2);
            }
        }
        let _forget = Forget(&self.waits, &seed.task_id, &key);
        self.record_inputs(seed).await;
        receiver.await.map_err(|_| {
            crate::handler::ClientFailure::Failed(String::from(
                "the task ended before the client answered",
            ))
        })
    }

    /// Records the input state of the running task `seed`: `input_required`
    /// with its outstanding requests, `working` when none is left.
    async fn record_inputs(&self, seed: &Task) {
        let _order = self.writes.lock().await;
        let outstanding = self.waits.outstanding(&seed.task_id);
        let payload = if outstanding.is_empty() {
            TaskPayload::Working
        } else {
            TaskPayload::InputRequired {
                input_requests: outstanding,
            }
        };
        let mut task = seed.clone();
        task.last_updated_at = now();
        if let Err(err) = self.record(DetailedTask::new(task, payload)).await {
            tracing::warn!(task_id = %seed.task_id, "a task's input state was not recorded: {err}");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
