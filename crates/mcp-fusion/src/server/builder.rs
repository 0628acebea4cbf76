//! [`ServerBuilder`]: declaring a server's tools, groups and layers.

use tower::{Layer, Service};

use super::FusionServer;
use crate::error::ToolError;
use crate::pipeline::{BoxLayer, Call, CallService, ToolOutput, box_layer};
use crate::router::{Action, BuildError, Definition, Group, Registry};

/// Declares a server, then [`build`](ServerBuilder::build)s it.
///
/// ```
/// use mcp_fusion::server::FusionServer;
/// use mcp_fusion::router::{Action, Group, NoArgs};
/// use mcp_fusion::pipeline::CallContext;
/// use mcp_fusion::ToolError;
///
/// async fn health(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
///     Ok("ok")
/// }
///
/// let server = FusionServer::builder("billing", "1.0.0")
///     .tool(Action::new("billing_health", health).read_only())
///     .build()
///     .expect("a valid definition");
/// # let _ = server;
/// ```
pub struct ServerBuilder {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    definitions: Vec<Definition>,
    layers: Vec<BoxLayer>,
    pub(crate) expose_internal_errors: bool,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// A server named `name` at `version` (sent as `serverInfo`).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            instructions: None,
            definitions: Vec::new(),
            layers: Vec::new(),
            expose_internal_errors: false,
        }
    }

    /// Instructions for the client, sent at initialization.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds a plain tool: one MCP tool named after the action.
    pub fn tool(mut self, action: Action) -> Self {
        self.definitions.push(Definition::Plain(action));
        self
    }

    /// Adds a group: one MCP tool whose discriminator selects an action.
    pub fn group(mut self, group: Group) -> Self {
        self.definitions.push(Definition::Group(group));
        self
    }

    /// Adds a tower layer around every action (outside group and action
    /// layers). Layers added first run first. See [`crate::pipeline::from_fn`].
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<CallService> + Send + Sync + 'static,
        L::Service: Service<Call, Response = ToolOutput, Error = ToolError> + Clone + Send + Sync + 'static,
        <L::Service as Service<Call>>::Future: Send + 'static,
    {
        self.layers.push(box_layer(layer));
        self
    }

    /// Puts the internal error text of `INTERNAL_ERROR`s into their envelope
    /// (detail `internal_error`). For development only: off by default, since
    /// internal texts can carry secrets (wire contract §6). Validation field
    /// lines are always shown in full, whatever this says.
    pub fn expose_internal_errors(mut self, expose: bool) -> Self {
        self.expose_internal_errors = expose;
        self
    }

    /// Builds the server: checks every name, derives and compiles every
    /// schema, composes the layers.
    ///
    /// # Errors
    /// [`BuildError`] for an empty server, an invalid or repeated name, an
    /// empty group, a discriminator that is empty or also an input field, or
    /// an input type whose schema is not an object or does not compile.
    pub fn build(self) -> Result<FusionServer, BuildError> {
        let registry = Registry::build(self.definitions, &self.layers)?;
        Ok(FusionServer::new(
            registry,
            super::ServerIdentity {
                name: self.name,
                version: self.version,
                instructions: self.instructions,
            },
            self.expose_internal_errors,
        ))
    }
}
