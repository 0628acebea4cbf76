//! The task table's tests: creating, reading, cancelling and answering
//! tasks (on one replica, and across two sharing a store), and the exact
//! refusals when a caller or the store has no room.

use std::sync::Arc;

use rmcp::model::{ErrorCode, InputResponses, TaskPayload};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{MemoryTaskStore, NotCreated, Tasks};

fn tasks() -> Tasks {
    Tasks::new(
        Arc::new(MemoryTaskStore::new()),
        Some(std::time::Duration::from_secs(60)),
        std::time::Duration::from_millis(500),
        Default::default(),
    )
}

#[tokio::test]
async fn an_unknown_task_is_invalid_params() {
    let tasks = tasks();
    for err in [
        tasks.get("nope").await.unwrap_err(),
        tasks.cancel("nope").await.unwrap_err(),
        tasks.update("nope", Default::default()).await.unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            err.message,
            "Unknown task \"nope\": no task has this id, or its ttlMs has passed. Call the tool again to start a new task."
        );
        assert_eq!(err.data, Some(json!({"taskId": "nope"})));
    }
}

#[tokio::test]
async fn a_created_task_is_working_with_its_ttl_and_poll_interval() {
    let tasks = tasks();
    let (seed, token) = tasks.create("t", "me").await.unwrap();
    assert!(!token.is_cancelled());
    let read = serde_json::to_value(tasks.get(&seed.task_id).await.unwrap()).unwrap();
    assert_eq!(read["resultType"], "complete");
    assert_eq!(read["taskId"], json!(seed.task_id));
    assert_eq!(read["status"], "working");
    assert_eq!(read["ttlMs"], 60_000);
    assert_eq!(read["pollIntervalMs"], 500);
    assert_eq!(read["createdAt"], read["lastUpdatedAt"]);
    assert!(humantime::parse_rfc3339(read["createdAt"].as_str().unwrap()).is_ok());
}

/// Two replicas sharing one memory store, polling it every 500 ms.
fn two_replicas() -> (Tasks, Tasks) {
    let store: Arc<dyn super::TaskStore> = Arc::new(MemoryTaskStore::new());
    let replica = |store| {
        Tasks::new(
            store,
            None,
            std::time::Duration::from_millis(500),
            Default::default(),
        )
    };
    (replica(Arc::clone(&store)), replica(store))
}

#[tokio::test(start_paused = true)]
async fn a_cancel_recorded_by_another_replica_reaches_the_handler_here() {
    let (here, elsewhere) = two_replicas();
    let (seed, token) = here.create("t", "me").await.unwrap();
    let watching = async { here.watch(&seed, &token).await };
    let cancelling = async {
        elsewhere.cancel(&seed.task_id).await.unwrap();
    };
    // The other replica's cancel records it; the next read of the store
    // here (paused clock: 500 ms later) cancels the handler's token.
    tokio::join!(watching, cancelling);
    assert!(token.is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn an_answer_sent_to_another_replica_reaches_the_handler_here() {
    let (here, elsewhere) = two_replicas();
    let (seed, token) = here.create("t", "me").await.unwrap();
    let request = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Delete a.txt?",
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}
        }
    }))
    .unwrap();
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    let asking = here.ask(&seed, request);
    let answering = async {
        // The request is stored before the handler waits on it.
        let read = serde_json::to_value(elsewhere.get(&seed.task_id).await.unwrap()).unwrap();
        assert_eq!(read["status"], "input_required");
        assert_eq!(
            read["inputRequests"]["input-1"]["params"]["message"],
            "Delete a.txt?"
        );
        // Sent to the other replica: kept in the store, the key never
        // issued dropped; the task stays input_required until the
        // running replica takes it.
        let responses = [
            (String::from("input-1"), answer.clone()),
            (String::from("input-9"), json!({"action": "decline"})),
        ]
        .into_iter()
        .collect();
        elsewhere.update(&seed.task_id, responses).await.unwrap();
        let read = serde_json::to_value(elsewhere.get(&seed.task_id).await.unwrap()).unwrap();
        assert_eq!(read["status"], "input_required");
    };
    // The running replica's next read of the store (paused clock: 500 ms
    // later) delivers the answer to the handler here.
    let ((asked, ()), ()) = tokio::select! {
        joined = async { tokio::join!(asking, answering) } => (joined, ()),
        () = here.watch(&seed, &token) => panic!("the watch ended before the answer"),
    };
    assert_eq!(asked.unwrap(), answer);
    let read = serde_json::to_value(here.get(&seed.task_id).await.unwrap()).unwrap();
    assert_eq!(read["status"], "working");
    assert_eq!(read.get("inputRequests"), None);
}

#[tokio::test]
async fn cancel_reaches_the_handler_and_a_finished_task_stays_completed() {
    let tasks = tasks();
    let (running, token) = tasks.create("t", "me").await.unwrap();
    tasks.cancel(&running.task_id).await.unwrap();
    assert!(token.is_cancelled());
    let read = serde_json::to_value(tasks.get(&running.task_id).await.unwrap()).unwrap();
    assert_eq!(read["status"], "cancelled");
    assert_eq!(read["statusMessage"], "Cancelled by the client.");

    let (finished, token) = tasks.create("t", "me").await.unwrap();
    let result = serde_json::from_value(json!({
        "content": [{"type": "text", "text": "done"}],
        "isError": false
    }))
    .unwrap();
    tasks
        .settle(&finished, TaskPayload::Completed { result })
        .await;
    // The same acknowledgement; the task stays completed.
    tasks.cancel(&finished.task_id).await.unwrap();
    assert!(!token.is_cancelled());
    let read = serde_json::to_value(tasks.get(&finished.task_id).await.unwrap()).unwrap();
    assert_eq!(read["status"], "completed");
    assert_eq!(read["result"]["content"][0]["text"], "done");
}

fn busy(outcome: Result<(rmcp::model::Task, CancellationToken), NotCreated>) -> String {
    match outcome {
        Err(NotCreated::Busy(error)) => crate::envelope::render(&error),
        other => panic!("not refused as busy: {other:?}"),
    }
}

#[tokio::test]
async fn a_caller_past_its_running_tasks_is_refused_and_others_are_not() {
    let tasks = tasks().max_per_caller(2);
    let (first, _) = tasks.create("report", "subject:alice").await.unwrap();
    tasks.create("report", "subject:alice").await.unwrap();
    assert_eq!(
        busy(tasks.create("report", "subject:alice").await),
        "<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>report was not started: this caller already has 2 tasks running, the most it may have at once.</message>\n  <recovery>Wait until one of your tasks ends (tasks/get), or cancel one you no longer need (tasks/cancel), then call again.</recovery>\n  <retry_after>5 seconds</retry_after>\n</tool_error>"
    );
    // Another caller is not held back by alice's tasks.
    tasks.create("report", "subject:bob").await.unwrap();
    // One of alice's ends: she may start one again.
    tasks.cancel(&first.task_id).await.unwrap();
    tasks.create("report", "subject:alice").await.unwrap();
}

#[tokio::test]
async fn a_full_store_refuses_a_task_and_keeps_the_running_ones() {
    let tasks = Tasks::new(
        Arc::new(MemoryTaskStore::new().max_tasks(1)),
        None,
        std::time::Duration::from_millis(500),
        Default::default(),
    );
    let (running, token) = tasks.create("report", "subject:alice").await.unwrap();
    assert_eq!(
        busy(tasks.create("report", "subject:bob").await),
        "<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>report was not started: the server holds 1 task, not finished, and takes no new one until some end.</message>\n  <recovery>Call again in a few seconds, once some tasks have ended.</recovery>\n  <retry_after>5 seconds</retry_after>\n</tool_error>"
    );
    // The refused task left nothing running; alice's task is intact.
    assert_eq!(tasks.lock().len(), 1);
    assert!(!token.is_cancelled());
    let read = serde_json::to_value(tasks.get(&running.task_id).await.unwrap()).unwrap();
    assert_eq!(read["status"], "working");
    tasks
        .authorize(&running.task_id, "subject:alice")
        .await
        .unwrap();
}

#[tokio::test]
async fn another_owner_is_answered_as_for_a_task_that_does_not_exist() {
    let tasks = tasks();
    let (seed, _) = tasks.create("report", "subject:alice").await.unwrap();
    let id = &seed.task_id;
    tasks.authorize(id, "subject:alice").await.unwrap();
    for stranger in ["subject:bob", "address:127.0.0.1", "alice"] {
        let err = tasks.authorize(id, stranger).await.unwrap_err();
        let unknown = super::unknown_task(id);
        assert_eq!(
            (err.code, &err.message, &err.data),
            (unknown.code, &unknown.message, &unknown.data)
        );
    }
    assert_eq!(
        super::owner_key(
            Some(&crate::handler::Principal::new("alice", ["a"])),
            "session:1"
        ),
        "subject:alice"
    );
    assert_eq!(super::owner_key(None, "session:1"), "session:1");
}

#[tokio::test]
#[allow(deprecated)] // roots: SEP-2577 deprecates it for 2026-07-28
async fn input_keys_are_numbered_per_task_from_one() {
    let tasks = tasks();
    let ask = || rmcp::model::InputRequest::ListRoots(rmcp::model::ListRootsRequest::default());
    let (one, _) = tasks.create("t", "me").await.unwrap();
    let (two, _) = tasks.create("t", "me").await.unwrap();
    let keys = |task_id: &str| -> Vec<String> {
        tasks.waits.outstanding(task_id).keys().cloned().collect()
    };
    let (a, _a) = tasks.waits.add(&one.task_id, ask());
    let (b, _b) = tasks.waits.add(&one.task_id, ask());
    let (c, _c) = tasks.waits.add(&two.task_id, ask());
    assert_eq!(
        (a.as_str(), b.as_str(), c.as_str()),
        ("input-1", "input-2", "input-1")
    );
    assert_eq!(keys(&one.task_id), ["input-1", "input-2"]);
    // Answered: the task's next key is still new within it.
    let mut responses = InputResponses::default();
    responses.insert(a.clone(), json!({"roots": []}));
    responses.insert(b.clone(), json!({"roots": []}));
    assert!(tasks.waits.answer(&one.task_id, responses).is_some());
    let (d, _d) = tasks.waits.add(&one.task_id, ask());
    assert_eq!(d, "input-3");
}
