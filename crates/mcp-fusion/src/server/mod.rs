//! The server: [`ServerBuilder`] declares it, [`FusionServer`] serves it over
//! rmcp (stdio or Streamable HTTP). The only module, with `client/`, that knows
//! rmcp's protocol types.

mod builder;
mod handler;
mod in_flight;
mod transport;

use std::sync::Arc;

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use builder::ServerBuilder;
pub use transport::{SHUTDOWN_GRACE_SECS, ServeError, shutdown_signal};

use crate::pipeline::{CallRequest, run};
use crate::router::{Registry, ToolListing};
use in_flight::InFlight;

pub(crate) struct ServerIdentity {
    pub name: String,
    pub version: String,
    pub instructions: Option<String>,
}

struct ServerInner {
    registry: Registry,
    identity: ServerIdentity,
    tools: Vec<Tool>,
    expose_internal_errors: bool,
    in_flight: InFlight,
}

/// A built server. Cheap to clone (one shared table inside); serve it with
/// [`FusionServer::serve_stdio`] or [`FusionServer::serve_http`], or call it
/// in-process with [`FusionServer::call`].
#[derive(Clone)]
pub struct FusionServer {
    inner: Arc<ServerInner>,
}

impl std::fmt::Debug for FusionServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FusionServer")
            .field("name", &self.inner.identity.name)
            .field("tools", &self.inner.tools.len())
            .finish_non_exhaustive()
    }
}

/// A call that named no tool: MCP answers it with JSON-RPC error -32602.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownToolError {
    /// Names the tool, the closest valid one and every valid one.
    pub message: String,
    /// `{"tool", "closest"?, "valid_tools"}`, sent as the JSON-RPC error's `data`.
    pub data: Value,
}

impl FusionServer {
    /// Starts declaring a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }

    fn new(registry: Registry, identity: ServerIdentity, expose_internal_errors: bool) -> Self {
        let tools = registry
            .tools()
            .iter()
            .map(|t| handler::to_rmcp_tool(&t.listing))
            .collect();
        FusionServer {
            inner: Arc::new(ServerInner {
                registry,
                identity,
                tools,
                expose_internal_errors,
                in_flight: InFlight::default(),
            }),
        }
    }

    /// What `tools/list` shows, tool by tool, in registration order.
    pub fn listings(&self) -> Vec<ToolListing> {
        self.inner
            .registry
            .tools()
            .iter()
            .map(|t| t.listing.clone())
            .collect()
    }

    /// Calls tool `name` with `arguments` in-process, through the same path as
    /// a `tools/call` from a client (routing, validation, middleware, handler,
    /// envelope). `arguments` must be a JSON object or null.
    ///
    /// # Errors
    /// [`UnknownToolError`] when no tool is named `name` (over MCP: -32602).
    pub async fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, UnknownToolError> {
        self.call_with_http(name, arguments, None).await
    }

    /// [`FusionServer::call`] as if the call came over Streamable HTTP with the
    /// request head `http` (its `Authorization` and `Mcp-Session-Id` headers
    /// reach the auth and rate-limit guards), for tests and embedding.
    ///
    /// # Errors
    /// [`UnknownToolError`] when no tool is named `name` (over MCP: -32602).
    pub async fn call_with_http(
        &self,
        name: &str,
        arguments: Value,
        http: Option<axum::http::request::Parts>,
    ) -> Result<CallToolResult, UnknownToolError> {
        let arguments: Option<Map<String, Value>> = match arguments {
            Value::Object(object) => Some(object),
            Value::Null => None,
            other => {
                let mut wrapped = Map::new();
                wrapped.insert("(root)".into(), other);
                Some(wrapped)
            }
        };
        let _in_flight = self.inner.in_flight.enter();
        let request = CallRequest {
            name: name.to_owned(),
            arguments,
            request_id: String::from("local"),
            cancellation: CancellationToken::new(),
            http,
        };
        run(
            &self.inner.registry,
            self.inner.expose_internal_errors,
            request,
        )
        .await
        .map_err(|u| UnknownToolError {
            message: u.message,
            data: u.data,
        })
    }

    /// The state of the concurrency guard of the action `name` (dotted, or a
    /// plain tool's name); `None` when it has no concurrency guard.
    pub fn concurrency_stats(&self, name: &str) -> Option<crate::guard::ConcurrencyStats> {
        let (tool, action) = match name.split_once('.') {
            Some((tool, action)) if self.inner.registry.tool(name).is_none() => {
                (tool, Some(action))
            }
            _ => (name, None),
        };
        let tool = self.inner.registry.tool(tool)?;
        let action = match action {
            Some(key) => tool.action(key)?,
            None => tool.actions.first()?,
        };
        action.concurrency.as_ref().map(|g| g.snapshot())
    }

    /// Calls in progress now (over every transport).
    pub fn calls_in_flight(&self) -> usize {
        self.inner.in_flight.count()
    }
}
