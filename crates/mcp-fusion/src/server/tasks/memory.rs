//! [`MemoryTaskStore`]: the tasks of one process, in memory, bounded, each
//! kept until its TTL.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{DetailedTask, InputResponses};
use tokio::time::Instant;

use super::store::{TaskStore, TaskStoreError};

/// The default most tasks a [`MemoryTaskStore`] keeps.
pub const DEFAULT_MAX_TASKS: usize = 10_000;

struct Entry {
    task: DetailedTask,
    /// Who created it ([`TaskStore::create`]).
    owner: String,
    /// When its `ttlMs` has passed; `None` for `ttlMs: null`.
    expires: Option<Instant>,
    /// Its creation's rank, for evicting the oldest first.
    created: u64,
    /// `tasks/update` entries kept for the replica running it.
    responses: InputResponses,
}

#[derive(Default)]
struct Table {
    entries: HashMap<String, Entry>,
    next: u64,
}

/// Tasks in this process's memory (the default [`TaskStore`]): a task is
/// seen only by the replica that created it, and gone on restart. It keeps
/// no lease ([`TaskStore::lease`] is `None`): a task in memory dies with the
/// process running it, so no other replica can find it stuck `working`.
///
/// Holds at most [`max_tasks`](Self::max_tasks) tasks (default
/// [`DEFAULT_MAX_TASKS`]): a new one past it first drops those whose TTL has
/// passed, then the oldest terminal ones; a task not yet terminal is never
/// dropped: when all are, the new one is refused
/// ([`TaskStoreError::Full`]; the `tools/call` is answered `SERVER_BUSY`).
/// A task whose `ttlMs` (from its creation) has passed is not found. Times
/// are tokio's clock (`tokio::time::Instant`).
///
/// Memory: a task holds its status and, once ended, its `CallToolResult`
/// or error; never its arguments (those live only while its handler runs,
/// bounded by the HTTP body limit,
/// `HttpOptions::max_body_bytes` (feature `http`), 4 MiB by
/// default). So the store holds at most `max_tasks` results, each as large
/// as its handler made it.
pub struct MemoryTaskStore {
    table: Mutex<Table>,
    max_tasks: usize,
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new()
    }
}

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("max_tasks", &self.max_tasks)
            .finish_non_exhaustive()
    }
}

impl MemoryTaskStore {
    /// An empty store holding at most [`DEFAULT_MAX_TASKS`] tasks.
    pub fn new() -> Self {
        MemoryTaskStore {
            table: Mutex::new(Table::default()),
            max_tasks: DEFAULT_MAX_TASKS,
        }
    }

    /// At most `max` tasks (at least 1), those not yet terminal included:
    /// past it a new task is refused ([`TaskStoreError::Full`]).
    pub fn max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max.max(1);
        self
    }

    /// How many tasks it holds, those past their TTL included until the
    /// next creation drops them.
    pub fn len(&self) -> usize {
        self.table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entries
            .len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn insert(&self, task: DetailedTask, owner: String) -> Result<(), TaskStoreError> {
        let now = Instant::now();
        let expires = task.task.ttl_ms.map(|ms| now + Duration::from_millis(ms));
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if table.entries.len() >= self.max_tasks {
            table
                .entries
                .retain(|_, entry| entry.expires.is_none_or(|at| at > now));
        }
        while table.entries.len() >= self.max_tasks {
            let oldest = table
                .entries
                .iter()
                .filter(|(_, entry)| entry.task.status().is_terminal())
                .min_by_key(|(_, entry)| entry.created)
                .map(|(id, _)| id.clone());
            match oldest {
                Some(id) => table.entries.remove(&id),
                None => {
                    return Err(TaskStoreError::Full {
                        max: self.max_tasks,
                    });
                }
            };
        }
        let created = table.next;
        table.next += 1;
        table.entries.insert(
            task.task.task_id.clone(),
            Entry {
                task,
                owner,
                expires,
                created,
                responses: InputResponses::new(),
            },
        );
        Ok(())
    }

    fn find<T>(&self, task_id: &str, read: impl FnOnce(&Entry) -> T) -> Option<T> {
        let table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = table.entries.get(task_id)?;
        if entry.expires.is_some_and(|at| at <= Instant::now()) {
            return None;
        }
        Some(read(entry))
    }

    fn replace(&self, task: DetailedTask) -> bool {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(entry) = table.entries.get_mut(&task.task.task_id) else {
            return false;
        };
        if entry.task.status().is_terminal() || entry.expires.is_some_and(|at| at <= Instant::now())
        {
            return false;
        }
        if task.status().is_terminal() {
            entry.responses.clear();
        }
        entry.task = task;
        true
    }

    fn keep(&self, task_id: &str, responses: InputResponses) -> bool {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(entry) = table.entries.get_mut(task_id) else {
            return false;
        };
        if entry.task.status().is_terminal() || entry.expires.is_some_and(|at| at <= Instant::now())
        {
            return false;
        }
        entry.responses.extend(responses);
        true
    }

    fn take(&self, task_id: &str) -> InputResponses {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        table
            .entries
            .get_mut(task_id)
            .map(|entry| std::mem::take(&mut entry.responses))
            .unwrap_or_default()
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(
        &self,
        task: DetailedTask,
        owner: String,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(std::future::ready(self.insert(task, owner)))
    }

    fn owner<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(
            self.find(task_id, |entry| entry.owner.clone())
        )))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(
            self.find(task_id, |entry| entry.task.clone())
        )))
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(self.replace(task))))
    }

    fn put_responses<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(self.keep(task_id, responses))))
    }

    fn take_responses<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(self.take(task_id))))
    }
}
