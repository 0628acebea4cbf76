//! Tasks over Streamable HTTP as 2026-07-28 raw requests: a task answers
//! only the caller that created it (another bearer token is told it does
//! not exist, the Tasks extension's "Auth binding"), and a task store that
//! does not answer runs an `Optional` tool directly and refuses a
//! `Required` one with `SERVER_BUSY`.

use std::time::Duration;

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::server::tasks::RedisTaskStore;
use mcp_fusion::{Action, CallContext, FusionServer, NoArgs, TaskSupport, ToolError};
use serde_json::{Value, json};

/// Waits until cancelled, so that its task stays `working`.
async fn wait(ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    ctx.cancellation().cancelled().await;
    Ok("stopped")
}

async fn quick(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("done")
}

/// Serves `server` over Streamable HTTP on a free loopback port; its URL.
async fn serve(server: &FusionServer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.clone().serve_http_on(
        listener,
        mcp_fusion::transport::HttpOptions::default(),
        std::future::pending::<()>(),
    ));
    format!("http://{addr}/mcp")
}

/// POSTs `method` with `params` as a 2026-07-28 client that declared the
/// tasks extension and roots, `Authorization: Bearer token` when given, `Mcp-Name`
/// `name`; the JSON-RPC answer.
async fn post(url: &str, token: Option<&str>, method: &str, name: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "roots": {}
        }
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = tokio::time::timeout(
        Duration::from_secs(10),
        request
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send(),
    )
    .await
    .expect("an answer within 10 s")
    .expect("the server answers");
    assert_eq!(response.status().as_u16(), 200);
    let body = response.text().await.unwrap();
    // One JSON body, or one SSE event carrying it.
    let json: String = if body.trim_start().starts_with('{') {
        body
    } else {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .collect()
    };
    serde_json::from_str(&json).unwrap()
}

fn unknown(task_id: &str) -> Value {
    json!({
        "code": -32602,
        "message": format!("Unknown task \"{task_id}\": no task has this id, or its ttlMs has passed. Call the tool again to start a new task."),
        "data": {"taskId": task_id}
    })
}

#[tokio::test]
async fn a_task_answers_only_the_caller_that_created_it() {
    let server = FusionServer::builder("t", "1")
        .auth(
            StaticTokens::new()
                .token("alice-token", "alice", Vec::<String>::new())
                .token("bob-token", "bob", Vec::<String>::new()),
        )
        .tool(Action::new("wait", wait).task_support(TaskSupport::Optional))
        .build()
        .unwrap();
    let url = serve(&server).await;
    let created = post(
        &url,
        Some("alice-token"),
        "tools/call",
        "wait",
        json!({"name": "wait", "arguments": {}}),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(created["result"]["status"], "working");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let params = json!({"taskId": id});

    // Bob is told it does not exist (a caller without a token is refused
    // at the HTTP edge, 401).
    let token = Some("bob-token");
    for method in ["tasks/get", "tasks/cancel"] {
        let answer = post(&url, token, method, &id, params.clone()).await;
        assert_eq!(answer["error"], unknown(&id), "{method} as bob");
    }
    let update = post(
        &url,
        token,
        "tasks/update",
        &id,
        json!({"taskId": id, "inputResponses": {}}),
    )
    .await;
    assert_eq!(update["error"], unknown(&id), "tasks/update as bob");
    // Bob's cancel changed nothing: alice's task still runs.
    let read = post(&url, Some("alice-token"), "tasks/get", &id, params.clone()).await;
    assert_eq!(read["result"]["taskId"], json!(id), "{read}");
    assert_eq!(read["result"]["status"], "working");
    // Alice cancels it.
    let cancel = post(
        &url,
        Some("alice-token"),
        "tasks/cancel",
        &id,
        params.clone(),
    )
    .await;
    assert_eq!(cancel["result"]["resultType"], "complete", "{cancel}");
    let read = post(&url, Some("alice-token"), "tasks/get", &id, params).await;
    assert_eq!(read["result"]["status"], "cancelled");
    assert_eq!(read["result"]["statusMessage"], "Cancelled by the client.");
}

#[tokio::test]
async fn an_unreachable_store_runs_an_optional_tool_directly_and_refuses_a_required_one() {
    // Nothing listens on port 1: every use of the store fails.
    let store = RedisTaskStore::new("redis://127.0.0.1:1/0")
        .unwrap()
        .timeout(Duration::from_millis(300));
    let server = FusionServer::builder("t", "1")
        .task_store(store)
        .tool(Action::new("optional", quick).task_support(TaskSupport::Optional))
        .tool(Action::new("required", quick).task_support(TaskSupport::Required))
        .build()
        .unwrap();
    let url = serve(&server).await;
    let call = |name: &'static str| {
        post(
            &url,
            None,
            "tools/call",
            name,
            json!({"name": name, "arguments": {}}),
        )
    };
    let optional = call("optional").await;
    assert_eq!(
        optional["result"]["content"],
        json!([{"type": "text", "text": "done"}]),
        "{optional}"
    );
    assert_eq!(optional["result"]["isError"], false);
    let required = call("required").await;
    assert_eq!(required["result"]["isError"], true, "{required}");
    assert_eq!(
        required["result"]["content"][0]["text"],
        "<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>required runs only as a task, and the task store is unreachable: the task was not started.</message>\n  <recovery>Call again in a few seconds: the task store may be back by then.</recovery>\n  <retry_after>5 seconds</retry_after>\n</tool_error>"
    );
}

/// Asks the client for the list of roots, then says how many it got.
async fn count_roots(ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
    #[allow(deprecated)] // roots: SEP-2577 deprecates them for 2026-07-28
    let roots = ctx.roots().await?.roots.len();
    Ok(format!("{roots} roots"))
}

#[tokio::test]
async fn an_answer_that_is_not_the_requested_result_is_refused_and_the_task_waits() {
    let server = FusionServer::builder("t", "1")
        .tool(Action::new("count_roots", count_roots).task_support(TaskSupport::Required))
        .build()
        .unwrap();
    let url = serve(&server).await;
    let params = json!({"name": "count_roots", "arguments": {}});
    let created = post(&url, None, "tools/call", "count_roots", params).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Polled until the handler's request is outstanding.
    let mut read = Value::Null;
    for _ in 0..100 {
        read = post(&url, None, "tasks/get", &id, json!({"taskId": id})).await;
        if read["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(read["result"]["status"], "input_required", "{read}");
    assert_eq!(
        read["result"]["inputRequests"]["input-1"]["method"],
        "roots/list"
    );
    let refused = post(
        &url,
        None,
        "tasks/update",
        &id,
        json!({"taskId": id, "inputResponses": {"input-1": "yes"}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "inputResponses[\"input-1\"] is not a ListRootsResult: invalid type: string \"yes\", expected struct ListRootsResult. Answer each input request with the result its method returns (elicitation/create: an ElicitResult, sampling/createMessage: a CreateMessageResult, roots/list: a ListRootsResult)."
    );
    // The task still waits, and a right answer completes it.
    let read = post(&url, None, "tasks/get", &id, json!({"taskId": id})).await;
    assert_eq!(read["result"]["status"], "input_required");
    let answered = post(
        &url,
        None,
        "tasks/update",
        &id,
        json!({"taskId": id, "inputResponses": {"input-1": {"roots": [{"uri": "file:///a"}]}}}),
    )
    .await;
    assert_eq!(answered["result"]["resultType"], "complete", "{answered}");
    let mut done = Value::Null;
    for _ in 0..100 {
        done = post(&url, None, "tasks/get", &id, json!({"taskId": id})).await;
        if done["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "1 roots");
}

async fn long_text(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
    Ok((1..=50).map(|i| format!("line {i}\n")).collect())
}

/// A task's result passes state sync and the egress guard like a direct
/// call's (`docs/wire-contract.md` §9): the stale-reads notice first, the
/// text cut at a whole line, the egress notice last.
#[tokio::test]
async fn a_tasks_result_is_written_for_the_model_like_a_direct_one() {
    let server = FusionServer::builder("t", "1")
        .tool(
            Action::new("rebuild", long_text)
                .task_support(TaskSupport::Required)
                .invalidates("index.*")
                .egress_limit(260),
        )
        .build()
        .unwrap();
    let url = serve(&server).await;
    let created = post(
        &url,
        None,
        "tools/call",
        "rebuild",
        json!({"name": "rebuild", "arguments": {}}),
    )
    .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut read = Value::Null;
    for _ in 0..100 {
        read = post(&url, None, "tasks/get", &id, json!({"taskId": id})).await;
        if read["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let texts: Vec<&str> = read["result"]["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("a completed task: {read}"))
        .iter()
        .map(|block| block["text"].as_str().unwrap())
        .collect();
    let notice = "<stale_reads cause=\"rebuild\" domains=\"index.*\">This call changed index.*: results read before it are stale. Read again before relying on them.</stale_reads>";
    let kept: String = (1..=14).map(|i| format!("line {i}\n")).collect();
    assert_eq!(
        texts,
        [
            notice,
            kept.as_str(),
            "<egress_notice>This result was cut to fit the limit of 260 bytes: 288 of its 547 bytes were left out. Ask for less in the next call: this action declares no argument that narrows its result.</egress_notice>",
        ]
    );
}
