//! [`Registry`]: the built table of tools and actions, with each action's
//! compiled validator and its tower service.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::Value;

use super::action::InputSchema;
use super::listing::{ActionSummary, group_listing, plain_description};
use super::own_meta::{group_meta, plain_meta};
use super::{Action, Group, TaskSupport};
use crate::capability::assembly::{Assembly, Callable, Parts, VisibleFn};
use crate::capability::{BuildError, Place, Places};
use crate::guard::Guards;
use crate::listing::{ActionListing, ToolListing};
use crate::metrics_names::ActionLabels;
use crate::pipeline::{BoxLayer, handler_service};
use crate::present::{CallTarget, Presentation, SELECT};
use crate::present::{DEFAULT_EGRESS_LIMIT, state_sync};
use crate::schema::SchemaProfile;
use crate::validation::SchemaValidator;

/// One action, ready to be called.
pub(crate) struct RegisteredAction {
    /// The action key inside its group; `None` for a plain tool.
    pub key: Option<String>,
    /// The dotted name (`billing.get_invoice`), or the plain tool's name.
    pub dotted: String,
    /// Its guarded path: guards, validation, middleware and handler.
    pub callable: Callable,
    /// Whether a JSON success also goes to `structuredContent`.
    pub structured: bool,
    /// The replacement, when the action is deprecated.
    pub deprecated: Option<String>,
    /// Deprecated input fields and their replacements.
    pub deprecated_fields: Vec<(String, String)>,
    /// The client capabilities a call needs
    /// ([`Action::requires_client`](crate::Action::requires_client)).
    pub requires_client: Option<rmcp::model::ClientCapabilities>,
    /// Its description (for suggestions by meaning).
    pub description: String,
    /// The top-level properties of its input schema, in schema order (for
    /// suggesting the action a discriminator-less call's fields fit).
    pub fields: Vec<String>,
    /// Whether its calls may run as a task.
    pub task_support: TaskSupport,
    /// The arguments that make its result smaller
    /// ([`Action::narrowed_by`](crate::Action::narrowed_by)).
    pub(crate) narrowed_by: Vec<String>,
    /// Its presenter, bound to it ([`Action::returns`](crate::Action::returns)).
    pub presentation: Option<Arc<Presentation>>,
    /// The most bytes a successful result may have (its own limit, else the
    /// server's; `usize::MAX`: none).
    pub egress_limit: usize,
    /// The patterns of the domains it changes (state sync).
    pub invalidates: Vec<String>,
    /// The domains it reads (state sync).
    pub reads: Vec<String>,
}

/// One MCP tool: a plain tool (one action, no discriminator) or a group.
pub(crate) struct RegisteredTool {
    pub name: String,
    pub discriminator: Option<String>,
    pub actions: Vec<RegisteredAction>,
    pub listing: ToolListing,
    /// The tool as `tools/list` sends it to a caller who sees every action
    /// of it (made once, when the tool is added).
    pub listed: Tool,
    /// A group's own description (its listing appends the actions).
    pub description: Option<String>,
    /// The form of the schemas its listing shows.
    pub profile: SchemaProfile,
    /// The `ui://` view it is linked to (MCP Apps), checked against the
    /// server's resources when the server is built.
    pub ui: Option<String>,
}

/// A tool as one caller is shown it.
pub(crate) enum Shown {
    /// Every action of it: its listing as built.
    Whole,
    /// Some of a group's actions: a listing of those.
    Part(Box<ToolListing>),
}

impl RegisteredTool {
    /// The index of the action whose key is `key`.
    pub fn action_index(&self, key: &str) -> Option<usize> {
        self.actions
            .iter()
            .position(|a| a.key.as_deref() == Some(key))
    }

    /// The listing a caller who sees only the actions `shown` picks gets:
    /// the whole one when it sees them all, none when it sees none, else (a
    /// group) one built from those actions alone.
    pub fn listing_for(&self, shown: impl Fn(&RegisteredAction) -> bool) -> Option<Shown> {
        let picked: Vec<usize> = (0..self.actions.len())
            .filter(|&i| shown(&self.actions[i]))
            .collect();
        if picked.len() == self.actions.len() {
            return Some(Shown::Whole);
        }
        if picked.is_empty() {
            return None;
        }
        let listings: Vec<&ActionListing> =
            picked.iter().map(|&i| &self.listing.actions[i]).collect();
        let summaries: Vec<ActionSummary<'_>> = listings
            .iter()
            .map(|listing| ActionSummary {
                key: &listing.name,
                description: listing.description.as_deref(),
                schema: &listing.input_schema,
                annotations: listing.annotations,
                deprecated: listing.deprecated.as_deref(),
            })
            .collect();
        let discriminator = self.discriminator.as_deref()?;
        // The whole group's listing was built from these same parts.
        let mut listing = group_listing(
            &self.name,
            self.description.as_deref(),
            discriminator,
            &summaries,
        )
        .ok()?;
        listing.input_schema = self.profile.show(&listing.input_schema);
        listing.actions = listings.into_iter().cloned().collect();
        listing.meta = self.listing.meta.clone();
        Some(Shown::Part(Box::new(listing)))
    }
}

/// What the server was built from, tool by tool.
#[expect(
    clippy::large_enum_variant,
    reason = "held only while a server is built or a tool added, one per tool"
)]
pub(crate) enum Definition {
    Plain(Action),
    Group(Group),
}

/// The built table. Cheap to clone (the tools are shared): a running
/// server changes a copy and puts it in place of the one calls read.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    tools: Vec<Arc<RegisteredTool>>,
    /// The place of each tool in the list, beside it in `tools` (ascending).
    places: Vec<Place>,
    given: Places,
    index: HashMap<String, usize>,
    /// The stale-reads notice of each action that invalidates domains, by
    /// dotted name (made again whenever a tool is added or removed).
    stale: HashMap<String, Arc<str>>,
}

fn valid_name(name: &str, allow_dot: bool) -> bool {
    (1..=128).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (allow_dot && c == '.'))
}

/// The most characters the name of a tool another server listed
/// ([`Action::from_tool`]) may have: its own 128 (MCP's limit) and a
/// namespace before it.
const MAX_FOREIGN_NAME: usize = 256;

/// Whether `name`, the name of a tool another server listed, can be listed
/// and called: 1 to [`MAX_FOREIGN_NAME`] characters, none of them blank or
/// a control character.
fn valid_foreign_name(name: &str) -> bool {
    (1..=MAX_FOREIGN_NAME).contains(&name.chars().count())
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// What an action inherits from its group (nothing for a plain tool).
#[derive(Default)]
struct Inherited<'a> {
    layers: &'a [BoxLayer],
    guards: Guards,
    visible_when: &'a [VisibleFn],
}

/// The input schema of `action` (named `dotted`) as it is listed, its
/// deprecated fields marked, and whether calls are validated against it (a
/// given schema, a proxied tool's, is listed as it is, not checked).
fn input_schema(action: &Action, dotted: &str) -> Result<(Value, bool), BuildError> {
    let (mut schema, validated) = match &action.input_schema {
        InputSchema::Derived(derive) => (derive(action.allow_unknown_fields), true),
        InputSchema::Given(schema) => (schema.clone(), false),
    };
    for (field, replacement) in &action.deprecated_fields {
        let Some(property) = schema
            .get_mut("properties")
            .and_then(|p| p.get_mut(field))
            .and_then(Value::as_object_mut)
        else {
            return Err(BuildError::BadSchema {
                action: dotted.to_owned(),
                reason: format!("the deprecated field \"{field}\" is not a field of the input"),
            });
        };
        let note = format!("Deprecated: use \"{replacement}\" instead.");
        let description = match property.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d} {note}"),
            None => note,
        };
        property.insert("description".into(), Value::String(description));
        property.insert("deprecated".into(), Value::Bool(true));
    }
    check_narrowed_by(action, &schema, dotted)?;
    if let Some((presenter, _)) = &action.presenter
        && presenter.selects()
        && let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut)
    {
        properties.insert(SELECT.to_owned(), select_schema(presenter.schema()));
    }
    if validated && schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(BuildError::BadSchema {
            action: dotted.to_owned(),
            reason: String::from("the input type must be a struct (a JSON object schema)"),
        });
    }
    Ok((schema, validated))
}

/// `BuildError::BadSchema` unless every `narrowed_by` argument of `action`
/// is a property of its input `schema`.
fn check_narrowed_by(action: &Action, schema: &Value, dotted: &str) -> Result<(), BuildError> {
    let properties = schema.get("properties").and_then(Value::as_object);
    match action
        .narrowed_by
        .iter()
        .find(|name| !properties.is_some_and(|p| p.contains_key(name.as_str())))
    {
        Some(name) => Err(BuildError::BadSchema {
            action: dotted.to_owned(),
            reason: format!("the narrowed_by argument \"{name}\" is not a field of the input"),
        }),
        None => Ok(()),
    }
}

/// The schema of the `_select` argument: an array of the top-level fields
/// `output` declares (wire contract §9.1).
fn select_schema(output: &Value) -> Value {
    let names = crate::present::top_level_fields(output);
    serde_json::json!({
        "description": "Only these top-level fields of each result (default: all).",
        "type": "array",
        "items": {"type": "string", "enum": names},
        "uniqueItems": true
    })
}

/// `action` (named `dotted`)'s presenter bound to it.
fn presentation(action: &Action, dotted: &str) -> Result<Option<Arc<Presentation>>, BuildError> {
    let Some((presenter, many)) = &action.presenter else {
        return Ok(None);
    };
    let schema = action.output_schema.clone().unwrap_or(Value::Bool(true));
    Presentation::new(
        Arc::clone(presenter),
        *many,
        dotted,
        &action.narrowed_by,
        &schema,
    )
    .map(|p| Some(Arc::new(p)))
    .map_err(|reason| BuildError::BadSchema {
        action: dotted.to_owned(),
        reason,
    })
}

/// The compiled validators of `action` (named `dotted`): of its input
/// `schema` when `validated`, and of its output schema (a proxied tool's
/// results are its server's, checked there).
fn validators(
    action: &Action,
    schema: &Value,
    validated: bool,
    dotted: &str,
) -> Result<(Option<SchemaValidator>, Option<SchemaValidator>), BuildError> {
    let bad = |reason: String| BuildError::BadSchema {
        action: dotted.to_owned(),
        reason,
    };
    let input = match validated {
        true => Some(SchemaValidator::new(schema).map_err(|e| bad(e.to_string()))?),
        false => None,
    };
    let output = match (&action.output_schema, &action.listed_as) {
        // A presenter checks what it presents.
        _ if action.presenter.is_some() => None,
        (Some(schema), None) => {
            Some(SchemaValidator::new(schema).map_err(|e| bad(format!("the output schema: {e}")))?)
        }
        _ => None,
    };
    Ok((input, output))
}

/// The names an action goes by: its tool's, its key inside a group
/// (`None` for a plain tool) and its dotted name (`group.key`, or the
/// tool's name).
struct Names<'a> {
    tool: &'a str,
    key: Option<&'a str>,
    dotted: String,
}

fn register_action(
    action: &Action,
    names: Names<'_>,
    group: &Inherited<'_>,
    assembly: &Assembly,
) -> Result<(RegisteredAction, ActionListing), BuildError> {
    let Names { tool, key, dotted } = names;
    check_state_sync(action, &dotted)?;
    let guards = action
        .guards
        .or(&group.guards)
        .destructive_default(action.annotations.destructive && action.listed_as.is_none());
    let gate = assembly.gates.gate_of(&dotted);
    let (schema, validated) = input_schema(action, &dotted)?;
    let (validator, output) = validators(action, &schema, validated, &dotted)?;
    let presentation = presentation(action, &dotted)?;
    let callable = assembly.callable(Parts {
        name: &dotted,
        handler: handler_service(action.handler.clone()),
        validator,
        output,
        presentation: presentation.clone(),
        guards: guards.clone(),
        layers: &[group.layers, &action.layers],
        state_needs: &action.state_needs,
        retry_safe: action.annotations.read_only || action.annotations.idempotent,
        labels: ActionLabels::new(tool, key),
        visible_when: group
            .visible_when
            .iter()
            .chain(&action.visible_when)
            .cloned()
            .collect(),
        gate: gate.clone(),
    })?;
    let fields = schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|p| p.keys().filter(|k| *k != SELECT).cloned().collect())
        .unwrap_or_default();
    let egress_limit = action.egress_limit.unwrap_or(assembly.egress_limit);
    let listing = ActionListing {
        name: key.unwrap_or(&action.name).to_owned(),
        description: match action.freshness {
            Some(freshness) => Some(freshness.describe(action.description.as_deref())),
            None => action.description.clone(),
        },
        input_schema: schema,
        output_schema: action.output_schema.clone(),
        annotations: action.annotations,
        deprecated: action.deprecated.clone(),
        required_scopes: guards.auth.scopes.clone(),
        guards: guards_json(&guards, gate.as_ref()),
        presenter: presentation.as_ref().map(|p| p.describe()),
        results: results_of(action, egress_limit),
    };
    let registered = RegisteredAction {
        key: key.map(str::to_owned),
        dotted,
        callable,
        structured: action.output_schema.is_some(),
        deprecated: action.deprecated.clone(),
        deprecated_fields: action.deprecated_fields.clone(),
        requires_client: action.requires_client.as_deref().cloned(),
        description: action.description.clone().unwrap_or_default(),
        fields,
        task_support: action.task_support,
        narrowed_by: action.narrowed_by.clone(),
        presentation,
        egress_limit,
        invalidates: action.invalidates.clone(),
        reads: action.reads.clone(),
    };
    Ok((registered, listing))
}

/// What `action` declares of its results, as its listing and contract
/// record it ([`ActionListing::results`]); `egress_limit` is its limit in
/// bytes, its own or the server's.
fn results_of(action: &Action, egress_limit: usize) -> Value {
    let mut results = serde_json::Map::new();
    if egress_limit != DEFAULT_EGRESS_LIMIT {
        let bytes = match egress_limit {
            usize::MAX => Value::Null,
            bytes => Value::from(bytes),
        };
        results.insert("egressLimitBytes".into(), bytes);
    }
    if let Some(freshness) = action.freshness {
        results.insert("freshness".into(), freshness.to_json());
    }
    if !action.invalidates.is_empty() {
        results.insert(
            "invalidates".into(),
            Value::from(action.invalidates.clone()),
        );
    }
    if !action.reads.is_empty() {
        results.insert("reads".into(), Value::from(action.reads.clone()));
    }
    Value::Object(results)
}

/// The `BuildError::BadStateSync` of an action whose declared reads or
/// invalidations are not dotted names or patterns (`present::state_sync`).
fn check_state_sync(action: &Action, dotted: &str) -> Result<(), BuildError> {
    let reads = action.reads.iter().map(|d| (d, false));
    let patterns = action.invalidates.iter().map(|p| (p, true));
    for (name, pattern) in reads.chain(patterns) {
        if let Some(reason) = state_sync::problem(name, pattern) {
            return Err(BuildError::BadStateSync {
                action: dotted.to_owned(),
                reason,
            });
        }
    }
    Ok(())
}

/// What `tools/list` shows of an action's guards: its settings, and its
/// state gate as `"stateGate"` (wire contract §10).
fn guards_json(
    guards: &crate::guard::Guards,
    gate: Option<&crate::guard::ActionGate>,
) -> serde_json::Value {
    let mut json = guards.to_json();
    if let (Some(gate), Some(object)) = (gate, json.as_object_mut()) {
        object.insert("stateGate".into(), gate.to_json());
    }
    json
}

/// The `BuildError` of a group whose name is invalid, that has no action,
/// or whose discriminator is blank.
fn check_group(group: &Group) -> Result<(), BuildError> {
    if !valid_name(&group.name, false) {
        return Err(BuildError::InvalidName {
            what: "group",
            name: group.name.clone(),
        });
    }
    if group.actions.is_empty() {
        return Err(BuildError::EmptyGroup(group.name.clone()));
    }
    if group.discriminator.trim().is_empty() {
        return Err(BuildError::BadDiscriminator {
            group: group.name.clone(),
            field: group.discriminator.clone(),
            reason: String::from("is empty"),
        });
    }
    Ok(())
}

/// The actions of `group`, each registered with what it inherits from the
/// group, and their listings; an invalid or repeated action name is a
/// `BuildError`.
fn group_actions(
    group: &Group,
    assembly: &Assembly,
) -> Result<(Vec<RegisteredAction>, Vec<ActionListing>), BuildError> {
    let mut actions = Vec::with_capacity(group.actions.len());
    let mut listings = Vec::with_capacity(group.actions.len());
    let inherited = Inherited {
        layers: &group.layers,
        guards: group.guards.clone(),
        visible_when: &group.visible_when,
    };
    for action in &group.actions {
        if !valid_name(&action.name, false) {
            return Err(BuildError::InvalidName {
                what: "action",
                name: action.name.clone(),
            });
        }
        if actions
            .iter()
            .any(|a: &RegisteredAction| a.key.as_deref() == Some(&action.name))
        {
            return Err(BuildError::DuplicateAction {
                group: group.name.clone(),
                action: action.name.clone(),
            });
        }
        let names = Names {
            tool: &group.name,
            key: Some(&action.name),
            dotted: format!("{}.{}", group.name, action.name),
        };
        let (registered, action_listing) = register_action(action, names, &inherited, assembly)?;
        actions.push(registered);
        listings.push(action_listing);
    }
    Ok((actions, listings))
}

impl Registry {
    /// Builds the table: checks names, derives and compiles every schema,
    /// composes every action's layers (server, then group, then action).
    pub fn build(definitions: Vec<Definition>, assembly: &Assembly) -> Result<Self, BuildError> {
        let mut registry = Registry::default();
        for definition in definitions {
            registry.add(definition, assembly)?;
        }
        Ok(registry)
    }

    /// Adds the tool of `definition`, built as [`build`](Self::build) builds
    /// each; on an error the table is unchanged.
    pub fn add(&mut self, definition: Definition, assembly: &Assembly) -> Result<(), BuildError> {
        let tool = match definition {
            Definition::Plain(action) => Self::plain(action, assembly)?,
            Definition::Group(group) => Self::group(group, assembly)?,
        };
        if self.index.contains_key(&tool.name) {
            return Err(BuildError::DuplicateTool(tool.name));
        }
        self.index.insert(tool.name.clone(), self.tools.len());
        self.tools.push(Arc::new(tool));
        self.places.push(self.given.next());
        self.link_state_sync();
        Ok(())
    }

    /// Makes again the stale-reads notice of every action that invalidates
    /// domains: it names the read actions whose domains its patterns match.
    fn link_state_sync(&mut self) {
        let actions = || self.tools.iter().flat_map(|tool| tool.actions.iter());
        let mut stale = HashMap::new();
        for writer in actions().filter(|a| !a.invalidates.is_empty()) {
            let readers: Vec<String> = actions()
                .filter(|reader| {
                    reader.reads.iter().any(|domain| {
                        writer
                            .invalidates
                            .iter()
                            .any(|pattern| state_sync::matches(pattern, domain))
                    })
                })
                .map(|reader| reader.dotted.clone())
                .collect();
            let notice = state_sync::notice(&writer.dotted, &writer.invalidates, &readers);
            stale.insert(writer.dotted.clone(), Arc::from(notice));
        }
        self.stale = stale;
    }

    /// The stale-reads notice of the action `dotted`, when it invalidates
    /// domains.
    pub fn stale_notice(&self, dotted: &str) -> Option<&Arc<str>> {
        self.stale.get(dotted)
    }

    /// Removes the tool named `name`; whether there was one. The others keep
    /// their order.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(at) = self.index.remove(name) else {
            return false;
        };
        self.tools.remove(at);
        self.places.remove(at);
        for (i, tool) in self.tools.iter().enumerate().skip(at) {
            self.index.insert(tool.name.clone(), i);
        }
        self.link_state_sync();
        true
    }

    /// Lists the tool named `name` after all the others, at a new place;
    /// whether there is one.
    pub fn move_to_end(&mut self, name: &str) -> bool {
        let Some(&at) = self.index.get(name) else {
            return false;
        };
        let tool = self.tools.remove(at);
        self.tools.push(tool);
        self.places.remove(at);
        self.places.push(self.given.next());
        for (i, tool) in self.tools.iter().enumerate().skip(at) {
            self.index.insert(tool.name.clone(), i);
        }
        true
    }

    fn plain(action: Action, assembly: &Assembly) -> Result<RegisteredTool, BuildError> {
        let usable = match action.listed_as {
            Some(_) => valid_foreign_name(&action.name),
            None => valid_name(&action.name, true),
        };
        if !usable {
            return Err(BuildError::InvalidName {
                what: "tool",
                name: action.name.clone(),
            });
        }
        let names = Names {
            tool: &action.name,
            key: None,
            dotted: action.name.clone(),
        };
        let (registered, action_listing) =
            register_action(&action, names, &Inherited::default(), assembly)?;
        let meta = plain_meta(&action)?;
        let (listing, listed) = match action.listed_as {
            // Another server's tool: listed as it is.
            Some(tool) => (ToolListing::of_foreign(&tool), *tool),
            None => {
                let listing = ToolListing {
                    name: action.name.clone(),
                    description: plain_description(
                        action_listing.description.as_deref(),
                        action.deprecated.as_deref(),
                    ),
                    input_schema: assembly.schema_profile.show(&action_listing.input_schema),
                    output_schema: action
                        .output_schema
                        .as_ref()
                        .map(|schema| assembly.schema_profile.show(schema)),
                    annotations: action.annotations,
                    discriminator: None,
                    actions: vec![action_listing],
                    meta,
                };
                let listed = listing.to_tool();
                (listing, listed)
            }
        };
        Ok(RegisteredTool {
            name: action.name,
            discriminator: None,
            actions: vec![registered],
            listing,
            listed,
            description: None,
            profile: assembly.schema_profile,
            ui: action.ui.map(|link| link.resource_uri),
        })
    }

    fn group(group: Group, assembly: &Assembly) -> Result<RegisteredTool, BuildError> {
        check_group(&group)?;
        let (actions, listings) = group_actions(&group, assembly)?;
        let summaries: Vec<ActionSummary<'_>> = group
            .actions
            .iter()
            .zip(&listings)
            .map(|(action, listing)| ActionSummary {
                key: &action.name,
                description: listing.description.as_deref(),
                schema: &listing.input_schema,
                annotations: action.annotations,
                deprecated: action.deprecated.as_deref(),
            })
            .collect();
        let mut listing = group_listing(
            &group.name,
            group.description.as_deref(),
            &group.discriminator,
            &summaries,
        )?;
        listing.input_schema = assembly.schema_profile.show(&listing.input_schema);
        listing.actions = listings;
        listing.meta = group_meta(&group)?;
        let listed = listing.to_tool();
        Ok(RegisteredTool {
            name: group.name,
            discriminator: Some(group.discriminator),
            actions,
            listing,
            listed,
            description: group.description,
            profile: assembly.schema_profile,
            ui: group.ui.map(|link| link.resource_uri),
        })
    }

    /// Tells every presenter how to call the actions its suggestions name.
    ///
    /// # Errors
    /// `BuildError::BadSchema` for a suggestion naming an action the table
    /// does not have.
    pub fn bind_presentations(&self) -> Result<(), BuildError> {
        for tool in &self.tools {
            for action in &tool.actions {
                let Some(presentation) = &action.presentation else {
                    continue;
                };
                let mut targets = HashMap::new();
                for name in presentation.presenter().suggested_actions() {
                    let Some(target) = self.call_target(&name) else {
                        return Err(BuildError::BadSchema {
                            action: action.dotted.clone(),
                            reason: format!(
                                "the presenter {} suggests \"{name}\", which the server does not have",
                                presentation.presenter().name()
                            ),
                        });
                    };
                    targets.insert(name, target);
                }
                presentation.set_targets(targets);
            }
        }
        Ok(())
    }

    /// How to call the action `name` (dotted, or a plain tool's name).
    fn call_target(&self, name: &str) -> Option<CallTarget> {
        if let Some(tool) = self.tool(name)
            && tool.discriminator.is_none()
        {
            return Some(CallTarget {
                tool: tool.name.clone(),
                discriminator: None,
            });
        }
        let (tool, key) = name.split_once('.')?;
        let tool = self.tool(tool)?;
        let discriminator = tool.discriminator.as_ref()?;
        tool.action_index(key)?;
        Some(CallTarget {
            tool: tool.name.clone(),
            discriminator: Some((discriminator.clone(), key.to_owned())),
        })
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&RegisteredTool> {
        self.index_of(name).map(|&i| &*self.tools[i])
    }

    /// The index in [`tools`](Self::tools) of the tool named `name`.
    pub(super) fn index_of(&self, name: &str) -> Option<&usize> {
        self.index.get(name)
    }

    /// Whether any action may run as a task (the server then advertises the
    /// tasks extension).
    pub fn any_task_support(&self) -> bool {
        self.tools
            .iter()
            .any(|tool| tool.actions.iter().any(|a| a.task_support.allows_task()))
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> &[Arc<RegisteredTool>] {
        &self.tools
    }

    /// Its tools in list order, each with its place in the list.
    pub fn placed(&self) -> impl Iterator<Item = (Place, &Arc<RegisteredTool>)> {
        self.places.iter().copied().zip(&self.tools)
    }

    /// Whether it has no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}
