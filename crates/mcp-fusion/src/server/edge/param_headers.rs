//! The `Mcp-Param-*` request headers the server's tools declare: a
//! top-level input-schema property with `"x-mcp-header": "NAME"` is mirrored
//! by 2026-07-28 clients into the header `Mcp-Param-NAME` (MCP 2026-07-28
//! basic/transports/streamable-http, SEP-2243). Asked by the HTTP router's
//! CORS rules, whose preflight must allow them.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::server::FusionServer;

/// The header-name prefix of a mirrored parameter.
const PARAM_PREFIX: &str = "mcp-param-";

/// The `Mcp-Param-*` header names (lowercase, sorted, each once) of the
/// `x-mcp-header` properties of every tool's input schema as listed now;
/// a name that is no HTTP token (RFC 9110 §5.6.2) is left out.
pub(crate) fn param_headers(server: &FusionServer) -> Vec<String> {
    let mut names = BTreeSet::new();
    for tool in server.registry().tools() {
        let Some(properties) = tool
            .listed
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for property in properties.values() {
            let Some(name) = property.get("x-mcp-header").and_then(Value::as_str) else {
                continue;
            };
            let header = format!("{PARAM_PREFIX}{}", name.to_ascii_lowercase());
            if http::HeaderName::from_bytes(header.as_bytes()).is_ok() {
                names.insert(header);
            }
        }
    }
    names.into_iter().collect()
}
