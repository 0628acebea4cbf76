//! [`Parameters<T>`]: a tool's arguments, checked against `T`'s schema before
//! they are deserialized (wire contract §4).

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use rmcp::ErrorData;
use rmcp::handler::server::common::{FromContextPart, schema_for_input};
use rmcp::handler::server::tool::ToolCallContext;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::carried::{Awareness, carry};
use crate::envelope::{to_call_tool_result, validation_result};
use crate::error::ToolError;
use crate::handler::deserialize_args;
use crate::validation::SchemaValidator;

/// The arguments of an rmcp `#[tool]` function, valid for `T`'s JSON Schema:
/// use it where rmcp's `Parameters<T>` was, as `Parameters(args): Parameters<T>`.
///
/// Named `Parameters` on purpose: rmcp's `#[tool]` macro derives a tool's
/// `inputSchema` from the argument whose type's last path segment is
/// `Parameters` (`schema_for_input::<Parameters<T>>()`), so changing the
/// `use` line is the whole change, and the tool lists this type's schema.
///
/// - **Schema.** `T`'s schema derived with schemars in the standard form a
///   `FusionServer` lists (draft 2020-12, no Rust type names in `format`,
///   nullable values as `anyOf`), objects with `additionalProperties: false`
///   (unknown keys are refused, with the closest known key suggested).
/// - **Check.** When a call arrives, its `arguments` (none is `{}`) are
///   checked by a [`SchemaValidator`] compiled once per `T` from
///   `rmcp::handler::server::common::schema_for_input::<Parameters<T>>()`,
///   the very schema `#[tool]` lists (unless `#[tool(input_schema = …)]`
///   lists another); a `null` for an optional property is
///   "not given". Then they are deserialized into `T` (a whole number written
///   `3.0` counts as an integer, as JSON Schema says).
///
/// # Errors
/// rmcp ends a call whose extractor fails with a JSON-RPC error; this one
/// fails with `invalid_params` carrying the tool result to answer, which the
/// routes of [`answer_validation`](super::answer_validation) answer with:
/// - arguments that miss the schema: the `<validation_error>` of every
///   problem at once, `action` the tool's name, `isError` true, `_meta` code
///   `VALIDATION_ERROR` with its `fields` (§4);
/// - arguments the schema accepts but `T` does not (a schema looser than the
///   type, e.g. a hand-written `Deserialize`): `INTERNAL_ERROR` (§6; the
///   serde error is logged, the model does not see it);
/// - a schema whose root is not an object, or that does not compile: a
///   JSON-RPC internal error (the server's fault, found on the first call).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parameters<T>(pub T);

impl<T: JsonSchema> JsonSchema for Parameters<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        format!(
            "mcp_fusion::router_contract::Parameters<{}>",
            T::schema_id()
        )
        .into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let schema = crate::schema::input_schema_for::<T>(false);
        Schema::try_from(schema).unwrap_or_default()
    }
}

impl<S, T> FromContextPart<ToolCallContext<'_, S>> for Parameters<T>
where
    T: DeserializeOwned + JsonSchema + 'static,
{
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let validator = validator::<T>()?;
        let mut args = Value::Object(context.arguments.take().unwrap_or_default());
        if let Err(mut failure) = validator.check_call(context.name(), &mut args) {
            tracing::debug!(tool = %context.name(), problems = failure.fields.len(), "invalid arguments");
            if let Some(Awareness(changes)) = context.request_context.extensions.remove() {
                failure = failure.with_contract_awareness(changes);
            }
            return Err(carry(validation_result(&failure)));
        }
        match deserialize_args::<T>(args) {
            Ok(args) => Ok(Parameters(args)),
            Err(error) => {
                tracing::error!(tool = %context.name(), %error, "validated arguments do not deserialize");
                let internal =
                    ToolError::internal(format!("validated arguments do not deserialize: {error}"));
                Err(carry(to_call_tool_result(&internal)))
            }
        }
    }
}

/// The compiled validators, one per argument type.
static VALIDATORS: LazyLock<RwLock<HashMap<TypeId, SchemaValidator>>> =
    LazyLock::new(Default::default);

/// The validator of `Parameters<T>`'s listed schema, compiled on first use.
fn validator<T: JsonSchema + 'static>() -> Result<SchemaValidator, ErrorData> {
    let key = TypeId::of::<T>();
    if let Some(validator) = VALIDATORS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(&key)
    {
        return Ok(validator.clone());
    }
    let name = std::any::type_name::<T>();
    let schema = schema_for_input::<Parameters<T>>().map_err(|reason| {
        ErrorData::internal_error(format!("the input schema of {name}: {reason}"), None)
    })?;
    let validator = SchemaValidator::new(&Value::Object((*schema).clone())).map_err(|error| {
        ErrorData::internal_error(format!("the input schema of {name}: {error}"), None)
    })?;
    VALIDATORS
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(key, validator.clone());
    Ok(validator)
}
