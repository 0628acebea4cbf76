//! What a 2026-07-28 `subscriptions/listen` stream over Streamable HTTP
//! tells one caller of another's: nothing. The status of a task reaches
//! only the streams of the caller that created it (the Tasks extension,
//! "Auth binding", as `tasks/get` answers another "Unknown task"), and the
//! acknowledgement lists neither another's task ids nor the resource URIs
//! the caller may not read. Open streams are counted per caller by its
//! token's subject, else its address, never by the session it names.

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::{Action, CallContext, FusionServer, Resource, ResourceTemplate, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::connection::HttpServed;
use crate::stateless::{Messages, post};

/// Runs until cancelled, so that its task stays `working`.
async fn wait(ctx: CallContext) -> Result<&'static str, ToolError> {
    ctx.cancellation().cancelled().await;
    Ok("stopped")
}

async fn ok() -> Result<&'static str, ToolError> {
    Ok("ok")
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

async fn note(_ctx: CallContext, vars: Id) -> Result<String, ToolError> {
    Ok(format!("note {}", vars.id))
}

/// Alice (scope `notes:read`) and bob (none) by bearer token, anyone
/// without one; a tool run as a task, a resource open to all and a
/// template that needs `notes:read`.
fn server() -> FusionServer {
    FusionServer::builder("owners", "1.0.0")
        .auth(
            StaticTokens::new()
                .token("alice-token", "alice", ["notes:read"])
                .token("bob-token", "bob", Vec::<String>::new()),
        )
        .allow_anonymous(true)
        .tool(Action::new("wait", wait).task_support(mcp_fusion::TaskSupport::Required))
        .resource(Resource::text("notes://readme", "readme", "Open to all."))
        .resource_template(
            ResourceTemplate::new("notes://{id}", "note", note).requires_scopes(["notes:read"]),
        )
        .build()
        .unwrap()
}

/// The `_meta` of a 2026-07-28 client that declared the tasks extension.
fn tasks_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    })
}

/// `Authorization: Bearer token`, or no header for `None`.
fn bearer(token: Option<&str>) -> Vec<(&'static str, String)> {
    token
        .map(|t| vec![("authorization", format!("Bearer {t}"))])
        .unwrap_or_default()
}

/// Opens a listen stream `id` as the caller of `token` asking for
/// `notifications`; the stream, its acknowledgement read.
async fn listen(
    url: &str,
    id: i64,
    token: Option<&str>,
    notifications: Value,
) -> (Messages, Value) {
    let headers = bearer(token);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let params = json!({"notifications": notifications, "_meta": tasks_meta()});
    let response = post(url, id, "subscriptions/listen", params, &headers).await;
    assert_eq!(response.status(), 200, "listen {id}");
    let mut stream = Messages::of(response);
    let ack = stream.next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    (stream, ack["params"]["notifications"].clone())
}

/// POSTs `method` with `params` (and the tasks `_meta`) as alice; the
/// JSON-RPC answer.
async fn as_alice(url: &str, id: i64, method: &str, name: &str, mut params: Value) -> Value {
    params["_meta"] = tasks_meta();
    let headers = [("mcp-name", name), ("authorization", "Bearer alice-token")];
    Messages::of(post(url, id, method, params, &headers).await)
        .next()
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_hears_only_of_the_tasks_its_caller_created() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let created = as_alice(
        &served.url,
        1,
        "tools/call",
        "wait",
        json!({"name": "wait", "arguments": {}}),
    )
    .await;
    assert_eq!(created["result"]["status"], "working", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let asking = json!({"taskIds": [task_id], "toolsListChanged": true});

    // Bob and a caller without a token: alice's task is not theirs, and
    // is left out of the acknowledgement as an unknown one would be.
    let (mut bob, acked) = listen(&served.url, 2, Some("bob-token"), asking.clone()).await;
    assert_eq!(acked, json!({"toolsListChanged": true, "taskIds": []}));
    let (mut anonymous, acked) = listen(&served.url, 3, None, asking.clone()).await;
    assert_eq!(acked, json!({"toolsListChanged": true, "taskIds": []}));
    let (mut alice, acked) = listen(&served.url, 4, Some("alice-token"), asking).await;
    assert_eq!(
        acked,
        json!({"toolsListChanged": true, "taskIds": [task_id]})
    );

    let cancelled = as_alice(
        &served.url,
        5,
        "tasks/cancel",
        &task_id,
        json!({"taskId": task_id}),
    )
    .await;
    assert_eq!(cancelled["result"]["resultType"], "complete", "{cancelled}");
    let told = alice.next().await;
    assert_eq!(told["method"], "notifications/tasks");
    assert_eq!(told["params"]["taskId"], json!(task_id));
    assert_eq!(told["params"]["status"], "cancelled");

    // The next thing the others hear is the tool list change made after
    // the cancellation: never alice's task.
    server.add_tool(Action::new("b", ok)).await.unwrap();
    for (stream, id) in [(&mut bob, 2), (&mut anonymous, 3)] {
        assert_eq!(
            stream.next().await,
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}}
            })
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_acknowledgement_lists_only_the_resources_its_caller_may_read() {
    let served = HttpServed::start(&server()).await;
    let asking = json!({"resourceSubscriptions": ["notes://42", "notes://readme"]});
    let only_readme = json!({"resourceSubscriptions": ["notes://readme"]});
    // No token (AUTH_REQUIRED for notes://42), bob (FORBIDDEN: no scope).
    let (_, acked) = listen(&served.url, 1, None, asking.clone()).await;
    assert_eq!(acked, only_readme);
    let (_, acked) = listen(&served.url, 2, Some("bob-token"), asking.clone()).await;
    assert_eq!(acked, only_readme);
    let (_, acked) = listen(&served.url, 3, Some("alice-token"), asking.clone()).await;
    assert_eq!(acked, asking);
}

/// Opens a 2025-11-25 session with `token` (none: without credentials);
/// its id, or the refusal's status and text.
pub(crate) async fn try_session(url: &str, token: Option<&str>) -> Result<String, (u16, String)> {
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<&str>| {
        let mut request = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(id) = session {
            request = request.header("mcp-session-id", id);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.json(&body).send()
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    let opened = post(initialize, None).await.unwrap();
    if opened.status() != 200 {
        let status = opened.status().as_u16();
        return Err((status, opened.text().await.unwrap()));
    }
    let id = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(initialized, Some(&id)).await.unwrap().status(), 202);
    Ok(id)
}

/// The status of a listen request `id` for list changes, with `headers`;
/// its stream kept in `open` when it was opened.
async fn try_listen(url: &str, id: i64, headers: &[(&str, &str)], open: &mut Vec<Messages>) -> u16 {
    let notifications = json!({"notifications": {"toolsListChanged": true}});
    let response = post(url, id, "subscriptions/listen", notifications, headers).await;
    let status = response.status().as_u16();
    if status == 200 {
        open.push(Messages::of(response));
    }
    status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_are_counted_by_subject_else_by_address_never_by_session() {
    let options = mcp_fusion::transport::HttpOptions::default().max_listen_streams_per_caller(2);
    let served = HttpServed::start_with(&server(), options).await;
    let url = &served.url;
    let mut open = Vec::new();
    // Two streams without credentials from this address: its bound.
    assert_eq!(try_listen(url, 1, &[], &mut open).await, 200);
    assert_eq!(try_listen(url, 2, &[], &mut open).await, 200);
    // A session of its own does not make it another caller.
    let session = try_session(url, None).await.unwrap();
    let with_session = [("mcp-session-id", session.as_str())];
    assert_eq!(try_listen(url, 3, &with_session, &mut open).await, 429);
    // Alice, from the same address, is another caller: her own two.
    let alice = [("authorization", "Bearer alice-token")];
    assert_eq!(try_listen(url, 4, &alice, &mut open).await, 200);
    assert_eq!(try_listen(url, 5, &alice, &mut open).await, 200);
    assert_eq!(try_listen(url, 6, &alice, &mut open).await, 429);
    // Bob too.
    let bob = [("authorization", "Bearer bob-token")];
    assert_eq!(try_listen(url, 7, &bob, &mut open).await, 200);
}
