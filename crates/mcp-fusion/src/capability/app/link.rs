//! [`UiLink`]: a tool's link to an app's view, its `_meta.ui` (SEP-1865
//! `McpUiToolMeta`).

use serde_json::{Value, json};

/// Who may call a tool linked to an app (SEP-1865 `visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UiVisibility {
    /// The model sees and calls it (`"model"`).
    Model,
    /// The app's view calls it, through its host, on this server only
    /// (`"app"`).
    App,
}

impl UiVisibility {
    /// The spec's word for it: `model` or `app`.
    pub fn as_str(self) -> &'static str {
        match self {
            UiVisibility::Model => "model",
            UiVisibility::App => "app",
        }
    }
}

/// A tool's link to the view that renders its results: `_meta.ui =
/// {"resourceUri", "visibility"}` in `tools/list`. A host that renders MCP
/// Apps reads the view with `resources/read` and hands it each result of
/// the tool (`ui/notifications/tool-result`); any other host reads the
/// result's text as usual, so the tool still returns text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiLink {
    /// The view's `ui://` URI.
    pub(crate) resource_uri: String,
    /// Who may call the tool; `[Model, App]` by default.
    pub(crate) visibility: Vec<UiVisibility>,
}

impl UiLink {
    /// A link to the view at `resource_uri`, the tool visible to the model
    /// and the app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        UiLink {
            resource_uri: resource_uri.into(),
            visibility: vec![UiVisibility::Model, UiVisibility::App],
        }
    }

    /// Who may call the tool (`visibility`): `[UiVisibility::App]` hides it
    /// from the model (a refresh button's tool), the host then leaving it
    /// out of the model's tool list.
    pub fn visibility(mut self, visibility: impl IntoIterator<Item = UiVisibility>) -> Self {
        self.visibility = visibility.into_iter().collect();
        self
    }

    /// The view's URI.
    pub fn resource_uri(&self) -> &str {
        &self.resource_uri
    }

    /// The `ui` entry of the tool's `_meta`.
    pub(crate) fn to_json(&self) -> Value {
        let visibility: Vec<&str> = self.visibility.iter().map(|v| v.as_str()).collect();
        json!({"resourceUri": self.resource_uri, "visibility": visibility})
    }
}
