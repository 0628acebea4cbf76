//! [`Prompt`]: a prompt template the client lists (`prompts/list`) and fills
//! in (`prompts/get`), MCP 2025-11-25 "Prompts". Its arguments come from a
//! Rust type, like an action's, and are validated with the same phrased
//! field errors.

use std::collections::HashMap;

use rmcp::model::PromptArgument;
use serde_json::Value;

use super::BuildError;
use super::Place;
use super::assembly::VisibleFn;
use super::assembly::{Assembly, Callable, Parts};
use super::completion::{Completions, completion_setters};
use super::meta::{check_meta, listed_meta, meta_setter};
use super::settings::settings_setters;
use crate::guard::Guards;
use crate::handler::{Erased, Handler, PromptMessages, StateNeed, erase};
use crate::metrics_names::ActionLabels;
use crate::pipeline::{BoxLayer, handler_service};
use crate::validation::SchemaValidator;

/// A prompt: a name, a description, arguments from a Rust type and a
/// [`Handler`] returning [`PromptMessages`], with the same guards and layers
/// an action takes (`requires_scopes`, `rate_limit`, `concurrency`,
/// `timeout`, `layer`).
///
/// MCP sends prompt arguments as strings: give the arguments type `String`
/// (or `Option<String>`) fields; each field's doc comment is the argument's
/// description, and a field without `Option` (or `#[serde(default)]`) is
/// required. A `prompts/get` whose arguments miss the type is answered with
/// JSON-RPC error -32602 whose message is the `<validation_error>` a tool
/// call would get (wire contract §4).
///
/// ```
/// use mcp_fusion::{Prompt, ToolError};
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
/// let prompt = Prompt::new("code_review", review)
///     .description("Asks for a code review.")
///     .requires_scopes(["code:read"]);
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
    pub(crate) guards: Guards,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
    /// The `_meta` its code set ([`Prompt::meta`]).
    pub(crate) meta: serde_json::Map<String, Value>,
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
        H: Handler<M, PromptMessages>,
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
            guards: Guards::default(),
            layers: Vec::new(),
            visible_when: Vec::new(),
            meta: serde_json::Map::new(),
        }
    }

    settings_setters!("`prompts/get` requests of this prompt", "this prompt", "");
    meta_setter!("its `prompts/list` entry");

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

    completion_setters!("argument");

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `prompts/list` entry.
    /// The names of the prompt's arguments, in the order they are listed
    /// (what `completion/complete` may complete).
    pub(crate) fn argument_names(&self) -> Vec<String> {
        self.arguments.iter().map(|a| a.name.clone()).collect()
    }

    pub(crate) fn to_rmcp(&self) -> rmcp::model::Prompt {
        let mut prompt = rmcp::model::Prompt::new(
            self.name.clone(),
            self.description.clone(),
            (!self.arguments.is_empty()).then(|| self.arguments.clone()),
        );
        if let Some(title) = &self.title {
            prompt = prompt.with_title(title.clone());
        }
        if let Some(meta) = listed_meta(serde_json::Map::new(), &self.meta) {
            prompt = prompt.with_meta(meta);
        }
        prompt
    }

    /// The prompt assembled: its guarded path and its completers' (each
    /// with the prompt's guards and layers).
    ///
    /// # Errors
    /// [`BuildError::InvalidName`] for an empty name,
    /// [`BuildError::BadSchema`] when its arguments type does not compile,
    /// [`BuildError::ReservedMetaKey`] for a `_meta` key it may not set,
    /// [`BuildError::BadGuard`] and [`BuildError::MissingState`] as for an
    /// action.
    pub(crate) fn assemble(
        self,
        assembly: &Assembly,
        place: Place,
    ) -> Result<AssembledPrompt, BuildError> {
        if self.name.is_empty() {
            return Err(BuildError::InvalidName {
                what: "prompt",
                name: self.name,
            });
        }
        let validator = self
            .validator
            .clone()
            .map_err(|reason| BuildError::BadSchema {
                action: self.name.clone(),
                reason,
            })?;
        check_meta(&self.name, &self.meta)?;
        let callable = assembly.callable(Parts {
            presentation: None,
            gate: None,
            name: &self.name,
            handler: handler_service(self.handler.clone()),
            validator: Some(validator),
            output: None,
            guards: self.guards.clone(),
            layers: &[&self.layers],
            state_needs: &self.state_needs,
            retry_safe: true,
            labels: ActionLabels::new(&self.name, None),
            visible_when: self.visible_when.clone(),
        })?;
        let completers = self.completions.assemble(
            &self.name,
            &self.guards,
            &self.layers,
            &self.visible_when,
            assembly,
        )?;
        Ok(AssembledPrompt {
            prompt: self,
            callable,
            completers,
            place,
        })
    }
}

/// A prompt ready to be served.
pub(crate) struct AssembledPrompt {
    pub prompt: Prompt,
    /// `prompts/get`.
    pub callable: Callable,
    /// `completion/complete`, by argument.
    pub completers: HashMap<String, Callable>,
    /// Where it is in `prompts/list`.
    pub place: Place,
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
    use crate::error::ToolError;

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
}
