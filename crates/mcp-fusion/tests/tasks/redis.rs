//! `RedisTaskStore` against a real `redis-server`: a task written through
//! one store (one replica) is read, completed and cancelled through
//! another, with the owner it was created by; its key expires `ttlMs` after creation; a terminal task never
//! changes; Redis down is `TaskStoreError::Unavailable`.

use std::time::Duration;

use mcp_fusion::server::tasks::{RedisTaskStore, TaskStore, TaskStoreError};
use serde_json::json;

use crate::redis_server::Redis;
use crate::{cancelled, completed, working};

fn pttl(redis: &Redis, key: &str) -> i64 {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    redis::cmd("PTTL").arg(key).query(&mut conn).unwrap()
}

fn status(redis: &Redis, key: &str) -> Option<String> {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    redis::cmd("HGET")
        .arg(key)
        .arg("status")
        .query(&mut conn)
        .unwrap()
}

#[tokio::test]
async fn a_task_created_on_one_replica_is_read_and_ended_on_another() {
    let redis = Redis::start();
    let one = RedisTaskStore::new(&redis.url()).unwrap();
    let other = RedisTaskStore::new(&redis.url()).unwrap();
    let task = working("t1", Some(60_000));
    one.create(task.clone(), String::from("alice"))
        .await
        .unwrap();
    assert_eq!(one.key("t1"), "mcp-fusion:task:t1");
    // Bound to its creator, read on any replica (the Tasks extension,
    // "Auth binding").
    assert_eq!(other.owner("t1").await.unwrap().as_deref(), Some("alice"));
    assert_eq!(other.owner("t2").await.unwrap(), None);
    assert_eq!(
        status(&redis, "mcp-fusion:task:t1").as_deref(),
        Some("working")
    );
    let ttl = pttl(&redis, "mcp-fusion:task:t1");
    assert!((59_000..=60_000).contains(&ttl), "PTTL {ttl}");
    assert_eq!(
        serde_json::to_value(other.get("t1").await.unwrap().unwrap()).unwrap(),
        json!({
            "taskId": "t1",
            "status": "working",
            "createdAt": "2026-12-02T07:00:00.000Z",
            "lastUpdatedAt": "2026-12-02T07:00:00.000Z",
            "ttlMs": 60000,
            "pollIntervalMs": 1000
        })
    );
    // Completed through the other one; its expiry is kept.
    assert!(other.update(completed(&task, "done")).await.unwrap());
    assert_eq!(
        status(&redis, "mcp-fusion:task:t1").as_deref(),
        Some("completed")
    );
    let ttl = pttl(&redis, "mcp-fusion:task:t1");
    assert!((59_000..=60_000).contains(&ttl), "PTTL {ttl}");
    let read = serde_json::to_value(one.get("t1").await.unwrap().unwrap()).unwrap();
    assert_eq!(read["status"], "completed");
    assert_eq!(
        read["result"],
        json!({"content": [{"type": "text", "text": "done"}], "isError": false})
    );
    // A cancel of the finished task is dropped.
    assert!(!one.update(cancelled(&task)).await.unwrap());
    assert_eq!(
        status(&redis, "mcp-fusion:task:t1").as_deref(),
        Some("completed")
    );
    // Unknown: none, and an update does not create it.
    assert!(one.get("nope").await.unwrap().is_none());
    assert!(
        !one.update(completed(&working("nope", None), "x"))
            .await
            .unwrap()
    );
    assert!(one.get("nope").await.unwrap().is_none());
}

#[tokio::test]
async fn a_cancel_recorded_on_one_replica_drops_the_result_of_the_other() {
    let redis = Redis::start();
    let running = RedisTaskStore::new(&redis.url()).unwrap().prefix("p:");
    let other = RedisTaskStore::new(&redis.url()).unwrap().prefix("p:");
    let task = working("t1", None);
    running
        .create(task.clone(), String::from("alice"))
        .await
        .unwrap();
    // `ttlMs: null`: no expiry.
    assert_eq!(pttl(&redis, "p:t1"), -1);
    assert!(other.update(cancelled(&task)).await.unwrap());
    assert!(!running.update(completed(&task, "late")).await.unwrap());
    let read = serde_json::to_value(running.get("t1").await.unwrap().unwrap()).unwrap();
    assert_eq!(read["status"], "cancelled");
    assert_eq!(read["lastUpdatedAt"], "2026-12-02T07:00:06.000Z");
    assert_eq!(read.get("result"), None);
}

#[tokio::test]
async fn redis_down_is_unavailable() {
    let redis = Redis::start();
    let store = RedisTaskStore::new(&redis.url())
        .unwrap()
        .timeout(Duration::from_millis(300));
    store
        .create(working("t1", Some(60_000)), String::from("alice"))
        .await
        .unwrap();
    redis.stop();
    let err = store.get("t1").await.unwrap_err();
    assert!(matches!(err, TaskStoreError::Unavailable { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("the task store is unavailable: "),
        "{err}"
    );
}

#[tokio::test]
async fn input_responses_kept_by_one_replica_are_taken_once_by_the_other() {
    let redis = Redis::start();
    let running = RedisTaskStore::new(&redis.url()).unwrap();
    let other = RedisTaskStore::new(&redis.url()).unwrap();
    let task = working("t1", Some(60_000));
    running
        .create(task.clone(), String::from("alice"))
        .await
        .unwrap();
    assert_eq!(other.responses_key("t1"), "mcp-fusion:task:t1:responses");
    let responses = [
        (
            String::from("input-1"),
            json!({"action": "accept", "content": {"confirm": true}}),
        ),
        (String::from("input-2"), json!({"action": "decline"})),
    ]
    .into_iter()
    .collect();
    assert!(other.put_responses("t1", responses).await.unwrap());
    // They expire with the task.
    let ttl = pttl(&redis, "mcp-fusion:task:t1:responses");
    assert!((59_000..=60_000).contains(&ttl), "PTTL {ttl}");
    assert_eq!(
        serde_json::to_value(running.take_responses("t1").await.unwrap()).unwrap(),
        json!({
            "input-1": {"action": "accept", "content": {"confirm": true}},
            "input-2": {"action": "decline"}
        })
    );
    assert!(running.take_responses("t1").await.unwrap().is_empty());
    assert_eq!(pttl(&redis, "mcp-fusion:task:t1:responses"), -2);
    // Deleted when the task ends; none kept for an ended or unknown task.
    let pending = [(String::from("input-3"), json!({"action": "cancel"}))]
        .into_iter()
        .collect::<mcp_fusion::model::InputResponses>();
    assert!(other.put_responses("t1", pending.clone()).await.unwrap());
    assert!(running.update(completed(&task, "done")).await.unwrap());
    assert_eq!(pttl(&redis, "mcp-fusion:task:t1:responses"), -2);
    assert!(!other.put_responses("t1", pending.clone()).await.unwrap());
    assert!(!other.put_responses("nope", pending).await.unwrap());
    assert!(running.take_responses("nope").await.unwrap().is_empty());
}
