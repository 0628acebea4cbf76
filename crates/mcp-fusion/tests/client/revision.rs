//! `FusionClient` speaking MCP 2026-07-28 (`ClientOptions::protocol`), each
//! request it sends recorded by an axum layer in front of the server:
//!
//! - against an mcp-fusion server (`http_router`): `server/discover` first,
//!   then self-contained requests: the `MCP-Protocol-Version`, `Mcp-Method`
//!   and `Mcp-Name` headers (basic/transports/streamable-http), the `_meta`
//!   protocol version, client info and capabilities (basic/index "`_meta`"),
//!   no session;
//! - a first answer `400` with `-32022` and the supported versions
//!   (basic/versioning): `server/discover` is sent again with one of them;
//! - against rmcp's own server: a tool's `x-mcp-header` parameters mirrored
//!   into `Mcp-Param-*` headers (Base64 sentinel for what a header cannot
//!   carry), from the first call on; input-required results
//!   (basic/patterns/mrtr) answered by the client's elicitation handler
//!   round after round, each retry carrying `inputResponses` and the
//!   `requestState` exactly as received, under a new JSON-RPC id.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use mcp_fusion::client::{
    ClientOptions, ElicitationHandler, FusionClient, ProtocolRevision, Target,
};
use mcp_fusion::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use mcp_fusion::{Action, FusionServer};
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputRequests,
    InputRequiredResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// One POST the server received: the headers that matter here and the body.
#[derive(Debug, Clone)]
struct Sent {
    protocol_version: Option<String>,
    method_header: Option<String>,
    name_header: Option<String>,
    /// Every `Mcp-Param-*` header, `name: value`, in name order.
    param_headers: Vec<String>,
    session: Option<String>,
    body: Value,
}

/// What the recording layer saw, and whether it still has to refuse the
/// first request with `-32022`.
#[derive(Clone, Default)]
struct Recorder {
    sent: Arc<Mutex<Vec<Sent>>>,
    refuse_first: Arc<Mutex<bool>>,
}

impl Recorder {
    fn sent(&self) -> Vec<Sent> {
        self.sent.lock().unwrap().clone()
    }
}

async fn record(State(recorder): State<Recorder>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 1 << 20).await.expect("a readable body");
    if parts.method == axum::http::Method::POST {
        let header = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let mut param_headers: Vec<String> = parts
            .headers
            .iter()
            .filter(|(name, _)| name.as_str().starts_with("mcp-param-"))
            .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("?")))
            .collect();
        param_headers.sort();
        recorder.sent.lock().unwrap().push(Sent {
            param_headers,
            protocol_version: header("mcp-protocol-version"),
            method_header: header("mcp-method"),
            name_header: header("mcp-name"),
            session: header("mcp-session-id"),
            body: body.clone(),
        });
        let mut refuse = recorder.refuse_first.lock().unwrap();
        if *refuse {
            *refuse = false;
            let error = json!({
                "jsonrpc": "2.0",
                "id": body["id"],
                "error": {
                    "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}
                }
            });
            return (
                StatusCode::BAD_REQUEST,
                [("content-type", "application/json")],
                error.to_string(),
            )
                .into_response();
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Serves `router` behind the recording layer on a loopback port until
/// `stop` is cancelled; returns its `/mcp` URL.
async fn serve(router: axum::Router, recorder: &Recorder, stop: &CancellationToken) -> String {
    let router = router.layer(from_fn_with_state(recorder.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("its address");
    let stopped = stop.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move { stopped.cancelled().await })
        .await
    });
    format!("http://{addr}/mcp")
}

#[derive(Deserialize, JsonSchema)]
struct LookupInput {
    /// The record id.
    id: u32,
}

async fn lookup(input: LookupInput) -> Result<String, mcp_fusion::ToolError> {
    Ok(format!("record {}", input.id))
}

/// An mcp-fusion server with one tool, `lookup`, behind the recorder.
async fn fusion_server(recorder: &Recorder) -> (String, CancellationToken) {
    let server = FusionServer::builder("records", "1.0.0")
        .tool(Action::new("lookup", lookup).read_only())
        .build()
        .expect("the server");
    let stop = CancellationToken::new();
    let router = server
        .http_router(&mcp_fusion::transport::HttpOptions::default(), stop.clone())
        .expect("the router");
    (serve(router, recorder, &stop).await, stop)
}

/// The first request of a 2026-07-28 client, as [`headers_of`] shows it.
const DISCOVER: &str = "server/discover mcp-protocol-version=2026-07-28 mcp-method=server/discover";
/// A 2026-07-28 `tools/list`, as [`headers_of`] shows it.
const TOOLS_LIST: &str = "tools/list mcp-protocol-version=2026-07-28 mcp-method=tools/list";

fn modern() -> ClientOptions {
    ClientOptions::default().protocol(ProtocolRevision::V2026_07_28)
}

/// Each request as `METHOD` followed by the MCP headers it carried, e.g.
/// `tools/call mcp-protocol-version=2026-07-28 mcp-method=tools/call mcp-name=lookup`.
fn headers_of(sent: &[Sent]) -> Vec<String> {
    sent.iter()
        .map(|s| {
            let mut line = s.body["method"].as_str().unwrap_or("").to_owned();
            for (name, value) in [
                ("mcp-protocol-version", &s.protocol_version),
                ("mcp-method", &s.method_header),
                ("mcp-name", &s.name_header),
            ] {
                if let Some(value) = value {
                    line.push_str(&format!(" {name}={value}"));
                }
            }
            line
        })
        .collect()
}

fn some(text: &str) -> Option<String> {
    Some(text.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_client_discovers_then_sends_self_contained_requests() {
    let recorder = Recorder::default();
    let (url, stop) = fusion_server(&recorder).await;
    let client = FusionClient::connect(&Target::http(&url), modern())
        .await
        .expect("connected");
    let tools = client.list_tools().await.expect("tools/list");
    assert_eq!(
        tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(),
        ["lookup"]
    );
    let result = client
        .call("lookup", json!({"id": 7}))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("record 7")
    );
    client.close().await;
    stop.cancel();

    let sent = recorder.sent();
    assert_eq!(
        headers_of(&sent),
        [
            DISCOVER,
            TOOLS_LIST,
            "tools/call mcp-protocol-version=2026-07-28 mcp-method=tools/call mcp-name=lookup",
        ]
    );
    for request in &sent {
        assert_eq!(request.session, None, "no Mcp-Session-Id on 2026-07-28");
        let meta = &request.body["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-fusion"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["version"],
            env!("CARGO_PKG_VERSION")
        );
        // No handler given: no client feature declared.
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_client_asks_for_2025_11_25_in_its_handshake() {
    let recorder = Recorder::default();
    let (url, stop) = fusion_server(&recorder).await;
    let client = FusionClient::connect(&Target::http(&url), ClientOptions::default())
        .await
        .expect("connected");
    client.list_tools().await.expect("tools/list");
    client.close().await;
    stop.cancel();
    let sent = recorder.sent();
    let methods: Vec<_> = sent
        .iter()
        .map(|s| s.body["method"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        methods[..3],
        ["initialize", "notifications/initialized", "tools/list"]
    );
    assert_eq!(sent[0].body["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(sent[2].protocol_version, some("2025-11-25"));
    assert_eq!(
        sent[2].method_header, None,
        "no Mcp-Method before 2026-07-28"
    );
    assert!(sent[2].session.is_some(), "a 2025-11-25 session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsupported_version_answer_is_retried_with_a_supported_one() {
    let recorder = Recorder::default();
    *recorder.refuse_first.lock().unwrap() = true;
    let (url, stop) = fusion_server(&recorder).await;
    let client = FusionClient::connect(&Target::http(&url), modern())
        .await
        .expect("connected after the -32022");
    client.list_tools().await.expect("tools/list");
    client.close().await;
    stop.cancel();
    let sent = recorder.sent();
    assert_eq!(headers_of(&sent), [DISCOVER, DISCOVER, TOOLS_LIST,]);
    assert_ne!(sent[0].body["id"], sent[1].body["id"], "a new JSON-RPC id");
}

/// rmcp's server with one tool, `confirm`, that asks for a confirmation
/// twice through input-required results (requestState `round-1`, then
/// `round-2`) before it completes with what the client answered.
#[derive(Clone)]
struct Confirming;

fn confirmation_request(round: u32) -> InputRequests {
    serde_json::from_value(json!({
        format!("confirm-{round}"): {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": format!("Confirm round {round}?"),
                "requestedSchema": {
                    "type": "object",
                    "properties": {"confirmed": {"type": "boolean", "default": false}},
                    "required": ["confirmed"]
                }
            }
        }
    }))
    .expect("an elicitation input request")
}

impl ServerHandler for Confirming {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        let object = |schema: Value| Arc::new(schema.as_object().unwrap().clone());
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("confirm", "Asks twice.", object(json!({"type": "object"}))),
            Tool::new(
                "route",
                "Routes by region.",
                object(json!({
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "note": {"type": "string"}
                    },
                    "required": ["region"]
                })),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        if request.name == "route" {
            let region = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("region"))
                .cloned()
                .unwrap_or(Value::Null);
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(format!("routed to {region}")),
            ])));
        }
        let answers = request.input_responses.unwrap_or_default();
        let answer = |key: &str| serde_json::to_string(&answers.get(key)).unwrap();
        match request.request_state.as_deref() {
            None => Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(confirmation_request(1)),
                Some("round-1".to_owned()),
            ))),
            Some("round-1") => Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(confirmation_request(2)),
                Some(format!("round-2 after {}", answer("confirm-1"))),
            ))),
            Some(state) => Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(format!("{state}; then {}", answer("confirm-2"))),
            ]))),
        }
    }
}

/// rmcp's Streamable HTTP server serving [`Confirming`] behind the recorder;
/// its `/mcp` URL and the cancellation that stops it.
async fn rmcp_server(recorder: &Recorder) -> (String, CancellationToken) {
    let stop = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.clone();
    let service = StreamableHttpService::new(
        || Ok(Confirming),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    (serve(router, recorder, &stop).await, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_mcp_header_parameters_are_mirrored_into_mcp_param_headers() {
    let recorder = Recorder::default();
    let (url, stop) = rmcp_server(&recorder).await;
    let client = FusionClient::connect(&Target::http(&url), modern())
        .await
        .expect("connected");
    // No tools/list by the caller: the client lists once by itself, so
    // that the first call already carries its header (the server checks it).
    let first = client
        .call("route", json!({"region": "café", "note": "n"}))
        .await
        .expect("tools/call");
    let second = client
        .call("route", json!({"region": "eu-west"}))
        .await
        .expect("tools/call");
    client.close().await;
    stop.cancel();
    assert_eq!(
        [&first, &second].map(|r| r.content[0].as_text().map(|t| t.text.clone())),
        [some(r#"routed to "café""#), some(r#"routed to "eu-west""#)]
    );
    let sent = recorder.sent();
    assert_eq!(
        headers_of(&sent),
        [
            DISCOVER,
            TOOLS_LIST,
            "tools/call mcp-protocol-version=2026-07-28 mcp-method=tools/call mcp-name=route",
            "tools/call mcp-protocol-version=2026-07-28 mcp-method=tools/call mcp-name=route",
        ]
    );
    // Non-ASCII travels in the spec's Base64 sentinel; an unannotated
    // parameter (`note`) is not mirrored.
    assert_eq!(
        sent.iter()
            .map(|s| s.param_headers.clone())
            .collect::<Vec<_>>(),
        [
            vec![],
            vec![],
            vec!["mcp-param-region: =?base64?Y2Fmw6k=?=".to_owned()],
            vec!["mcp-param-region: eu-west".to_owned()],
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_rounds_are_answered_by_the_elicitation_handler() {
    let recorder = Recorder::default();
    let (url, stop) = rmcp_server(&recorder).await;

    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let handler = ElicitationHandler::new(move |request: ElicitRequestParams| {
        let seen = Arc::clone(&seen);
        async move {
            if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
                seen.lock().unwrap().push(message);
            }
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({"confirmed": true}))
        }
    });
    let client = FusionClient::connect(&Target::http(&url), modern().elicitation(handler))
        .await
        .expect("connected");
    let result = client.call("confirm", json!({})).await.expect("tools/call");
    client.close().await;
    stop.cancel();

    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some(
            r#"round-2 after {"action":"accept","content":{"confirmed":true}}; then {"action":"accept","content":{"confirmed":true}}"#
        )
    );
    assert_eq!(
        *asked.lock().unwrap(),
        ["Confirm round 1?", "Confirm round 2?"]
    );
    let calls: Vec<Sent> = recorder
        .sent()
        .into_iter()
        .filter(|s| s.body["method"] == "tools/call")
        .collect();
    let params: Vec<(Value, Value)> = calls
        .iter()
        .map(|s| {
            (
                s.body["params"]["inputResponses"].clone(),
                s.body["params"]["requestState"].clone(),
            )
        })
        .collect();
    let accepted = json!({"action": "accept", "content": {"confirmed": true}});
    assert_eq!(
        params,
        [
            (Value::Null, Value::Null),
            (json!({"confirm-1": accepted}), json!("round-1")),
            (
                json!({"confirm-2": accepted}),
                json!(format!("round-2 after {accepted}")),
            ),
        ]
    );
    let ids: std::collections::HashSet<String> =
        calls.iter().map(|s| s.body["id"].to_string()).collect();
    assert_eq!(ids.len(), 3, "each round a new JSON-RPC id");
    for call in &calls {
        assert_eq!(call.name_header, some("confirm"));
        assert_eq!(
            call.body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
            json!({"elicitation": {"form": {}, "url": {}}})
        );
    }
}
