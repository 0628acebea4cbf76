//! The methods MCP 2026-07-28 removed (changelog, SEP-2575 and SEP-2577:
//! `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`): a request that names one of them and speaks
//! 2026-07-28 (its `_meta["io.modelcontextprotocol/protocolVersion"]` is
//! `2026-07-28` or later) is answered JSON-RPC `-32601` Method not found
//! whatever its `params` hold — over Streamable HTTP with status 404
//! (2026-07-28 basic/transports/streamable-http: "If the server does not
//! implement the requested method, it MUST respond with 404 Not Found"),
//! not the `-32602` a standard method with unreadable `params` gets
//! ([`super::jsonrpc`]).

#[cfg(feature = "http")]
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, RequestId};
use rmcp::model::{
    ConstString, ErrorCode, ErrorData, InitializeResultMethod, PingRequestMethod,
    SetLevelRequestMethod, SubscribeRequestMethod, UnsubscribeRequestMethod,
};
use serde_json::Value;

/// The request methods of 2025-11-25 that 2026-07-28 no longer has.
pub(crate) const REMOVED_IN_2026_07_28: &[&str] = &[
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
];

/// The first protocol revision without the methods of
/// [`REMOVED_IN_2026_07_28`]; dates compare as text.
const STATELESS_REVISION: &str = "2026-07-28";

/// Whether `params` (a request's, as sent) name a protocol version of
/// 2026-07-28 or later in `_meta["io.modelcontextprotocol/protocolVersion"]`.
pub(crate) fn speaks_2026_07_28(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str)
        .is_some_and(|version| version >= STATELESS_REVISION)
}

/// `-32601` for a request of `method` with `params` when `method` is one
/// 2026-07-28 removed and the request speaks 2026-07-28; `None` otherwise
/// (a 2025-11-25 request of the same method is served).
pub(crate) fn removed_method(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    if !speaks_2026_07_28(params) {
        return None;
    }
    method_not_found(method)
}

/// `-32601` for `method` when 2026-07-28 removed it, for a request known to
/// speak 2026-07-28; `None` for a method it kept.
pub(crate) fn method_not_found(method: &str) -> Option<ErrorData> {
    if !REMOVED_IN_2026_07_28.contains(&method) {
        return None;
    }
    Some(ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "Method not found: {method} is not part of MCP 2026-07-28 (the revision this request names); {}",
            replacement(method)
        ),
        None,
    ))
}

/// [`removed_method`] for a parsed message, with the request's id: the
/// HTTP edge answers it (404) before rmcp would take a well-formed
/// `initialize` for a 2025-11-25 handshake.
#[cfg(feature = "http")]
pub(crate) fn removed_request(message: &ClientJsonRpcMessage) -> Option<(RequestId, ErrorData)> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let method = request.request.method();
    if !REMOVED_IN_2026_07_28.contains(&method) {
        return None;
    }
    // rmcp moves `params._meta` into the request's meta, custom requests'
    // too.
    let speaks = request
        .request
        .get_meta()
        .protocol_version()
        .is_some_and(|version| version.as_str() >= STATELESS_REVISION)
        || matches!(&request.request, ClientRequest::CustomRequest(custom) if speaks_2026_07_28(custom.params.as_ref()));
    if !speaks {
        return None;
    }
    method_not_found(method).map(|error| (request.id.clone(), error))
}

/// What a 2026-07-28 client uses instead of `method`.
fn replacement(method: &str) -> &'static str {
    match method {
        InitializeResultMethod::VALUE => {
            "send server/discover, and the protocol version and client capabilities in each request's _meta"
        }
        PingRequestMethod::VALUE => "any request shows the server is up (server/discover is cheap)",
        SetLevelRequestMethod::VALUE => {
            "name the log level in each request's _meta[\"io.modelcontextprotocol/logLevel\"]"
        }
        _ => {
            "open subscriptions/listen with the resource URIs in notifications.resourceSubscriptions"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_removed_method_of_a_2026_request_is_method_not_found() {
        let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let error = removed_method("logging/setLevel", Some(&params)).expect("removed");
        assert_eq!(error.code.0, -32601);
        assert_eq!(
            error.message,
            "Method not found: logging/setLevel is not part of MCP 2026-07-28 (the revision this request names); name the log level in each request's _meta[\"io.modelcontextprotocol/logLevel\"]"
        );
        for method in REMOVED_IN_2026_07_28 {
            assert!(removed_method(method, Some(&params)).is_some(), "{method}");
        }
    }

    #[test]
    fn a_2025_request_or_a_kept_method_is_not_refused() {
        let old = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}});
        assert!(removed_method("resources/subscribe", Some(&old)).is_none());
        assert!(removed_method("resources/subscribe", Some(&json!({"uri": "a://b"}))).is_none());
        assert!(removed_method("resources/subscribe", None).is_none());
        let new = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        assert!(removed_method("tools/list", Some(&new)).is_none());
    }
}
