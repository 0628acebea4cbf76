//! Which MCP revision a request speaks: the stateless 2026-07-28 protocol
//! names its version in every request's `_meta`.

use rmcp::service::{RequestContext, RoleServer};

/// Whether the request came over the stateless 2026-07-28 protocol (its
/// `_meta` names the protocol version): no server-to-client requests, no
/// `logging/setLevel` or `resources/subscribe`, log levels per request.
pub(crate) fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|version| version.as_str() >= "2026-07-28")
}
