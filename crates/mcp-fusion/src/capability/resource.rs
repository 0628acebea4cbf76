//! [`Resource`] and [`ResourceTemplate`]: data the client lists
//! (`resources/list`, `resources/templates/list`) and reads
//! (`resources/read`), MCP 2025-11-25 "Resources".

use std::future::Future;

use base64::Engine as _;
use regex::Regex;
use rmcp::model::ResourceContents;
use serde_json::{Map, Value};

use super::completion::{CompletionRequest, Completions};
use super::invoke::{Erased, Invoke, erase};
use crate::capability::NoArgs;
use crate::error::ToolError;
use crate::handler::{CallContext, StateNeed};
use crate::validation::SchemaValidator;

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

/// The description fields a resource and a template share.
#[derive(Debug, Clone, Default)]
pub(crate) struct Described {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// `data` read from `uri`, as MCP's resource contents.
pub(crate) fn contents(uri: &str, mime_type: Option<&str>, data: ResourceData) -> ResourceContents {
    let contents = match data {
        ResourceData::Text(text) => ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: None,
            text,
            meta: None,
        },
        ResourceData::Blob(bytes) => {
            ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
        }
    };
    match mime_type {
        Some(mime_type) => contents.with_mime_type(mime_type),
        None => contents,
    }
}

/// A resource at a fixed URI, read by an async handler without arguments
/// (extractors only, see [`Invoke`]) that returns [`ResourceData`].
///
/// ```
/// use mcp_fusion::capability::Resource;
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
    };
}

impl Resource {
    /// A resource at `uri` (any URI: `file:///…`, `test://static-text`),
    /// listed as `name`, whose contents `handler` reads on each
    /// `resources/read`.
    pub fn new<M, H>(uri: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Invoke<M, ResourceData, Args = NoArgs>,
    {
        Resource {
            uri: uri.into(),
            described: Described {
                name: name.into(),
                ..Described::default()
            },
            handler: erase(handler),
            state_needs: H::state_needs(),
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
        resource
    }

    /// Reads the contents.
    pub(crate) async fn read(&self, ctx: CallContext) -> Result<ResourceContents, ToolError> {
        let data = (self.handler)(ctx, Value::Object(Map::new())).await?;
        Ok(contents(
            &self.uri,
            self.described.mime_type.as_deref(),
            data,
        ))
    }
}

/// A family of resources named by an RFC 6570 URI template
/// (`test://template/{id}/data`), read by an async handler whose arguments
/// type holds the template's variables (see [`Invoke`]).
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
/// use mcp_fusion::capability::ResourceTemplate;
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
        H: Invoke<M, ResourceData>,
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
        }
    }

    described_setters!();

    /// Completes the variable `variable` with an async function of what was
    /// typed (`completion/complete` with a `ref/resource`).
    pub fn complete<F, Fut>(mut self, variable: impl Into<String>, completer: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completions.add(variable, completer);
        self
    }

    /// Completes the variable `variable` from a fixed list (prefix match,
    /// ignoring case).
    pub fn complete_values<I, S>(mut self, variable: impl Into<String>, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.completions.add_values(variable, values);
        self
    }

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
        template
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

    /// Validates `variables`, then reads `uri`.
    pub(crate) async fn read(
        &self,
        ctx: CallContext,
        uri: &str,
        variables: Map<String, Value>,
    ) -> Result<ResourceContents, TemplateError> {
        let validator = self
            .validator
            .as_ref()
            .map_err(|e| TemplateError::Failed(ToolError::internal(e.clone())))?;
        let variables = variables
            .into_iter()
            .map(|(name, value)| {
                let typed = typed_variable(&validator.schema()["properties"][&name], value);
                (name, typed)
            })
            .collect();
        let mut args = Value::Object(variables);
        validator
            .validate(&mut args)
            .map_err(TemplateError::Invalid)?;
        let data = (self.handler)(ctx, args)
            .await
            .map_err(TemplateError::Failed)?;
        Ok(contents(uri, self.described.mime_type.as_deref(), data))
    }
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

/// Why a template read failed.
#[derive(Debug)]
pub(crate) enum TemplateError {
    /// The variables miss the arguments type.
    Invalid(Vec<crate::error::FieldError>),
    /// The handler (or an extractor) failed.
    Failed(ToolError),
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

    #[tokio::test]
    async fn binary_data_is_sent_as_base64() {
        let resource = Resource::blob("test://bin", "bin", vec![0u8, 255]).mime_type("image/png");
        let read = resource
            .read(CallContext::detached("test://bin", None))
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(read).unwrap(),
            serde_json::json!({"uri": "test://bin", "mimeType": "image/png", "blob": "AP8="})
        );
    }
}
