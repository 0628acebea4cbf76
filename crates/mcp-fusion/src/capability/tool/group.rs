//! [`Group`]: one MCP tool whose discriminator field selects an action.

use tower::{Layer, Service};

use super::Action;
use crate::capability::assembly::VisibleFn;
use crate::error::ToolError;
use crate::guard::{Concurrency, ConcurrencySetting, Guards, RateLimit, SharedConcurrency};
use crate::handler::Output;
use crate::pipeline::{BoxLayer, Call, box_layer};
use crate::tool_meta::DEFAULT_DISCRIMINATOR;

/// A grouped tool (`billing`): one MCP tool whose arguments carry a
/// discriminator field (default `action`) naming one of its actions
/// (`get_invoice`). The dotted name `billing.get_invoice` names the action in
/// errors, logs and `available_actions`.
pub struct Group {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) discriminator: String,
    pub(crate) actions: Vec<Action>,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
    pub(crate) guards: Guards,
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name)
            .field("discriminator", &self.discriminator)
            .field("actions", &self.actions)
            .finish_non_exhaustive()
    }
}

impl Group {
    /// An empty group named `name` (letters, digits, `_` and `-`).
    pub fn new(name: impl Into<String>) -> Self {
        Group {
            name: name.into(),
            description: None,
            discriminator: DEFAULT_DISCRIMINATOR.to_owned(),
            actions: Vec::new(),
            layers: Vec::new(),
            visible_when: Vec::new(),
            guards: Guards::default(),
        }
    }

    /// The tool's description in `tools/list` (the list of actions is appended).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The discriminator field (default `action`). It must not be a field of
    /// any action's input.
    pub fn discriminator(mut self, field: impl Into<String>) -> Self {
        self.discriminator = field.into();
        self
    }

    /// Adds an action. Action keys are unique within the group.
    pub fn action(mut self, action: Action) -> Self {
        self.actions.push(action);
        self
    }

    /// Default concurrency limits for each action of the group (each action
    /// gets its own guard); see [`Action::concurrency`].
    pub fn concurrency(mut self, max_active: usize, max_queue: usize) -> Self {
        self.guards.concurrency = Some(ConcurrencySetting::Own(Concurrency::new(
            max_active, max_queue,
        )));
        self
    }

    /// Default shared concurrency limit for each action of the group that
    /// sets none: the actions count their calls against the same slots
    /// (with every other capability given `limit`); see
    /// [`Action::concurrency_shared`].
    pub fn concurrency_shared(mut self, limit: &SharedConcurrency) -> Self {
        self.guards.concurrency = Some(ConcurrencySetting::Shared(limit.clone()));
        self
    }

    /// Default rate limit for each action of the group (each action counts
    /// its own calls); see [`Action::rate_limit`].
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.guards.rate_limit = Some(limit);
        self
    }

    /// Default time limit for each action; see [`Action::timeout`].
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.guards.timeout = Some(limit);
        self
    }

    /// Shows the group (and so every action of it) in `tools/list` only to
    /// the callers for whom `when` holds; see [`Action::visible_when`].
    pub fn visible_when(
        mut self,
        when: impl Fn(&crate::CallContext) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.visible_when.push(std::sync::Arc::new(when));
        self
    }

    /// Every action needs valid credentials, whatever their scopes; see
    /// [`Action::requires_auth`].
    pub fn requires_auth(mut self) -> Self {
        self.guards.auth.required = true;
        self
    }

    /// Default scopes for each action that names none; see [`Action::requires_scopes`].
    pub fn requires_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.guards.auth.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a tower layer around every action of this group (inside the
    /// server-wide layers, outside each action's own). Layers added first run first.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<crate::pipeline::CallService> + Send + Sync + 'static,
        L::Service:
            Service<Call, Response = Output, Error = ToolError> + Clone + Send + Sync + 'static,
        <L::Service as Service<Call>>::Future: Send + 'static,
    {
        self.layers.push(box_layer(layer));
        self
    }
}
