//! The tools a session's state gate hides in part now, listed whole apart
//! from `tools` in a `tools/list` result's `_meta` (`GATED_META_KEY`,
//! `docs/contracts.md`), so that a contract read from the list (`fusion
//! lock`, `fusion diff`) holds every action the caller may see in any
//! state, while the model reads only what is allowed now (wire contract
//! §10.1).

use rmcp::model::MetaObject;
use serde_json::{Map, Value};

use crate::capability::{Registry, Shown};
use crate::handler::CallContext;
use crate::tool_meta::GATED_META_KEY;

/// `{"mcp-fusion/gated": [tool]}`: each tool of `registry` of which the
/// state gate hides an action from the caller of `viewer` now, as listed
/// with every action that caller may see in some state; `None` when the
/// gate hides nothing. Only the tools `listed` names (with tool search on,
/// those `tools/list` shows).
pub(crate) fn gated_tools(
    registry: &Registry,
    viewer: &CallContext,
    listed: &dyn Fn(&str) -> bool,
) -> Option<MetaObject> {
    let tools: Vec<Value> = registry
        .placed()
        .filter(|(_, tool)| listed(&tool.name))
        .filter(|(_, tool)| {
            tool.actions
                .iter()
                .any(|a| a.callable.visibility.gated_now_for(viewer))
        })
        .filter_map(|(_, tool)| {
            let listed =
                match tool.listing_for(|a| a.callable.visibility.shows_in_some_state_to(viewer))? {
                    Shown::Whole => tool.listed.clone(),
                    Shown::Part(listing) => listing.to_tool(),
                };
            serde_json::to_value(listed).ok()
        })
        .collect();
    if tools.is_empty() {
        return None;
    }
    let mut meta = Map::new();
    meta.insert(GATED_META_KEY.to_owned(), Value::Array(tools));
    Some(MetaObject(meta))
}
