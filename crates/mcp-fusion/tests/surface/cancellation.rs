//! A client that goes away mid-call cancels the call at once: the running
//! handler's cancellation token fires, and so does every clone it handed
//! on, without waiting out the grace rmcp gives a closed connection's
//! handlers (5 s). In-memory (a dropped `FusionClient`) the clock is tokio's
//! paused clock, so the grace would show as 5 s passed; over Streamable HTTP
//! (a `DELETE` of the session) the bound is half that grace.

use std::sync::Mutex;
use std::time::Duration;

use mcp_fusion::{Action, CallContext, ClientOptions, FusionServer, ToolError};
use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Where each test's handler reports: when it started, when its token fired.
struct Reports {
    started: mpsc::UnboundedSender<()>,
    fired: mpsc::UnboundedSender<Instant>,
}

/// The receiving ends of [`Reports`].
struct Watch {
    started: mpsc::UnboundedReceiver<()>,
    fired: mpsc::UnboundedReceiver<Instant>,
}

static IN_MEMORY: Mutex<Option<Reports>> = Mutex::new(None);
static HTTP: Mutex<Option<Reports>> = Mutex::new(None);
static STATELESS: Mutex<Option<Reports>> = Mutex::new(None);
static DROPPED: Mutex<Option<Reports>> = Mutex::new(None);
static RUNNING: Mutex<Option<Reports>> = Mutex::new(None);

fn watch(slot: &Mutex<Option<Reports>>) -> Watch {
    let (started, started_rx) = mpsc::unbounded_channel();
    let (fired, fired_rx) = mpsc::unbounded_channel();
    *slot.lock().unwrap() = Some(Reports { started, fired });
    Watch {
        started: started_rx,
        fired: fired_rx,
    }
}

/// Hands its token to a task of its own (which reports when it fires), then
/// waits forever.
async fn wait_on(slot: &Mutex<Option<Reports>>, ctx: CallContext) -> Result<String, ToolError> {
    let (started, fired) = {
        let reports = slot.lock().unwrap();
        let reports = reports.as_ref().expect("the test set its reports");
        (reports.started.clone(), reports.fired.clone())
    };
    let token = ctx.cancellation().clone();
    tokio::spawn(async move {
        token.cancelled().await;
        let _ = fired.send(Instant::now());
    });
    let _ = started.send(());
    std::future::pending().await
}

async fn wait_in_memory(ctx: CallContext) -> Result<String, ToolError> {
    wait_on(&IN_MEMORY, ctx).await
}

async fn wait_over_http(ctx: CallContext) -> Result<String, ToolError> {
    wait_on(&HTTP, ctx).await
}

async fn wait_stateless(ctx: CallContext) -> Result<String, ToolError> {
    wait_on(&STATELESS, ctx).await
}

async fn wait_dropped(ctx: CallContext) -> Result<String, ToolError> {
    wait_on(&DROPPED, ctx).await
}

async fn wait_running(ctx: CallContext) -> Result<String, ToolError> {
    wait_on(&RUNNING, ctx).await
}

fn server(tool: Action) -> FusionServer {
    FusionServer::builder("cancellation", "1.0.0")
        .tool(tool)
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_dropped_in_memory_client_cancels_its_running_call_at_once() {
    let mut watch = watch(&IN_MEMORY);
    let server = server(Action::new("wait", wait_in_memory));
    let client = server
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap();
    let call = tokio::spawn(async move { client.call("wait", json!({})).await });
    watch.started.recv().await.expect("the handler started");
    let dropped = Instant::now();
    // The call's future owns the client: aborting it drops the client.
    call.abort();
    let fired = watch.fired.recv().await.expect("the token fired");
    assert!(
        fired - dropped < Duration::from_millis(100),
        "fired {:?} after the client was dropped",
        fired - dropped
    );
}

/// `POST`s `body` on the server at `url` (on `session` when given).
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: serde_json::Value,
) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .json(&body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.unwrap()
}

#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_the_http_session_cancels_its_running_call_at_once() {
    let mut watch = watch(&HTTP);
    let server = server(Action::new("wait", wait_over_http));
    let served = crate::connection::HttpServed::start(&server).await;
    let http = reqwest::Client::new();
    let session = open_session(&http, &served.url).await;

    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait", "arguments": {}}
    });
    let calling = tokio::spawn({
        let (http, url, session) = (http.clone(), served.url.clone(), session.clone());
        async move { post(&http, &url, Some(&session), call).await }
    });
    watch.started.recv().await.expect("the handler started");
    let deleted_at = Instant::now();
    let deleted = http
        .delete(&served.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let fired = watch.fired.recv().await.expect("the token fired");
    assert!(
        fired - deleted_at < Duration::from_millis(2_500),
        "fired {:?} after the DELETE",
        fired - deleted_at
    );
    calling.abort();
    served.stop().await;
}

/// MCP 2026-07-28 (basic/patterns/cancellation): closing a request's
/// response stream is its cancellation.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_2026_07_28_response_stream_cancels_its_call_at_once() {
    let mut watch = watch(&STATELESS);
    let server = server(Action::new("wait", wait_stateless));
    let served = crate::connection::HttpServed::start(&server).await;
    let calling = tokio::spawn({
        let url = served.url.clone();
        async move {
            let params = json!({"name": "wait", "arguments": {}});
            crate::stateless::post(&url, 1, "tools/call", params, &[("mcp-name", "wait")]).await
        }
    });
    watch.started.recv().await.expect("the handler started");
    let closed_at = Instant::now();
    // The request's future owns its connection: aborting it closes it.
    calling.abort();
    drop(calling.await);
    let fired = watch.fired.recv().await.expect("the token fired");
    assert!(
        fired - closed_at < Duration::from_millis(2_500),
        "fired {:?} after the stream closed",
        fired - closed_at
    );
    served.stop().await;
}

/// Opens a 2025-11-25 session on the server at `url`: its id.
#[cfg(feature = "http")]
async fn open_session(http: &reqwest::Client, url: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    let opened = post(http, url, None, initialize).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = post(http, url, Some(&session), initialized).await;
    assert_eq!(accepted.status(), 202);
    session
}

/// On a 2025-11-25 session a dropped response stream is no cancellation
/// (basic/transports): the call goes on, and its request id stays in use
/// until it ends; another request with that id is refused meanwhile rather
/// than given the first call's answer.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_keeps_its_request_id_in_use_while_its_call_runs() {
    let mut watch = watch(&DROPPED);
    let server = server(Action::new("wait", wait_dropped));
    let served = crate::connection::HttpServed::start(&server).await;
    let http = reqwest::Client::new();
    let session = open_session(&http, &served.url).await;
    let call = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "wait", "arguments": {}}
    });
    let calling = tokio::spawn({
        let (http, url, session, call) = (
            http.clone(),
            served.url.clone(),
            session.clone(),
            call.clone(),
        );
        async move { post(&http, &url, Some(&session), call).await }
    });
    watch.started.recv().await.expect("the handler started");
    calling.abort();
    let _ = calling.await;
    // The stream is gone; the call is not.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(watch.fired.try_recv().is_err(), "the call was cancelled");
    let again = post(&http, &served.url, Some(&session), call).await;
    assert_eq!(again.status(), 400);
    assert_eq!(
        again.text().await.unwrap(),
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: a request with id 7 is already in progress in this session; use a new id"}}"#
    );
    // Ending the session ends the call.
    let deleted = http
        .delete(&served.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    watch.fired.recv().await.expect("the token fired");
    served.stop().await;
}

/// A call still running is use of its session: the session does not expire
/// under it, though its stream dropped and nothing else came.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_a_call_running_does_not_expire() {
    let mut watch = watch(&RUNNING);
    let server = server(Action::new("wait", wait_running));
    let options =
        mcp_fusion::transport::HttpOptions::default().session_idle(Duration::from_secs(1));
    let served = crate::connection::HttpServed::start_with(&server, options).await;
    let http = reqwest::Client::new();
    let session = open_session(&http, &served.url).await;
    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait", "arguments": {}}
    });
    let calling = tokio::spawn({
        let (http, url, session) = (http.clone(), served.url.clone(), session.clone());
        async move { post(&http, &url, Some(&session), call).await }
    });
    watch.started.recv().await.expect("the handler started");
    // Its answer's stream (or the request, if still sent) dropped.
    calling.abort();
    drop(calling.await);
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(watch.fired.try_recv().is_err(), "the call was cancelled");
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let answered = post(&http, &served.url, Some(&session), ping).await;
    assert_eq!(answered.status(), 200, "the session is still open");
    let deleted = http
        .delete(&served.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    watch.fired.recv().await.expect("the token fired");
    served.stop().await;
}
