//! [`Action`]: one callable unit (a plain tool, or one action of a group), its
//! input type, its handler and its hints.

use serde_json::Value;

use crate::capability::assembly::VisibleFn;
use crate::capability::settings::settings_setters;
use crate::guard::Guards;
use crate::handler::{Erased, Handler, StateNeed, ToolOutput, erase};
use crate::pipeline::BoxLayer;
use crate::schema;

/// Behaviour hints for clients (MCP tool annotations), per action.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    /// The action does not change anything (`readOnlyHint`).
    pub read_only: bool,
    /// The action may destroy or irreversibly change data (`destructiveHint`).
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect (`idempotentHint`).
    pub idempotent: bool,
}

/// One callable unit: a plain tool ([`crate::server::ServerBuilder::tool`]) or
/// one action of a [`Group`](super::Group).
///
/// ```
/// use mcp_fusion::capability::Action;
/// use mcp_fusion::ToolError;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct GetInvoice { id: String }
///
/// async fn get_invoice(args: GetInvoice) -> Result<String, ToolError> {
///     Err(ToolError::not_found(format!("No invoice {}", args.id)))
/// }
///
/// let action = Action::new("get_invoice", get_invoice).description("Fetch one invoice.").read_only();
/// # let _ = action;
/// ```
pub struct Action {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) hints: Hints,
    pub(crate) allow_unknown_fields: bool,
    pub(crate) input_schema: fn(bool) -> Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) state_needs: Vec<StateNeed>,
    pub(crate) deprecated: Option<String>,
    pub(crate) deprecated_fields: Vec<(String, String)>,
    pub(crate) guards: Guards,
    pub(crate) handler: Erased<ToolOutput>,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Action")
            .field("name", &self.name)
            .field("hints", &self.hints)
            .field("deprecated", &self.deprecated)
            .finish_non_exhaustive()
    }
}

impl Action {
    /// An action named `name` (a group's action key, or a plain tool's name)
    /// run by `handler` (see [`Handler`] for the shapes it may take). Its
    /// input schema is derived from the handler's arguments type (JSON Schema
    /// 2020-12, subschemas inlined) when the server is built; objects reject
    /// unknown keys unless [`Action::allow_unknown_fields`] is set. When the
    /// handler returns [`Json<T>`](crate::Json), `T`'s schema is its
    /// `outputSchema`.
    pub fn new<M, H>(name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M, ToolOutput>,
    {
        Action {
            name: name.into(),
            description: None,
            hints: Hints::default(),
            allow_unknown_fields: false,
            input_schema: schema::input_schema_for::<H::Args>,
            output_schema: H::output_schema(),
            state_needs: H::state_needs(),
            deprecated: None,
            deprecated_fields: Vec::new(),
            guards: Guards::default(),
            handler: erase(handler),
            layers: Vec::new(),
            visible_when: Vec::new(),
        }
    }

    /// The description shown in `tools/list`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Marks the action read-only (`readOnlyHint`).
    pub fn read_only(mut self) -> Self {
        self.hints.read_only = true;
        self
    }

    /// Marks the action destructive (`destructiveHint`).
    pub fn destructive(mut self) -> Self {
        self.hints.destructive = true;
        self
    }

    /// Marks the action idempotent (`idempotentHint`).
    pub fn idempotent(mut self) -> Self {
        self.hints.idempotent = true;
        self
    }

    /// Lets the input objects carry keys the schema does not name (no
    /// `additionalProperties: false` is added; the type's own
    /// `#[serde(deny_unknown_fields)]` still applies).
    pub fn allow_unknown_fields(mut self) -> Self {
        self.allow_unknown_fields = true;
        self
    }

    /// Marks the action deprecated in favour of `replacement` (a dotted action
    /// or tool name): calls still succeed and carry a `DEPRECATED` warning
    /// envelope (isError false) naming it; `tools/list` says so.
    pub fn deprecated(mut self, replacement: impl Into<String>) -> Self {
        self.deprecated = Some(replacement.into());
        self
    }

    /// Marks the input field `field` deprecated in favour of `replacement`: a
    /// call that uses it still succeeds and carries a `DEPRECATED` warning
    /// envelope naming the replacement; `tools/list` says so.
    pub fn deprecated_field(
        mut self,
        field: impl Into<String>,
        replacement: impl Into<String>,
    ) -> Self {
        self.deprecated_fields
            .push((field.into(), replacement.into()));
        self
    }

    settings_setters!("action", "calls");
}
