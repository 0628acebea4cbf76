//! The caller key of a request ([`CallContext::caller`](crate::CallContext::caller)):
//! whom per-caller state (a gateway's handoffs) belongs to.

use std::sync::Arc;

use ::http::request::Parts;

use crate::handler::{LOCAL_CALLER, Peer, session_header};
use crate::server::session::Session;

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

/// [`caller_key`] of a request on `connection`, recorded there (the first
/// one: every request of a connection comes from one caller — its stdio
/// connection, its MCP session, or, stateless, the one request a
/// connection serves) for [`Session::is_caller`]. A key the connection
/// recorded is handed out again, not written anew.
pub(crate) fn caller_of(connection: &Session, http: Option<&Parts>, peer: Peer) -> Arc<str> {
    if let Some(recorded) = connection.caller()
        && is_key_of(recorded, http, peer)
    {
        return Arc::clone(recorded);
    }
    let key: Arc<str> = caller_key(Some(connection), http, peer).into();
    connection.record_caller(&key);
    key
}

/// Whether `key`, a key of the same connection, is the [`caller_key`] of a
/// request with `http` from `peer` (`false` when unsure: the key is then
/// written anew).
fn is_key_of(key: &str, http: Option<&Parts>, peer: Peer) -> bool {
    match (http, peer) {
        (Some(parts), _) => {
            session_header(parts).is_some_and(|id| key.strip_prefix("session:") == Some(id))
        }
        (None, Peer::Local) => key == LOCAL_CALLER,
        (None, _) => key.starts_with("connection:"),
    }
}
