//! An rmcp client connected in-process (a `tokio::io::duplex` pipe served by
//! `FusionServer::serve_streams`) for the surface tests: a
//! `ClientHandler` that records every server notification and answers
//! sampling and elicitation requests as the test configured it.

// Logging, sampling and resource subscriptions are MCP 2025-11-25 features
// that rmcp marks deprecated (SEP-2577, 2026-07-28).
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_fusion::FusionServer;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorData, Implementation,
    ListRootsResult, LoggingMessageNotificationParam, PingRequest, ProgressNotificationParam,
    ProtocolVersion, ResourceUpdatedNotificationParam, SamplingMessage,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleClient, RunningService, ServiceError,
};
use rmcp::{ClientHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// How long a test waits for a notification it expects.
pub const WAIT: Duration = Duration::from_secs(5);

/// How long a test waits before concluding that a notification it does not
/// expect did not come (after a request round trip on the same pipe).
pub const SETTLE: Duration = Duration::from_millis(150);

/// A notification the client received: its method and its params as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub method: &'static str,
    pub params: Value,
}

/// A server-to-client request the client answered: its method and params.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub method: &'static str,
    pub params: Value,
}

#[derive(Debug, Default)]
struct Record {
    seen: Vec<Seen>,
    asked: Vec<Asked>,
}

/// The client's behaviour: the capabilities it declares and the answers it
/// gives.
#[derive(Debug, Clone, Default)]
pub struct ClientSetup {
    /// Declare `sampling` and answer `sampling/createMessage` with this
    /// assistant text (model `test-model`).
    pub sampling_reply: Option<String>,
    /// Declare `sampling` and answer `sampling/createMessage` with a
    /// JSON-RPC error (-32603) with this message (when `sampling_reply` is
    /// `None`).
    pub sampling_error: Option<String>,
    /// Declare `elicitation` and answer `elicitation/create` with this.
    pub elicit_reply: Option<Value>,
    /// Declare `roots` and answer `roots/list` with this `ListRootsResult`.
    pub roots_reply: Option<Value>,
    /// The `capabilities` to declare instead of the ones the answers above
    /// imply.
    pub capabilities: Option<Value>,
}

/// The recording `ClientHandler`.
#[derive(Debug, Clone)]
pub struct Recorder {
    setup: ClientSetup,
    record: Arc<Mutex<Record>>,
}

impl Recorder {
    pub fn new(setup: ClientSetup) -> Self {
        Recorder {
            setup,
            record: Arc::default(),
        }
    }

    fn push(&self, method: &'static str, params: Value) {
        self.record
            .lock()
            .unwrap()
            .seen
            .push(Seen { method, params });
    }

    fn ask(&self, method: &'static str, params: Value) {
        self.record
            .lock()
            .unwrap()
            .asked
            .push(Asked { method, params });
    }

    /// Every notification received so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.record.lock().unwrap().seen.clone()
    }

    /// The notifications of `method` received so far, in order.
    pub fn seen_of(&self, method: &str) -> Vec<Value> {
        self.seen()
            .into_iter()
            .filter(|s| s.method == method)
            .map(|s| s.params)
            .collect()
    }

    /// Every server-to-client request answered so far.
    pub fn asked(&self) -> Vec<Asked> {
        self.record.lock().unwrap().asked.clone()
    }

    /// Waits until `count` notifications of `method` arrived (fails the test
    /// after [`WAIT`]); returns them all.
    pub async fn wait_for(&self, method: &str, count: usize) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let got = self.seen_of(method);
            if got.len() >= count {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "waited {WAIT:?} for {count} {method}, got {got:?} (all: {:?})",
                self.seen()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = json!({});
        if self.setup.sampling_reply.is_some() || self.setup.sampling_error.is_some() {
            capabilities["sampling"] = json!({});
        }
        if self.setup.elicit_reply.is_some() {
            capabilities["elicitation"] = json!({"form": {}});
        }
        if self.setup.roots_reply.is_some() {
            capabilities["roots"] = json!({});
        }
        if let Some(declared) = &self.setup.capabilities {
            capabilities = declared.clone();
        }
        let capabilities: ClientCapabilities = from_json(capabilities);
        ClientConfig::new(capabilities, Implementation::new("surface-test", "0.0.1"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.ask("sampling/createMessage", to_json(&params));
        match &self.setup.sampling_reply {
            Some(text) => Ok(CreateMessageResult::new(
                SamplingMessage::assistant_text(text.clone()),
                String::from("test-model"),
            )
            .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN)),
            None => Err(ErrorData::internal_error(
                self.setup
                    .sampling_error
                    .clone()
                    .unwrap_or_else(|| String::from("this client does not sample")),
                None,
            )),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.ask("roots/list", json!({}));
        match &self.setup.roots_reply {
            Some(reply) => Ok(from_json(reply.clone())),
            None => Err(ErrorData::internal_error("this client has no roots", None)),
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.ask("elicitation/create", to_json(&request));
        match &self.setup.elicit_reply {
            Some(reply) => Ok(from_json(reply.clone())),
            None => Err(ErrorData::internal_error(
                "this client does not elicit",
                None,
            )),
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.push("notifications/progress", to_json(&params));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.push("notifications/message", to_json(&params));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.push("notifications/resources/updated", to_json(&params));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.push("notifications/resources/list_changed", Value::Null);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.push("notifications/prompts/list_changed", Value::Null);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.push("notifications/tools/list_changed", Value::Null);
    }
}

/// A client connected to a server over an in-process pipe.
pub struct Connected {
    pub client: RunningService<RoleClient, Recorder>,
    pub recorder: Recorder,
    pub serving: tokio::task::JoinHandle<Result<(), mcp_fusion::transport::ServeError>>,
}

impl Connected {
    /// The server's `capabilities` from the `initialize` answer, as JSON.
    pub fn server_capabilities(&self) -> Value {
        let info = self.client.peer_info().expect("initialized");
        to_json(&info.capabilities)
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> String {
        let info = self.client.peer_info().expect("initialized");
        info.protocol_version.to_string()
    }

    /// A `ping` round trip: what the server received before it (the
    /// `notifications/initialized` of the handshake, …) has been read.
    pub async fn ping(&self) {
        self.client
            .send_request(ClientRequest::PingRequest(PingRequest {
                method: Default::default(),
                extensions: Default::default(),
            }))
            .await
            .expect("the server answers ping");
    }

    /// A `ping` round trip, then a pause ([`SETTLE`]): what the server sent
    /// before has arrived, and a notification that did not come now will not.
    pub async fn settle(&self) {
        self.ping().await;
        tokio::time::sleep(SETTLE).await;
    }

    /// Closes the client; the server's connection then ends cleanly.
    pub async fn close(self) {
        let _ = self.client.cancel().await;
        let served = tokio::time::timeout(WAIT, self.serving)
            .await
            .expect("the server connection ends when the client closes")
            .expect("the serving task does not panic");
        served.expect("the server connection ends without error");
    }
}

/// Connects a client with `setup` to `server` (a new connection of it, with
/// its own session).
pub async fn connect_with(server: &FusionServer, setup: ClientSetup) -> Connected {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let serving = tokio::spawn(server.clone().serve_streams(
        read,
        write,
        mcp_fusion::transport::StdioOptions::default(),
        std::future::pending(),
    ));
    handshake(setup, client_io, serving).await
}

/// The client's handshake over `transport`, then a ping: the server binds
/// the connection (for list changes and resource updates) when it reads
/// `notifications/initialized`, which the client sent without waiting, so
/// make sure it has.
async fn handshake<T, E, A>(
    setup: ClientSetup,
    transport: T,
    serving: tokio::task::JoinHandle<Result<(), mcp_fusion::transport::ServeError>>,
) -> Connected
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let recorder = Recorder::new(setup);
    let client = tokio::time::timeout(WAIT, recorder.clone().serve(transport))
        .await
        .expect("the handshake completes")
        .expect("the handshake succeeds");
    let connected = Connected {
        client,
        recorder,
        serving,
    };
    connected.ping().await;
    tokio::task::yield_now().await;
    connected
}

/// Connects a client that declares no capabilities.
pub async fn connect(server: &FusionServer) -> Connected {
    connect_with(server, ClientSetup::default()).await
}

/// `value` serialized (a test helper: never fails for rmcp's types).
pub fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serializable")
}

/// `value` read as `T` (request params built from JSON).
pub fn from_json<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{value} does not read as the type: {e}"))
}

/// The JSON-RPC error of a failed request (fails the test on any other
/// outcome).
#[track_caller]
pub fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, ServiceError>) -> ErrorData {
    match outcome {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// A request's answer as JSON, or its JSON-RPC error (fails the test on
/// any other failure).
#[track_caller]
pub fn answer<T: serde::Serialize + std::fmt::Debug>(
    outcome: Result<T, ServiceError>,
) -> Result<Value, ErrorData> {
    match outcome {
        Ok(result) => Ok(to_json(&result)),
        Err(e) => Err(rpc_error::<()>(Err(e))),
    }
}

/// A JSON-RPC error as `{code, message, data}` (data `null` when absent).
pub fn error_json(error: &ErrorData) -> Value {
    json!({
        "code": error.code.0,
        "message": error.message,
        "data": error.data.clone().unwrap_or(Value::Null),
    })
}

/// A client that writes and reads the JSON-RPC lines itself (for what
/// rmcp's client does not let a test choose, such as a request without a
/// progress token: rmcp gives every request one).
pub struct RawClient {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    /// The task serving the connection, for a test to await or abort (none
    /// does yet).
    #[allow(dead_code)]
    pub serving: tokio::task::JoinHandle<Result<(), mcp_fusion::transport::ServeError>>,
}

impl RawClient {
    /// Writes `message` as one line.
    pub async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt as _;
        let mut line = message.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.flush().await.unwrap();
    }

    /// The next line the server wrote (fails the test after [`WAIT`]).
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("the server writes a line")
            .unwrap()
            .expect("the server did not close the stream");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?} is not JSON: {e}"))
    }

    /// Sends request `id` and reads up to its response: the messages the
    /// server sent before it, and the response.
    pub async fn request(&mut self, id: u64, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut before = Vec::new();
        loop {
            let message = self.recv().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return (before, message);
            }
            before.push(message);
        }
    }
}

/// Connects a [`RawClient`] to `server` and completes the handshake (a
/// 2025-11-25 client declaring no capabilities).
pub async fn connect_raw(server: &FusionServer) -> RawClient {
    let mut raw = raw_pipe(server);
    let (before, response) = raw
        .request(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0.0.1"}
            }),
        )
        .await;
    assert_eq!(before, Vec::<Value>::new());
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
    raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let (_, pong) = raw.request(1, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    raw
}

/// A [`RawClient`] on a pipe to `server`, before any message: for a
/// 2026-07-28 client, which sends no `initialize`.
pub fn raw_pipe(server: &FusionServer) -> RawClient {
    use tokio::io::AsyncBufReadExt as _;
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let serving = tokio::spawn(server.clone().serve_streams(
        read,
        write,
        mcp_fusion::transport::StdioOptions::default(),
        std::future::pending(),
    ));
    let (client_read, client_write) = tokio::io::split(client_io);
    RawClient {
        lines: tokio::io::BufReader::new(client_read).lines(),
        write: client_write,
        serving,
    }
}

/// A client connected over Streamable HTTP to a server listening on
/// 127.0.0.1 (its own `serve_http_on`, stopped with the returned sender).
#[cfg(feature = "http")]
pub struct HttpServed {
    pub url: String,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub serving: tokio::task::JoinHandle<Result<(), mcp_fusion::transport::ServeError>>,
}

#[cfg(feature = "http")]
impl HttpServed {
    /// Serves `server` over Streamable HTTP on a free local port.
    pub async fn start(server: &FusionServer) -> HttpServed {
        Self::start_with(server, mcp_fusion::transport::HttpOptions::default()).await
    }

    /// Serves `server` over Streamable HTTP on a free local port with
    /// `options`.
    pub async fn start_with(
        server: &FusionServer,
        options: mcp_fusion::transport::HttpOptions,
    ) -> HttpServed {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(server.clone().serve_http_on(listener, options, async move {
            let _ = stopped.await;
        }));
        HttpServed {
            url: format!("http://{addr}/mcp"),
            stop: Some(stop),
            serving,
        }
    }

    /// Connects a client with `setup`.
    pub async fn connect_with(&self, setup: ClientSetup) -> Connected {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(self.url.as_str());
        // The HTTP server outlives the client: nothing to wait for.
        handshake(setup, transport, tokio::spawn(async { Ok(()) })).await
    }

    /// Connects a client that sends `bearer` as its bearer token on every
    /// request (`Authorization: Bearer …`).
    pub async fn connect_as(&self, bearer: &str) -> Connected {
        let config =
            rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                self.url.as_str(),
            )
            .auth_header(bearer);
        let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
        handshake(
            ClientSetup::default(),
            transport,
            tokio::spawn(async { Ok(()) }),
        )
        .await
    }

    /// Stops the server.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(10), self.serving).await;
    }
}
