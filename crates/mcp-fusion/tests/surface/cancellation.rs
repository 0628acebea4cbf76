//! A client that goes away mid-call cancels the call at once: the running
//! handler's cancellation token fires, and so does every clone it handed
//! on, without waiting out the grace rmcp gives a closed connection's
//! handlers (5 s). In-memory (a dropped `FusionClient`) the clock is tokio's
//! paused clock, so the grace would show as 5 s passed; over Streamable HTTP
//! (a `DELETE` of the session) the bound is half that grace.

use std::time::Duration;

use mcp_fusion::{Action, CallContext, ClientOptions, FusionServer, State, ToolError};
#[cfg(feature = "http")]
use serde_json::Value;
use serde_json::json;
use tokio::sync::mpsc;
#[cfg(feature = "http")]
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Where the handler reports: when it started, when its token fired.
#[derive(Clone)]
struct Reports {
    started: mpsc::UnboundedSender<()>,
    fired: mpsc::UnboundedSender<Instant>,
}

/// The receiving ends of [`Reports`].
struct Watch {
    started: mpsc::UnboundedReceiver<()>,
    fired: mpsc::UnboundedReceiver<Instant>,
}

/// Hands its token to a task of its own (which reports when it fires), then
/// waits forever.
async fn wait(State(reports): State<Reports>, ctx: CallContext) -> Result<String, ToolError> {
    let token = ctx.cancellation().clone();
    tokio::spawn(async move {
        token.cancelled().await;
        let _ = reports.fired.send(Instant::now());
    });
    let _ = reports.started.send(());
    std::future::pending().await
}

/// A server whose tool `wait` reports to the returned [`Watch`].
fn server() -> (FusionServer, Watch) {
    let (started, started_rx) = mpsc::unbounded_channel();
    let (fired, fired_rx) = mpsc::unbounded_channel();
    let server = FusionServer::builder("cancellation", "1.0.0")
        .state(Reports { started, fired })
        .tool(Action::new("wait", wait))
        .build()
        .unwrap();
    let watch = Watch {
        started: started_rx,
        fired: fired_rx,
    };
    (server, watch)
}

#[tokio::test(start_paused = true)]
async fn a_dropped_in_memory_client_cancels_its_running_call_at_once() {
    let (server, mut watch) = server();
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

/// A 2025-11-25 session on a server over Streamable HTTP, spoken to in raw
/// requests.
#[cfg(feature = "http")]
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

#[cfg(feature = "http")]
impl Session {
    /// Opens a session on the server at `url` (`initialize`, then
    /// `notifications/initialized`).
    async fn open(url: &str) -> Session {
        let http = reqwest::Client::new();
        let initialize = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}
            }
        });
        let opened = post(&http, url, None, initialize).await;
        assert_eq!(opened.status(), 200);
        let id = opened.headers()["mcp-session-id"].to_str().unwrap();
        let session = Session {
            http: http.clone(),
            url: url.to_owned(),
            id: id.to_owned(),
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(session.post(initialized).await.status(), 202);
        session
    }

    /// `POST`s `body` on the session.
    async fn post(&self, body: Value) -> reqwest::Response {
        post(&self.http, &self.url, Some(&self.id), body).await
    }

    /// Calls `wait` as request `id`, in a task of its own whose result holds
    /// the answer's stream.
    fn call_wait(&self, id: u64) -> JoinHandle<reqwest::Response> {
        let call = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "wait", "arguments": {}}
        });
        let (http, url, session) = (self.http.clone(), self.url.clone(), self.id.clone());
        tokio::spawn(async move { post(&http, &url, Some(&session), call).await })
    }

    /// `DELETE`s the session; its status.
    async fn delete(&self) -> u16 {
        let deleted = self
            .http
            .delete(&self.url)
            .header("mcp-session-id", &self.id);
        deleted.send().await.unwrap().status().as_u16()
    }
}

/// Drops `calling` and the answer's stream it holds (or its request, if
/// still being sent).
#[cfg(feature = "http")]
async fn drop_stream(calling: JoinHandle<reqwest::Response>) {
    calling.abort();
    drop(calling.await);
}

/// `POST`s `body` on the server at `url` (on `session` when given).
#[cfg(feature = "http")]
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
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
    let (server, mut watch) = server();
    let served = crate::connection::HttpServed::start(&server).await;
    let session = Session::open(&served.url).await;
    let calling = session.call_wait(2);
    watch.started.recv().await.expect("the handler started");
    let deleted_at = Instant::now();
    assert_eq!(session.delete().await, 204);
    let fired = watch.fired.recv().await.expect("the token fired");
    assert!(
        fired - deleted_at < Duration::from_millis(2_500),
        "fired {:?} after the DELETE",
        fired - deleted_at
    );
    drop_stream(calling).await;
    served.stop().await;
}

/// MCP 2026-07-28 (basic/patterns/cancellation): closing a request's
/// response stream is its cancellation.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_2026_07_28_response_stream_cancels_its_call_at_once() {
    let (server, mut watch) = server();
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
    drop_stream(calling).await;
    let fired = watch.fired.recv().await.expect("the token fired");
    assert!(
        fired - closed_at < Duration::from_millis(2_500),
        "fired {:?} after the stream closed",
        fired - closed_at
    );
    served.stop().await;
}

/// On a 2025-11-25 session a dropped response stream is no cancellation
/// (basic/transports): the call goes on, and its request id stays in use
/// until it ends; another request with that id is refused meanwhile rather
/// than given the first call's answer.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_keeps_its_request_id_in_use_while_its_call_runs() {
    let (server, mut watch) = server();
    let served = crate::connection::HttpServed::start(&server).await;
    let session = Session::open(&served.url).await;
    let calling = session.call_wait(7);
    watch.started.recv().await.expect("the handler started");
    drop_stream(calling).await;
    // The stream is gone; the call is not.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(watch.fired.try_recv().is_err(), "the call was cancelled");
    let again = session
        .post(json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "wait", "arguments": {}}
        }))
        .await;
    assert_eq!(again.status(), 400);
    assert_eq!(
        again.text().await.unwrap(),
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: a request with id 7 is already in progress in this session; use a new id"}}"#
    );
    // Ending the session ends the call.
    assert_eq!(session.delete().await, 204);
    watch.fired.recv().await.expect("the token fired");
    served.stop().await;
}

/// A call still running is use of its session: the session does not expire
/// under it, though its stream dropped and nothing else came.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_a_call_running_does_not_expire() {
    let (server, mut watch) = server();
    let options =
        mcp_fusion::transport::HttpOptions::default().session_idle(Duration::from_secs(1));
    let served = crate::connection::HttpServed::start_with(&server, options).await;
    let session = Session::open(&served.url).await;
    let calling = session.call_wait(2);
    watch.started.recv().await.expect("the handler started");
    drop_stream(calling).await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(watch.fired.try_recv().is_err(), "the call was cancelled");
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(
        session.post(ping).await.status(),
        200,
        "the session is open"
    );
    assert_eq!(session.delete().await, 204);
    watch.fired.recv().await.expect("the token fired");
    served.stop().await;
}
