//! [`Presenter<T>`]: how an action's result is written for the model,
//! declared once per result type and attached to actions with
//! [`Action::returns`](crate::Action::returns).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::fields::{declared_at, keep_declared};
use super::guidance::{Cut, Guidance};
use super::secrets::redact;
use super::suggestion::Suggestion;
use crate::error::ToolError;

type RuleFn<T> = Arc<dyn Fn(&T) -> Option<String> + Send + Sync>;
type SuggestFn<T> = Arc<dyn Fn(&T) -> Option<Suggestion> + Send + Sync>;

/// How the results of type `T` are written for the model (wire contract
/// §9.1): only the fields `T`'s JSON Schema declares leave the server,
/// secret fields are replaced by [`REDACTED`](super::REDACTED), a list is
/// cut to an agent limit with a summary, and a guidance block after the
/// data holds the domain rules and the suggested next calls computed from
/// the data. Built once (a `static` in a `LazyLock`, or a function) and
/// attached to any number of actions with
/// [`Action::returns`](crate::Action::returns) (one value) or
/// [`Action::returns_many`](crate::Action::returns_many) (a list).
///
/// The handler returns any `Serialize` value (a database row with more
/// columns than `T`, or `T` itself); the presenter reads it as `T` for its
/// rules and suggestions, and keeps of it what `T`'s schema declares.
///
/// ```
/// use mcp_fusion::present::{Presenter, Suggestion};
///
/// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// struct Invoice { id: String, status: String, amount_cents: u64, card_number: String }
///
/// let invoices = Presenter::<Invoice>::new("Invoice")
///     .secret("card_number")
///     .agent_limit(50)
///     .rule_text("Amounts are in cents.")
///     .suggest("billing.pay_invoice", |invoice: &Invoice| {
///         (invoice.status == "unpaid").then(|| {
///             Suggestion::new("The invoice is unpaid.").argument("id", &invoice.id)
///         })
///     });
/// # let _ = invoices;
/// ```
pub struct Presenter<T> {
    name: String,
    schema: Value,
    secrets: Vec<String>,
    agent_limit: Option<usize>,
    select: bool,
    rules: Vec<(String, Rule<T>)>,
    suggestions: Vec<(String, SuggestFn<T>)>,
    embeds: Vec<(String, Arc<dyn Present>)>,
}

/// A rule: a fixed text, or one computed from each value.
enum Rule<T> {
    Text(String),
    Computed(RuleFn<T>),
}

impl<T> Clone for Rule<T> {
    fn clone(&self) -> Self {
        match self {
            Rule::Text(text) => Rule::Text(text.clone()),
            Rule::Computed(rule) => Rule::Computed(Arc::clone(rule)),
        }
    }
}

impl<T> Clone for Presenter<T> {
    fn clone(&self) -> Self {
        Presenter {
            name: self.name.clone(),
            schema: self.schema.clone(),
            secrets: self.secrets.clone(),
            agent_limit: self.agent_limit,
            select: self.select,
            rules: self.rules.clone(),
            suggestions: self.suggestions.clone(),
            embeds: self.embeds.clone(),
        }
    }
}

impl<T> std::fmt::Debug for Presenter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Presenter")
            .field("name", &self.name)
            .field("secrets", &self.secrets)
            .field("agent_limit", &self.agent_limit)
            .finish_non_exhaustive()
    }
}

impl<T> Presenter<T>
where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    /// A presenter named `name` (the result type's name, `"Invoice"`: the
    /// contract records it) for `T`, whose JSON Schema (serialization side,
    /// draft 2020-12) decides the fields that leave the server.
    pub fn new(name: impl Into<String>) -> Self {
        Presenter {
            name: name.into(),
            schema: crate::schema::output_schema_for::<T>(),
            secrets: Vec::new(),
            agent_limit: None,
            select: false,
            rules: Vec::new(),
            suggestions: Vec::new(),
            embeds: Vec::new(),
        }
    }

    /// Marks the field at `path` secret (dotted for nested fields,
    /// `"customer.card_number"`; arrays on the way are entered item by
    /// item): its value is replaced by [`REDACTED`](super::REDACTED) before
    /// it leaves, in the text and in `structuredContent`. The field must be
    /// declared by `T`'s schema, as a string (else building the server
    /// fails with `BuildError::BadSchema`).
    pub fn secret(mut self, path: impl Into<String>) -> Self {
        self.secrets.push(path.into());
        self
    }

    /// Cuts a list of more than `max` values to its first `max` — the
    /// action's result ([`Action::returns_many`](crate::Action::returns_many)),
    /// or a list field this presenter is [embedded](Self::embed) in (a page
    /// `{"invoices": [...], "next_cursor": …}`); the guidance then says how
    /// many there were and how to ask for fewer (the action's
    /// [`narrowed_by`](crate::Action::narrowed_by) arguments).
    pub fn agent_limit(mut self, max: usize) -> Self {
        self.agent_limit = Some(max);
        self
    }

    /// Lets the model ask only for some top-level fields: the action's
    /// input schema gets an optional `_select` argument (an array of the
    /// declared field names), removed before the handler reads its input;
    /// the `outputSchema` then requires no top-level field. Rules and
    /// suggestions still see the whole value.
    pub fn select(mut self) -> Self {
        self.select = true;
        self
    }

    /// A fixed domain rule (`"Amounts are in cents."`), shown with every
    /// result of this presenter.
    pub fn rule_text(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.rules.push((text.clone(), Rule::Text(text)));
        self
    }

    /// A domain rule computed from each value (`None`: nothing to say);
    /// `name` identifies it in the contract (closures cannot be compared).
    /// Equal texts over a list's values are shown once.
    pub fn rule<F>(mut self, name: impl Into<String>, rule: F) -> Self
    where
        F: Fn(&T) -> Option<String> + Send + Sync + 'static,
    {
        self.rules
            .push((name.into(), Rule::Computed(Arc::new(rule))));
        self
    }

    /// A next call computed from each value: `action` is the dotted action
    /// (`"billing.pay_invoice"`) or the plain tool it calls, checked when
    /// the server is built (`BuildError::BadSchema` when the server has no
    /// such action); `suggest` gives its arguments and reason, or `None`.
    pub fn suggest<F>(mut self, action: impl Into<String>, suggest: F) -> Self
    where
        F: Fn(&T) -> Option<Suggestion> + Send + Sync + 'static,
    {
        self.suggestions.push((action.into(), Arc::new(suggest)));
        self
    }

    /// Presents the value of the field `field` (an object, or a list of
    /// them) with `child` too: its secrets, rules and suggestions apply to
    /// the nested value (its declared fields are those `T`'s schema gives
    /// the field). The field must be declared by `T`'s schema.
    pub fn embed<C>(mut self, field: impl Into<String>, child: &Presenter<C>) -> Self
    where
        C: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
    {
        self.embeds.push((field.into(), Arc::new(child.clone())));
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// It, type-erased, to be attached to an action.
    pub(crate) fn erased(&self) -> Arc<dyn Present> {
        Arc::new(self.clone())
    }

    /// The `INTERNAL_ERROR` of a `value` that is not a `T`. serde's message
    /// quotes the value it could not read, so it is taken from `value`
    /// with its secrets (the embedded presenters' too) redacted: a secret
    /// never reaches the log, nor the detail that
    /// `expose_internal_errors` shows the client.
    fn not_a_t(&self, value: &Value) -> ToolError {
        let mut safe = value.clone();
        for path in self.secret_paths() {
            redact(&mut safe, &path);
        }
        let why = match T::deserialize(&safe) {
            Err(e) => e.to_string(),
            Ok(_) => String::from("a secret field is not a string"),
        };
        ToolError::internal(format!("the result is not a {}: {why}", self.name))
    }
}

/// A presenter whatever its `T`, as an action holds it.
pub(crate) trait Present: Send + Sync {
    /// Its name.
    fn name(&self) -> &str;
    /// `T`'s output schema.
    fn schema(&self) -> &Value;
    /// Its agent limit.
    fn agent_limit(&self) -> Option<usize>;
    /// Whether `_select` is offered.
    fn selects(&self) -> bool;
    /// The actions its suggestions call, its embedded presenters' after
    /// them.
    fn suggested_actions(&self) -> Vec<String>;
    /// Its rules' names, its embedded presenters' after them.
    fn rule_names(&self) -> Vec<String>;
    /// Its secret paths, its embedded presenters' under their field.
    fn secret_paths(&self) -> Vec<String>;
    /// What it shows the model, for the contract: `{"name", "agentLimit"?,
    /// "select", "secrets", "embedded": [{"field", "presenter"}], "rules":
    /// {"count", "names"}, "suggestions": {"count", "actions"}}` (closures
    /// cannot be compared: rules and suggestions by name).
    fn describe(&self) -> Value {
        let rules = self.rule_names();
        let actions = self.suggested_actions();
        let mut described = serde_json::json!({
            "name": self.name(),
            "select": self.selects(),
            "secrets": self.secret_paths(),
            "embedded": self.embedded(),
            "rules": {"count": rules.len(), "names": rules},
            "suggestions": {"count": actions.len(), "actions": actions},
        });
        if let (Some(limit), Some(object)) = (self.agent_limit(), described.as_object_mut()) {
            object.insert("agentLimit".into(), limit.into());
        }
        described
    }
    /// Its embedded presenters: `[{"field", "presenter"}]`.
    fn embedded(&self) -> Vec<Value>;
    /// Cuts, in place, the lists of `value`'s embedded fields whose
    /// presenter has an agent limit (the first cut is recorded).
    fn cut(&self, value: &mut Value, guidance: &mut Guidance);
    /// Keeps the declared fields of one value and redacts its secrets, in
    /// place (the embedded presenters' too).
    fn shape(&self, value: &mut Value);
    /// Adds to `guidance` the rules of one whole value (and of its embedded
    /// values), and its suggestions when `suggest` (the value is not one of
    /// several items of a list: wire contract §9.1).
    ///
    /// # Errors
    /// An `INTERNAL_ERROR` when the value is not a `T`.
    fn guide(&self, value: &Value, guidance: &mut Guidance, suggest: bool)
    -> Result<(), ToolError>;
    /// Why it cannot present `schema`'s values (an undeclared secret or
    /// embedded field), else `None`.
    fn problem(&self) -> Option<String>;
}

impl<T> Present for Presenter<T>
where
    T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn schema(&self) -> &Value {
        &self.schema
    }

    fn agent_limit(&self) -> Option<usize> {
        self.agent_limit
    }

    fn selects(&self) -> bool {
        self.select
    }

    fn rule_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.rules.iter().map(|(name, _)| name.clone()).collect();
        for (_, child) in &self.embeds {
            names.extend(child.rule_names());
        }
        names
    }

    fn secret_paths(&self) -> Vec<String> {
        let mut paths = self.secrets.clone();
        for (field, child) in &self.embeds {
            paths.extend(
                child
                    .secret_paths()
                    .into_iter()
                    .map(|p| format!("{field}.{p}")),
            );
        }
        paths
    }

    fn embedded(&self) -> Vec<Value> {
        self.embeds
            .iter()
            .map(|(field, child)| {
                let mut entry = serde_json::json!({"field": field, "presenter": child.name()});
                if let (Some(limit), Some(object)) = (child.agent_limit(), entry.as_object_mut()) {
                    object.insert("agentLimit".into(), limit.into());
                }
                entry
            })
            .collect()
    }

    fn suggested_actions(&self) -> Vec<String> {
        let mut names: Vec<String> = self.suggestions.iter().map(|(a, _)| a.clone()).collect();
        for (_, child) in &self.embeds {
            names.extend(child.suggested_actions());
        }
        names
    }

    fn cut(&self, value: &mut Value, guidance: &mut Guidance) {
        for (field, child) in &self.embeds {
            if let (Some(max), Some(Value::Array(items))) =
                (child.agent_limit(), value.get_mut(field))
                && items.len() > max
            {
                guidance.cut.get_or_insert(Cut {
                    shown: max,
                    total: items.len(),
                });
                items.truncate(max);
            }
        }
    }

    fn shape(&self, value: &mut Value) {
        keep_declared(value, &self.schema);
        for (field, child) in &self.embeds {
            if let Some(nested) = value.get_mut(field) {
                match nested {
                    Value::Array(items) => items.iter_mut().for_each(|item| child.shape(item)),
                    nested => child.shape(nested),
                }
            }
        }
        for path in &self.secrets {
            redact(value, path);
        }
    }

    fn guide(
        &self,
        value: &Value,
        guidance: &mut Guidance,
        suggest: bool,
    ) -> Result<(), ToolError> {
        let typed = (suggest && !self.suggestions.is_empty())
            || self
                .rules
                .iter()
                .any(|(_, r)| matches!(r, Rule::Computed(_)));
        let read = match typed {
            true => Some(T::deserialize(value).map_err(|_| self.not_a_t(value))?),
            false => None,
        };
        for (_, rule) in &self.rules {
            match (rule, &read) {
                (Rule::Text(text), _) => guidance.add_rule(text.clone()),
                (Rule::Computed(rule), Some(read)) => {
                    if let Some(text) = rule(read) {
                        guidance.add_rule(text);
                    }
                }
                (Rule::Computed(_), None) => {}
            }
        }
        if let (Some(read), true) = (&read, suggest) {
            for (action, suggestion_of) in &self.suggestions {
                if let Some(suggestion) = suggestion_of(read) {
                    guidance.add_suggestion(action, suggestion);
                }
            }
        }
        for (field, child) in &self.embeds {
            match value.get(field) {
                Some(Value::Array(items)) => {
                    let one = items.len() == 1;
                    for item in items {
                        child.guide(item, guidance, suggest && one)?;
                    }
                }
                Some(Value::Null) | None => {}
                Some(nested) => child.guide(nested, guidance, suggest)?,
            }
        }
        Ok(())
    }

    fn problem(&self) -> Option<String> {
        for path in &self.secrets {
            let declared = declared_at(&self.schema, path);
            if !declared.is_some_and(allows_string) {
                return Some(format!(
                    "the secret field \"{path}\" of the presenter {} is not a string field of its type",
                    self.name
                ));
            }
        }
        for (field, child) in &self.embeds {
            if declared_at(&self.schema, field).is_none() {
                return Some(format!(
                    "the embedded field \"{field}\" of the presenter {} is not a field of its type",
                    self.name
                ));
            }
            if let Some(problem) = child.problem() {
                return Some(problem);
            }
        }
        None
    }
}

/// Whether `schema` (or one of its `anyOf`/`oneOf` branches) allows a
/// string: where [`REDACTED`](super::REDACTED) may stand.
fn allows_string(schema: &Value) -> bool {
    let typed = match schema.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "string"),
        _ => false,
    };
    typed
        || ["anyOf", "oneOf"].iter().any(|keyword| {
            schema
                .get(keyword)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(allows_string))
        })
}
