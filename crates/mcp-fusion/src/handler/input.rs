//! [`Input`]: a handler's last parameter — its arguments type, or one more
//! extractor when it takes no arguments — and [`NoArgs`].

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::CallContext;
use super::extract::{FromCallContext, StateNeed};
use crate::error::ToolError;

/// Marks an [`Input`] that is the arguments type.
#[derive(Debug)]
pub enum ViaArgs {}

/// Marks an [`Input`] that is an extractor: the handler takes no arguments.
#[derive(Debug)]
pub enum ViaContext {}

/// What a handler's last parameter may be: its arguments type
/// (`serde::Deserialize + schemars::JsonSchema`), or an extractor
/// ([`FromCallContext`]) when the handler takes no arguments. `M` is a marker
/// the compiler infers.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler's last parameter: it is neither an arguments type nor an extractor",
    label = "not serde::Deserialize + schemars::JsonSchema, nor FromCallContext",
    note = "the last parameter is the arguments type (derive serde::Deserialize and schemars::JsonSchema on it), or an extractor (CallContext, State<T>, a FromCallContext type) when the handler takes no arguments"
)]
pub trait Input<M>: Sized + Send + 'static {
    /// The arguments type whose schema is the input schema.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// The parameter, from the call and its validated arguments.
    ///
    /// # Errors
    /// An extractor's [`ToolError`].
    fn take(
        ctx: &CallContext,
        args: Self::Args,
    ) -> impl Future<Output = Result<Self, ToolError>> + Send;

    /// The state an extractor needs (`None` for an arguments type).
    fn state_need() -> Option<StateNeed>;
}

impl<T> Input<ViaArgs> for T
where
    T: DeserializeOwned + JsonSchema + Send + 'static,
{
    type Args = T;

    async fn take(_ctx: &CallContext, args: T) -> Result<T, ToolError> {
        Ok(args)
    }

    fn state_need() -> Option<StateNeed> {
        None
    }
}

impl<T: FromCallContext> Input<ViaContext> for T {
    type Args = NoArgs;

    async fn take(ctx: &CallContext, _args: NoArgs) -> Result<T, ToolError> {
        T::from_call_context(ctx).await
    }

    fn state_need() -> Option<StateNeed> {
        T::state_need()
    }
}

/// The input type of a handler that takes no arguments: `{}` (unknown keys
/// are refused like everywhere else).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Deserializes validated arguments into `Args`. JSON Schema counts `3.0` as
/// an integer (2020-12, "type": "integer" accepts any number with a zero
/// fractional part) but serde does not; so when the first attempt fails, the
/// whole numbers written with a fraction are made integers and it is tried
/// again, so that a value the validator accepted reaches the handler.
pub(crate) fn deserialize_args<Args: DeserializeOwned>(
    args: Value,
) -> Result<Args, serde_json::Error> {
    // Read from a borrow: the arguments are copied only when the retry
    // needs them changed.
    match Args::deserialize(&args) {
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
