//! [`Presentation`]: a presenter bound to one action — its list or single
//! shape, the action's name and `narrowed_by` arguments, the compiled
//! output schema and the call targets of its suggestions — and the one
//! function that presents an output.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use super::guidance::{CallTarget, Cut, Guidance, Narrowing, render};
use super::presenter::Present;
use super::secrets::{redacted_values, scrub};
use crate::error::ToolError;
use crate::handler::{Body, Shown, ToolOutput};
use crate::validation::SchemaValidator;

/// The name of the argument with which the model picks top-level fields
/// (wire contract §9.1).
pub const SELECT: &str = "_select";

/// What a presented call leaves out of what the model reads: the whole
/// value the handler returned, and the guidance as data. Read by
/// `mcp_fusion::testing`.
#[derive(Debug, Clone)]
pub(crate) struct Hidden {
    pub full: Value,
    pub guidance: Guidance,
}

/// A presenter attached to one action.
pub(crate) struct Presentation {
    presenter: Arc<dyn Present>,
    /// A list (`returns_many`) rather than one value.
    many: bool,
    /// The action's dotted name (what the limit's summary says to call).
    action: String,
    /// The action's `narrowed_by` arguments.
    narrowed_by: Vec<String>,
    /// The output schema's validator.
    validator: SchemaValidator,
    /// How to call each action its suggestions name, set once the server's
    /// tools are known.
    targets: OnceLock<HashMap<String, CallTarget>>,
}

/// The output schema of `presenter`'s results: `T`'s, or for a list an
/// object whose `items` holds them (MCP's `structuredContent` is an
/// object); with `_select`, no top-level field is required.
pub(crate) fn output_schema(presenter: &dyn Present, many: bool) -> Value {
    let mut item = presenter.schema().clone();
    if many {
        // `T`'s local references (a recursive type's `"#"`) point into
        // `T`'s schema, which the list's schema holds at this place.
        rebase_refs(&mut item, "#/properties/items/items");
    }
    if presenter.selects()
        && let Some(object) = item.as_object_mut()
    {
        object.remove("required");
    }
    match many {
        false => item,
        true => json!({
            "type": "object",
            "properties": {"items": {"type": "array", "items": item}},
            "required": ["items"]
        }),
    }
}

/// Rewrites, in place, every local `$ref` of `schema` (`#`, `#/$defs/X`)
/// to point under `base`, where `schema` is moved to.
fn rebase_refs(schema: &mut Value, base: &str) {
    match schema {
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                match member {
                    Value::String(target) if name == "$ref" && target.starts_with('#') => {
                        *target = format!("{base}{}", &target[1..]);
                    }
                    member => rebase_refs(member, base),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rebase_refs(item, base)),
        _ => {}
    }
}

impl Presentation {
    /// `presenter` bound to the action `action` (dotted); `schema` is
    /// [`output_schema`]'s.
    ///
    /// # Errors
    /// Why it cannot be bound: an undeclared secret or embedded field, an
    /// output schema that does not compile.
    pub(crate) fn new(
        presenter: Arc<dyn Present>,
        many: bool,
        action: &str,
        narrowed_by: &[String],
        schema: &Value,
    ) -> Result<Self, String> {
        if let Some(problem) = presenter.problem() {
            return Err(problem);
        }
        let validator =
            SchemaValidator::new(schema).map_err(|e| format!("the output schema: {e}"))?;
        Ok(Presentation {
            presenter,
            many,
            action: action.to_owned(),
            narrowed_by: narrowed_by.to_vec(),
            validator,
            targets: OnceLock::new(),
        })
    }

    /// The presenter.
    pub(crate) fn presenter(&self) -> &dyn Present {
        &*self.presenter
    }

    /// What it shows the model, for the contract: the presenter's
    /// [`describe`](Present::describe) with `"many"`.
    pub(crate) fn describe(&self) -> Value {
        let mut described = self.presenter.describe();
        if let Some(object) = described.as_object_mut() {
            object.insert("many".into(), Value::Bool(self.many));
        }
        described
    }

    /// Sets how to call the actions its suggestions name (once; later
    /// calls change nothing).
    pub(crate) fn set_targets(&self, targets: HashMap<String, CallTarget>) {
        let _ = self.targets.set(targets);
    }

    /// `output` presented (§9.1): its value cut to the agent limit, its
    /// undeclared fields removed, its secrets redacted, its top-level
    /// fields picked by `select` (the `_select` argument), checked against
    /// the output schema, with the guidance block.
    ///
    /// # Errors
    /// An `INTERNAL_ERROR` (unmarked, masked where the call began) when the
    /// output is not JSON, not a list for a list's presenter, not a `T`, or
    /// does not match the output schema once presented.
    pub(crate) fn present(
        &self,
        output: ToolOutput,
        select: Option<&Value>,
    ) -> Result<ToolOutput, ToolError> {
        let full = match output.body {
            Body::Json(value) => value,
            Body::Result(result) => result.structured_content.unwrap_or(Value::Null),
            Body::Text(text) => Value::String(text),
        };
        let (value, guidance) = self.shape(&full, select)?;
        if let Err(problems) = self.validator.check(&value) {
            return Err(ToolError::internal(format!(
                "the presented result does not match the action's outputSchema: {problems}"
            )));
        }
        let narrowing = Narrowing {
            action: &self.action,
            narrowed_by: &self.narrowed_by,
        };
        let targets = self.targets.get();
        let target = |action: &str| targets.and_then(|t| t.get(action)).cloned();
        let text = render(&guidance, &narrowing, &target);
        Ok(ToolOutput {
            body: Body::Json(value),
            warnings: output.warnings,
            shown: Some(Box::new(Shown {
                guidance: text,
                hidden: Arc::new(Hidden { full, guidance }),
            })),
            meta: output.meta,
        })
    }

    /// The presented value of `full` and its guidance.
    fn shape(&self, full: &Value, select: Option<&Value>) -> Result<(Value, Guidance), ToolError> {
        let presenter = &*self.presenter;
        let mut guidance = Guidance::default();
        let picked: Option<Vec<&str>> = select
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect());
        let mut secrets = Vec::new();
        let mut one =
            |item: &Value, guidance: &mut Guidance, suggest| -> Result<Value, ToolError> {
                let mut shaped = item.clone();
                presenter.cut(&mut shaped, guidance);
                presenter.guide(&shaped, guidance, suggest)?;
                let whole = shaped.clone();
                presenter.shape(&mut shaped);
                redacted_values(&whole, &shaped, &mut secrets);
                if let (Some(picked), Value::Object(object)) = (&picked, &mut shaped) {
                    object.retain(|name, _| picked.contains(&name.as_str()));
                }
                Ok(shaped)
            };
        if !self.many {
            let value = one(full, &mut guidance, true)?;
            scrub(&mut guidance, &secrets);
            return Ok((value, guidance));
        }
        let Value::Array(items) = full else {
            return Err(ToolError::internal(format!(
                "the result of {} is not a list, but its presenter {} presents a list",
                self.action,
                presenter.name()
            )));
        };
        let shown = presenter
            .agent_limit()
            .map_or(items.len(), |max| max.min(items.len()));
        if shown < items.len() {
            guidance.cut = Some(Cut {
                shown,
                total: items.len(),
            });
        }
        // One of several items suggests nothing: a call for each item was
        // read as the next step, whatever the user asked (§9.1).
        let suggest = items.len() == 1;
        let presented = items[..shown]
            .iter()
            .map(|item| one(item, &mut guidance, suggest))
            .collect::<Result<Vec<Value>, ToolError>>()?;
        scrub(&mut guidance, &secrets);
        Ok((json!({"items": presented}), guidance))
    }
}
