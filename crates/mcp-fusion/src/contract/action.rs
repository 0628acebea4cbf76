//! [`ActionContract`]: what a caller of one action relies on.

use serde_json::{Map, Value, json};

use super::canonical::{digest_of, normalize};
use super::error::ContractError;
use crate::capability::Annotations;

/// The contract of one action (or of an ungrouped tool, which is one action
/// named after the tool): everything a caller relies on. Written as a
/// struct (`ActionContract { name, input_schema, ..Default::default() }`)
/// and put in canonical shape by [`ActionContract::canonical`], so that two
/// contracts of the same action compare equal however they were obtained
/// (from a built server, from `tools/list`, from a lockfile).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionContract {
    /// The action key (`get_invoice`), or the tool name for an ungrouped tool.
    pub name: String,
    /// The action's own description; `None` when absent or blank.
    pub description: Option<String>,
    /// The full input JSON Schema, normalized: keys sorted, whole floats
    /// written as integers (`docs/contracts.md`, "Canonical JSON and
    /// digests").
    pub input_schema: Value,
    /// The output JSON Schema, when the action declares one (normalized).
    pub output_schema: Option<Value>,
    /// The behaviour annotations.
    pub annotations: Annotations,
    /// The replacement to use, when the action is deprecated.
    pub deprecated: Option<String>,
    /// The scopes a caller's credentials must carry, sorted, without repeats.
    pub required_scopes: Vec<String>,
    /// The guard settings, a JSON object (normalized): `{"maxActive",
    /// "maxQueue", "rateLimit": {"calls", "periodMs", "scope"}, "timeoutMs"}`,
    /// each member only when set; `{}` for none.
    pub guards: Value,
    /// What the action's presenter shows the model (wire contract §9.1),
    /// normalized, when it has one: `{"name", "many", "agentLimit"?,
    /// "select", "secrets", "embedded": [{"field", "presenter"}], "rules":
    /// {"count", "names"}, "suggestions": {"count", "actions"}}`. Its
    /// declared fields are those of `output_schema`. Lockfiles written
    /// before presenters have none.
    pub presenter: Option<Value>,
    /// What the action declares of its results (`docs/wire-contract.md` §9),
    /// a JSON object (normalized), `{}` for nothing: `{"egressLimitBytes"?,
    /// "freshness"?, "invalidates"?, "reads"?}` — the egress limit in bytes
    /// when it is not the default 262 144 (`null`: none), the freshness
    /// (`{"noStore": true}` or `{"maxAgeSeconds": n}`), the patterns it
    /// invalidates and the domains it reads. Lockfiles written before it
    /// existed have none: `{}`.
    pub results: Value,
}

impl ActionContract {
    /// This contract with every value in canonical shape: blank descriptions
    /// and replacements become `None`, schemas and guards are normalized
    /// (keys sorted, whole floats written as integers), scopes sorted and
    /// de-duplicated; `guards` that is not an object becomes `{}`.
    pub fn canonical(self) -> Self {
        let mut required_scopes = self.required_scopes;
        required_scopes.sort();
        required_scopes.dedup();
        ActionContract {
            name: self.name,
            description: non_blank(self.description.as_deref()),
            input_schema: normalize(&self.input_schema),
            output_schema: self.output_schema.as_ref().map(normalize),
            annotations: self.annotations,
            deprecated: non_blank(self.deprecated.as_deref()),
            required_scopes,
            guards: match &self.guards {
                Value::Object(_) => normalize(&self.guards),
                _ => Value::Object(Map::new()),
            },
            presenter: self.presenter.as_ref().map(normalize),
            results: match &self.results {
                Value::Object(_) => normalize(&self.results),
                _ => Value::Object(Map::new()),
            },
        }
    }

    /// The JSON form that is hashed and stored in the lockfile (without the
    /// name, which is its key, and without the digest): `{"annotations":
    /// {"destructiveHint", "idempotentHint", "readOnlyHint"}, "deprecated"?,
    /// "description"?, "guards", "inputSchema", "outputSchema"?,
    /// "presenter"?, "requiredScopes", "results"?}`, keys sorted (an action
    /// without a presenter or declared results has the digest it had before
    /// them).
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert(
            "annotations".into(),
            json!({
                "destructiveHint": self.annotations.destructive,
                "idempotentHint": self.annotations.idempotent,
                "readOnlyHint": self.annotations.read_only,
            }),
        );
        if let Some(replacement) = &self.deprecated {
            object.insert("deprecated".into(), json!(replacement));
        }
        if let Some(description) = &self.description {
            object.insert("description".into(), json!(description));
        }
        object.insert("guards".into(), self.guards.clone());
        object.insert("inputSchema".into(), self.input_schema.clone());
        if let Some(output) = &self.output_schema {
            object.insert("outputSchema".into(), output.clone());
        }
        if let Some(presenter) = &self.presenter {
            object.insert("presenter".into(), presenter.clone());
        }
        object.insert("requiredScopes".into(), json!(self.required_scopes));
        // Only when something is declared: the digests of actions that
        // declare nothing are those of lockfiles written before.
        if self.results.as_object().is_some_and(|r| !r.is_empty()) {
            object.insert("results".into(), self.results.clone());
        }
        Value::Object(object)
    }

    /// `sha256:<hex>` of the canonical JSON of [`to_json`](Self::to_json).
    pub fn digest(&self) -> String {
        digest_of(&self.to_json())
    }

    /// Reads the JSON form of [`to_json`](Self::to_json), which is also the
    /// form of one entry of a tool's `_meta["mcp-fusion/actions"]` (whose
    /// `name` member, if any, is ignored here). `at` names the place, for
    /// errors. Unknown members are ignored; a missing `annotations` hint is
    /// false, missing `requiredScopes` empty, missing `guards` and `results`
    /// `{}`.
    ///
    /// # Errors
    /// [`ContractError::Malformed`] when the value is not an object, has no
    /// object `inputSchema`, or a member of the wrong type.
    pub fn from_json(name: &str, value: &Value, at: &str) -> Result<Self, ContractError> {
        let object = value
            .as_object()
            .ok_or_else(|| ContractError::malformed(at, "expected a JSON object"))?;
        let text = |key: &str| -> Result<Option<&str>, ContractError> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(ContractError::malformed(
                    at,
                    format!("\"{key}\" must be a string"),
                )),
            }
        };
        let (input_schema, output_schema) = schemas_of(object, at)?;
        let annotations = annotations_of(object, at)?;
        let scopes = scopes_of(object, at)?;
        let guards = guards_of(object, at)?;
        let presenter = match object.get("presenter") {
            None | Some(Value::Null) => None,
            Some(presenter @ Value::Object(_)) => Some(presenter.clone()),
            Some(_) => {
                return Err(ContractError::malformed(
                    at,
                    "\"presenter\" must be a JSON object",
                ));
            }
        };
        let results = match object.get("results") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(results @ Value::Object(_)) => results.clone(),
            Some(_) => {
                return Err(ContractError::malformed(
                    at,
                    "\"results\" must be a JSON object",
                ));
            }
        };
        Ok(ActionContract {
            name: name.into(),
            description: text("description")?.map(str::to_owned),
            input_schema: input_schema.clone(),
            output_schema: output_schema.cloned(),
            annotations,
            deprecated: text("deprecated")?.map(str::to_owned),
            required_scopes: scopes,
            guards,
            presenter,
            results,
        }
        .canonical())
    }
}

/// The `inputSchema` (required) and `outputSchema` of an action's JSON
/// form, each a JSON object.
fn schemas_of<'v>(
    object: &'v Map<String, Value>,
    at: &str,
) -> Result<(&'v Value, Option<&'v Value>), ContractError> {
    let input_schema = match object.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema,
        Some(_) => {
            return Err(ContractError::malformed(
                at,
                "\"inputSchema\" must be a JSON object",
            ));
        }
        None => return Err(ContractError::malformed(at, "\"inputSchema\" is missing")),
    };
    let output_schema = match object.get("outputSchema") {
        None | Some(Value::Null) => None,
        Some(schema @ Value::Object(_)) => Some(schema),
        Some(_) => {
            return Err(ContractError::malformed(
                at,
                "\"outputSchema\" must be a JSON object",
            ));
        }
    };
    Ok((input_schema, output_schema))
}

/// The `annotations` of an action's JSON form (a missing hint is false).
fn annotations_of(object: &Map<String, Value>, at: &str) -> Result<Annotations, ContractError> {
    let value = match object.get("annotations") {
        None | Some(Value::Null) => Annotations::default(),
        Some(Value::Object(hints)) => {
            let hint = |key: &str| match hints.get(key) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(ContractError::malformed(
                    at,
                    format!("\"annotations.{key}\" must be true or false"),
                )),
            };
            Annotations {
                read_only: hint("readOnlyHint")?,
                destructive: hint("destructiveHint")?,
                idempotent: hint("idempotentHint")?,
            }
        }
        Some(_) => {
            return Err(ContractError::malformed(
                at,
                "\"annotations\" must be a JSON object",
            ));
        }
    };
    Ok(value)
}

/// The `requiredScopes` of an action's JSON form (missing: none).
fn scopes_of(object: &Map<String, Value>, at: &str) -> Result<Vec<String>, ContractError> {
    let value = match object.get("requiredScopes") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| {
                    ContractError::malformed(at, "\"requiredScopes\" must hold strings")
                })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(ContractError::malformed(
                at,
                "\"requiredScopes\" must be an array of strings",
            ));
        }
    };
    Ok(value)
}

/// The `guards` of an action's JSON form (missing: `{}`).
fn guards_of(object: &Map<String, Value>, at: &str) -> Result<Value, ContractError> {
    let value = match object.get("guards") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(guards @ Value::Object(_)) => guards.clone(),
        Some(_) => {
            return Err(ContractError::malformed(
                at,
                "\"guards\" must be a JSON object",
            ));
        }
    };
    Ok(value)
}

/// `None` for an absent, empty or whitespace-only text.
pub(crate) fn non_blank(text: Option<&str>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty()).map(str::to_owned)
}
