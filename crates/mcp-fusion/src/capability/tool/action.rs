//! [`Action`]: one callable unit (a plain tool, or one action of a group), its
//! input type, its handler and its hints.

use std::sync::Arc;

use rmcp::model::{ClientCapabilities, JsonObject, Tool};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::TaskSupport;
use crate::capability::app::UiLink;
use crate::capability::assembly::VisibleFn;
use crate::capability::meta::meta_setter;
use crate::capability::settings::{serializer_setters, settings_setters};
use crate::guard::{Concurrency, ConcurrencySetting, Guards};
use crate::handler::{Erased, Handler, StateNeed, ToolOutput, erase};
use crate::listing::Annotations;
use crate::pipeline::BoxLayer;
use crate::present::Freshness;
use crate::present::{Present, Presenter, output_schema};
use crate::schema;

/// One callable unit: a plain tool ([`crate::server::ServerBuilder::tool`]) or
/// one action of a [`Group`](super::Group).
///
/// ```
/// use mcp_fusion::Action;
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
    pub(crate) annotations: Annotations,
    pub(crate) allow_unknown_fields: bool,
    pub(crate) input_schema: InputSchema,
    pub(crate) output_schema: Option<Value>,
    /// The tool as another server listed it ([`Action::from_tool`]): listed
    /// as it is, its results not checked against its output schema.
    pub(crate) listed_as: Option<Box<Tool>>,
    pub(crate) state_needs: Vec<StateNeed>,
    pub(crate) deprecated: Option<String>,
    pub(crate) deprecated_fields: Vec<(String, String)>,
    /// The client capabilities a call needs ([`Action::requires_client`]);
    /// boxed: most actions need none, and the struct is large.
    pub(crate) requires_client: Option<Box<ClientCapabilities>>,
    pub(crate) guards: Guards,
    pub(crate) handler: Erased<ToolOutput>,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
    pub(crate) task_support: TaskSupport,
    /// The arguments that make its result smaller ([`Action::narrowed_by`]).
    pub(crate) narrowed_by: Vec<String>,
    /// Its presenter, and whether it presents a list
    /// ([`Action::returns`], [`Action::returns_many`]).
    pub(crate) presenter: Option<(Arc<dyn Present>, bool)>,
    /// Its own egress limit in bytes ([`Action::egress_limit`]); `None`:
    /// the server's.
    pub(crate) egress_limit: Option<usize>,
    /// The domains it reads ([`Action::reads`]).
    pub(crate) reads: Vec<String>,
    /// The patterns of the domains it changes ([`Action::invalidates`]).
    pub(crate) invalidates: Vec<String>,
    pub(crate) freshness: Option<Freshness>,
    /// The `_meta` its code set ([`Action::meta`]).
    pub(crate) meta: serde_json::Map<String, Value>,
    /// Its app's view ([`Action::ui`]).
    pub(crate) ui: Option<UiLink>,
}

/// Where an action's input schema comes from.
#[derive(Debug, Clone)]
pub(crate) enum InputSchema {
    /// Derived from the handler's arguments type when the server is built
    /// (the argument: whether unknown fields are allowed); calls are
    /// validated against it.
    Derived(fn(bool) -> Value),
    /// Given as it is (a proxied tool's, [`Action::raw`],
    /// [`Action::from_tool`]): listed, not validated here.
    Given(Value),
}

/// The input schema of an [`Action::raw`]: any JSON object.
fn any_object() -> Value {
    serde_json::json!({"type": "object"})
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Action")
            .field("name", &self.name)
            .field("annotations", &self.annotations)
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
            annotations: Annotations::default(),
            allow_unknown_fields: false,
            input_schema: InputSchema::Derived(schema::input_schema_for::<H::Args>),
            output_schema: H::output_schema(),
            listed_as: None,
            state_needs: H::state_needs(),
            deprecated: None,
            deprecated_fields: Vec::new(),
            requires_client: None,
            guards: Guards::default(),
            handler: erase(handler),
            layers: Vec::new(),
            visible_when: Vec::new(),
            task_support: TaskSupport::Forbidden,
            narrowed_by: Vec::new(),
            presenter: None,
            egress_limit: None,
            reads: Vec::new(),
            invalidates: Vec::new(),
            freshness: None,
            meta: serde_json::Map::new(),
            ui: None,
        }
    }

    /// An action named `name` whose handler takes the call's arguments
    /// object as the client sent it ([`JsonObject`], `{}` when it sent
    /// none), unvalidated: for a proxy or gateway that forwards calls to
    /// another server, which validates them itself, or for a server's
    /// [fallback](crate::ServerBuilder::fallback). The handler may take
    /// extractors first, like any handler; its input is the object, last.
    /// Its input schema is `{"type": "object"}`; guards, layers and the
    /// other settings apply as to any action.
    ///
    /// ```
    /// use mcp_fusion::model::JsonObject;
    /// use mcp_fusion::{Action, ToolError};
    ///
    /// async fn echo(args: JsonObject) -> Result<String, ToolError> {
    ///     Ok(serde_json::Value::Object(args).to_string())
    /// }
    /// let action = Action::raw("echo", echo);
    /// # let _ = action;
    /// ```
    pub fn raw<M, H>(name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M, ToolOutput, Args = JsonObject>,
    {
        let mut action = Action::new(name, handler);
        action.input_schema = InputSchema::Given(any_object());
        action.output_schema = None;
        action
    }

    /// A plain tool as another server lists it — for a proxy or gateway
    /// that puts another server's tools beside its own (with
    /// [`FusionServer::add_tool`](crate::FusionServer::add_tool) as that
    /// server's tools come and go). `tools/list` shows `tool` exactly as
    /// given: its name, title, description, input and output schemas,
    /// annotations, icons and `_meta`. The handler takes the arguments
    /// object as sent, as for [`Action::raw`]: they are not validated
    /// against the input schema, nor its results against the output schema
    /// (the other server does both). Its name is `tool`'s (rename it there:
    /// a namespace prefix, `finance.billing`); it may hold any character but
    /// blanks and control characters, at most 256 of them. Its description
    /// and hints are read from `tool` (for errors and the contract); the
    /// setters that would change a listing (`description`, `read_only`,
    /// `deprecated`, …) change neither what `tools/list` shows nor the
    /// contract, which [`ServerContract`](crate::contract::ServerContract) reads from
    /// `tool` as it reads any server's `tools/list`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_fusion::model::{CallToolResult, ContentBlock, JsonObject, Tool};
    /// use mcp_fusion::{Action, ToolError, ToolOutput};
    ///
    /// async fn forward(args: JsonObject) -> Result<ToolOutput, ToolError> {
    ///     // Call the other server with `args`; pass its result on as it is.
    ///     Ok(ToolOutput::result(CallToolResult::success(vec![ContentBlock::text("done")])))
    /// }
    /// let listed = Tool::new("crm.find", "Finds a contact.", Arc::new(JsonObject::new()));
    /// let action = Action::from_tool(listed, forward);
    /// # let _ = action;
    /// ```
    pub fn from_tool<M, H>(tool: Tool, handler: H) -> Self
    where
        H: Handler<M, ToolOutput, Args = JsonObject>,
    {
        let mut action = Action::raw(tool.name.to_string(), handler);
        action.description = tool.description.as_deref().map(str::to_owned);
        action.input_schema = InputSchema::Given(Value::Object((*tool.input_schema).clone()));
        action.output_schema = tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone()));
        if let Some(annotations) = &tool.annotations {
            action.annotations = Annotations {
                read_only: annotations.read_only_hint.unwrap_or(false),
                destructive: annotations.destructive_hint.unwrap_or(false),
                idempotent: annotations.idempotent_hint.unwrap_or(false),
            };
        }
        action.listed_as = Some(Box::new(tool));
        action
    }

    /// Its name: a plain tool's name, or its key inside a group.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The concurrency limit of its own given with
    /// [`concurrency`](Self::concurrency); `None` without one, or when it
    /// shares one ([`concurrency_shared`](Self::concurrency_shared)). A
    /// group's default is not seen here.
    pub fn concurrency_limit(&self) -> Option<Concurrency> {
        match &self.guards.concurrency {
            Some(ConcurrencySetting::Own(limits)) => Some(*limits),
            _ => None,
        }
    }

    /// The description shown in `tools/list`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Marks the action read-only (`readOnlyHint`).
    pub fn read_only(mut self) -> Self {
        self.annotations.read_only = true;
        self
    }

    /// Marks the action destructive (`destructiveHint`).
    pub fn destructive(mut self) -> Self {
        self.annotations.destructive = true;
        self
    }

    /// Marks the action idempotent (`idempotentHint`).
    pub fn idempotent(mut self) -> Self {
        self.annotations.idempotent = true;
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

    /// Declares the client capabilities every call of the action needs
    /// (`sampling`, `elicitation` — with `url` for URL mode —, `roots`,
    /// `extensions`): a call from a client that did not declare them (in
    /// the request's `_meta["io.modelcontextprotocol/clientCapabilities"]`
    /// on MCP 2026-07-28, at `initialize` on 2025-11-25) is refused before
    /// any guard or the handler runs, with the JSON-RPC error `-32021`
    /// Missing required client capability, whose
    /// `data.requiredCapabilities` names those missing (a
    /// `ClientCapabilities` object, e.g. `{"sampling": {}}`; over HTTP with
    /// status 400). MCP 2026-07-28 basic/index: "If processing a request
    /// requires a capability the client did not include …, the server MUST
    /// return a MissingRequiredClientCapabilityError".
    ///
    /// ```
    /// use mcp_fusion::model::ClientCapabilities;
    /// use mcp_fusion::{Action, CallContext, ToolError};
    ///
    /// async fn confirm(ctx: CallContext) -> Result<String, ToolError> {
    ///     Ok(String::from("…asks the user through ctx.elicit…"))
    /// }
    /// let action = Action::new("confirm", confirm)
    ///     .requires_client(ClientCapabilities::builder().enable_elicitation().build());
    /// # let _ = action;
    /// ```
    pub fn requires_client(mut self, capabilities: ClientCapabilities) -> Self {
        self.requires_client = Some(Box::new(capabilities));
        self
    }

    /// Whether calls of this action may run as a task ([`TaskSupport`];
    /// default [`TaskSupport::Forbidden`]). The server then advertises the
    /// tasks extension `io.modelcontextprotocol/tasks` in its capabilities
    /// (SEP-2663).
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// The arguments that make this action's result smaller — filters, a
    /// page size, a cursor (`["status", "customer_id", "limit"]`). When a
    /// result is cut (a presenter's `agent_limit`, the egress guard), the
    /// model reads their names as the way to ask for less. Each must be a
    /// property of the input schema, else building the server fails with
    /// `BuildError::BadSchema`.
    pub fn narrowed_by<I, S>(mut self, arguments: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.narrowed_by = arguments.into_iter().map(Into::into).collect();
        self
    }

    /// Presents the action's result, one value, with `presenter` (wire
    /// contract §9.1): its `outputSchema` becomes `T`'s, and only what `T`
    /// declares leaves the server, secrets redacted, with the presenter's
    /// rules and suggested next calls after the data. The handler returns
    /// any `Serialize` value that reads as a `T`. Building fails with
    /// `BuildError::BadSchema` when a secret or embedded field is not
    /// declared by `T`, or a suggestion names an action the server does not
    /// have.
    ///
    /// ```
    /// use mcp_fusion::{Action, ToolError};
    /// use mcp_fusion::present::Presenter;
    ///
    /// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    /// struct Invoice { id: String, card_number: String }
    ///
    /// async fn get_invoice(_: mcp_fusion::NoArgs) -> Result<Invoice, ToolError> {
    ///     Ok(Invoice { id: "inv_1".into(), card_number: "4111 1111 1111 1111".into() })
    /// }
    /// let invoices = Presenter::<Invoice>::new("Invoice").secret("card_number");
    /// let action = Action::new("get_invoice", get_invoice).returns(&invoices);
    /// # let _ = action;
    /// ```
    pub fn returns<T>(self, presenter: &Presenter<T>) -> Self
    where
        T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
    {
        self.presented(presenter.erased(), false)
    }

    /// Presents the action's result, a list of values, with `presenter`:
    /// as [`returns`](Self::returns) for each value, the list cut to the
    /// presenter's agent limit (the guidance then names the
    /// [`narrowed_by`](Self::narrowed_by) arguments), sent as
    /// `{"items": [...]}` (MCP's `structuredContent` is an object).
    pub fn returns_many<T>(self, presenter: &Presenter<T>) -> Self
    where
        T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
    {
        self.presented(presenter.erased(), true)
    }

    fn presented(mut self, presenter: Arc<dyn Present>, many: bool) -> Self {
        self.output_schema = Some(output_schema(&*presenter, many));
        self.presenter = Some((presenter, many));
        self
    }

    /// The most bytes a successful result of this action may have, in place
    /// of the server's limit ([`ServerBuilder::egress_limit`](crate::ServerBuilder::egress_limit),
    /// default [`DEFAULT_EGRESS_LIMIT`](crate::present::DEFAULT_EGRESS_LIMIT)):
    /// the UTF-8 bytes of its text blocks, the JSON of its other blocks and
    /// of its `structuredContent`. A result over it is cut at boundaries
    /// that keep every part valid — never inside an envelope, a tag, a JSON
    /// string or a character — and its last block tells the model how much
    /// was cut and which arguments ([`narrowed_by`](Self::narrowed_by)) get
    /// a smaller result (`docs/wire-contract.md` §9.2, [`crate::present::egress`]).
    /// The lockfile records it: a tighter limit is a breaking change.
    ///
    /// ```
    /// use mcp_fusion::{Action, NoArgs, ToolError};
    ///
    /// async fn list(_: NoArgs) -> Result<String, ToolError> { Ok("…".into()) }
    /// let action = Action::new("list_invoices", list).egress_limit(65_536);
    /// # let _ = action;
    /// ```
    pub fn egress_limit(mut self, bytes: usize) -> Self {
        self.egress_limit = Some(bytes);
        self
    }

    /// Declares a domain this action reads (`"invoices"`, dotted:
    /// `"invoices.lines"`; segments of ASCII letters, digits, `_`, `-`).
    /// A mutation that [invalidates](Self::invalidates) a matching pattern
    /// names this action in its stale-reads notice. May be called more than
    /// once. A name that is not a dotted name fails the build with
    /// `BuildError::BadStateSync`.
    pub fn reads(mut self, domain: impl Into<String>) -> Self {
        self.reads.push(domain.into());
        self
    }

    /// Declares the domains this action changes, as a pattern: a domain
    /// (`"invoices"`, that domain only) or a domain and `.*`
    /// (`"invoices.*"`: it and every domain under it). After a call of it
    /// succeeds, its result's first block is the stale-reads notice
    /// (`<stale_reads cause=… domains=…>`, `docs/wire-contract.md` §9.3),
    /// naming the read actions whose domains match, so that the model
    /// reads them again before relying on them. May be called more than
    /// once. `*` anywhere but as the last segment fails the build with
    /// `BuildError::BadStateSync`; a pattern no action's [`reads`](Self::reads)
    /// matches does not (the domain may be read by a resource, another
    /// server, or a tool added later), and its notice names no action.
    ///
    /// ```
    /// use mcp_fusion::{Action, NoArgs, ToolError};
    ///
    /// async fn pay(_: NoArgs) -> Result<String, ToolError> { Ok("paid".into()) }
    /// let action = Action::new("pay_invoice", pay).invalidates("invoices.*");
    /// # let _ = action;
    /// ```
    pub fn invalidates(mut self, pattern: impl Into<String>) -> Self {
        self.invalidates.push(pattern.into());
        self
    }

    /// How long this read action's results stay fresh ([`Freshness`]):
    /// clients see it in the tool's `_meta["mcp-fusion/freshness"]` (a
    /// group's action: `freshness` in its `_meta["mcp-fusion/actions"]`
    /// entry), and the model as one sentence at the end of its description.
    pub fn freshness(mut self, freshness: Freshness) -> Self {
        self.freshness = Some(freshness);
        self
    }

    meta_setter!(
        "its tool in `tools/list` (a group's action: of its group's tool, MCP listing a group as one tool, the group's own entries winning)"
    );

    /// Links this plain tool to an app's view (MCP Apps, SEP-1865):
    /// `tools/list` shows `_meta.ui = {"resourceUri", "visibility"}`, and a
    /// host that renders apps shows each result in the view at
    /// `link`'s `ui://` URI, served with
    /// [`ServerBuilder::ui_resource`](crate::ServerBuilder::ui_resource). A
    /// host without apps reads the result's text, so the handler still
    /// returns the text the model reads (a presenter's or a [`Json`](crate::Json)
    /// result's `structuredContent` is what the view renders). Building
    /// the server fails with `BuildError::BadApp` for a URI that is not
    /// `ui://…`, a view the server does not serve (checked when the server
    /// is built, not for a tool added while it runs), or a group's action
    /// (link the [`Group`](super::Group)).
    ///
    /// ```
    /// use mcp_fusion::capability::UiLink;
    /// use mcp_fusion::{Action, NoArgs, ToolError};
    ///
    /// async fn show(_: NoArgs) -> Result<String, ToolError> { Ok("Invoice inv_1: 12.00 EUR".into()) }
    /// let action = Action::new("show_invoice", show).ui(UiLink::new("ui://billing/invoice"));
    /// # let _ = action;
    /// ```
    pub fn ui(mut self, link: UiLink) -> Self {
        self.ui = Some(link);
        self
    }

    settings_setters!("calls of this action", "this action", "");
    serializer_setters!("");
}
