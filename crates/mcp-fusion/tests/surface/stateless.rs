//! MCP 2026-07-28 over Streamable HTTP, as raw requests (each one whole, no
//! session): `subscriptions/listen` (acknowledged first, every notification
//! tagged with its subscription id, only the kinds asked for), the methods
//! that revision removed (404, `-32601`), the client capabilities an action
//! requires (`-32021`) and a `Mcp-Param-*` header that disagrees with the
//! body (400, `-32020`); the bounds of `subscriptions/listen` (malformed
//! params, the id, the URI list, open streams per caller and in all, a
//! stream whose client stops reading).

// Sampling is an MCP 2025-11-25 feature SEP-2577 deprecates (rmcp marks it).
#![allow(deprecated)]

use std::time::Duration;

use mcp_fusion::model::ClientCapabilities;
use mcp_fusion::{Action, FusionServer, Prompt, Resource, ToolError};
use serde_json::{Value, json};

use crate::connection::HttpServed;

pub(crate) use fusion_test_support::stateless::{meta, post};

/// The JSON-RPC messages of an answer, read as they arrive (an SSE stream,
/// or one JSON body).
pub(crate) struct Messages {
    response: reqwest::Response,
    buffer: String,
}

impl Messages {
    /// The messages of `response`.
    pub(crate) fn of(response: reqwest::Response) -> Self {
        Messages {
            response,
            buffer: String::new(),
        }
    }

    /// The next message (waits for it; a hang guard of 10 s fails the
    /// test rather than blocking the run).
    pub(crate) async fn next(&mut self) -> Value {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if !data.is_empty() {
                    return serde_json::from_str(&data).expect("a JSON-RPC message");
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.response.chunk())
                .await
                .expect("a message within 10 s")
                .expect("the stream reads")
                .expect("the stream is open");
            self.buffer
                .push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }
}

async fn hello() -> Result<&'static str, ToolError> {
    Ok("Say hello.")
}

async fn ok() -> Result<&'static str, ToolError> {
    Ok("ok")
}

fn server() -> FusionServer {
    FusionServer::builder("stateless", "1.0.0")
        .tool(Action::new("a", ok))
        .tool(
            Action::new("needs_sampling", ok)
                .requires_client(ClientCapabilities::builder().enable_sampling().build()),
        )
        .prompt(Prompt::new("hello", hello))
        .resource(Resource::text("test://a", "a", "A"))
        .resource(Resource::text("test://b", "b", "B"))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_is_acknowledged_then_told_only_what_it_asked_for() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let listen = post(
        &served.url,
        7,
        "subscriptions/listen",
        json!({"notifications": {
            "toolsListChanged": true,
            "resourceSubscriptions": ["test://a", "test://missing"]
        }}),
        &[],
    )
    .await;
    assert_eq!(listen.status(), 200);
    let mut stream = Messages::of(listen);
    // The acknowledgement first, with what was accepted: a URI the server
    // does not have is left out, prompts were not asked for.
    assert_eq!(
        stream.next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7},
                "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://a"]}
            }
        })
    );
    // Not asked for: a prompt list change, an update of another resource.
    server.add_prompt(Prompt::new("bye", hello)).await.unwrap();
    assert_eq!(server.notify_resource_updated("test://b").await, 0);
    server.add_tool(Action::new("b", ok)).await.unwrap();
    assert_eq!(server.notify_resource_updated("test://a").await, 1);
    assert_eq!(
        stream.next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}
        })
    );
    assert_eq!(
        stream.next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7},
                "uri": "test://a"
            }
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_advertises_what_listen_serves() {
    let served = HttpServed::start(&server()).await;
    let answer: Value = Messages::of(post(&served.url, 1, "server/discover", json!({}), &[]).await)
        .next()
        .await;
    assert_eq!(
        answer["result"]["capabilities"],
        json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {}
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_methods_2026_07_28_removed_are_not_found() {
    let served = HttpServed::start(&server()).await;
    let cases = [
        (
            "initialize",
            "send server/discover, and the protocol version and client capabilities in each request's _meta",
        ),
        (
            "ping",
            "any request shows the server is up (server/discover is cheap)",
        ),
        (
            "logging/setLevel",
            "name the log level in each request's _meta[\"io.modelcontextprotocol/logLevel\"]",
        ),
        (
            "resources/subscribe",
            "open subscriptions/listen with the resource URIs in notifications.resourceSubscriptions",
        ),
        (
            "resources/unsubscribe",
            "open subscriptions/listen with the resource URIs in notifications.resourceSubscriptions",
        ),
    ];
    for (id, (method, instead)) in (500..).zip(cases) {
        // Well-formed params or not, the method is gone.
        for params in [json!({}), json!({"uri": "test://a", "level": "info"})] {
            let answer = post(&served.url, id, method, params, &[]).await;
            assert_eq!(answer.status(), 404, "{method}");
            assert_eq!(
                answer.json::<Value>().await.unwrap(),
                json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601,
                    "message": format!("Method not found: {method} is not part of MCP 2026-07-28 (the revision this request names); {instead}")
                }}),
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_refuses_a_client_without_the_capabilities_it_requires() {
    let served = HttpServed::start(&server()).await;
    let params = |capabilities: Value| {
        json!({"name": "needs_sampling", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities
        }})
    };
    let refused = post(
        &served.url,
        401,
        "tools/call",
        params(json!({"elicitation": {}})),
        &[("mcp-name", "needs_sampling")],
    )
    .await;
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.json::<Value>().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 401, "error": {
            "code": -32021,
            "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"sampling": {}}}
        }})
    );
    let served_call = post(
        &served.url,
        402,
        "tools/call",
        params(json!({"sampling": {}})),
        &[("mcp-name", "needs_sampling")],
    )
    .await;
    assert_eq!(served_call.status(), 200);
    let answer = Messages::of(served_call).next().await;
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "ok"}])
    );
}

/// A forecast's input: its region mirrored into `Mcp-Param-Region`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Forecast {
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

async fn forecast(input: Forecast) -> Result<String, ToolError> {
    Ok(format!("sunny in {}", input.region))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_param_header_that_disagrees_with_the_body_is_a_header_mismatch() {
    let server = FusionServer::builder("headers", "1.0.0")
        .tool(Action::new("forecast", forecast))
        .build()
        .unwrap();
    let served = HttpServed::start(&server).await;
    let call = json!({"name": "forecast", "arguments": {"region": "us-west"}});
    let base64 = "=?base64?dXMtd2VzdA==?=";
    for (id, region) in [(1, "us-west"), (2, base64)] {
        let answer = post(
            &served.url,
            id,
            "tools/call",
            call.clone(),
            &[("mcp-name", "forecast"), ("mcp-param-region", region)],
        )
        .await;
        assert_eq!(answer.status(), 200, "{region}");
        let answer = Messages::of(answer).next().await;
        assert_eq!(
            answer["result"]["content"],
            json!([{"type": "text", "text": "sunny in us-west"}])
        );
    }
    for (id, region, reason) in [
        (
            3,
            Some("eu-central"),
            "Mcp-Param-Region header `eu-central` does not match body value `us-west`",
        ),
        (4, None, "missing Mcp-Param-Region header for `region`"),
        (
            5,
            Some("=?base64?dXMtd2VzdA?="),
            "Mcp-Param-Region header is not valid Base64",
        ),
    ] {
        let mut headers = vec![("mcp-name", "forecast")];
        if let Some(region) = region {
            headers.push(("mcp-param-region", region));
        }
        let answer = post(&served.url, id, "tools/call", call.clone(), &headers).await;
        assert_eq!(answer.status(), 400, "{region:?}");
        assert_eq!(
            answer.json::<Value>().await.unwrap(),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32020, "message": reason}})
        );
    }
}

/// Opened by a test when its task may go on.
static GATE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Opened by the stdio test when its task may go on.
static STDIO_GATE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// A task that waits for [`GATE`], asks the client a yes/no question and
/// answers with what it was told.
async fn ask_once(ctx: mcp_fusion::CallContext) -> Result<String, ToolError> {
    GATE.notified().await;
    ask(ctx).await
}

/// [`ask_once`] waiting for [`STDIO_GATE`].
async fn ask_once_stdio(ctx: mcp_fusion::CallContext) -> Result<String, ToolError> {
    STDIO_GATE.notified().await;
    ask(ctx).await
}

async fn ask(ctx: mcp_fusion::CallContext) -> Result<String, ToolError> {
    let requested = serde_json::from_value(json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean"}},
        "required": ["confirm"]
    }))
    .map_err(ToolError::internal)?;
    let answer = ctx.elicit("Go on?", requested).await?;
    Ok(format!("told {}", json!(answer.content)))
}

/// The `_meta` of a 2026-07-28 request declaring the tasks extension and
/// form elicitation.
fn tasks_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    })
}

/// `notifications/tasks` as received, its timestamps checked and left out.
fn status_of_task(mut message: Value) -> Value {
    fusion_test_support::tasks::take_timestamps(message["params"].as_object_mut().expect("params"));
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_naming_a_task_hears_each_status_change_of_it() {
    let server = FusionServer::builder("tasks", "1.0.0")
        .tool(Action::new("ask_once", ask_once).task_support(mcp_fusion::TaskSupport::Required))
        .build()
        .unwrap();
    let served = HttpServed::start(&server).await;
    let created = post(
        &served.url,
        1,
        "tools/call",
        json!({"name": "ask_once", "arguments": {}, "_meta": tasks_meta()}),
        &[("mcp-name", "ask_once")],
    )
    .await;
    let created = Messages::of(created).next().await;
    assert_eq!(created["result"]["resultType"], "task");
    assert_eq!(created["result"]["status"], "working");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();

    let listen = post(
        &served.url,
        2,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [task_id, "another-task", task_id]}, "_meta": tasks_meta()}),
        &[],
    )
    .await;
    let status = listen.status();
    if status != 200 {
        panic!("{status}: {}", listen.text().await.unwrap());
    }
    let mut stream = Messages::of(listen);
    // The acknowledgement lists the task ids it agreed to (once each): the
    // caller's own tasks, not one that does not exist.
    assert_eq!(
        stream.next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 2},
                "notifications": {"taskIds": [task_id]}
            }
        })
    );
    GATE.notify_one();
    // working -> input_required, with the request, as tasks/get shows it.
    let asking = status_of_task(stream.next().await);
    assert_eq!(
        asking,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/tasks",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 2},
                "taskId": task_id,
                "status": "input_required",
                "ttlMs": 3_600_000,
                "pollIntervalMs": 1000,
                "inputRequests": {"input-1": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Go on?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"confirm": {"type": "boolean"}},
                            "required": ["confirm"]
                        }
                    }
                }}
            }
        })
    );
    let updated = post(
        &served.url,
        3,
        "tasks/update",
        json!({
            "taskId": task_id,
            "inputResponses": {"input-1": {"action": "accept", "content": {"confirm": true}}},
            "_meta": tasks_meta()
        }),
        &[("mcp-name", &task_id)],
    )
    .await;
    assert_eq!(
        Messages::of(updated).next().await,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete"}})
    );
    // input_required -> working -> completed, with its result.
    let base = |status: &str| {
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/tasks",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 2},
                "taskId": task_id,
                "status": status,
                "ttlMs": 3_600_000,
                "pollIntervalMs": 1000
            }
        })
    };
    assert_eq!(status_of_task(stream.next().await), base("working"));
    let mut completed = base("completed");
    completed["params"]["result"] = json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": "told {\"confirm\":true}"}],
        "isError": false
    });
    assert_eq!(status_of_task(stream.next().await), completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_ids_on_a_listen_stream_need_the_tasks_extension() {
    let served = HttpServed::start(&server()).await;
    let refused = post(
        &served.url,
        9,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": ["t1"], "toolsListChanged": true}}),
        &[],
    )
    .await;
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.json::<Value>().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 9, "error": {
            "code": -32021,
            "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
        }})
    );
}

/// A JSON-RPC line peer of a server served on a pair of pipes (as stdio).
struct Lines {
    write: tokio::io::DuplexStream,
    read: tokio::io::BufReader<tokio::io::DuplexStream>,
}

impl Lines {
    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// The next line (a hang guard of 10 s fails the test rather than
    /// blocking the run).
    async fn next(&mut self) -> Value {
        use tokio::io::AsyncBufReadExt;
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.read.read_line(&mut line))
            .await
            .expect("a line within 10 s")
            .unwrap();
        serde_json::from_str(&line).expect("a JSON-RPC message")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_a_listen_stream_naming_a_task_hears_it_and_the_acknowledgement_lists_it() {
    let server = FusionServer::builder("tasks", "1.0.0")
        .tool(
            Action::new("ask_once", ask_once_stdio).task_support(mcp_fusion::TaskSupport::Required),
        )
        .build()
        .unwrap();
    let (write, server_read) = tokio::io::duplex(64 * 1024);
    let (server_write, read) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve_streams(
        server_read,
        server_write,
        mcp_fusion::transport::StdioOptions::default(),
        std::future::pending(),
    ));
    let mut lines = Lines {
        write,
        read: tokio::io::BufReader::new(read),
    };
    let request = |id: i64, method: &str, mut params: Value| {
        params["_meta"] = tasks_meta();
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    };
    lines
        .send(request(
            1,
            "tools/call",
            json!({"name": "ask_once", "arguments": {}}),
        ))
        .await;
    let created = lines.next().await;
    assert_eq!(created["id"], 1);
    assert_eq!(created["result"]["status"], "working");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Without the extension: -32021.
    lines
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {
                "_meta": meta(),
                "notifications": {"taskIds": [task_id]}
            }}),
        )
        .await;
    assert_eq!(
        lines.next().await,
        json!({"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32021,
            "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
        }})
    );
    lines
        .send(request(
            3,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": [task_id]}}),
        ))
        .await;
    assert_eq!(
        lines.next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 3},
                "notifications": {"taskIds": [task_id]}
            }
        })
    );
    STDIO_GATE.notify_one();
    let asking = status_of_task(lines.next().await);
    assert_eq!(asking["method"], "notifications/tasks");
    assert_eq!(
        asking["params"]["_meta"],
        json!({"io.modelcontextprotocol/subscriptionId": 3})
    );
    assert_eq!(asking["params"]["status"], "input_required");
    assert_eq!(
        asking["params"]["inputRequests"]["input-1"]["params"]["message"],
        "Go on?"
    );
    lines
        .send(request(4, "tasks/cancel", json!({"taskId": task_id})))
        .await;
    let mut cancelled = Vec::new();
    for _ in 0..2 {
        cancelled.push(lines.next().await);
    }
    cancelled.sort_by_key(|message| message.get("id").is_some());
    assert_eq!(
        status_of_task(cancelled[0].clone()),
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/tasks",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 3},
                "taskId": task_id,
                "status": "cancelled",
                "statusMessage": "Cancelled by the client.",
                "ttlMs": 3_600_000,
                "pollIntervalMs": 1000
            }
        })
    );
    assert_eq!(
        cancelled[1],
        json!({"jsonrpc": "2.0", "id": 4, "result": {"resultType": "complete"}})
    );
}

/// POSTs the JSON-RPC `body` as a 2026-07-28 client does, from the address
/// `forwarded_for` (the server trusts `X-Forwarded-For`).
async fn post_raw(url: &str, body: &Value, forwarded_for: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .header("x-forwarded-for", forwarded_for)
        .json(body)
        .send()
        .await
        .expect("the server answers")
}

fn listen_body(id: Value, notifications: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": notifications}
    })
}

/// Status, `Retry-After` and body of an answer.
async fn refusal(response: reqwest::Response) -> (u16, Option<String>, Value) {
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, retry, response.json().await.expect("a JSON body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_listen_params_are_invalid_params() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let expected = "expected {\"notifications\": {\"toolsListChanged\"?: boolean, \"promptsListChanged\"?: boolean, \"resourcesListChanged\"?: boolean, \"resourceSubscriptions\"?: [URI strings]}}";
    for (params, sent) in [
        (
            json!({"notifications": {"toolsListChanged": "yes"}}),
            "invalid type: string \"yes\", expected a boolean",
        ),
        (
            json!({"notifications": {"resourceSubscriptions": "test://x"}}),
            "invalid type: string \"test://x\", expected a sequence",
        ),
        (json!({}), "missing field `notifications`"),
    ] {
        let answer = post(&served.url, 3, "subscriptions/listen", params, &[]).await;
        assert_eq!(
            refusal(answer).await,
            (
                400,
                None,
                json!({"jsonrpc": "2.0", "id": 3, "error": {
                    "code": -32602,
                    "message": format!("Invalid params for subscriptions/listen: {sent}; {expected}")
                }})
            )
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_id_and_uri_list_are_bounded_and_uris_taken_once() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let long_id = "x".repeat(mcp_fusion::server::MAX_LISTEN_ID_BYTES - 1);
    let answer = post_raw(
        &served.url,
        &listen_body(json!(long_id), json!({"toolsListChanged": true})),
        "10.0.0.1",
    )
    .await;
    assert_eq!(
        refusal(answer).await,
        (
            400,
            None,
            json!({"jsonrpc": "2.0", "id": long_id, "error": {
                "code": -32602,
                "message": "Invalid params for subscriptions/listen: the request id is 257 bytes of JSON; a listen request's id, repeated in every notification of its stream, may be at most 256 bytes"
            }})
        )
    );
    let many = vec!["test://a"; mcp_fusion::server::MAX_SUBSCRIPTIONS + 1];
    let answer = post_raw(
        &served.url,
        &listen_body(json!(4), json!({"resourceSubscriptions": many})),
        "10.0.0.1",
    )
    .await;
    assert_eq!(
        refusal(answer).await,
        (
            400,
            None,
            json!({"jsonrpc": "2.0", "id": 4, "error": {
                "code": -32602,
                "message": "Invalid params for subscriptions/listen: notifications.resourceSubscriptions names 1025 URIs; at most 1024 may be listened to on one stream"
            }})
        )
    );
    let repeated = [vec!["test://b"; 500], vec!["test://a"; 500]].concat();
    let listen = post_raw(
        &served.url,
        &listen_body(json!(5), json!({"resourceSubscriptions": repeated})),
        "10.0.0.1",
    )
    .await;
    assert_eq!(listen.status(), 200);
    assert_eq!(
        Messages::of(listen).next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 5},
                "notifications": {"resourceSubscriptions": ["test://b", "test://a"]}
            }
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_listen_streams_are_bounded_per_caller_and_in_all() {
    let server = server();
    let options = mcp_fusion::transport::HttpOptions::default()
        .trust_forwarded_for(true)
        .max_listen_streams(3)
        .max_listen_streams_per_caller(2);
    let served = HttpServed::start_with(&server, options).await;
    let filter = json!({"toolsListChanged": true});
    let mut open = Vec::new();
    for (id, from) in [(1, "10.0.0.1"), (2, "10.0.0.1"), (3, "10.0.0.2")] {
        let listen = post_raw(&served.url, &listen_body(json!(id), filter.clone()), from).await;
        assert_eq!(listen.status(), 200);
        let mut stream = Messages::of(listen);
        assert_eq!(
            stream.next().await["method"],
            "notifications/subscriptions/acknowledged"
        );
        open.push(stream);
    }
    let answer = post_raw(
        &served.url,
        &listen_body(json!(4), filter.clone()),
        "10.0.0.1",
    )
    .await;
    assert_eq!(
        refusal(answer).await,
        (
            429,
            Some(String::from("5")),
            json!({"jsonrpc": "2.0", "id": 4, "error": {
                "code": -32000,
                "message": "Too many subscriptions/listen streams: this caller holds 2 open, the most allowed; close one or try again in 5 seconds"
            }})
        )
    );
    let answer = post_raw(
        &served.url,
        &listen_body(json!(5), filter.clone()),
        "10.0.0.3",
    )
    .await;
    assert_eq!(
        refusal(answer).await,
        (
            503,
            Some(String::from("5")),
            json!({"jsonrpc": "2.0", "id": 5, "error": {
                "code": -32000,
                "message": "Server busy: all 3 subscriptions/listen streams of this server are open; try again in 5 seconds"
            }})
        )
    );
    // The streams still open are told of changes.
    server.add_tool(Action::new("b", ok)).await.unwrap();
    for stream in &mut open {
        assert_eq!(
            stream.next().await["method"],
            "notifications/tools/list_changed"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_whose_client_stops_reading_is_closed_without_waiting() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let listen = post(
        &served.url,
        9,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["test://a"]}}),
        &[],
    )
    .await;
    assert_eq!(listen.status(), 200);
    // The client reads nothing: once the transport's buffers and the
    // stream's queue are full, the stream is closed and no longer told;
    // the server never waits (a hang guard of 60 s fails the test).
    let mut told = 0usize;
    tokio::time::timeout(Duration::from_secs(60), async {
        while server.notify_resource_updated("test://a").await == 1 {
            told += 1;
            assert!(told < 1_000_000, "the stream is closed at some point");
        }
    })
    .await
    .expect("notifying never waits on the client");
    assert_eq!(server.notify_resource_updated("test://a").await, 0);
    assert!(
        told >= mcp_fusion::server::LISTEN_QUEUE,
        "{told} told before the stream was closed"
    );
    // Read now: the acknowledgement comes first.
    let mut stream = Messages::of(listen);
    assert_eq!(
        stream.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
}
