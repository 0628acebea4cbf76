//! The task stores (the Tasks extension `io.modelcontextprotocol/tasks`,
//! SEP-2663): `MemoryTaskStore` with tokio's clock paused, and
//! `RedisTaskStore` against a real `redis-server` shared by two stores as
//! two replicas would share it, and the lease of a running task there; over
//! HTTP, a task bound to its creator and an unreachable store.

#[cfg(all(feature = "http", feature = "redis"))]
mod http;
#[cfg(feature = "redis")]
mod lease;
mod memory;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
use fusion_test_support::redis_server;

use mcp_fusion::model::{DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};
use serde_json::json;

/// A `working` task `id` created at a fixed time with `ttl_ms`.
pub fn working(id: &str, ttl_ms: Option<u64>) -> DetailedTask {
    let mut task = Task::new(
        id,
        TaskStatus::Working,
        "2026-12-02T07:00:00.000Z",
        "2026-12-02T07:00:00.000Z",
    )
    .with_poll_interval_ms(1000);
    task.ttl_ms = ttl_ms;
    DetailedTask::new(task, TaskPayload::Working)
}

/// `task` ended with a one-text result `text` at a fixed time.
pub fn completed(task: &DetailedTask, text: &str) -> DetailedTask {
    let mut base = task.task.clone();
    base.last_updated_at = String::from("2026-12-02T07:00:05.000Z");
    let result: JsonObject = serde_json::from_value(json!({
        "content": [{"type": "text", "text": text}],
        "isError": false
    }))
    .unwrap();
    DetailedTask::new(base, TaskPayload::Completed { result })
}

/// `task` cancelled at a fixed time.
pub fn cancelled(task: &DetailedTask) -> DetailedTask {
    let mut base = task.task.clone();
    base.last_updated_at = String::from("2026-12-02T07:00:06.000Z");
    DetailedTask::new(base, TaskPayload::Cancelled)
}
