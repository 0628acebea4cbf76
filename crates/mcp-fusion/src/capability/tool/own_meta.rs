//! The `_meta` entries of a tool that its code gives (`Action::meta`,
//! `Group::meta`) and its app's link (`_meta.ui`, MCP Apps), checked when
//! the tool is registered; the library's own entries are added to them
//! when it is listed ([`ToolListing::to_tool`](crate::listing::ToolListing)).

use serde_json::{Map, Value};

use super::{Action, Group};
use crate::capability::app::UiLink;
use crate::capability::meta::check_meta;
use crate::capability::{BuildError, bad_ui_uri};

/// `link`'s `ui` entry over `meta`.
fn with_link(
    mut meta: Map<String, Value>,
    link: Option<&UiLink>,
) -> Result<Map<String, Value>, BuildError> {
    if let Some(link) = link {
        if let Some(reason) = bad_ui_uri(&link.resource_uri) {
            return Err(BuildError::BadApp {
                uri: link.resource_uri.clone(),
                reason,
            });
        }
        meta.insert("ui".into(), link.to_json());
    }
    Ok(meta)
}

/// The `_meta` entries of a plain tool's own.
///
/// # Errors
/// `BuildError::ReservedMetaKey` for a key it may not set,
/// `BuildError::BadApp` for a link to a URI that is not `ui://…`.
pub(super) fn plain_meta(action: &Action) -> Result<Map<String, Value>, BuildError> {
    check_meta(&action.name, &action.meta)?;
    with_link(action.meta.clone(), action.ui.as_ref())
}

/// The `_meta` entries of a group's tool: its actions', then the group's
/// own over them, then its link.
///
/// # Errors
/// `BuildError::ReservedMetaKey` for a key the group or an action may not
/// set; `BuildError::BadApp` for a link to a URI that is not `ui://…` or an
/// action linked on its own (one tool, one view: link the group).
pub(super) fn group_meta(group: &Group) -> Result<Map<String, Value>, BuildError> {
    check_meta(&group.name, &group.meta)?;
    let mut meta = Map::new();
    for action in &group.actions {
        let dotted = format!("{}.{}", group.name, action.name);
        check_meta(&dotted, &action.meta)?;
        if let Some(link) = &action.ui {
            return Err(BuildError::BadApp {
                uri: link.resource_uri.clone(),
                reason: format!(
                    "{dotted} is an action of a group, listed as the group's one tool: link the group (Group::ui)"
                ),
            });
        }
        meta.extend(action.meta.clone());
    }
    meta.extend(group.meta.clone());
    with_link(meta, group.ui.as_ref())
}
