//! [`Prompt`]: a prompt template the client lists (`prompts/list`) and fills
//! in (`prompts/get`), MCP 2025-11-25 "Prompts". Its arguments come from a
//! Rust type, like an action's, and are validated with the same phrased
//! field errors.

use std::future::Future;

use rmcp::model::{PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value};

use super::completion::{CompletionRequest, Completions};
use super::invoke::{Erased, Invoke, erase};
use crate::error::ToolError;
use crate::handler::{CallContext, StateNeed};
use crate::validation::SchemaValidator;

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

/// A prompt: a name, a description, arguments from a Rust type and an async
/// handler (see [`Invoke`]) returning [`PromptMessages`].
///
/// MCP sends prompt arguments as strings: give the arguments type `String`
/// (or `Option<String>`) fields; each field's doc comment is the argument's
/// description, and a field without `Option` (or `#[serde(default)]`) is
/// required. A `prompts/get` whose arguments miss the type is answered with
/// JSON-RPC error -32602 whose message is the `<validation_error>` a tool
/// call would get (wire contract §4).
///
/// ```
/// use mcp_fusion::capability::Prompt;
/// use mcp_fusion::ToolError;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Review {
///     /// The code to review.
///     code: String,
/// }
///
/// async fn review(args: Review) -> Result<String, ToolError> {
///     Ok(format!("Please review this code:\n{}", args.code))
/// }
///
/// let prompt = Prompt::new("code_review", review).description("Asks for a code review.");
/// # let _ = prompt;
/// ```
#[derive(Clone)]
pub struct Prompt {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) validator: Result<SchemaValidator, String>,
    pub(crate) handler: Erased<PromptMessages>,
    pub(crate) state_needs: Vec<StateNeed>,
    pub(crate) completions: Completions,
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name)
            .field("arguments", &self.arguments.len())
            .finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt named `name` served by `handler`. Its arguments are the
    /// properties of the handler's arguments type (none without one).
    pub fn new<M, H>(name: impl Into<String>, handler: H) -> Self
    where
        H: Invoke<M, PromptMessages>,
    {
        let schema = crate::schema::input_schema_for::<H::Args>(false);
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: arguments_of(&schema),
            validator: SchemaValidator::new(&schema).map_err(|e| e.to_string()),
            handler: erase(handler),
            state_needs: H::state_needs(),
            completions: Completions::default(),
        }
    }

    /// The description the client shows (`description`).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A human-readable name (`title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Completes the argument `argument` with an async function of what was
    /// typed (`completion/complete`); at most 100 values are sent, the rest
    /// counted.
    pub fn complete<F, Fut>(mut self, argument: impl Into<String>, completer: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completions.add(argument, completer);
        self
    }

    /// Completes the argument `argument` from a fixed list: the values that
    /// start with what was typed, ignoring case.
    pub fn complete_values<I, S>(mut self, argument: impl Into<String>, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.completions.add_values(argument, values);
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `prompts/list` entry.
    pub(crate) fn to_rmcp(&self) -> rmcp::model::Prompt {
        let mut prompt = rmcp::model::Prompt::new(
            self.name.clone(),
            self.description.clone(),
            (!self.arguments.is_empty()).then(|| self.arguments.clone()),
        );
        if let Some(title) = &self.title {
            prompt = prompt.with_title(title.clone());
        }
        prompt
    }

    /// Validates `arguments`, then runs the handler.
    ///
    /// # Errors
    /// [`PromptError::Invalid`] with the field lines, or the handler's error.
    pub(crate) async fn get(
        &self,
        ctx: CallContext,
        arguments: Option<Map<String, Value>>,
    ) -> Result<PromptMessages, PromptError> {
        let validator = self
            .validator
            .as_ref()
            .map_err(|e| PromptError::Failed(ToolError::internal(e.clone())))?;
        let mut args = Value::Object(arguments.unwrap_or_default());
        validator
            .validate(&mut args)
            .map_err(PromptError::Invalid)?;
        (self.handler)(ctx, args).await.map_err(PromptError::Failed)
    }
}

/// Why a `prompts/get` failed.
#[derive(Debug)]
pub(crate) enum PromptError {
    /// The arguments miss the prompt's schema.
    Invalid(Vec<crate::error::FieldError>),
    /// The handler (or an extractor) failed.
    Failed(ToolError),
}

/// The MCP arguments of an object schema: each property, its description,
/// and whether `required` lists it.
fn arguments_of(schema: &Value) -> Vec<PromptArgument> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let mut argument =
                PromptArgument::new(name.clone()).with_required(required.contains(&name.as_str()));
            if let Some(description) = property["description"].as_str() {
                argument = argument.with_description(description);
            }
            argument
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// First test argument
        arg1: String,
        arg2: Option<String>,
    }

    async fn handler(args: Args) -> Result<String, ToolError> {
        Ok(format!("got {}", args.arg1))
    }

    #[test]
    fn arguments_come_from_the_type() {
        let prompt = Prompt::new("p", handler);
        let listed = serde_json::to_value(prompt.to_rmcp()).unwrap();
        assert_eq!(
            listed,
            serde_json::json!({
                "name": "p",
                "arguments": [
                    {"name": "arg1", "description": "First test argument", "required": true},
                    {"name": "arg2", "required": false}
                ]
            })
        );
    }

    #[tokio::test]
    async fn missing_arguments_are_field_errors() {
        let prompt = Prompt::new("p", handler);
        let ctx = CallContext::detached("p", None);
        let Err(PromptError::Invalid(fields)) = prompt.get(ctx.clone(), None).await else {
            panic!("expected a validation failure");
        };
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].path, "arg1");
        let mut args = Map::new();
        args.insert("arg1".into(), Value::from("hello"));
        let Ok(messages) = prompt.get(ctx, Some(args)).await else {
            panic!("expected messages");
        };
        assert_eq!(
            messages,
            PromptMessages(vec![PromptMessage::new_text(Role::User, "got hello")])
        );
    }
}
