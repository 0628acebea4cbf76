//! MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): an
//! HTML view served as a `ui://` resource ([`UiResource`], with its
//! [`UiCsp`] and [`UiPermissions`]) and the link from a tool to it
//! ([`UiLink`], [`UiVisibility`]), which a host that renders apps reads
//! from the tool's `_meta.ui`.

mod csp;
mod link;
mod ui_resource;

pub use csp::{UiCsp, UiPermissions};
pub use link::{UiLink, UiVisibility};
pub use ui_resource::{MCP_APP_MIME_TYPE, UI_EXTENSION_ID, UiResource};

/// Why `uri` cannot name an app's view (it is not `ui://…` with something
/// after the scheme), or `None`.
pub(crate) fn bad_ui_uri(uri: &str) -> Option<String> {
    match uri.strip_prefix("ui://") {
        Some(rest) if !rest.is_empty() => None,
        _ => Some(String::from(
            "an app's view is a resource whose URI starts with ui:// (SEP-1865, \"UI Resource Format\"), e.g. ui://billing/invoice",
        )),
    }
}
