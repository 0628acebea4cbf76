//! [`UiResource`]: an app's view, an HTML document served as a `ui://`
//! resource (SEP-1865 "UI Resource Format").

use serde_json::{Map, Value};

use super::{UiCsp, UiPermissions};
use crate::capability::resource::Resource;

/// The media type of an app's HTML view (SEP-1865): `text/html;profile=mcp-app`.
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The MCP Apps extension's identifier (SEP-1865, SEP-1724), declared under
/// `capabilities.extensions` as soon as the server serves a view.
pub const UI_EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// An app's view: a self-contained HTML5 document a host renders in a
/// sandboxed iframe, listed in `resources/list` and read with
/// `resources/read` at its `ui://` URI, with MIME type
/// [`MCP_APP_MIME_TYPE`] and its `_meta.ui` (`csp`, `permissions`,
/// `domain`, `prefersBorder`) both in the listing and on the contents read.
/// The CSP is restrictive unless widened ([`UiCsp`]): inline scripts and
/// styles only, no outside origin. Serving one declares the
/// [`UI_EXTENSION_ID`] extension in the server's capabilities; a tool
/// links to it with [`Action::ui`](crate::Action::ui).
///
/// Building the server fails with `BuildError::BadApp` for a URI that
/// does not start with `ui://`.
///
/// ```
/// use mcp_fusion::capability::{UiCsp, UiResource};
///
/// let view = UiResource::new("ui://billing/invoice", "invoice_view", "<!DOCTYPE html><html>…</html>")
///     .description("An invoice, rendered")
///     .csp(UiCsp::new().connect_domain("https://api.example.com"))
///     .prefers_border(true);
/// # let _ = view;
/// ```
#[derive(Debug, Clone)]
pub struct UiResource {
    uri: String,
    name: String,
    html: String,
    title: Option<String>,
    description: Option<String>,
    csp: UiCsp,
    permissions: UiPermissions,
    domain: Option<String>,
    prefers_border: Option<bool>,
}

impl UiResource {
    /// The view at `uri` (`ui://…`), listed as `name`, whose document is
    /// `html` (sent as `text`, as it is).
    pub fn new(uri: impl Into<String>, name: impl Into<String>, html: impl Into<String>) -> Self {
        UiResource {
            uri: uri.into(),
            name: name.into(),
            html: html.into(),
            title: None,
            description: None,
            csp: UiCsp::default(),
            permissions: UiPermissions::default(),
            domain: None,
            prefers_border: None,
        }
    }

    /// A human-readable name (`title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the view shows (`description`).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The outside origins the view may reach (`_meta.ui.csp`); default
    /// none.
    pub fn csp(mut self, csp: UiCsp) -> Self {
        self.csp = csp;
        self
    }

    /// The browser features it asks for (`_meta.ui.permissions`); default
    /// none.
    pub fn permissions(mut self, permissions: UiPermissions) -> Self {
        self.permissions = permissions;
        self
    }

    /// A dedicated sandbox origin for the view (`_meta.ui.domain`), in the
    /// form the host documents (e.g. `a904794854a047f6.claudemcpcontent.com`).
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host draws a border and background around the view
    /// (`_meta.ui.prefersBorder`); left to the host unless set.
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.prefers_border = Some(prefers);
        self
    }

    /// The view's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its `_meta.ui`: `{"csp": {…}, "permissions"?, "domain"?,
    /// "prefersBorder"?}`.
    fn ui_meta(&self) -> Value {
        let mut ui = Map::new();
        ui.insert("csp".into(), self.csp.to_json());
        if let Some(permissions) = self.permissions.to_json() {
            ui.insert("permissions".into(), permissions);
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".into(), Value::String(domain.clone()));
        }
        if let Some(prefers) = self.prefers_border {
            ui.insert("prefersBorder".into(), Value::Bool(prefers));
        }
        Value::Object(ui)
    }

    /// The resource that serves it ([`From<UiResource> for Resource`](Resource));
    /// a CSP entry that is not one origin is kept as the reason the
    /// resource's build fails.
    pub(crate) fn into_resource(self) -> Resource {
        let csp_problem = self.csp.problem();
        let mut meta = Map::new();
        meta.insert("ui".into(), self.ui_meta());
        let mut resource =
            Resource::text(self.uri, self.name, self.html).mime_type(MCP_APP_MIME_TYPE);
        if let Some(title) = self.title {
            resource = resource.title(title);
        }
        if let Some(description) = self.description {
            resource = resource.description(description);
        }
        resource.app = Some(meta);
        resource.app_problem = csp_problem;
        resource
    }
}

impl From<UiResource> for Resource {
    /// The resource that serves `view`: for
    /// [`FusionServer::add_resource`](crate::FusionServer::add_resource)
    /// while the server runs (the server then declares the extension to
    /// the clients that connect after), or with the resource's own guards
    /// (`requires_scopes`, …) before
    /// [`ServerBuilder::resource`](crate::ServerBuilder::resource).
    fn from(view: UiResource) -> Resource {
        view.into_resource()
    }
}
