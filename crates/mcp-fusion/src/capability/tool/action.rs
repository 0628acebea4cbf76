//! [`Action`]: one callable unit (a plain tool, or one action of a group), its
//! input type, its handler and its hints.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tower::{Layer, Service};

use crate::error::ToolError;
use crate::guard::{Concurrency, Guards, RateLimit};
use crate::handler::{
    CallContext, FromCallContext, IntoToolOutput, StateNeed, ToolOutput, extract,
};
use crate::pipeline::{BoxLayer, Call, box_layer};
use crate::schema;

/// An async handler: an `async fn` whose parameters are any number (up to
/// four) of values taken from the call ([`FromCallContext`]: a
/// [`CallContext`], a [`State<T>`](crate::State), your own extractors), in any
/// order, then optionally the arguments type last, and which returns
/// `Result<Out, E>`:
///
/// - the arguments type (`Deserialize + JsonSchema`) gives the action's input
///   schema; without one, the action takes no arguments ([`NoArgs`]);
/// - `Out` is anything [`IntoToolOutput`]: a string, any `Serialize` value, a
///   [`Json<T>`](crate::Json) (which also gives the `outputSchema`), or a
///   [`ToolOutput`];
/// - `E` is anything `Into<ToolError>`: a [`ToolError`] reaches the wire
///   unchanged, your own error type through `impl From<MyError> for
///   ToolError`, a [`BoxError`](crate::BoxError) is classified (a
///   `ToolError` in its `source()` chain is kept, anything else becomes the
///   masked `INTERNAL_ERROR`; wire contract §6).
///
/// ```
/// use mcp_fusion::{CallContext, Json, State, ToolError};
///
/// #[derive(Clone)]
/// struct Db;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct GetInvoice { id: String }
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Invoice { id: String }
///
/// async fn get_invoice(State(_db): State<Db>, args: GetInvoice) -> Result<Json<Invoice>, ToolError> {
///     Ok(Json(Invoice { id: args.id }))
/// }
/// async fn health(_ctx: CallContext) -> Result<&'static str, ToolError> {
///     Ok("ok")
/// }
/// let _ = mcp_fusion::Action::new("get_invoice", get_invoice);
/// let _ = mcp_fusion::Action::new("health", health);
/// ```
pub trait Handler<M>: Send + Sync + 'static {
    /// The arguments type: its schema is the action's input schema.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// Runs the handler for one call whose arguments were validated.
    fn call(
        &self,
        ctx: CallContext,
        args: Self::Args,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;

    /// The states the handler's extractors need (checked when the server is
    /// built).
    fn state_needs() -> Vec<StateNeed>;

    /// The `outputSchema` its return type gives (see [`IntoToolOutput::output_schema`]).
    fn output_schema() -> Option<Value>;
}

/// Marks a [`Handler`] whose last parameter is its arguments type.
#[derive(Debug)]
pub struct WithArgs;
/// Marks a [`Handler`] that takes no arguments (every parameter is an extractor).
#[derive(Debug)]
pub struct WithoutArgs;

/// The output of a handler's future as the pipeline wants it.
async fn finish<Fut, Out, E>(future: Fut) -> Result<ToolOutput, ToolError>
where
    Fut: Future<Output = Result<Out, E>>,
    Out: IntoToolOutput,
    E: Into<ToolError>,
{
    let out = future.await.map_err(Into::into)?;
    out.into_tool_output().map_err(ToolError::internal)
}

/// The items both handler shapes (with and without arguments) share: the
/// states the extractors need, and the output schema of `Out`.
macro_rules! shared_items {
    ($($extractor:ident),*) => {
        fn state_needs() -> Vec<StateNeed> {
            #[allow(unused_mut)]
            let mut needs = Vec::new();
            $(needs.extend($extractor::state_need());)*
            needs
        }

        fn output_schema() -> Option<Value> {
            Out::output_schema()
        }
    };
}

macro_rules! handlers {
    ($($extractor:ident),*) => {
        impl<F, Fut, Out, E, $($extractor,)* A> Handler<(WithArgs, $($extractor,)* A)> for F
        where
            F: Fn($($extractor,)* A) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Out, E>> + Send + 'static,
            Out: IntoToolOutput + 'static,
            E: Into<ToolError> + 'static,
            $($extractor: FromCallContext,)*
            A: DeserializeOwned + JsonSchema + Send + 'static,
        {
            type Args = A;

            #[allow(non_snake_case, unused_variables)]
            fn call(&self, ctx: CallContext, args: A) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
                extract!(ctx; $($extractor),*);
                Box::pin(finish(self($($extractor,)* args)))
            }

            shared_items!($($extractor),*);
        }

        impl<F, Fut, Out, E, $($extractor,)*> Handler<(WithoutArgs, $($extractor,)*)> for F
        where
            F: Fn($($extractor,)*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Out, E>> + Send + 'static,
            Out: IntoToolOutput + 'static,
            E: Into<ToolError> + 'static,
            $($extractor: FromCallContext,)*
        {
            type Args = NoArgs;

            #[allow(non_snake_case, unused_variables)]
            fn call(&self, ctx: CallContext, _args: NoArgs) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
                extract!(ctx; $($extractor),*);
                Box::pin(finish(self($($extractor,)*)))
            }

            shared_items!($($extractor),*);
        }
    };
}

handlers!();
handlers!(E1);
handlers!(E1, E2);
handlers!(E1, E2, E3);
handlers!(E1, E2, E3, E4);

/// Deserializes validated arguments into `Args`. JSON Schema counts `3.0` as an
/// integer (2020-12, "type": "integer" accepts any number with a zero
/// fractional part) but serde does not; so when the first attempt fails, the
/// whole numbers written with a fraction are made integers and it is tried
/// again, so that a value the validator accepted reaches the handler.
fn deserialize_args<Args: DeserializeOwned>(args: Value) -> Result<Args, serde_json::Error> {
    match serde_json::from_value::<Args>(args.clone()) {
        Ok(args) => Ok(args),
        Err(first) => {
            let mut whole = args;
            if !integral_floats_to_integers(&mut whole) {
                return Err(first);
            }
            serde_json::from_value(whole).map_err(|_| first)
        }
    }
}

/// Rewrites every finite float with a zero fraction that fits `i64` or `u64`
/// as that integer, in place. Returns whether anything changed.
fn integral_floats_to_integers(value: &mut Value) -> bool {
    match value {
        Value::Number(n) if n.is_f64() => {
            let Some(f) = n.as_f64().filter(|f| f.is_finite() && f.fract() == 0.0) else {
                return false;
            };
            // 2^64 and -2^63 are exact as f64; `as` saturates, so bound first.
            let whole = if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                Value::from(f as u64)
            } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                Value::from(f as i64)
            } else {
                return false;
            };
            *value = whole;
            true
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            integral_floats_to_integers(item) | changed
        }),
        Value::Object(map) => map.values_mut().fold(false, |changed, item| {
            integral_floats_to_integers(item) | changed
        }),
        _ => false,
    }
}

/// The input type of an action that takes no arguments: `{}` (unknown keys
/// are rejected like everywhere else).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

pub(crate) type ErasedHandler = Arc<
    dyn Fn(CallContext, Value) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync,
>;

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
    pub(crate) handler: ErasedHandler,
    pub(crate) layers: Vec<BoxLayer>,
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
        H: Handler<M>,
    {
        let handler = Arc::new(handler);
        let erased: ErasedHandler = Arc::new(move |ctx: CallContext, args: Value| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let args: H::Args = match deserialize_args(args) {
                    Ok(args) => args,
                    Err(e) => {
                        // The schema accepted the value but the type did not:
                        // a mismatch between the schema and the type, not the model's fault.
                        return Err(ToolError::internal(format!(
                            "arguments did not deserialize: {e}"
                        )));
                    }
                };
                handler.call(ctx, args).await
            })
        });
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
            handler: erased,
            layers: Vec::new(),
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

    /// At most `max_active` calls of this action run at once and `max_queue`
    /// wait (first in, first out); more are shed at once with `SERVER_BUSY`.
    /// `max_active` must be at least 1 (checked when the server is built).
    pub fn concurrency(mut self, max_active: usize, max_queue: usize) -> Self {
        self.guards.concurrency = Some(Concurrency::new(max_active, max_queue));
        self
    }

    /// Limits the call rate (GCRA); over the limit, `RATE_LIMITED` with the
    /// time until the next call would pass.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.guards.rate_limit = Some(limit);
        self
    }

    /// Cancels a call that runs longer than `limit` (`TIMEOUT`; the handler's
    /// future is dropped). The time spent waiting in the concurrency queue
    /// does not count.
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.guards.timeout = Some(limit);
        self
    }

    /// The caller's credentials must carry every one of `scopes`
    /// (`AUTH_REQUIRED` without credentials, `FORBIDDEN` without a scope).
    /// Needs a token verifier on the server ([`crate::ServerBuilder::auth`]).
    pub fn requires_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.guards.auth.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The caller must present valid credentials, whatever their scopes.
    pub fn requires_auth(mut self) -> Self {
        self.guards.auth.required = true;
        self
    }

    /// Adds a tower layer around this action's handler only (inside the
    /// server-wide layers). Layers added first run first.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<crate::pipeline::CallService> + Send + Sync + 'static,
        L::Service:
            Service<Call, Response = ToolOutput, Error = ToolError> + Clone + Send + Sync + 'static,
        <L::Service as Service<Call>>::Future: Send + 'static,
    {
        self.layers.push(box_layer(layer));
        self
    }
}
