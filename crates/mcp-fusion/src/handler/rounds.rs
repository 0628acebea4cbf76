//! [`InputRounds`]: how a handler asks the client on MCP 2026-07-28, which has
//! no server-to-client requests ("Multi Round-Trip Requests", SEP-2322,
//! `basic/patterns/mrtr`).
//!
//! The handler is run again on each of the client's retries. Each request it
//! makes of the client (`sampling/createMessage`, `elicitation/create`,
//! `roots/list`) has a key: the one the handler names
//! ([`CallContext::ask`](super::CallContext::ask)), or `input-<n>` for the
//! n-th request of the run (from 1). A request whose key has an answer —
//! from the retry's `inputResponses`, or from an earlier round carried in the
//! signed `requestState` — gets it at once; one without an answer is recorded
//! and never completes: the call path stops the handler there and answers
//! with an `InputRequiredResult` holding every request recorded so far.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

use futures::task::AtomicWaker;
use rmcp::model::{InputRequest, InputRequests};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Why a run stopped before its handler finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It asked the client something not answered yet.
    InputRequired,
    /// An answer in `inputResponses` is not the result the request wants
    /// (the text says which key and why).
    Malformed(String),
}

#[derive(Debug, Default)]
struct Round {
    /// How many requests the handler made in this run.
    made: usize,
    /// The unanswered requests, by key.
    asked: InputRequests,
    /// The answers the handler used, by key: what the next round's
    /// `requestState` carries.
    used: Map<String, Value>,
    /// Set once the run should stop.
    stop: Option<Stop>,
    /// Set by the call path when it stopped the handler.
    stopped: bool,
}

/// The requests one 2026-07-28 `tools/call`, `prompts/get` or
/// `resources/read` makes of its client, and the answers it has.
#[derive(Debug)]
pub(crate) struct InputRounds {
    /// Every answer this run may use: the earlier rounds' (from the opened
    /// `requestState`) and this retry's `inputResponses`.
    answers: Map<String, Value>,
    round: Mutex<Round>,
    /// The call path's task, woken when a request or a malformed answer
    /// should stop it.
    waker: AtomicWaker,
}

impl InputRounds {
    /// The rounds of a request whose earlier answers are `earlier` (from its
    /// `requestState`) and whose retry brought `responses` (its
    /// `inputResponses`). An earlier answer wins over a response with the
    /// same key: a retry cannot change what an earlier round answered.
    pub(crate) fn new(earlier: Map<String, Value>, responses: BTreeMap<String, Value>) -> Self {
        let mut answers = earlier;
        for (key, value) in responses {
            answers.entry(key).or_insert(value);
        }
        InputRounds {
            answers,
            round: Mutex::default(),
            waker: AtomicWaker::new(),
        }
    }

    fn round(&self) -> std::sync::MutexGuard<'_, Round> {
        self.round
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The key of the next request: `key`, or `input-<n>`.
    fn key(&self, key: Option<String>) -> String {
        let mut round = self.round();
        round.made += 1;
        key.unwrap_or_else(|| format!("input-{}", round.made))
    }

    /// The answer to `request` under `key` (or the next `input-<n>`), read
    /// as a `T`. Without an answer (or with one that is not a `T`) the
    /// request is recorded and the future never completes: the call path
    /// stops the handler (see [`until_input`]).
    pub(crate) async fn ask<T: DeserializeOwned>(
        &self,
        key: Option<String>,
        request: InputRequest,
        what: &str,
    ) -> T {
        let key = self.key(key);
        match self.answers.get(&key) {
            Some(answer) => match serde_json::from_value::<T>(answer.clone()) {
                Ok(typed) => {
                    self.round().used.insert(key, answer.clone());
                    return typed;
                }
                Err(error) => {
                    self.round().stop.get_or_insert(Stop::Malformed(format!(
                        "inputResponses[\"{key}\"] is not {what}: {error}"
                    )));
                }
            },
            None => {
                let mut round = self.round();
                round.asked.entry(key).or_insert(request);
                round.stop.get_or_insert(Stop::InputRequired);
            }
        }
        self.waker.wake();
        std::future::pending().await
    }

    /// Why the call path stopped the handler; `None` when it finished.
    pub(crate) fn stopped(&self) -> Option<Stop> {
        let round = self.round();
        if round.stopped {
            round.stop.clone()
        } else {
            None
        }
    }

    /// The unanswered requests of the run, by key.
    pub(crate) fn asked(&self) -> InputRequests {
        self.round().asked.clone()
    }

    /// The answers the run used, by key.
    pub(crate) fn used(&self) -> Map<String, Value> {
        self.round().used.clone()
    }
}

/// `work`, stopped as soon as it waits on a request of `rounds` that has no
/// answer (`None`; [`InputRounds::stopped`] then says why). A handler that
/// makes several requests at once (`futures::join!`) has each recorded
/// before it is stopped, since they are all polled before it waits.
pub(crate) fn until_input<'a, F>(
    rounds: &'a InputRounds,
    work: F,
) -> impl Future<Output = Option<F::Output>> + 'a
where
    F: Future + 'a,
{
    let mut work = Box::pin(work);
    std::future::poll_fn(move |cx: &mut Context<'_>| {
        rounds.waker.register(cx.waker());
        if let Poll::Ready(output) = Pin::new(&mut work).poll(cx) {
            return Poll::Ready(Some(output));
        }
        let mut round = rounds.round();
        if round.stop.is_some() {
            round.stopped = true;
            return Poll::Ready(None);
        }
        Poll::Pending
    })
}

#[cfg(test)]
#[allow(deprecated)] // roots: SEP-2577 deprecates it; 2025-11-25 and 2026-07-28 clients use it
mod tests {
    use super::*;
    use rmcp::model::{ElicitResult, ListRootsRequest, ListRootsResult};
    use serde_json::json;

    fn roots_request() -> InputRequest {
        InputRequest::ListRoots(ListRootsRequest::default())
    }

    #[tokio::test]
    async fn joined_requests_are_all_recorded_before_the_stop() {
        let rounds = InputRounds::new(Map::new(), BTreeMap::new());
        let work = async {
            futures::join!(
                rounds.ask::<ListRootsResult>(None, roots_request(), "a ListRootsResult"),
                rounds.ask::<ListRootsResult>(Some("b".into()), roots_request(), "x"),
            )
        };
        assert!(until_input(&rounds, work).await.is_none());
        assert_eq!(rounds.stopped(), Some(Stop::InputRequired));
        let keys: Vec<String> = rounds.asked().into_keys().collect();
        assert_eq!(keys, ["b", "input-1"]);
    }

    #[tokio::test]
    async fn an_answer_that_is_not_the_result_stops_the_run() {
        let responses = BTreeMap::from([(String::from("name"), json!(12345))]);
        let rounds = InputRounds::new(Map::new(), responses);
        let work =
            rounds.ask::<ElicitResult>(Some("name".into()), roots_request(), "an ElicitResult");
        assert!(until_input(&rounds, work).await.is_none());
        let Some(Stop::Malformed(text)) = rounds.stopped() else {
            panic!("not malformed: {:?}", rounds.stopped());
        };
        assert!(
            text.starts_with("inputResponses[\"name\"] is not an ElicitResult: "),
            "{text}"
        );
    }

    #[tokio::test]
    async fn an_earlier_answer_wins_and_is_carried_on() {
        let earlier = Map::from_iter([(String::from("input-1"), json!({"roots": []}))]);
        let responses = BTreeMap::from([(
            String::from("input-1"),
            json!({"roots": [{"uri": "file:///x"}]}),
        )]);
        let rounds = InputRounds::new(earlier, responses);
        let roots: Option<ListRootsResult> = until_input(
            &rounds,
            rounds.ask::<ListRootsResult>(None, roots_request(), "a ListRootsResult"),
        )
        .await;
        assert_eq!(roots.map(|r| r.roots.len()), Some(0));
        assert_eq!(rounds.stopped(), None);
        assert_eq!(
            rounds.used(),
            Map::from_iter([(String::from("input-1"), json!({"roots": []}))])
        );
    }
}
