//! The names of the OpenTelemetry semantic conventions this crate records
//! (semantic-conventions-genai `docs/gen-ai/mcp.md`, status Development;
//! `error.type`, `network.*`, `client.*`, `server.*`, `jsonrpc.*` and
//! `rpc.response.status_code` from the general registry), and the contract's
//! own under [`PREFIX`]. One place per string: every recording site imports
//! its name from here, and an application's own queries or dashboards can
//! too.

/// `mcp.method.name`: the JSON-RPC method (`tools/call`), always set.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// `mcp.protocol.version`: the MCP revision the request speaks (`2025-11-25`).
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// `mcp.session.id`: the `Mcp-Session-Id` of a Streamable HTTP session.
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// `mcp.resource.uri`: the URI of `resources/read`, `resources/subscribe`, …
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
/// `jsonrpc.request.id`: the request's `id`, as a string.
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// `gen_ai.tool.name`: the tool of `tools/call`.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.prompt.name`: the prompt of `prompts/get`.
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
/// `gen_ai.operation.name`: [`EXECUTE_TOOL`] on `tools/call`, unset otherwise.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// The value of [`GEN_AI_OPERATION_NAME`] on a tool call.
pub const EXECUTE_TOOL: &str = "execute_tool";
/// `network.transport`: [`PIPE`] over stdio, [`TCP`] over Streamable HTTP.
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// `network.protocol.name`: `http` over Streamable HTTP.
pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
/// The value of [`NETWORK_TRANSPORT`] over stdio.
pub const PIPE: &str = "pipe";
/// The value of [`NETWORK_TRANSPORT`] over Streamable HTTP.
pub const TCP: &str = "tcp";
/// `error.type`: the JSON-RPC error code (`-32602`), [`TOOL_ERROR`] for an
/// `isError` result, [`CANCELLED`] for a cancelled request.
pub const ERROR_TYPE: &str = "error.type";
/// The value of [`ERROR_TYPE`] for a `CallToolResult` with `isError: true`
/// (the MCP conventions, note on `error.type`).
pub const TOOL_ERROR: &str = "tool_error";
/// The value of [`ERROR_TYPE`] for a request the client cancelled, or whose
/// answer was never sent.
pub const CANCELLED: &str = "cancelled";
/// `rpc.response.status_code`: the JSON-RPC error code of an error answer.
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// `server.address` (client side): the host of a Streamable HTTP server.
pub const SERVER_ADDRESS: &str = "server.address";
/// `server.port` (client side), with [`SERVER_ADDRESS`].
pub const SERVER_PORT: &str = "server.port";

/// `client.address` (server side, over HTTP): the caller's IP address as
/// the socket sees it.
pub const CLIENT_ADDRESS: &str = "client.address";
/// `client.port` (server side), with [`CLIENT_ADDRESS`].
pub const CLIENT_PORT: &str = "client.port";

/// The prefix of the attributes that are the contract's own, not the
/// conventions': `mcp_fusion.error.code`, `mcp_fusion.action`.
pub const PREFIX: &str = "mcp_fusion.";
/// `mcp_fusion.error.code`: the envelope's code (`NOT_FOUND`,
/// `VALIDATION_ERROR`, `RATE_LIMITED`, …) of a failed tool call, or the first
/// warning's code of a success that carries warnings.
pub const FUSION_ERROR_CODE: &str = "mcp_fusion.error.code";
/// `mcp_fusion.action`: the action a grouped tool's call reached (its
/// discriminator's value, once routed: never a value the router refused).
pub const FUSION_ACTION: &str = "mcp_fusion.action";

/// `mcp.server.operation.duration`: a histogram, in seconds, from a request's
/// arrival to its answer (the MCP conventions, "Metrics").
pub const SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// `mcp.client.operation.duration`: a histogram, in seconds, from a request
/// sent to its answer received.
pub const CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// The explicit bucket boundaries both histograms SHOULD have, in seconds
/// (the MCP conventions, "Metric: `mcp.client.operation.duration`").
pub const DURATION_BOUNDARIES_SECONDS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The most characters a span keeps of a name or URI the caller sent
/// (`gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
/// `mcp.session.id`, `jsonrpc.request.id`); the rest is cut.
pub const MAX_VALUE_CHARS: usize = 256;

/// The `mcp.method.name` of a request whose method mcp-fusion does not
/// serve: the caller's text would make every unknown method a new value.
/// Also the `mcp.protocol.version` of a request naming a revision no MCP
/// SDK knows, and the `http.request.method` of an HTTP method that is not
/// one of the standard ones.
pub const OTHER_METHOD: &str = "_OTHER";

/// A request's `mcp.protocol.version`: `version` when it is a revision of
/// MCP ([`rmcp::model::ProtocolVersion::KNOWN_VERSIONS`]), else
/// [`OTHER_METHOD`]. An `initialize` request names the revision it asks
/// for, whatever text that is: kept as it was sent, every new text would
/// be a new value of the duration metric.
///
/// ```
/// use mcp_fusion::telemetry::conventions::protocol_version;
///
/// assert_eq!(protocol_version("2025-11-25"), "2025-11-25");
/// assert_eq!(protocol_version("2025-11-25-evil"), "_OTHER");
/// ```
pub fn protocol_version(version: &str) -> &'static str {
    rmcp::model::ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(|known| known.as_str())
        .find(|known| *known == version)
        .unwrap_or(OTHER_METHOD)
}

/// The methods the MCP conventions name (`mcp.method.name`'s well-known
/// values) and the ones 2026-07-28 adds: a request's method when it is one
/// of them, else [`OTHER_METHOD`].
///
/// ```
/// use mcp_fusion::telemetry::conventions::method_name;
///
/// assert_eq!(method_name("tools/call"), "tools/call");
/// assert_eq!(method_name("tools/call\u{0}x"), "_OTHER");
/// assert_eq!(method_name("admin/dump"), "_OTHER");
/// ```
pub fn method_name(method: &str) -> &'static str {
    const KNOWN: [&str; 30] = [
        "completion/complete",
        "initialize",
        "logging/setLevel",
        "ping",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/templates/list",
        "resources/unsubscribe",
        "resources/directory/read",
        "tools/call",
        "tools/list",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "tasks/list",
        "tasks/result",
        "skills/list",
        "skills/get",
        "elicitation/create",
        "sampling/createMessage",
        "roots/list",
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/progress",
        "notifications/roots/list_changed",
    ];
    KNOWN
        .into_iter()
        .find(|known| *known == method)
        .unwrap_or(OTHER_METHOD)
}

/// The instrumentation scope of every span and instrument this crate makes.
pub const SCOPE: &str = "mcp-fusion";
