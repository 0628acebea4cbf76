//! Two `fusion serve` processes sharing a task store in a real Redis
//! (`--task-store redis://… --task-lease-seconds 2`): a task whose server is
//! killed (SIGKILL) reads `failed` on the other one once its lease lapsed,
//! and a client listening there for another one hears it fail without
//! polling; while their server runs, the leases are renewed and the tasks
//! stay `working`.

use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use serde_json::{Value, json};

use crate::redis_server::Redis;
use crate::support::HttpServer;

/// The status message of a task whose server stopped, with a 2 s lease.
const LAPSED: &str = "The server running this task stopped before the task finished: it did not renew the task's lease within 2 seconds. Call the tool again to start a new task.";

/// The `_meta` of a 2026-07-28 request declaring the tasks extension.
fn tasks_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    })
}

/// POSTs `method` with `params` (and the tasks `_meta`) to `url` as a
/// stateless 2026-07-28 request, `Mcp-Name` `name` when given; fails the
/// test on an answer other than 200.
async fn post(url: &str, method: &str, name: Option<&str>, mut params: Value) -> reqwest::Response {
    params["_meta"] = tasks_meta();
    let headers: Vec<(&str, &str)> = name.map(|name| ("mcp-name", name)).into_iter().collect();
    let response = fusion_test_support::stateless::post(url, 1, method, params, &headers).await;
    if response.status().as_u16() != 200 {
        panic!(
            "{method}: {} {}",
            response.status(),
            response.text().await.unwrap_or_default()
        );
    }
    response
}

/// The JSON-RPC messages of an SSE answer, read as they arrive.
struct Messages(BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>);

impl Messages {
    fn of(response: reqwest::Response) -> Self {
        let chunks = futures::stream::unfold(response, |mut response| async move {
            response
                .chunk()
                .await
                .transpose()
                .map(|chunk| (chunk, response))
        });
        Messages(sse_stream::SseStream::from_bytes_stream(chunks).boxed())
    }

    /// The next message (a hang guard of 10 s fails the test rather than
    /// blocking the run).
    async fn next(&mut self) -> Value {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), self.0.next())
                .await
                .expect("a message within 10 s")
                .expect("the stream is open")
                .expect("an SSE event");
            if let Some(data) = event.data.filter(|data| !data.trim().is_empty()) {
                return serde_json::from_str(&data).expect("a JSON-RPC message");
            }
        }
    }
}

/// One JSON-RPC answer's `result` (a JSON body, or the first message of an
/// SSE stream).
async fn result(response: reqwest::Response) -> Value {
    let json = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    let message: Value = if json {
        serde_json::from_str(&response.text().await.unwrap()).unwrap()
    } else {
        Messages::of(response).next().await
    };
    message
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("no result: {message}"))
}

async fn get(url: &str, task_id: &str) -> Value {
    result(post(url, "tasks/get", Some(task_id), json!({"taskId": task_id})).await).await
}

/// `value` without its timestamps, each checked to be an RFC 3339 UTC one.
fn without_timestamps(mut value: Value) -> Value {
    fusion_test_support::tasks::take_timestamps(value.as_object_mut().expect("an object"));
    value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_was_killed_reads_failed_on_the_other_after_its_lease() {
    let redis = Redis::start();
    let url = redis.url();
    let options = ["--task-store", &url, "--task-lease-seconds", "2"];
    let mut one = HttpServer::start_example_with("conformance", &options);
    let other = HttpServer::start_example_with("conformance", &options);
    assert!(
        one.banner.iter().any(|line| line.contains(&format!(
            "tasks: kept in Redis at {url}, each running task's lease 2 s"
        ))),
        "{:?}",
        one.banner
    );
    let polled = start(&one.url, 600).await;
    let heard = start(&one.url, 600).await;
    // Another task, ended before the kill: left as it is.
    let quick = start(&one.url, 0).await;

    // A client listening on the other replica for `heard` (it never polls it).
    let listen = post(
        &other.url,
        "subscriptions/listen",
        None,
        json!({"notifications": {"taskIds": [heard]}}),
    )
    .await;
    let mut stream = Messages::of(listen);
    assert_eq!(
        stream.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );

    // Over two lease lengths: its server renews the leases (every 2/3 s),
    // the tasks work on.
    tokio::time::sleep(Duration::from_millis(4500)).await;
    assert_eq!(get(&other.url, &polled).await["status"], "working");
    let done = get(&other.url, &quick).await;
    assert_eq!(done["status"], "completed");

    one.kill();
    // Past the lease (2 s after the last renewal): tasks/get on the other
    // replica records it failed.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let failed = get(&other.url, &polled).await;
    assert_eq!(
        without_timestamps(failed.clone()),
        json!({
            "resultType": "complete",
            "taskId": polled,
            "status": "failed",
            "statusMessage": LAPSED,
            "ttlMs": 3_600_000,
            "pollIntervalMs": 1000,
            "error": {"code": -32603, "message": LAPSED}
        })
    );
    // The listening client hears `heard` fail (its replica reads the tasks
    // its streams name every half lease), as tasks/get then answers it.
    let told = stream.next().await;
    assert_eq!(told["method"], "notifications/tasks");
    let mut params = told["params"].clone();
    params.as_object_mut().unwrap().remove("_meta");
    let mut answered = get(&other.url, &heard).await;
    assert_eq!(
        answered.as_object_mut().unwrap().remove("resultType"),
        Some(json!("complete"))
    );
    assert_eq!(params, answered);
    assert_eq!(
        without_timestamps(params),
        json!({
            "taskId": heard,
            "status": "failed",
            "statusMessage": LAPSED,
            "ttlMs": 3_600_000,
            "pollIntervalMs": 1000,
            "error": {"code": -32603, "message": LAPSED}
        })
    );
    // Read again: the same failed task; the ended one is untouched.
    assert_eq!(get(&other.url, &polled).await, failed);
    assert_eq!(get(&other.url, &quick).await, done);
}

/// Starts `slow_compute` for `seconds` as a task on `url`; its id.
async fn start(url: &str, seconds: u64) -> String {
    let created = result(
        post(
            url,
            "tools/call",
            Some("slow_compute"),
            json!({"name": "slow_compute", "arguments": {"seconds": seconds}}),
        )
        .await,
    )
    .await;
    assert_eq!(created["status"], "working");
    created["taskId"].as_str().unwrap().to_owned()
}

/// `fusion serve --example conformance --stdio ARGS`: its exit code and
/// stderr.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let output = std::process::Command::new(crate::support::FUSION)
        .args(["serve", "--example", "conformance", "--stdio"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run fusion");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    )
}

#[test]
fn a_task_lease_is_for_a_redis_store_and_from_1_to_3600_seconds() {
    assert_eq!(
        refused(&["--task-lease-seconds", "5"]),
        (
            Some(2),
            String::from(
                "fusion serve: --task-lease-seconds applies to a Redis task store only (--task-store redis://…): a task kept in memory ends with its process"
            )
        )
    );
    for given in ["0", "3601"] {
        let (code, stderr) = refused(&[
            "--task-store",
            "redis://127.0.0.1:1/0",
            "--task-lease-seconds",
            given,
        ]);
        assert_eq!(code, Some(2));
        assert_eq!(
            stderr.lines().next(),
            Some(
                format!(
                    "error: invalid value '{given}' for '--task-lease-seconds <SECONDS>': {given} is not in 1..=3600"
                )
                .as_str()
            )
        );
    }
}
