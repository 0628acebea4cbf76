//! The lease of a running task in `RedisTaskStore`, against a real
//! `redis-server`: renewed, it keeps a task `working` past several lease
//! lengths; lapsed, the task is recorded `failed` once, by one replica, and
//! a terminal task, another task, a task written without a lease and the
//! task's owner are left as they are.

use std::time::Duration;

use mcp_fusion::model::{DetailedTask, TaskPayload};
use mcp_fusion::server::tasks::{
    DEFAULT_TASK_LEASE, MemoryTaskStore, RedisTaskStore, TaskStore, lapsed_message,
};
use serde_json::json;

use crate::redis_server::Redis;
use crate::{completed, working};

fn connection(redis: &Redis) -> redis::Connection {
    redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap()
}

fn pttl(redis: &Redis, key: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(key)
        .query(&mut connection(redis))
        .unwrap()
}

/// `task` failed for its lapsed lease of 1 s, at a fixed time.
fn lapsed(task: &DetailedTask) -> DetailedTask {
    let mut base = task.task.clone();
    base.last_updated_at = String::from("2026-12-02T07:00:09.000Z");
    base.status_message = Some(lapsed_message(Duration::from_secs(1)));
    let error = serde_json::from_value(json!({
        "code": -32603,
        "message": lapsed_message(Duration::from_secs(1))
    }))
    .unwrap();
    DetailedTask::new(base, TaskPayload::Failed { error })
}

#[test]
fn the_lapsed_message_names_the_lease_in_seconds() {
    assert_eq!(
        lapsed_message(DEFAULT_TASK_LEASE),
        "The server running this task stopped before the task finished: it did not renew the task's lease within 30 seconds. Call the tool again to start a new task."
    );
    assert_eq!(
        lapsed_message(Duration::from_secs(1)),
        "The server running this task stopped before the task finished: it did not renew the task's lease within 1 second. Call the tool again to start a new task."
    );
}

#[test]
fn a_lease_is_a_whole_number_of_seconds_up_to_an_hour() {
    let store = || RedisTaskStore::new("redis://127.0.0.1:1/0").unwrap();
    assert_eq!(TaskStore::lease(&store()), Some(Duration::from_secs(30)));
    assert_eq!(TaskStore::lease(&MemoryTaskStore::new()), None);
    for seconds in [1, 3600] {
        let leased = store().lease(Duration::from_secs(seconds)).unwrap();
        assert_eq!(
            TaskStore::lease(&leased),
            Some(Duration::from_secs(seconds))
        );
    }
    for (lease, message) in [
        (
            Duration::ZERO,
            "the task lease must be a whole number of seconds from 1 to 3600, not 0 ms",
        ),
        (
            Duration::from_millis(1500),
            "the task lease must be a whole number of seconds from 1 to 3600, not 1500 ms",
        ),
        (
            Duration::from_secs(3601),
            "the task lease must be a whole number of seconds from 1 to 3600, not 3601000 ms",
        ),
    ] {
        let err = store().lease(lease).unwrap_err();
        assert_eq!(err.lease, lease);
        assert_eq!(err.to_string(), message);
    }
}

#[tokio::test]
async fn a_renewed_lease_holds_and_a_lapsed_one_fails_its_task_once() {
    let redis = Redis::start();
    let lease = Duration::from_secs(1);
    let running = RedisTaskStore::new(&redis.url())
        .unwrap()
        .lease(lease)
        .unwrap();
    let other = RedisTaskStore::new(&redis.url())
        .unwrap()
        .lease(lease)
        .unwrap();
    let (held, dead, done) = (
        working("held", Some(60_000)),
        working("dead", Some(60_000)),
        working("done", Some(60_000)),
    );
    for task in [&held, &dead, &done] {
        running
            .create(task.clone(), String::from("alice"))
            .await
            .unwrap();
    }
    assert_eq!(running.lease_key("dead"), "mcp-fusion:task:dead:lease");
    let ttl = pttl(&redis, "mcp-fusion:task:dead:lease");
    assert!((1..=1000).contains(&ttl), "PTTL {ttl}");
    assert!(running.update(completed(&done, "done")).await.unwrap());
    // Ended: its lease is gone with it.
    assert_eq!(pttl(&redis, "mcp-fusion:task:done:lease"), -2);
    let kept = [(String::from("input-1"), json!({"action": "decline"}))]
        .into_iter()
        .collect();
    assert!(other.put_responses("dead", kept).await.unwrap());

    // `held` renewed every third of its lease for three lease lengths;
    // `dead` never renewed.
    for _ in 0..9 {
        tokio::time::sleep(lease / 3).await;
        assert!(running.renew("held").await.unwrap());
    }
    assert!(!other.fail_lapsed(lapsed(&held)).await.unwrap());
    assert_eq!(other.get("held").await.unwrap(), Some(held.clone()));

    // Lapsed: recorded failed by the first replica to read it, once.
    assert!(other.fail_lapsed(lapsed(&dead)).await.unwrap());
    assert!(!running.fail_lapsed(lapsed(&dead)).await.unwrap());
    assert_eq!(
        serde_json::to_value(running.get("dead").await.unwrap().unwrap()).unwrap(),
        json!({
            "taskId": "dead",
            "status": "failed",
            "statusMessage": "The server running this task stopped before the task finished: it did not renew the task's lease within 1 second. Call the tool again to start a new task.",
            "createdAt": "2026-12-02T07:00:00.000Z",
            "lastUpdatedAt": "2026-12-02T07:00:09.000Z",
            "ttlMs": 60000,
            "pollIntervalMs": 1000,
            "error": {
                "code": -32603,
                "message": "The server running this task stopped before the task finished: it did not renew the task's lease within 1 second. Call the tool again to start a new task."
            }
        })
    );
    // Its owner, expiry and the rest are kept; its kept answers are gone;
    // a late owner neither renews nor completes it.
    assert_eq!(other.owner("dead").await.unwrap().as_deref(), Some("alice"));
    let ttl = pttl(&redis, "mcp-fusion:task:dead");
    assert!((50_000..=60_000).contains(&ttl), "PTTL {ttl}");
    assert_eq!(pttl(&redis, "mcp-fusion:task:dead:responses"), -2);
    assert!(!running.renew("dead").await.unwrap());
    assert!(!running.update(completed(&dead, "late")).await.unwrap());
    assert_eq!(
        running.get("dead").await.unwrap().unwrap().status(),
        mcp_fusion::model::TaskStatus::Failed
    );

    // A terminal task is never overwritten; nor is an unknown one created.
    assert!(!other.fail_lapsed(lapsed(&done)).await.unwrap());
    assert_eq!(
        other.get("done").await.unwrap(),
        Some(completed(&done, "done"))
    );
    assert!(
        !other
            .fail_lapsed(lapsed(&working("nope", None)))
            .await
            .unwrap()
    );
    assert_eq!(other.get("nope").await.unwrap(), None);
    assert!(!other.renew("nope").await.unwrap());
    // The renewed task runs on and ends as usual.
    assert_eq!(other.get("held").await.unwrap(), Some(held.clone()));
    assert!(running.update(completed(&held, "fine")).await.unwrap());
    assert_eq!(pttl(&redis, "mcp-fusion:task:held:lease"), -2);
}

#[tokio::test]
async fn a_task_written_without_a_lease_never_lapses() {
    let redis = Redis::start();
    let store = RedisTaskStore::new(&redis.url())
        .unwrap()
        .lease(Duration::from_secs(1))
        .unwrap();
    let task = working("old", None);
    // As a version without leases wrote it: no `lease_ms`, no lease key.
    let _: () = redis::cmd("HSET")
        .arg("mcp-fusion:task:old")
        .arg("status")
        .arg("working")
        .arg("task")
        .arg(serde_json::to_string(&task).unwrap())
        .arg("owner")
        .arg("alice")
        .query(&mut connection(&redis))
        .unwrap();
    assert!(!store.fail_lapsed(lapsed(&task)).await.unwrap());
    assert_eq!(store.get("old").await.unwrap(), Some(task));
}
