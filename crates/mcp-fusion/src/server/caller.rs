//! The caller key of a request ([`CallContext::caller`](crate::CallContext::caller)):
//! whom per-caller state (a gateway's handoffs) belongs to.

use ::http::request::Parts;

use super::session::Session;
use crate::handler::{LOCAL_CALLER, Peer, session_header};

/// The key of the caller of a request that came on `session`: its MCP
/// session over Streamable HTTP, else its address (stateless HTTP), else the
/// stdio connection, else `in-process`.
pub(crate) fn caller_key(connection: Option<&Session>, http: Option<&Parts>, peer: Peer) -> String {
    match (http, peer) {
        (Some(parts), _) => match session_header(parts) {
            Some(id) => format!("session:{id}"),
            None => format!("address:{peer}"),
        },
        (None, Peer::Local) => LOCAL_CALLER.to_owned(),
        (None, _) => match connection {
            Some(session) => format!("connection:{}", session.id.0),
            None => LOCAL_CALLER.to_owned(),
        },
    }
}
