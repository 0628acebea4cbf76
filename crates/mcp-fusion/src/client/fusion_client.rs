//! [`FusionClient`]: connecting to a server and calling its tools.

// Sampling and roots, deprecated by SEP-2577 (2026-07-28) in rmcp's types,
// are still client features of both revisions: the client answers them.
#![allow(deprecated)]

use std::collections::HashSet;
use std::fmt;
use std::process::Stdio;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ProtocolVersion, ServerNotification, Tool,
};
use rmcp::service::{ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::IntoTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use secrecy::ExposeSecret;
use serde_json::{Map, Value};

use super::cause::{ConnectCause, innermost_text};
use super::client_side::Observed;
use super::connect::{
    BEARER_NOT_A_HEADER, SERVER_END_WAIT, STDERR_SETTLE, ServerEnd, ended_with, fits_a_header,
    handshake_failure, serve_allowing_authorization,
};
use super::error::FusionClientError;
use super::oauth::authorizing::{Authorizer, Authorizing};
use super::options::{ClientOptions, ServerStderr};
use super::outcome::{Success, check_result};
use super::param_headers::{ParamHeaders, ToolSchemas};
use super::response_cache::Cached;
use super::retry::{self};
use super::route::{Route, build_arguments, route, unlisted};
use super::stderr::StderrTail;
use super::target::Target;
use crate::listing::ToolListing;
use crate::named::Named;

/// The set of tool names the server listed; `None` when listing failed.
type ToolNames = Option<HashSet<String>>;

/// A connection to one MCP server, over rmcp's client (wire contract §8).
///
/// Works with any MCP server; with an mcp-fusion server it also reads the
/// `_meta` envelope and the routing of grouped tools.
///
/// Over Streamable HTTP, when the server answers a request with 404 for the
/// client's `Mcp-Session-Id` (it restarted, or closed the session), the client
/// repeats the handshake once to start a new session and sends the request
/// again, once; if that gets a 404 too, the call fails with
/// [`FusionClientError::Transport`] (`the server no longer knows this session
/// (HTTP 404), even after a new session was started`), never a loop. Every
/// later call may start one new session in the same way. Methods take `&self`, so
/// one client can run many calls at once. Dropping the client closes the
/// connection in the background (and stops a stdio server); [`close`](Self::close)
/// does it and waits.
pub struct FusionClient {
    pub(super) service: RunningService<RoleClient, Observed>,
    /// Every notification from the server, for [`notifications`](Self::notifications).
    notifications: tokio::sync::broadcast::Sender<ServerNotification>,
    /// The shared response cache ([`ClientOptions::response_cache`] in
    /// Redis); rmcp's peer keeps the in-memory one.
    pub(super) cached: Cached,
    /// For a connection to a server in this process: that server's end.
    server_end: Option<ServerEnd>,
    options: ClientOptions,
    tool_names: tokio::sync::Mutex<Option<Arc<ToolNames>>>,
    /// The input schema of each tool last listed whole, for the
    /// `Mcp-Param-*` headers of a call over HTTP ([`ParamHeaders`]).
    tool_schemas: ToolSchemas,
    stderr: Option<StderrTail>,
    /// With [`ClientOptions::oauth`] over HTTP: where authorization failures
    /// are kept.
    authorizer: Option<Arc<Authorizer>>,
    /// The target as displayed (its password masked).
    target: String,
    /// The instruments of its requests' CLIENT spans, when telemetry was
    /// enabled as it connected ([`crate::telemetry::enable`]).
    #[cfg(feature = "otel")]
    pub(super) telemetry: Option<crate::telemetry::client::ClientTelemetry>,
}

impl fmt::Debug for FusionClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FusionClient")
            .field("server", &self.server_name())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl FusionClient {
    /// Connects to `target` and completes the MCP handshake.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::Connect`] when the URL cannot be reached, the
    /// program cannot be started, the handshake fails, or it takes longer than
    /// [`ClientOptions::connect_timeout`], or the bearer token cannot be sent
    /// in a header (`the bearer token has a character an HTTP header cannot
    /// carry …`); [`FusionClientError::Authorization`] when, with
    /// [`ClientOptions::oauth`], no token the server accepts was obtained.
    pub async fn connect(
        target: &Target,
        options: ClientOptions,
    ) -> Result<FusionClient, FusionClientError> {
        let info = Observed::new(&options, &target.to_string());
        let notifications = info.notifications.clone();
        let cached = info.cached.clone();
        let tool_schemas = ToolSchemas::default();
        let Opened {
            served,
            stderr,
            authorizer,
        } = match target {
            Target::Http { url } => {
                let schemas = Arc::clone(&tool_schemas);
                open_http(target, url, &options, info, schemas).await?
            }
            Target::Stdio { program, args } => open_stdio(program, args, &options, info)
                .await
                .map_err(|(cause, reason)| connect_error(target, cause, reason, None))?,
        };
        let (cause, failure) = match served {
            Ok(Ok(service)) => {
                let rmcp_cache = options.response_cache.rmcp_config();
                service.peer().set_response_cache_config(rmcp_cache).await;
                return Ok(FusionClient {
                    service,
                    notifications,
                    cached,
                    server_end: None,
                    options,
                    tool_names: tokio::sync::Mutex::new(None),
                    tool_schemas,
                    stderr,
                    authorizer,
                    target: target.to_string(),
                    #[cfg(feature = "otel")]
                    telemetry: crate::telemetry::client::ClientTelemetry::enabled(match target {
                        Target::Http { url } => Some(url),
                        _ => None,
                    }),
                });
            }
            Ok(Err(e)) => match &e {
                // The transport's own error, without rmcp's type names.
                rmcp::service::ClientInitializeError::TransportError { error, .. } => {
                    handshake_failure(error.error.as_ref(), target)
                }
                other => handshake_failure(other, target),
            },
            Err(_) => (
                ConnectCause::TimedOut,
                format!(
                    "no MCP handshake within {} s",
                    options.connect_timeout.as_secs_f64()
                ),
            ),
        };
        if let Some(source) = authorizer.as_ref().and_then(|a| a.take_failure()) {
            return Err(FusionClientError::Authorization {
                target: target.to_string(),
                source,
            });
        }
        let server_stderr = match &stderr {
            Some(tail) => tail.settle(STDERR_SETTLE).await,
            None => None,
        };
        Err(connect_error(target, cause, failure, server_stderr))
    }

    /// Connects over `transport` to a server this process serves on its
    /// other end (`FusionServer::connect_in_memory`), named `target` in
    /// errors; `server_end` resolves when that server stops. Returns once
    /// the handshake is done and a `ping` answered (the server has then read
    /// `notifications/initialized`). A request that
    /// finds the connection closed after the server failed gives the
    /// server's failure as its [`FusionClientError::Transport`] message;
    /// [`close`](Self::close) waits for the server's end.
    ///
    /// # Errors
    /// [`FusionClientError::Connect`] (cause [`ConnectCause::Other`], or
    /// [`ConnectCause::TimedOut`] after [`ClientOptions::connect_timeout`])
    /// when the handshake fails: with the server's failure as the reason when
    /// the server stopped.
    pub(crate) async fn connect_in_process<T, E, A>(
        transport: T,
        target: String,
        options: ClientOptions,
        server_end: ServerEnd,
    ) -> Result<FusionClient, FusionClientError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let info = Observed::new(&options, &target);
        let notifications = info.notifications.clone();
        let cached = info.cached.clone();
        let served = tokio::time::timeout(
            options.connect_timeout,
            info.serve_with_lifecycle(transport, options.protocol.lifecycle()),
        )
        .await;
        let (cause, reason) = match served {
            Ok(Ok(service)) => {
                let rmcp_cache = options.response_cache.rmcp_config();
                service.peer().set_response_cache_config(rmcp_cache).await;
                let client = FusionClient {
                    service,
                    notifications,
                    cached,
                    server_end: Some(server_end),
                    options,
                    tool_names: tokio::sync::Mutex::new(None),
                    tool_schemas: ToolSchemas::default(),
                    stderr: None,
                    authorizer: None,
                    target: target.clone(),
                    #[cfg(feature = "otel")]
                    telemetry: crate::telemetry::client::ClientTelemetry::enabled(None),
                };
                // `notifications/initialized` went out without an answer:
                // once a ping is answered the server has read it, and tells
                // this client of list changes and resource updates.
                match tokio::time::timeout(client.options.connect_timeout, client.ping()).await {
                    Ok(Ok(())) => return Ok(client),
                    Ok(Err(error)) => (
                        ConnectCause::Other,
                        format!("the first ping failed: {error}"),
                    ),
                    Err(_) => (
                        ConnectCause::TimedOut,
                        format!(
                            "no answer to the first ping within {} s",
                            client.options.connect_timeout.as_secs_f64()
                        ),
                    ),
                }
            }
            Ok(Err(e)) => (
                ConnectCause::Other,
                in_process_failure(&e, &server_end).await,
            ),
            Err(_) => (
                ConnectCause::TimedOut,
                format!(
                    "no MCP handshake within {} s",
                    options.connect_timeout.as_secs_f64()
                ),
            ),
        };
        Err(FusionClientError::Connect {
            target,
            reason,
            cause,
            server_stderr: None,
        })
    }

    /// Every notification the server sends from now on (MCP 2025-11-25
    /// "Notifications"; any transport), each as rmcp's
    /// [`ServerNotification`](crate::model::ServerNotification):
    /// `notifications/tools/list_changed`, `prompts/list_changed`,
    /// `resources/list_changed`, `resources/updated`, `message` (logging),
    /// `progress`, `cancelled`, and 2026-07-28's
    /// `subscriptions/acknowledged` and task status. Each receiver gets
    /// every notification sent after it was made, in order; one that falls
    /// more than [`NOTIFICATION_BUFFER`](super::NOTIFICATION_BUFFER) behind loses the oldest
    /// (`RecvError::Lagged(n)`), and `recv` returns `RecvError::Closed` once
    /// the client is closed or dropped and the rest was read (while the
    /// client exists, a receiver of a broken connection waits: check
    /// [`is_closed`](Self::is_closed) or bound the wait).
    pub fn notifications(&self) -> tokio::sync::broadcast::Receiver<ServerNotification> {
        self.notifications.subscribe()
    }

    /// The server's name and version from the handshake, e.g.
    /// `("plain-errors", "1.0.0")`.
    pub fn server_name(&self) -> Option<(String, String)> {
        self.service
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map(|server| (server.name, server.version))
    }

    /// What a stdio server wrote on stderr so far (its last 8 KiB), when
    /// started with [`ServerStderr::Capture`]; `None` otherwise or when empty.
    pub fn server_stderr(&self) -> Option<String> {
        self.stderr.as_ref().and_then(StderrTail::text)
    }

    /// Whether the connection has ended (a stdio server exited, the
    /// transport closed, or the client was cancelled): every later request
    /// fails with [`FusionClientError::Transport`].
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.is_transport_closed()
    }

    /// Sends `ping` (MCP "Ping") and waits for the answer, within
    /// [`ClientOptions::call_timeout`]: whether the server is still there.
    ///
    /// # Errors
    /// Transport, protocol and time-out errors as for [`call`](Self::call).
    pub async fn ping(&self) -> Result<(), FusionClientError> {
        self.sent_ping(true).await
    }

    /// A [`ping`](Self::ping) no trace records: a gateway's liveness check
    /// of its upstreams, every few seconds (with the `otel` feature, no
    /// CLIENT span, and `params._meta` carries a context marked not
    /// sampled, so that a server sampling by its parent records none).
    ///
    /// # Errors
    /// As for [`ping`](Self::ping).
    #[cfg_attr(not(feature = "gateway"), allow(dead_code))]
    pub(crate) async fn probe(&self) -> Result<(), FusionClientError> {
        self.sent_ping(false).await
    }

    /// Asks to be told when the resource at `uri` changes
    /// (`resources/subscribe`, MCP 2025-11-25 "Resources", "Subscriptions"):
    /// the server then sends `notifications/resources/updated` for it, read
    /// from [`notifications`](Self::notifications). Within
    /// [`ClientOptions::call_timeout`].
    ///
    /// # Errors
    /// [`FusionClientError::JsonRpc`] when the server refuses it (e.g.
    /// `-32601` from a server without the `resources.subscribe`
    /// capability); transport, protocol and time-out errors as for
    /// [`call`](Self::call).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), FusionClientError> {
        let params = rmcp::model::SubscribeRequestParams::new(uri);
        self.sent(
            "resources/subscribe",
            |p| Named::Resource(&p.uri),
            params,
            |p| self.service.subscribe(p),
        )
        .await
    }

    /// Stops the notifications [`subscribe_resource`](Self::subscribe_resource)
    /// asked for (`resources/unsubscribe`).
    ///
    /// # Errors
    /// As for [`subscribe_resource`](Self::subscribe_resource).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), FusionClientError> {
        let params = rmcp::model::UnsubscribeRequestParams::new(uri);
        self.sent(
            "resources/unsubscribe",
            |p| Named::Resource(&p.uri),
            params,
            |p| self.service.unsubscribe(p),
        )
        .await
    }

    /// Asks the server to send only log messages at `level` or above
    /// (`logging/setLevel`, MCP 2025-11-25 "Logging"); until then a server
    /// decides (an mcp-fusion server sends every level). Messages arrive as
    /// `notifications/message` on [`notifications`](Self::notifications).
    ///
    /// # Errors
    /// As for [`subscribe_resource`](Self::subscribe_resource).
    pub async fn set_logging_level(
        &self,
        level: rmcp::model::LoggingLevel,
    ) -> Result<(), FusionClientError> {
        let params = rmcp::model::SetLevelRequestParams::new(level);
        self.sent(
            "logging/setLevel",
            |_| Named::Nothing,
            params,
            |p| self.service.set_level(p),
        )
        .await
    }

    /// Changes the partition of the [`ResponseCache`](super::ResponseCache)
    /// ([`ClientOptions::response_cache`]): the authorization context later
    /// requests are made for, e.g. after the client changed credentials.
    /// `None`: none (in memory, private results are then kept for this
    /// connection; in Redis, not at all). In memory the private results of
    /// the partition left are dropped and the public ones kept; in Redis
    /// each partition keeps its own.
    pub async fn set_cache_partition(&self, partition: Option<String>) {
        let peer = self.service.peer();
        let mut config = peer.response_cache_config().await;
        if config.enabled {
            config.private_partition = partition.clone();
            peer.set_response_cache_config(config).await;
        }
        self.cached.set_partition(partition);
    }

    /// The options this client was connected with.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Every tool the server lists: every page of `tools/list`, following
    /// `nextCursor` from the first page to the last (at most
    /// [`MAX_LIST_PAGES`](super::MAX_LIST_PAGES) pages; each page within
    /// [`ClientOptions::call_timeout`]). Also refreshes the list used to
    /// route dotted names.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::JsonRpc`] if the server refuses `tools/list`
    /// (a page's cursor too); [`FusionClientError::Protocol`] when the list
    /// goes on past [`MAX_LIST_PAGES`](super::MAX_LIST_PAGES) pages or a
    /// page repeats an earlier page's `nextCursor`; transport, protocol and
    /// time-out errors as for [`call`](Self::call).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, FusionClientError> {
        let tools = self.every_tool().await?;
        let names = tools.iter().map(|t| t.name.to_string()).collect();
        *self.tool_names.lock().await = Some(Arc::new(Some(names)));
        Ok(tools)
    }

    /// Every page of `tools/list` (see [`list_tools`](Self::list_tools)),
    /// their input schemas kept for the calls' `Mcp-Param-*` headers.
    async fn every_tool(&self) -> Result<Vec<Tool>, FusionClientError> {
        let tools = super::pages::every_page("tools/list", |cursor| async move {
            let page = self
                .page("tools/list", cursor, |p| self.service.list_tools(p))
                .await?;
            Ok((page.tools, page.next_cursor))
        })
        .await?;
        let schemas = tools
            .iter()
            .map(|tool| (tool.name.to_string(), Arc::clone(&tool.input_schema)))
            .collect();
        *self.tool_schemas.write().unwrap_or_else(|e| e.into_inner()) = schemas;
        Ok(tools)
    }

    /// Every tool of `tools/list` as a contract reads it (what `fusion lock`
    /// records): the listed tools, with each tool of which the session's
    /// state gate hides actions now replaced by its whole listing from the
    /// result's `_meta["mcp-fusion/gated"]` ([`GATED_META_KEY`]; a tool
    /// hidden whole is added after the others). A server without a state
    /// gate, or a foreign one, gives [`list_tools`](Self::list_tools)'s list.
    ///
    /// [`GATED_META_KEY`]: crate::capability::GATED_META_KEY
    ///
    /// # Errors
    ///
    /// As for [`list_tools`](Self::list_tools), and
    /// [`FusionClientError::Protocol`] when `_meta["mcp-fusion/gated"]` is
    /// not a list of tools.
    pub async fn contract_tools(&self) -> Result<Vec<Tool>, FusionClientError> {
        let pages = super::pages::every_page("tools/list", |cursor| async move {
            let page = self
                .page("tools/list", cursor, |p| self.service.list_tools(p))
                .await?;
            let gated = gated_of(page.meta.as_ref())?;
            let listed = page.tools.into_iter().map(|tool| (tool, false));
            Ok((
                listed
                    .chain(gated.into_iter().map(|tool| (tool, true)))
                    .collect(),
                page.next_cursor,
            ))
        })
        .await?;
        let mut tools: Vec<Tool> = Vec::new();
        for (tool, whole) in pages {
            match tools.iter_mut().find(|t| t.name == tool.name) {
                Some(listed) if whole => *listed = tool,
                Some(_) => {}
                None => tools.push(tool),
            }
        }
        Ok(tools)
    }

    /// [`list_tools`](Self::list_tools), each read as a listing with its
    /// actions ([`ToolListing::of`]: an mcp-fusion tool's from its `_meta`, a
    /// foreign tool's for the client's discriminator key).
    ///
    /// # Errors
    ///
    /// As for [`list_tools`](Self::list_tools).
    pub async fn tool_listings(&self) -> Result<Vec<ToolListing>, FusionClientError> {
        let tools = self.list_tools().await?;
        Ok(tools
            .iter()
            .map(|tool| ToolListing::of(tool, &self.options.discriminator))
            .collect())
    }

    /// Where a call to `name` goes:
    ///
    /// - a name without a dot, or a name that is itself a listed tool, is
    ///   called as it is;
    /// - otherwise the name is split at the dot after its longest listed
    ///   prefix: `finance.billing.get_invoice` → tool `finance.billing` (a
    ///   gateway's namespaced group), action `get_invoice`;
    /// - when the list names neither the name nor any prefix of it, or when
    ///   the tool list cannot be fetched, the name is split at its first dot
    ///   (`a.b.c` → tool `a`, action `b.c`): a server lists only what this
    ///   caller may see, so a group hidden from an anonymous `tools/list` is
    ///   still reached, and the server answers for it (401/403 naming the
    ///   scopes, `AUTH_REQUIRED`). [`call`](Self::call) then sends the name
    ///   as it is when the server has no tool of that first part (tool
    ///   search lists only `search_tools`; a gateway answers
    ///   `HANDOFF_NAMESPACE_MISMATCH` for a namespace it does not have).
    ///
    /// A dotted name fetches the tool list once (and caches it; a listing
    /// that failed is asked again next time).
    pub async fn route(&self, name: &str) -> Route {
        if !name.contains('.') {
            return route(name, None::<[&str; 0]>);
        }
        let names = self.tool_names().await;
        match names.as_ref() {
            Some(names) => route(name, Some(names.iter().map(String::as_str))),
            None => route(name, None::<[&str; 0]>),
        }
    }

    async fn tool_names(&self) -> Arc<ToolNames> {
        let mut cached = self.tool_names.lock().await;
        if let Some(names) = cached.as_ref() {
            return Arc::clone(names);
        }
        let names = match self.every_tool().await {
            Ok(tools) => Some(tools.iter().map(|t| t.name.to_string()).collect()),
            Err(_) => return Arc::new(None),
        };
        let names = Arc::new(names);
        *cached = Some(Arc::clone(&names));
        names
    }

    /// Calls tool `name` (dotted names route to grouped tools, see
    /// [`route`](Self::route)) with `args`, a JSON object or `null`, and
    /// returns the result as the server sent it, `isError` or not.
    ///
    /// # Errors
    ///
    /// - [`FusionClientError::InvalidArguments`]: `args` is not an object or `null`;
    /// - [`FusionClientError::JsonRpc`]: the server answered with a JSON-RPC
    ///   error (e.g. `-32602` for an unknown tool);
    /// - [`FusionClientError::Transport`] / [`FusionClientError::Protocol`]:
    ///   the connection broke or the answer was not a tool result;
    /// - [`FusionClientError::Timeout`]: [`ClientOptions::call_timeout`] passed;
    /// - [`FusionClientError::Authorization`]: with [`ClientOptions::oauth`],
    ///   authorizing again failed, a step-up did not get the scopes the
    ///   server asks for ([`AuthorizationError::InsufficientScope`](super::AuthorizationError::InsufficientScope)),
    ///   or the authorization server refused it ([`AuthorizationError::StepUpRefused`](super::AuthorizationError::StepUpRefused)).
    pub async fn call(&self, name: &str, args: Value) -> Result<CallToolResult, FusionClientError> {
        self.call_with_meta(name, args, Map::new()).await
    }

    /// [`call`](Self::call), with `meta` as the request's `_meta` (MCP
    /// 2025-11-25 "`_meta`"; nothing is sent when it is empty), e.g. context
    /// a gateway carries over to the server it hands a caller to.
    ///
    /// # Errors
    ///
    /// As for [`call`](Self::call).
    pub async fn call_with_meta(
        &self,
        name: &str,
        args: Value,
        meta: Map<String, Value>,
    ) -> Result<CallToolResult, FusionClientError> {
        let route = self.route(name).await;
        if self.sends_param_headers() {
            // The tool's `x-mcp-header` parameters are read from its listed
            // input schema: list once (cached) before the first call.
            self.tool_names().await;
        }
        let unlisted = route.action.is_some()
            && (*self.tool_names().await)
                .as_ref()
                .is_some_and(|names| unlisted(name, names.iter().map(String::as_str)));
        if !unlisted {
            return self.call_routed(&route, args, meta).await;
        }
        let split = self.call_routed(&route, args.clone(), meta.clone()).await;
        if !names_no_tool(&split, &route.tool) {
            return split;
        }
        let as_is = Route {
            tool: name.to_owned(),
            action: None,
        };
        self.call_routed(&as_is, args, meta).await
    }

    /// Sends `tools/call` of `route` with `args` and `meta`.
    async fn call_routed(
        &self,
        route: &Route,
        args: Value,
        meta: Map<String, Value>,
    ) -> Result<CallToolResult, FusionClientError> {
        let arguments = build_arguments(args, route, &self.options.discriminator)?;
        let mut params = CallToolRequestParams::new(route.tool.clone());
        params.arguments = arguments;
        if !meta.is_empty() {
            params.meta = Some(rmcp::model::RequestMetaObject(rmcp::model::MetaObject(
                meta,
            )));
        }
        self.sent(
            "tools/call",
            |p| Named::Tool(&p.name),
            params,
            |p| self.service.call_tool(p),
        )
        .await
    }

    /// The MCP revision the connection negotiated, e.g. `2026-07-28`
    /// (empty before the handshake): part of a shared cache's keys, as a
    /// result's shape depends on it.
    pub(super) fn revision(&self) -> String {
        self.service
            .peer_info()
            .map(|info| info.protocol_version.to_string())
            .unwrap_or_default()
    }

    /// The MCP revision the connection speaks (`mcp.protocol.version` of its
    /// requests' spans).
    #[cfg(feature = "otel")]
    pub(super) fn protocol_version(&self) -> Option<&'static str> {
        self.service.peer_info().map(|info| {
            crate::telemetry::conventions::protocol_version(info.protocol_version.as_str())
        })
    }

    /// Whether the connection speaks 2026-07-28 or later, where a
    /// `tools/call` over Streamable HTTP mirrors each `x-mcp-header`
    /// parameter of the tool's input schema into an `Mcp-Param-*` header
    /// (2026-07-28 basic/transports/streamable-http "Custom Headers from Tool
    /// Parameters"; a server MUST reject a call whose headers are missing).
    fn sends_param_headers(&self) -> bool {
        self.service
            .peer_info()
            .is_some_and(|info| info.protocol_version >= ProtocolVersion::STANDARD_HEADERS)
    }

    /// [`call`](Self::call), then [`check_result`](super::check_result): a
    /// success (with its warnings) or a typed error. Retries per
    /// [`ClientOptions::retry`] when set.
    ///
    /// # Errors
    ///
    /// [`FusionClientError::Tool`] when the tool failed (`isError: true`), with
    /// the envelope's code, severity, message, recovery, available actions,
    /// details, retry-after and, for a validation failure, its fields; the
    /// other variants as for [`call`](Self::call).
    pub async fn call_checked(
        &self,
        name: &str,
        args: Value,
    ) -> Result<Success, FusionClientError> {
        retry::run(
            self.options.retry.as_ref(),
            || async { check_result(self.call(name, args.clone()).await?) },
            tokio::time::sleep,
        )
        .await
    }

    /// Closes the connection and waits for it to end; a stdio server is asked
    /// to exit (stdin closed, then SIGTERM, then killed after a few seconds);
    /// a server served in this process (`FusionServer::connect_in_memory`)
    /// sees the connection end, and `close` returns once it has stopped
    /// serving it.
    pub async fn close(self) {
        let _ = self.service.cancel().await;
        if let Some(end) = self.server_end {
            end.await;
        }
    }

    /// `request` within [`ClientOptions::call_timeout`], its error as a
    /// [`FusionClientError`] (an authorization failure kept by the
    /// authorizer, when there is one, takes its place).
    pub(super) async fn limited<T, F>(&self, request: F) -> Result<T, FusionClientError>
    where
        F: Future<Output = Result<T, rmcp::ServiceError>>,
    {
        let outcome = match self.options.call_timeout {
            Some(limit) => match tokio::time::timeout(limit, request).await {
                Ok(outcome) => outcome.map_err(Into::into),
                Err(_) => Err(FusionClientError::Timeout(limit)),
            },
            None => request.await.map_err(Into::into),
        };
        // A request refused after the client failed to (re)authorize: the
        // authorization failure is the reason to give.
        let outcome = outcome.map_err(|error| {
            match self.authorizer.as_ref().and_then(|a| a.take_failure()) {
                Some(source) => FusionClientError::Authorization {
                    target: self.target.clone(),
                    source,
                },
                None => error,
            }
        });
        match (outcome, &self.server_end) {
            // The connection closed under the request because the server in
            // this process stopped: its failure is the reason to give.
            (Err(FusionClientError::Transport { message, source }), Some(end)) => {
                let ended = tokio::time::timeout(SERVER_END_WAIT, ended_with(end)).await;
                match ended {
                    Ok(Some(failure)) => Err(FusionClientError::Transport {
                        message: format!("the server stopped: {failure}"),
                        source,
                    }),
                    _ => Err(FusionClientError::Transport { message, source }),
                }
            }
            (outcome, _) => outcome,
        }
    }
}

/// The outcome of an MCP handshake within its time limit.
type Handshake = Result<
    Result<RunningService<RoleClient, Observed>, rmcp::service::ClientInitializeError>,
    tokio::time::error::Elapsed,
>;

/// A transport opened and its handshake's outcome, with what the client
/// keeps of the transport: a child's stderr, an OAuth authorizer.
struct Opened {
    served: Handshake,
    stderr: Option<StderrTail>,
    authorizer: Option<Arc<Authorizer>>,
}

/// The [`FusionClientError::Connect`] of `target`.
fn connect_error(
    target: &Target,
    cause: ConnectCause,
    reason: String,
    server_stderr: Option<String>,
) -> FusionClientError {
    FusionClientError::Connect {
        target: target.to_string(),
        reason,
        cause,
        server_stderr,
    }
}

/// The MCP handshake of `info` over `transport`, within
/// [`ClientOptions::connect_timeout`].
async fn handshake<T, E, A>(info: Observed, transport: T, options: &ClientOptions) -> Handshake
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let lifecycle = options.protocol.lifecycle();
    tokio::time::timeout(
        options.connect_timeout,
        info.serve_with_lifecycle(transport, lifecycle),
    )
    .await
}

/// Streamable HTTP at `url` (`target`): with the bearer token given, or
/// authorized by OAuth, or without credentials; a call's missing
/// `Mcp-Param-*` headers added from `schemas` ([`ParamHeaders`]).
async fn open_http(
    target: &Target,
    url: &str,
    options: &ClientOptions,
    info: Observed,
    schemas: ToolSchemas,
) -> Result<Opened, FusionClientError> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    // A 404 for the session (the server restarted, or dropped an
    // idle session): one new session, the request sent once more;
    // a second 404 is returned (rmcp does it; set, not assumed).
    config.reinit_on_expired_session = true;
    let (served, authorizer) = match (&options.bearer, &options.oauth) {
        (Some(token), _) => {
            let token = token.expose_secret();
            if !fits_a_header(token) {
                return Err(connect_error(
                    target,
                    ConnectCause::Other,
                    String::from(BEARER_NOT_A_HEADER),
                    None,
                ));
            }
            config = config.auth_header(token.to_owned());
            let client = ParamHeaders::new(http_client(), schemas);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            (handshake(info, transport, options).await, None)
        }
        (None, Some(oauth)) => {
            let authorization = |source| FusionClientError::Authorization {
                target: target.to_string(),
                source,
            };
            let server_url = url::Url::parse(url).map_err(|e| {
                connect_error(target, ConnectCause::Other, format!("not a URL: {e}"), None)
            })?;
            let (client, shared) = Authorizing::new(server_url, oauth.clone())
                .await
                .map_err(authorization)?;
            let client = ParamHeaders::new(client, schemas);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let served = serve_allowing_authorization(
                info.serve_with_lifecycle(transport, options.protocol.lifecycle()),
                options.connect_timeout,
                &shared,
                oauth.redirect_timeout,
            )
            .await;
            (served, Some(shared))
        }
        (None, None) => {
            let client = ParamHeaders::new(http_client(), schemas);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            (handshake(info, transport, options).await, None)
        }
    };
    Ok(Opened {
        served,
        stderr: None,
        authorizer,
    })
}

/// Why the handshake with a server of this process failed: the server's
/// own failure when it stopped (it says more), else the handshake's.
async fn in_process_failure(
    e: &rmcp::service::ClientInitializeError,
    server_end: &ServerEnd,
) -> String {
    let failure = match e {
        rmcp::service::ClientInitializeError::TransportError { error, .. } => {
            innermost_text(error.error.as_ref())
        }
        other => innermost_text(other),
    };
    let ended = tokio::time::timeout(SERVER_END_WAIT, ended_with(server_end)).await;
    match ended {
        Ok(Some(server)) => format!("the server stopped: {server}"),
        _ => format!("MCP handshake failed: {failure}"),
    }
}

/// The HTTP client of a Streamable HTTP connection, as rmcp builds its
/// own: no idle connections kept (rmcp: a kept connection whose last
/// response was not read to its end stalls the next request), and only
/// same-origin 307 and 308 redirects followed, at most 10 (they keep the
/// method and body; another origin would be handed the session id and
/// headers).
fn http_client() -> reqwest::Client {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(url::Url::origin);
        let kept = matches!(attempt.status().as_u16(), 307 | 308);
        if attempt.previous().len() > 10 {
            attempt.error("more than 10 redirects")
        } else if kept && first.as_ref() == Some(&attempt.url().origin()) {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .unwrap_or_default()
}

/// `program` with `args` as a child process, over its stdin and stdout;
/// its stderr as [`ClientOptions::stderr`] says. A program that cannot be
/// started is its cause and reason.
async fn open_stdio(
    program: &str,
    args: &[String],
    options: &ClientOptions,
    info: Observed,
) -> Result<Opened, (ConnectCause, String)> {
    let mut command = tokio::process::Command::new(program);
    // Killed when dropped: also when the client is dropped
    // during its handshake, or its process exits then.
    command.args(args).kill_on_drop(true);
    let stderr_io = match options.stderr {
        ServerStderr::Inherit => Stdio::inherit(),
        ServerStderr::Discard => Stdio::null(),
        ServerStderr::Capture => Stdio::piped(),
    };
    let (transport, child_stderr) = TokioChildProcess::builder(command)
        .stderr(stderr_io)
        .spawn()
        .map_err(|e| {
            (
                ConnectCause::NotStarted,
                format!("cannot start `{program}`: {e}"),
            )
        })?;
    let stderr = child_stderr.map(StderrTail::spawn);
    Ok(Opened {
        served: handshake(info, transport, options).await,
        stderr,
        authorizer: None,
    })
}

/// The tools of a `tools/list` result's `_meta["mcp-fusion/gated"]`
/// (none when absent).
fn gated_of(meta: Option<&rmcp::model::MetaObject>) -> Result<Vec<Tool>, FusionClientError> {
    let key = crate::tool_meta::GATED_META_KEY;
    let Some(gated) = meta.and_then(|m| m.0.get(key)) else {
        return Ok(Vec::new());
    };
    serde_json::from_value(gated.clone()).map_err(|e| FusionClientError::Protocol {
        message: format!("_meta[\"{key}\"] of tools/list is not a list of tools: {e}"),
        source: Some(Box::new(e)),
    })
}

/// Whether `answer` says the server has no tool `tool`: a JSON-RPC
/// `-32602` whose `data.tool` is it (MCP's unknown tool), or an
/// `UNKNOWN_TOOL` or `HANDOFF_NAMESPACE_MISMATCH` envelope.
fn names_no_tool(answer: &Result<CallToolResult, FusionClientError>, tool: &str) -> bool {
    match answer {
        Err(FusionClientError::JsonRpc { code, data, .. }) => {
            *code == rmcp::model::ErrorCode::INVALID_PARAMS.0
                && data
                    .as_ref()
                    .and_then(|data| data.get("tool"))
                    .and_then(Value::as_str)
                    == Some(tool)
        }
        Ok(result) if result.is_error == Some(true) => matches!(
            crate::envelope::code_in(result.meta.as_ref()),
            Some("UNKNOWN_TOOL" | "HANDOFF_NAMESPACE_MISMATCH")
        ),
        _ => false,
    }
}
