//! The `_meta` a server's code sets on what it lists (tools, groups,
//! resources, resource templates, prompts): the `meta` setter they share,
//! its check when the server is built, and its merge under the library's
//! own entries (MCP 2025-11-25 basic/index, "`_meta`").

use rmcp::model::MetaObject;
use serde_json::{Map, Value};

use super::BuildError;
use crate::meta_keys::{first_reserved, merged_under};

/// `BuildError::ReservedMetaKey` for the first key of `meta` that `owner`
/// may not set.
///
/// # Errors
/// That key, named with the reason.
pub(crate) fn check_meta(owner: &str, meta: &Map<String, Value>) -> Result<(), BuildError> {
    match first_reserved(meta) {
        Some((key, reason)) => Err(BuildError::ReservedMetaKey {
            owner: owner.to_owned(),
            key: key.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// The `_meta` of a listing: the library's entries `ours`, then the user's
/// whose keys ours do not have; `None` when both are empty.
pub(crate) fn listed_meta(
    ours: Map<String, Value>,
    user: &Map<String, Value>,
) -> Option<MetaObject> {
    let meta = merged_under(ours, user);
    (!meta.is_empty()).then_some(MetaObject(meta))
}

/// The `meta` setter of a capability whose struct has a
/// `meta: Map<String, Value>` field; `$what` names what it sets it on.
macro_rules! meta_setter {
    ($what:literal) => {
        #[doc = concat!("Sets `key` to `value` in the `_meta` of ", $what, " (MCP basic/index, \"`_meta`\"); may be called more than once, a later value replacing an earlier one. Use a prefix of your own (`com.example/owner`). Entries the library writes itself are never overwritten: yours are merged under them. Building the server fails with `BuildError::ReservedMetaKey` for a key under `io.modelcontextprotocol/` (other than a known extension's identifier, e.g. `io.modelcontextprotocol/ui`), a trace context key (`traceparent`, `tracestate`, `baggage`), a key under `mcp-fusion/` or an empty key.")]
        pub fn meta(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
            self.meta.insert(key.into(), value.into());
            self
        }
    };
}
pub(crate) use meta_setter;
