//! MCP 2026-07-28 over Streamable HTTP as a client sends it, one raw request
//! at a time (no MCP library): for tests that must see the exact frames.

use serde_json::{Value, json};

/// The `_meta` every 2026-07-28 request carries: the revision and no client
/// capabilities.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// POSTs the request `id`, `method`, `params` (with [`meta`] added unless
/// it has `_meta`) to `url` as a 2026-07-28 client does (`Accept`,
/// `MCP-Protocol-Version`, `Mcp-Method`), with `headers` besides.
///
/// # Panics
/// When the server does not answer.
pub async fn post(
    url: &str,
    id: i64,
    method: &str,
    mut params: Value,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .send()
        .await
        .expect("the server answers")
}
