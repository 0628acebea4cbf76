//! `MemoryTaskStore`: what it keeps, for how long, whom each task belongs to, and
//! what it drops first (never a task still running: a new one is refused).

use std::time::Duration;

use mcp_fusion::server::tasks::{MemoryTaskStore, TaskStore, TaskStoreError};
use serde_json::json;

use crate::{cancelled, completed, working};

#[tokio::test]
async fn a_created_task_reads_back_as_tasks_get_shows_it() {
    let store = MemoryTaskStore::new();
    store
        .create(working("t1", Some(60_000)), String::from("alice"))
        .await
        .unwrap();
    let read = store.get("t1").await.unwrap().unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        json!({
            "taskId": "t1",
            "status": "working",
            "createdAt": "2026-12-02T07:00:00.000Z",
            "lastUpdatedAt": "2026-12-02T07:00:00.000Z",
            "ttlMs": 60000,
            "pollIntervalMs": 1000
        })
    );
    assert!(store.get("t2").await.unwrap().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_task_is_kept_exactly_its_ttl() {
    let store = MemoryTaskStore::new();
    store
        .create(working("t1", Some(60_000)), String::from("alice"))
        .await
        .unwrap();
    store
        .create(working("forever", None), String::from("alice"))
        .await
        .unwrap();
    tokio::time::advance(Duration::from_millis(59_999)).await;
    assert!(store.get("t1").await.unwrap().is_some());
    tokio::time::advance(Duration::from_millis(1)).await;
    assert!(store.get("t1").await.unwrap().is_none());
    // Past its TTL it cannot be changed either.
    let task = working("t1", Some(60_000));
    assert!(!store.update(completed(&task, "late")).await.unwrap());
    // `ttlMs: null`: kept.
    tokio::time::advance(Duration::from_secs(86_400)).await;
    assert_eq!(
        store.get("forever").await.unwrap().unwrap().task.task_id,
        "forever"
    );
}

#[tokio::test]
async fn a_terminal_task_never_changes_again() {
    let store = MemoryTaskStore::new();
    let task = working("t1", Some(60_000));
    store
        .create(task.clone(), String::from("alice"))
        .await
        .unwrap();
    assert!(store.update(completed(&task, "done")).await.unwrap());
    // A cancel after the result, and a second result, are dropped.
    assert!(!store.update(cancelled(&task)).await.unwrap());
    assert!(!store.update(completed(&task, "again")).await.unwrap());
    let read = serde_json::to_value(store.get("t1").await.unwrap().unwrap()).unwrap();
    assert_eq!(read["status"], "completed");
    assert_eq!(read["lastUpdatedAt"], "2026-12-02T07:00:05.000Z");
    assert_eq!(
        read["result"],
        json!({"content": [{"type": "text", "text": "done"}], "isError": false})
    );
    // And a result after a cancel.
    let other = working("t2", Some(60_000));
    store
        .create(other.clone(), String::from("alice"))
        .await
        .unwrap();
    assert!(store.update(cancelled(&other)).await.unwrap());
    assert!(!store.update(completed(&other, "late")).await.unwrap());
    let read = serde_json::to_value(store.get("t2").await.unwrap().unwrap()).unwrap();
    assert_eq!(read["status"], "cancelled");
    assert_eq!(read.get("result"), None);
    // An unknown task is not created by an update.
    assert!(
        !store
            .update(completed(&working("t3", None), "x"))
            .await
            .unwrap()
    );
    assert!(store.get("t3").await.unwrap().is_none());
}

#[tokio::test]
async fn past_its_bound_the_oldest_terminal_task_goes_and_a_running_one_never() {
    let store = MemoryTaskStore::new().max_tasks(2);
    let first = working("first", None);
    store
        .create(working("running", None), String::from("alice"))
        .await
        .unwrap();
    store
        .create(first.clone(), String::from("alice"))
        .await
        .unwrap();
    store.update(completed(&first, "done")).await.unwrap();
    store
        .create(working("third", None), String::from("bob"))
        .await
        .unwrap();
    assert_eq!(store.len(), 2);
    assert!(store.get("first").await.unwrap().is_none());
    assert!(store.get("running").await.unwrap().is_some());
    assert!(store.get("third").await.unwrap().is_some());
    // No terminal one left: the new one is refused, no running one goes.
    let full = store
        .create(working("fourth", None), String::from("mallory"))
        .await
        .unwrap_err();
    assert_eq!(
        full.to_string(),
        "the task store is full: it holds 2 tasks, none of them finished"
    );
    assert!(matches!(full, TaskStoreError::Full { max: 2 }));
    assert_eq!(store.len(), 2);
    assert_eq!(
        store.owner("running").await.unwrap().as_deref(),
        Some("alice")
    );
    assert_eq!(store.owner("third").await.unwrap().as_deref(), Some("bob"));
    assert!(store.get("fourth").await.unwrap().is_none());
    assert_eq!(store.owner("fourth").await.unwrap(), None);
    // Once one ends, it makes room.
    let third = store.get("third").await.unwrap().unwrap();
    store.update(completed(&third, "done")).await.unwrap();
    store
        .create(working("fourth", None), String::from("mallory"))
        .await
        .unwrap();
    assert!(store.get("third").await.unwrap().is_none());
    assert_eq!(
        store.owner("fourth").await.unwrap().as_deref(),
        Some("mallory")
    );
}

#[tokio::test]
async fn kept_input_responses_are_taken_once_and_go_with_the_task() {
    let store = MemoryTaskStore::new();
    let task = working("t1", Some(60_000));
    store
        .create(task.clone(), String::from("alice"))
        .await
        .unwrap();
    let responses = [
        (
            String::from("input-1"),
            json!({"action": "accept", "content": {"confirm": true}}),
        ),
        (String::from("input-2"), json!({"action": "decline"})),
    ]
    .into_iter()
    .collect();
    assert!(store.put_responses("t1", responses).await.unwrap());
    let later = [(String::from("input-2"), json!({"action": "cancel"}))]
        .into_iter()
        .collect();
    assert!(store.put_responses("t1", later).await.unwrap());
    assert_eq!(
        serde_json::to_value(store.take_responses("t1").await.unwrap()).unwrap(),
        json!({
            "input-1": {"action": "accept", "content": {"confirm": true}},
            "input-2": {"action": "cancel"}
        })
    );
    assert!(store.take_responses("t1").await.unwrap().is_empty());
    // Kept entries go when the task ends; none is kept for an ended or
    // unknown task.
    let pending = [(String::from("input-3"), json!({"action": "decline"}))]
        .into_iter()
        .collect::<mcp_fusion::model::InputResponses>();
    assert!(store.put_responses("t1", pending.clone()).await.unwrap());
    assert!(store.update(completed(&task, "done")).await.unwrap());
    assert!(store.take_responses("t1").await.unwrap().is_empty());
    assert!(!store.put_responses("t1", pending.clone()).await.unwrap());
    assert!(!store.put_responses("nope", pending).await.unwrap());
    assert!(store.take_responses("nope").await.unwrap().is_empty());
}
