//! Input inside a task (SEP-2663 "Task Update Requests"): a task's handler
//! asks the client through its [`CallContext`](crate::CallContext) as in a
//! direct call (`elicit`, `create_message`); here the request becomes one
//! of the task's `inputRequests` (status `input_required` on `tasks/get`),
//! and the handler resumes when `tasks/update` delivers its
//! `inputResponses` entry.
//!
//! [`TaskChannel`] is the handler's client link in a task; [`Waits`] holds
//! the outstanding requests of the tasks running on this replica.

#![allow(deprecated)] // sampling: SEP-2577 deprecates it for 2026-07-28

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest, InputRequests, InputResponses,
    ListRootsRequest, ListRootsResult, Task,
};
use serde_json::Value;
use tokio::sync::oneshot;

use super::Tasks;
use crate::handler::{ClientChannel, ClientFailure, InputRounds, LogLevel};

/// `-32602` (JSON-RPC 2.0 §5.1) for the first of `responses` whose key is
/// one of `requests` and whose value is not the result its method returns
/// (`elicitation/create`: an `ElicitResult`, `sampling/createMessage`: a
/// `CreateMessageResult`, `roots/list`: a `ListRootsResult`), phrased as an
/// input-required retry's is; `None` when every answer fits. Checked before
/// `tasks/update` is acknowledged, so that a wrong answer is the client's to
/// fix, not the task's end.
pub(crate) fn misfit(
    requests: &InputRequests,
    responses: &InputResponses,
) -> Option<rmcp::ErrorData> {
    responses.iter().find_map(|(key, value)| {
        let (what, fits) = match requests.get(key)? {
            InputRequest::Elicitation(_) => (
                "an ElicitResult",
                serde_json::from_value::<ElicitResult>(value.clone()).map(drop),
            ),
            InputRequest::CreateMessage(_) => (
                "a CreateMessageResult",
                serde_json::from_value::<CreateMessageResult>(value.clone()).map(drop),
            ),
            InputRequest::ListRoots(_) => (
                "a ListRootsResult",
                serde_json::from_value::<ListRootsResult>(value.clone()).map(drop),
            ),
            _ => return None,
        };
        let error = fits.err()?;
        Some(rmcp::ErrorData::invalid_params(
            format!(
                "inputResponses[\"{key}\"] is not {what}: {error}. Answer each input request with the result its method returns (elicitation/create: an ElicitResult, sampling/createMessage: a CreateMessageResult, roots/list: a ListRootsResult)."
            ),
            None,
        ))
    })
}

/// One outstanding request of a task, and where its answer goes.
struct Outstanding {
    request: InputRequest,
    answer: oneshot::Sender<Value>,
}

/// The outstanding input requests of the tasks running on this replica, by
/// task id, then by key (`input-1`, `input-2`, … numbered per task over its
/// life: SEP-2663 requires a key never be reused within a task).
#[derive(Default)]
pub(crate) struct Waits {
    tasks: Mutex<HashMap<String, BTreeMap<String, Outstanding>>>,
    /// The number of each running task's last key; dropped when it ends
    /// ([`Waits::forget`]).
    last_keys: Mutex<HashMap<String, u64>>,
}

impl Waits {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, BTreeMap<String, Outstanding>>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `request` to task `task_id`'s outstanding ones; its key and the
    /// receiver of its answer.
    pub(crate) fn add(
        &self,
        task_id: &str,
        request: InputRequest,
    ) -> (String, oneshot::Receiver<Value>) {
        let number = {
            let mut last_keys = self
                .last_keys
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let last = last_keys.entry(task_id.to_owned()).or_default();
            *last += 1;
            *last
        };
        let key = format!("input-{number}");
        let (answer, receiver) = oneshot::channel();
        let mut tasks = self.lock();
        let outstanding = tasks.entry(task_id.to_owned()).or_default();
        outstanding.insert(key.clone(), Outstanding { request, answer });
        (key, receiver)
    }

    /// Takes the outstanding requests of task `task_id` that `responses`
    /// answer (others are ignored, SEP-2663), each with its answer, for
    /// [`deliver`]: they are no longer outstanding. `None` when the task
    /// waits for nothing on this replica.
    pub(crate) fn answer(&self, task_id: &str, responses: InputResponses) -> Option<Answers> {
        let mut tasks = self.lock();
        let outstanding = tasks.get_mut(task_id)?;
        let mut answers = Vec::new();
        for (key, value) in responses {
            if let Some(waiting) = outstanding.remove(&key) {
                answers.push((waiting.answer, value));
            }
        }
        if outstanding.is_empty() {
            tasks.remove(task_id);
        }
        Some(Answers(answers))
    }

    /// The requests outstanding for task `task_id` now.
    pub(crate) fn outstanding(&self, task_id: &str) -> InputRequests {
        self.lock()
            .get(task_id)
            .map(requests_of)
            .unwrap_or_default()
    }

    /// Forgets the task's outstanding requests (it ended).
    pub(crate) fn forget(&self, task_id: &str) {
        self.lock().remove(task_id);
        self.last_keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(task_id);
    }

    /// Forgets one request (its handler stopped waiting).
    pub(crate) fn forget_key(&self, task_id: &str, key: &str) {
        let mut tasks = self.lock();
        if let Some(outstanding) = tasks.get_mut(task_id) {
            outstanding.remove(key);
            if outstanding.is_empty() {
                tasks.remove(task_id);
            }
        }
    }
}

/// Answers taken by [`Waits::answer`], not yet delivered to the handler.
pub(crate) struct Answers(Vec<(oneshot::Sender<Value>, Value)>);

/// Hands each answer to the handler waiting for it (which may have ended
/// meanwhile, cancelled: nobody to tell then).
pub(crate) fn deliver(answers: Answers) {
    for (waiting, value) in answers.0 {
        let _ = waiting.send(value);
    }
}

fn requests_of(outstanding: &BTreeMap<String, Outstanding>) -> InputRequests {
    outstanding
        .iter()
        .map(|(key, waiting)| (key.clone(), waiting.request.clone()))
        .collect()
}

/// The client link of a task's handler: its requests to the client become
/// the task's `inputRequests` (keyed `input-N`, never a handler's key, so
/// that no key is reused within a task, SEP-2663); progress and log
/// notifications are not sent (SEP-2663: not supported on tasks).
pub(crate) struct TaskChannel {
    pub(crate) tasks: Arc<Tasks>,
    pub(crate) seed: Task,
    /// What the request that created the task declared.
    pub(crate) capabilities: Option<ClientCapabilities>,
}

impl std::fmt::Debug for TaskChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskChannel")
            .field("task_id", &self.seed.task_id)
            .finish_non_exhaustive()
    }
}

impl TaskChannel {
    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        request: InputRequest,
    ) -> Result<T, ClientFailure> {
        let answer = self.tasks.ask(&self.seed, request).await?;
        serde_json::from_value(answer).map_err(|e| {
            ClientFailure::Failed(format!(
                "the client's inputResponses entry is not a valid result: {e}"
            ))
        })
    }
}

impl ClientChannel for TaskChannel {
    fn progress(
        &self,
        _progress: f64,
        _total: Option<f64>,
        _message: Option<String>,
    ) -> BoxFuture<'_, bool> {
        Box::pin(std::future::ready(false))
    }

    fn log(&self, _level: LogLevel, _logger: String, _data: Value) -> BoxFuture<'_, bool> {
        Box::pin(std::future::ready(false))
    }

    fn create_message(
        &self,
        _key: Option<String>,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ClientFailure>> {
        Box::pin(
            self.ask(InputRequest::CreateMessage(CreateMessageRequest::new(
                params,
            ))),
        )
    }

    fn elicit(
        &self,
        _key: Option<String>,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ClientFailure>> {
        Box::pin(self.ask(InputRequest::Elicitation(ElicitRequest::new(params))))
    }

    fn list_roots(
        &self,
        _key: Option<String>,
    ) -> BoxFuture<'_, Result<ListRootsResult, ClientFailure>> {
        Box::pin(self.ask(InputRequest::ListRoots(ListRootsRequest::default())))
    }

    fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.capabilities.clone()
    }

    fn rounds(&self) -> Option<&Arc<InputRounds>> {
        None
    }
}
