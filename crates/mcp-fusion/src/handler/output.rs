//! What a handler returns on success: [`IntoOutput<O>`] for each kind of
//! capability — an action's [`ToolOutput`], a prompt's [`PromptMessages`], a
//! resource's [`ResourceData`], a completer's values — and [`Output`], any
//! of them, as middleware sees it.

use rmcp::model::{PromptMessage, Role};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::tool_output::{Body, Json, ToolOutput};
use crate::error::ToolError;

/// What a handler producing `O` may return on success: for an action (`O` =
/// [`ToolOutput`]) any `Serialize` value (a `String` or `&str` is sent
/// as plain text, `()` as `OK`, anything else as JSON), a
/// [`Json<T>`](super::Json) (typed, with an `outputSchema`) or a
/// [`ToolOutput`]; for a prompt a `String`, a
/// `&'static str` or `PromptMessage`s; for a resource a `String`, a
/// `&'static str` or bytes; for a completer a `Vec<String>`.
#[diagnostic::on_unimplemented(
    message = "a handler producing `{O}` cannot return `{Self}` on success",
    label = "not a success this kind of handler returns",
    note = "an action (ToolOutput) returns any Serialize value, a Json<T> or a ToolOutput; a prompt (PromptMessages) a String, &'static str, PromptMessage, Vec<PromptMessage> or PromptMessages; a resource (ResourceData) a String, &'static str, Vec<u8>, &'static [u8] or ResourceData; a completer (Vec<String>) a Vec<String>"
)]
pub trait IntoOutput<O> {
    /// The success as `O`.
    ///
    /// # Errors
    /// An `INTERNAL_ERROR` when it cannot be converted (a value that does
    /// not serialize).
    fn into_output(self) -> Result<O, ToolError>;

    /// The output schema it gives (an action's `outputSchema`), else `None`.
    fn output_schema() -> Option<Value> {
        None
    }
}

// What an action's handler may return on success (`IntoOutput<ToolOutput>`):
// any `Serialize` value (a `String` or `&str` is sent as plain text, `()` as
// `OK`, anything else as JSON), a `Json<T>` (typed, with an `outputSchema`),
// or a `ToolOutput`. A value that cannot be serialized is an unmarked error:
// it becomes `INTERNAL_ERROR`.

#[diagnostic::do_not_recommend]
impl IntoOutput<ToolOutput> for ToolOutput {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T: Serialize> IntoOutput<ToolOutput> for T {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        let value = serde_json::to_value(self).map_err(ToolError::internal)?;
        Ok(match value {
            Value::Null => ToolOutput::text("OK"),
            value => ToolOutput::json(value),
        })
    }
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + JsonSchema> IntoOutput<ToolOutput> for Json<T> {
    fn into_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput {
            body: Body::Json(serde_json::to_value(self.0).map_err(ToolError::internal)?),
            warnings: Vec::new(),
            shown: None,
            meta: None,
        })
    }

    fn output_schema() -> Option<Value> {
        Some(crate::schema::output_schema_for::<T>())
    }
}

// Not offered as a hint when another handler's success does not fit (the
// note lists what each kind returns).
#[diagnostic::do_not_recommend]
impl IntoOutput<Vec<String>> for Vec<String> {
    fn into_output(self) -> Result<Vec<String>, ToolError> {
        Ok(self)
    }
}

/// The messages a prompt handler returns: a `Vec<PromptMessage>`, or a
/// string for one user text message.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessages(pub Vec<PromptMessage>);

impl From<Vec<PromptMessage>> for PromptMessages {
    fn from(messages: Vec<PromptMessage>) -> Self {
        PromptMessages(messages)
    }
}

impl From<PromptMessage> for PromptMessages {
    fn from(message: PromptMessage) -> Self {
        PromptMessages(vec![message])
    }
}

impl From<String> for PromptMessages {
    fn from(text: String) -> Self {
        PromptMessages(vec![PromptMessage::new_text(Role::User, text)])
    }
}

impl From<&'static str> for PromptMessages {
    fn from(text: &'static str) -> Self {
        PromptMessages::from(text.to_owned())
    }
}

#[diagnostic::do_not_recommend]
impl<T: Into<PromptMessages>> IntoOutput<PromptMessages> for T {
    fn into_output(self) -> Result<PromptMessages, ToolError> {
        Ok(self.into())
    }
}

/// What a resource handler returns: text (`text`) or bytes (`blob`, sent
/// base64-encoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceData {
    /// Text contents (UTF-8).
    Text(String),
    /// Binary contents.
    Blob(Vec<u8>),
}

impl From<String> for ResourceData {
    fn from(text: String) -> Self {
        ResourceData::Text(text)
    }
}

impl From<&'static str> for ResourceData {
    fn from(text: &'static str) -> Self {
        ResourceData::Text(text.to_owned())
    }
}

impl From<Vec<u8>> for ResourceData {
    fn from(bytes: Vec<u8>) -> Self {
        ResourceData::Blob(bytes)
    }
}

impl From<&'static [u8]> for ResourceData {
    fn from(bytes: &'static [u8]) -> Self {
        ResourceData::Blob(bytes.to_vec())
    }
}

#[diagnostic::do_not_recommend]
impl<T: Into<ResourceData>> IntoOutput<ResourceData> for T {
    fn into_output(self) -> Result<ResourceData, ToolError> {
        Ok(self.into())
    }
}

/// The success of any capability's handler, as middleware sees it: what
/// `Next::run` returns. Convert a typed success into it with `.into()`
/// (`Ok(ToolOutput::text("cached").into())`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Output {
    /// An action's success (`tools/call`).
    Tool(ToolOutput),
    /// A prompt's messages (`prompts/get`).
    Prompt(PromptMessages),
    /// A resource's contents (`resources/read`).
    Resource(ResourceData),
    /// A completer's values (`completion/complete`), before they are cut to
    /// 100.
    Completion(Vec<String>),
}

impl From<ToolOutput> for Output {
    fn from(output: ToolOutput) -> Self {
        Output::Tool(output)
    }
}

impl From<PromptMessages> for Output {
    fn from(messages: PromptMessages) -> Self {
        Output::Prompt(messages)
    }
}

impl From<ResourceData> for Output {
    fn from(data: ResourceData) -> Self {
        Output::Resource(data)
    }
}

impl From<Vec<String>> for Output {
    fn from(values: Vec<String>) -> Self {
        Output::Completion(values)
    }
}

/// The typed success a capability's handler produced, back from [`Output`].
pub(crate) trait FromOutput: Sized {
    /// `output` as `Self`; `None` when a middleware returned the success of
    /// another kind of capability.
    fn from_output(output: Output) -> Option<Self>;
}

macro_rules! from_output {
    ($ty:ty, $variant:ident) => {
        impl FromOutput for $ty {
            fn from_output(output: Output) -> Option<Self> {
                match output {
                    Output::$variant(value) => Some(value),
                    _ => None,
                }
            }
        }
    };
}

from_output!(ToolOutput, Tool);
from_output!(PromptMessages, Prompt);
from_output!(ResourceData, Resource);
from_output!(Vec<String>, Completion);
