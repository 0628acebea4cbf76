//! [`Resource`] and [`ResourceTemplate`]: data the client lists
//! (`resources/list`, `resources/templates/list`) and reads
//! (`resources/read`), MCP 2025-11-25 "Resources".

use std::collections::HashMap;

use base64::Engine as _;
use regex::Regex;
use rmcp::model::{MetaObject, ResourceContents};
use serde_json::{Map, Value};

use super::BuildError;
use super::CacheHint;
use super::Place;
use super::app::bad_ui_uri;
use super::assembly::VisibleFn;
use super::assembly::{Assembly, Callable, Parts};
use super::completion::{Completions, completion_setters};
use super::meta::{check_meta, listed_meta, meta_setter};
use super::settings::settings_setters;
use crate::error::ToolError;
use crate::guard::Guards;
use crate::handler::{Erased, Handler, NoArgs, ResourceData, StateNeed, erase};
use crate::metrics_names::ActionLabels;
use crate::pipeline::{BoxLayer, handler_service};
use crate::validation::SchemaValidator;

/// The description fields a resource and a template share.
#[derive(Debug, Clone, Default)]
pub(crate) struct Described {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// `data` read from `uri`, as MCP's resource contents, with `meta` as
/// their `_meta` (an app's view: its `ui`).
pub(crate) fn contents(
    uri: &str,
    mime_type: Option<&str>,
    data: ResourceData,
    meta: Option<&Map<String, Value>>,
) -> ResourceContents {
    let meta = meta.map(|meta| MetaObject(meta.clone()));
    let contents = match data {
        ResourceData::Text(text) => ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: None,
            text,
            meta,
        },
        ResourceData::Blob(bytes) => ResourceContents::BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: None,
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta,
        },
    };
    match mime_type {
        Some(mime_type) => contents.with_mime_type(mime_type),
        None => contents,
    }
}

/// A resource at a fixed URI, read by an async handler without arguments
/// (extractors only, see [`Handler`]) that returns [`ResourceData`].
///
/// ```
/// use mcp_fusion::Resource;
///
/// let readme = Resource::text("docs://readme", "readme", "Read me first.")
///     .description("The project's read-me")
///     .mime_type("text/plain");
/// # let _ = readme;
/// ```
#[derive(Clone)]
pub struct Resource {
    pub(crate) uri: String,
    pub(crate) described: Described,
    pub(crate) handler: Erased<ResourceData>,
    pub(crate) state_needs: Vec<StateNeed>,
    pub(crate) guards: Guards,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
    /// The `_meta` its code set ([`Resource::meta`]).
    pub(crate) meta: Map<String, Value>,
    /// For an app's view ([`UiResource`](crate::capability::UiResource)):
    /// the library's `_meta` of its listing and of its contents (`ui`).
    pub(crate) app: Option<Map<String, Value>>,
    /// For an app's view: why its `_meta.ui` cannot be served (a CSP entry
    /// that is not one origin), refused when it is built.
    pub(crate) app_problem: Option<String>,
    /// Its reads' caching hint; `None`: the server's for `resources/read`.
    pub(crate) cache_hint: Option<CacheHint>,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

macro_rules! described_setters {
    () => {
        /// A human-readable name (`title`).
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.described.title = Some(title.into());
            self
        }

        /// What the data is, for the client and the model (`description`).
        pub fn description(mut self, description: impl Into<String>) -> Self {
            self.described.description = Some(description.into());
            self
        }

        /// The media type of the contents (`mimeType`, e.g. `text/plain`,
        /// `image/png`), listed and sent with every read.
        pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
            self.described.mime_type = Some(mime_type.into());
            self
        }

        /// The caching hint of its `resources/read` results on 2026-07-28
        /// (SEP-2549): `ttlMs` [`CacheHint::fresh_for`] in milliseconds and
        /// its `cacheScope`, in place of the server's hint for
        /// `resources/read` ([`ServerBuilder::cache_hint`](crate::ServerBuilder::cache_hint)).
        /// Sent `"private"` when the reads depend on the caller (it needs
        /// credentials or has a `visible_when` predicate). A handler whose
        /// contents depend on the caller in another way should not be
        /// declared `"public"`.
        pub fn cache_hint(mut self, hint: CacheHint) -> Self {
            self.cache_hint = Some(hint);
            self
        }
    };
}

impl Resource {
    /// A resource at `uri` (any URI: `file:///…`, `test://static-text`),
    /// listed as `name`, whose contents `handler` reads on each
    /// `resources/read`.
    pub fn new<M, H>(uri: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M, ResourceData, Args = NoArgs>,
    {
        Resource {
            uri: uri.into(),
            described: Described {
                name: name.into(),
                ..Described::default()
            },
            handler: erase(handler),
            state_needs: H::state_needs(),
            guards: Guards::default(),
            layers: Vec::new(),
            visible_when: Vec::new(),
            meta: Map::new(),
            app: None,
            app_problem: None,
            cache_hint: None,
        }
    }

    /// A resource whose contents are always `text`.
    pub fn text(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        let text: String = text.into();
        Resource::new(uri, name, move || {
            std::future::ready(Ok::<_, ToolError>(ResourceData::Text(text.clone())))
        })
    }

    /// A resource whose contents are always `bytes` (sent as a base64 `blob`).
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        let bytes: Vec<u8> = bytes.into();
        Resource::new(uri, name, move || {
            std::future::ready(Ok::<_, ToolError>(ResourceData::Blob(bytes.clone())))
        })
    }

    described_setters!();
    meta_setter!("its `resources/list` entry");
    settings_setters!(
        "`resources/read` requests of this resource",
        "this resource",
        ""
    );

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The `resources/list` entry.
    pub(crate) fn to_rmcp(&self) -> rmcp::model::Resource {
        let d = &self.described;
        let mut resource = rmcp::model::Resource::new(self.uri.clone(), d.name.clone());
        if let Some(title) = &d.title {
            resource = resource.with_title(title.clone());
        }
        if let Some(description) = &d.description {
            resource = resource.with_description(description.clone());
        }
        if let Some(mime_type) = &d.mime_type {
            resource = resource.with_mime_type(mime_type.clone());
        }
        if let Some(meta) = listed_meta(self.app.clone().unwrap_or_default(), &self.meta) {
            resource = resource.with_meta(meta);
        }
        resource
    }

    /// The resource assembled: its guarded path.
    ///
    /// # Errors
    /// [`BuildError::InvalidName`] for an empty URI; [`BuildError::BadApp`]
    /// for an app's view whose URI is not `ui://…`;
    /// [`BuildError::ReservedMetaKey`] for a `_meta` key it may not set;
    /// [`BuildError::BadGuard`] and [`BuildError::MissingState`] as for an
    /// action.
    pub(crate) fn assemble(
        self,
        assembly: &Assembly,
        place: Place,
    ) -> Result<AssembledResource, BuildError> {
        if self.uri.is_empty() {
            return Err(BuildError::InvalidName {
                what: "resource URI",
                name: self.uri,
            });
        }
        if let (Some(_), Some(reason)) = (&self.app, bad_ui_uri(&self.uri)) {
            return Err(BuildError::BadApp {
                uri: self.uri,
                reason,
            });
        }
        if let Some(reason) = self.app_problem.clone() {
            return Err(BuildError::BadApp {
                uri: self.uri,
                reason,
            });
        }
        check_meta(&self.uri, &self.meta)?;
        let callable = assembly.callable(Parts {
            presentation: None,
            gate: None,
            name: &self.uri,
            handler: handler_service(self.handler.clone()),
            validator: None,
            output: None,
            guards: self.guards.clone(),
            layers: &[&self.layers],
            state_needs: &self.state_needs,
            retry_safe: true,
            labels: ActionLabels::new(&self.uri, None),
            visible_when: self.visible_when.clone(),
        })?;
        Ok(AssembledResource {
            resource: self,
            callable,
            place,
        })
    }
}

/// A resource ready to be served.
pub(crate) struct AssembledResource {
    pub resource: Resource,
    /// `resources/read`.
    pub callable: Callable,
    /// Where it is in `resources/list`.
    pub place: Place,
}

/// A family of resources named by an RFC 6570 URI template
/// (`test://template/{id}/data`), read by an async handler whose arguments
/// type holds the template's variables (see [`Handler`]).
///
/// Matching: `{name}` matches one path segment (no `/`, `?` or `#`),
/// `{+name}` any non-empty text; the value reaches the handler
/// percent-decoded (a value that does not decode to UTF-8 is refused with
/// -32602), as the JSON type its field asks for when the text reads as one
/// (`{page}` with `page: u32` takes `…/5`). Decoded, a value may hold any character, `/`, `..` and NUL
/// included: check it before using it in a file path or a query. The variables are validated against the arguments type
/// (as an action's arguments are); a URI whose variables miss it is answered
/// with JSON-RPC error -32602 and the `<validation_error>` text.
///
/// ```
/// use mcp_fusion::ResourceTemplate;
/// use mcp_fusion::ToolError;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Invoice { id: String }
///
/// async fn invoice(args: Invoice) -> Result<String, ToolError> {
///     Ok(format!("{{\"id\":\"{}\"}}", args.id))
/// }
///
/// let template = ResourceTemplate::new("billing://invoices/{id}", "invoice", invoice)
///     .mime_type("application/json");
/// # let _ = template;
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    pub(crate) uri_template: String,
    pub(crate) described: Described,
    /// The template as a regex with one named group per variable, or why it
    /// cannot be read.
    pub(crate) matcher: Result<Regex, String>,
    pub(crate) validator: Result<SchemaValidator, String>,
    pub(crate) handler: Erased<ResourceData>,
    pub(crate) state_needs: Vec<StateNeed>,
    pub(crate) completions: Completions,
    pub(crate) guards: Guards,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
    /// The `_meta` its code set ([`ResourceTemplate::meta`]).
    pub(crate) meta: Map<String, Value>,
    /// Its reads' caching hint; `None`: the server's for `resources/read`.
    pub(crate) cache_hint: Option<CacheHint>,
}

impl std::fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("uri_template", &self.uri_template)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// A template `uri_template`, listed as `name`, whose resources `handler`
    /// reads with the template's variables as its arguments.
    pub fn new<M, H>(uri_template: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M, ResourceData>,
    {
        let uri_template: String = uri_template.into();
        let schema = crate::schema::input_schema_for::<H::Args>(false);
        ResourceTemplate {
            matcher: matcher_of(&uri_template),
            uri_template,
            described: Described {
                name: name.into(),
                ..Described::default()
            },
            validator: SchemaValidator::new(&schema).map_err(|e| e.to_string()),
            handler: erase(handler),
            state_needs: H::state_needs(),
            completions: Completions::default(),
            guards: Guards::default(),
            layers: Vec::new(),
            visible_when: Vec::new(),
            meta: Map::new(),
            cache_hint: None,
        }
    }

    described_setters!();
    meta_setter!("its `resources/templates/list` entry");
    settings_setters!(
        "`resources/read` requests of this template (every URI it matches together)",
        "this template",
        ""
    );

    completion_setters!("variable");

    /// The URI template.
    pub fn uri_template(&self) -> &str {
        &self.uri_template
    }

    /// The `resources/templates/list` entry.
    pub(crate) fn to_rmcp(&self) -> rmcp::model::ResourceTemplate {
        let d = &self.described;
        let mut template =
            rmcp::model::ResourceTemplate::new(self.uri_template.clone(), d.name.clone());
        if let Some(title) = &d.title {
            template = template.with_title(title.clone());
        }
        if let Some(description) = &d.description {
            template = template.with_description(description.clone());
        }
        if let Some(mime_type) = &d.mime_type {
            template = template.with_mime_type(mime_type.clone());
        }
        if let Some(meta) = listed_meta(Map::new(), &self.meta) {
            template = template.with_meta(meta);
        }
        template
    }

    /// The names of the template's variables, in the order they appear
    /// (what `completion/complete` may complete); empty when the template
    /// could not be read.
    pub(crate) fn variable_names(&self) -> Vec<String> {
        self.matcher.as_ref().map_or_else(
            |_| Vec::new(),
            |m| m.capture_names().flatten().map(String::from).collect(),
        )
    }

    /// The variables of `uri` when it matches the template, percent-decoded;
    /// `Some(Err(reason))` when one decodes to bytes that are not UTF-8.
    pub(crate) fn variables(&self, uri: &str) -> Option<Result<Map<String, Value>, String>> {
        let matcher = self.matcher.as_ref().ok()?;
        let captures = matcher.captures(uri)?;
        let mut variables = Map::new();
        for name in matcher.capture_names().flatten() {
            let raw = captures.name(name).map_or("", |m| m.as_str());
            let Ok(value) = percent_encoding::percent_decode_str(raw).decode_utf8() else {
                return Some(Err(format!(
                    "The URI's {{{name}}} part, \"{}\", percent-decodes to bytes that are not UTF-8; percent-encode the value's UTF-8 bytes.",
                    crate::text::cut_chars(raw, 100, "…")
                )));
            };
            variables.insert(name.to_owned(), Value::String(value.into_owned()));
        }
        Some(Ok(variables))
    }

    /// The arguments of a read of `uri` from its `variables`: each as the
    /// JSON type its property asks for when the text reads as one.
    pub(crate) fn arguments(&self, variables: Map<String, Value>) -> Value {
        let schema = self.validator.as_ref().map(SchemaValidator::schema).ok();
        Value::Object(
            variables
                .into_iter()
                .map(|(name, value)| {
                    let typed = match schema {
                        Some(schema) => typed_variable(&schema["properties"][&name], value),
                        None => value,
                    };
                    (name, typed)
                })
                .collect(),
        )
    }

    /// The template assembled: its guarded path and its completers' (each
    /// with the template's guards and layers).
    ///
    /// # Errors
    /// [`BuildError::BadUriTemplate`] for a template that cannot be matched
    /// or whose variables and arguments type cannot meet,
    /// [`BuildError::BadSchema`] when its arguments type does not compile,
    /// [`BuildError::BadGuard`] and [`BuildError::MissingState`] as for an
    /// action.
    pub(crate) fn assemble(
        self,
        assembly: &Assembly,
        place: Place,
    ) -> Result<AssembledTemplate, BuildError> {
        if let Err(reason) = &self.matcher {
            return Err(BuildError::BadUriTemplate(reason.clone()));
        }
        let validator = self
            .validator
            .clone()
            .map_err(|reason| BuildError::BadSchema {
                action: self.uri_template.clone(),
                reason,
            })?;
        if let Some(reason) = self.variables_mismatch(validator.schema()) {
            return Err(BuildError::BadUriTemplate(reason));
        }
        check_meta(&self.uri_template, &self.meta)?;
        let callable = assembly.callable(Parts {
            presentation: None,
            gate: None,
            name: &self.uri_template,
            handler: handler_service(self.handler.clone()),
            validator: Some(validator),
            output: None,
            guards: self.guards.clone(),
            layers: &[&self.layers],
            state_needs: &self.state_needs,
            retry_safe: true,
            labels: ActionLabels::new(&self.uri_template, None),
            visible_when: self.visible_when.clone(),
        })?;
        let completers = self.completions.assemble(
            &self.uri_template,
            &self.guards,
            &self.layers,
            &self.visible_when,
            assembly,
        )?;
        Ok(AssembledTemplate {
            template: self,
            callable,
            completers,
            place,
        })
    }

    /// Why the template's variables and its arguments type cannot meet: a
    /// variable that is not a field (refused as an unknown field on every
    /// read), or a required field that no variable fills (missing on every
    /// read). `None` when they fit.
    fn variables_mismatch(&self, schema: &Value) -> Option<String> {
        let variables: Vec<&str> = self
            .matcher
            .as_ref()
            .ok()?
            .capture_names()
            .flatten()
            .collect();
        let fields: Vec<&str> = schema["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let open = schema["additionalProperties"] != Value::Bool(false);
        let uri = &self.uri_template;
        if let Some(variable) = variables.iter().find(|v| !open && !fields.contains(v)) {
            return Some(format!(
                "{uri}: {{{variable}}} is not a field of the handler's arguments type (its fields: {})",
                fields.join(", ")
            ));
        }
        let required = schema["required"].as_array()?;
        required
            .iter()
            .filter_map(Value::as_str)
            .find(|field| !variables.contains(field))
            .map(|field| {
                format!(
                    "{uri}: the handler's arguments type requires \"{field}\", and no {{{field}}} in the template gives it"
                )
            })
    }
}

/// A resource template ready to be served.
pub(crate) struct AssembledTemplate {
    pub template: ResourceTemplate,
    /// `resources/read` of the URIs it matches.
    pub callable: Callable,
    /// `completion/complete`, by variable.
    pub completers: HashMap<String, Callable>,
    /// Where it is in `resources/templates/list`.
    pub place: Place,
}

/// A URI variable (always text) as the JSON type its property asks for,
/// when the text reads as one: `"5"` for an `integer` is `5`, `"true"` for a
/// `boolean` is `true`; anything else stays text (and validation says what
/// was expected).
fn typed_variable(property: &Value, value: Value) -> Value {
    let Value::String(text) = &value else {
        return value;
    };
    let mut types: Vec<&str> = Vec::new();
    if let Some(t) = property["type"].as_str() {
        types.push(t);
    }
    if let Some(branches) = property["anyOf"].as_array() {
        types.extend(branches.iter().filter_map(|b| b["type"].as_str()));
    }
    if types.contains(&"string") {
        return value;
    }
    for t in types {
        let parsed = match t {
            "integer" => text
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| text.parse::<u64>().map(Value::from))
                .ok(),
            "number" => text
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .map(Value::from),
            "boolean" => text.parse::<bool>().ok().map(Value::Bool),
            _ => None,
        };
        if let Some(parsed) = parsed {
            return parsed;
        }
    }
    value
}

/// The regex of an RFC 6570 template's level-1 (`{var}`) and reserved
/// (`{+var}`) expressions; other operators are refused.
fn matcher_of(template: &str) -> Result<Regex, String> {
    let mut pattern = String::from("^");
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        pattern.push_str(&regex::escape(&rest[..open]));
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("\"{template}\" opens a '{{' it never closes"));
        };
        let expression = &rest[open + 1..open + close];
        let (name, segment) = match expression.strip_prefix('+') {
            Some(name) => (name, ".+"),
            None => (expression, "[^/?#]+"),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "\"{template}\": {{{expression}}} is not a variable this server matches (use {{name}} or {{+name}}, with letters, digits and '_')"
            ));
        }
        pattern.push_str(&format!("(?P<{name}>{segment})"));
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("\"{template}\" closes a '}}' it never opened"));
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    Regex::new(&pattern).map_err(|e| format!("\"{template}\": {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Id {
        id: String,
    }

    async fn by_id(args: Id) -> Result<String, ToolError> {
        Ok(format!("Data for ID: {}", args.id))
    }

    #[test]
    fn a_template_matches_its_uris_only() {
        let template = ResourceTemplate::new("test://template/{id}/data", "t", by_id);
        let vars = template
            .variables("test://template/12%2F3/data")
            .unwrap()
            .unwrap();
        assert_eq!(vars["id"], "12/3");
        assert_eq!(
            template
                .variables("test://template/%FF/data")
                .unwrap()
                .unwrap_err(),
            "The URI's {id} part, \"%FF\", percent-decodes to bytes that are not UTF-8; percent-encode the value's UTF-8 bytes."
        );
        assert!(template.variables("test://template/1/2/data").is_none());
        assert!(template.variables("test://template//data").is_none());
        assert!(template.variables("test://other/1/data").is_none());
    }

    #[test]
    fn variables_take_their_property_type() {
        let integer = serde_json::json!({"type": "integer", "minimum": 0});
        assert_eq!(typed_variable(&integer, Value::from("5")), Value::from(5));
        assert_eq!(
            typed_variable(&integer, Value::from("five")),
            Value::from("five")
        );
        let flag = serde_json::json!({"anyOf": [{"type": "boolean"}, {"type": "null"}]});
        assert_eq!(
            typed_variable(&flag, Value::from("true")),
            Value::Bool(true)
        );
        let text = serde_json::json!({"type": "string"});
        assert_eq!(typed_variable(&text, Value::from("5")), Value::from("5"));
    }

    #[test]
    fn unreadable_templates_are_refused() {
        assert_eq!(
            matcher_of("test://{id").unwrap_err(),
            "\"test://{id\" opens a '{' it never closes"
        );
        assert!(matcher_of("test://{?q}").is_err());
        assert!(matcher_of("test://a}").is_err());
        assert!(matcher_of("test://{+path}").unwrap().is_match("test://a/b"));
    }

    #[test]
    fn binary_data_is_sent_as_base64() {
        let read = contents(
            "test://bin",
            Some("image/png"),
            ResourceData::Blob(vec![0u8, 255]),
            None,
        );
        assert_eq!(
            serde_json::to_value(read).unwrap(),
            serde_json::json!({"uri": "test://bin", "mimeType": "image/png", "blob": "AP8="})
        );
    }
}
