//! What a server declares under `capabilities.extensions` (SEP-1724,
//! MCP 2026-07-28 "Extensions") and the checks of its MCP Apps links, made
//! when it is built.

use rmcp::model::{ExtensionCapabilities, JsonObject};

use crate::capability::{BuildError, Catalog, Registry, UI_EXTENSION_ID};

/// The extensions the library declares itself when they are used (Tasks
/// for a task-capable action, Apps for a served view).
const DECLARED_BY_THE_LIBRARY: [&str; 2] = [rmcp::model::TASKS_EXTENSION_ID, UI_EXTENSION_ID];

/// The extensions a server's code declared, checked.
///
/// # Errors
/// `BuildError::BadExtension` for an identifier that is not `prefix/name`
/// (SEP-1724: a vendor prefix, a slash, a name; no blanks), or one the
/// library declares itself.
pub(super) fn checked(
    declared: Vec<(String, JsonObject)>,
) -> Result<ExtensionCapabilities, BuildError> {
    let mut extensions = ExtensionCapabilities::new();
    for (id, settings) in declared {
        let shaped = id.split_once('/').is_some_and(|(prefix, name)| {
            !prefix.is_empty() && !name.is_empty() && !id.chars().any(char::is_whitespace)
        });
        let reason = if !shaped {
            Some(String::from(
                "an extension identifier is a vendor prefix, a slash and a name (SEP-1724), e.g. com.example/audit",
            ))
        } else if DECLARED_BY_THE_LIBRARY.contains(&id.as_str()) {
            Some(String::from(
                "mcp-fusion declares it itself when it is used (a task-capable action; a UiResource)",
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(BuildError::BadExtension { id, reason });
        }
        extensions.insert(id, settings);
    }
    Ok(extensions)
}

/// Checks that every tool linked to an app's view (`Action::ui`,
/// `Group::ui`) links to one the server serves (SEP-1865: "Resource MUST
/// exist on the server").
///
/// # Errors
/// `BuildError::BadApp` naming the first view missing.
pub(super) fn check_ui_links(registry: &Registry, catalog: &Catalog) -> Result<(), BuildError> {
    for tool in registry.tools() {
        let Some(uri) = &tool.ui else { continue };
        if !catalog.resources.iter().any(|r| &r.resource.uri == uri) {
            return Err(BuildError::BadApp {
                uri: uri.clone(),
                reason: format!(
                    "tool \"{}\" links to it, and the server serves no view there: add it with ServerBuilder::ui_resource",
                    tool.name
                ),
            });
        }
    }
    Ok(())
}
