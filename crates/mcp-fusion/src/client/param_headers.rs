//! The `Mcp-Param-*` headers of a `tools/call` over Streamable HTTP, made
//! sure of (MCP 2026-07-28 basic/transports/streamable-http, "Custom Headers
//! from Tool Parameters", SEP-2243: a client mirrors each `x-mcp-header`
//! parameter of the tool's input schema into a header, and a server MUST
//! refuse a call whose headers are missing).
//!
//! rmcp's transport mirrors them from the input schemas it keeps from
//! `tools/list` responses. But a response whose SSE stream ends before the
//! transport's worker reads the queued message is handed on without being
//! kept (rmcp 3.11, `drain_queued_stream_messages`), and every call after it
//! goes without its headers. [`ParamHeaders`] wraps the HTTP client: from
//! the schemas the [`FusionClient`](super::FusionClient) listed
//! ([`ToolSchemas`]), it adds the headers a `tools/call` lacks. Headers rmcp
//! did set are left as they are.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonObject};
use rmcp::transport::common::http_header::{
    BASE64_HEADER_PREFIX, BASE64_HEADER_SUFFIX, HEADER_MCP_PARAM_PREFIX,
};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::Value;
use sse_stream::{Error as SseError, Sse};

/// The input schema of each tool the client listed, by tool name: filled by
/// every whole listing, read by [`ParamHeaders`].
pub(crate) type ToolSchemas = Arc<RwLock<HashMap<String, Arc<JsonObject>>>>;

/// An HTTP client for rmcp's Streamable HTTP transport that adds to a
/// `tools/call` the `Mcp-Param-*` headers its tool's listed schema asks for,
/// when the transport set none (see the module's doc).
#[derive(Clone)]
pub(crate) struct ParamHeaders<C> {
    inner: C,
    schemas: ToolSchemas,
}

impl<C> ParamHeaders<C> {
    /// `inner`, adding the headers `schemas` asks for.
    pub(crate) fn new(inner: C, schemas: ToolSchemas) -> ParamHeaders<C> {
        ParamHeaders { inner, schemas }
    }

    /// `headers`, with the `Mcp-Param-*` headers of `message` added when it
    /// is a `tools/call` sent with the standard headers (2026-07-28 and
    /// later: `Mcp-Method` is set) and without any of them.
    fn completed(
        &self,
        message: &ClientJsonRpcMessage,
        mut headers: HashMap<HeaderName, HeaderValue>,
    ) -> HashMap<HeaderName, HeaderValue> {
        let standard = headers.contains_key(&HeaderName::from_static("mcp-method"));
        let prefix = HEADER_MCP_PARAM_PREFIX.to_ascii_lowercase();
        if !standard
            || headers
                .keys()
                .any(|name| name.as_str().starts_with(&prefix))
        {
            return headers;
        }
        let ClientJsonRpcMessage::Request(request) = message else {
            return headers;
        };
        let ClientRequest::CallToolRequest(call) = &request.request else {
            return headers;
        };
        let Some(arguments) = &call.params.arguments else {
            return headers;
        };
        let schemas = self.schemas.read().unwrap_or_else(|e| e.into_inner());
        if let Some(schema) = schemas.get(call.params.name.as_ref()) {
            headers.extend(param_headers(schema, arguments));
        }
        headers
    }
}

/// The `Mcp-Param-NAME` header of each `x-mcp-header: NAME` property of
/// `schema` (reached from the root through `properties` alone) whose value
/// in `arguments` is a string, number or boolean; a value a header cannot
/// carry as it is travels as `=?base64?…?=`.
fn param_headers(schema: &JsonObject, arguments: &JsonObject) -> Vec<(HeaderName, HeaderValue)> {
    let mut out = Vec::new();
    annotated(schema.get("properties"), arguments, &mut out);
    out
}

/// [`param_headers`] for the `properties` of one level, with the object the
/// call sent at that level.
fn annotated(
    properties: Option<&Value>,
    sent: &JsonObject,
    out: &mut Vec<(HeaderName, HeaderValue)>,
) {
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    for (name, property) in properties {
        let Some(value) = sent.get(name) else {
            continue;
        };
        if let Some(Value::String(header)) = property.get("x-mcp-header")
            && let Some(text) = primitive(value)
            && let Ok(name) =
                HeaderName::from_bytes(format!("{HEADER_MCP_PARAM_PREFIX}{header}").as_bytes())
            && let Ok(value) = HeaderValue::from_str(&encoded(&text))
        {
            out.push((name, value));
        }
        if let Value::Object(nested) = value {
            annotated(property.get("properties"), nested, out);
        }
    }
}

/// A string, number or boolean as its header text; `None` for the rest.
fn primitive(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// `text` as it is, or `=?base64?…?=` (standard Base64 of its UTF-8) when a
/// header cannot carry it as it is: a space or tab at either end, a control
/// or non-ASCII character, or text that reads like the wrapping itself.
fn encoded(text: &str) -> String {
    let padded = [" ", "\t"]
        .iter()
        .any(|blank| text.starts_with(blank) || text.ends_with(blank));
    let unprintable = text.chars().any(|c| !(' '..='~').contains(&c));
    let sentinel = text.starts_with(BASE64_HEADER_PREFIX) && text.ends_with(BASE64_HEADER_SUFFIX);
    if padded || unprintable || sentinel {
        format!(
            "{BASE64_HEADER_PREFIX}{}{BASE64_HEADER_SUFFIX}",
            STANDARD.encode(text)
        )
    } else {
        text.to_owned()
    }
}

/// The result of a POST.
type Posted<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;
/// The result of a GET for an event stream.
type Streamed<E> = Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<E>>;

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for ParamHeaders<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Posted<C::Error> {
        let headers = self.completed(&message, custom_headers);
        (self.inner)
            .post_message(uri, message, session_id, auth_header, headers)
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Posted<C::Error> {
        let headers = self.completed(&message, custom_headers);
        (self.inner)
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                headers,
                max_sse_event_size,
            )
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Posted<C::Error> {
        let headers = self.completed(&message, custom_headers);
        (self.inner)
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        (self.inner)
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Streamed<C::Error> {
        (self.inner)
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Streamed<C::Error> {
        (self.inner)
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        value.as_object().expect("an object").clone()
    }

    fn shown(headers: Vec<(HeaderName, HeaderValue)>) -> Vec<String> {
        headers
            .into_iter()
            .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("?")))
            .collect()
    }

    #[test]
    fn each_annotated_primitive_sent_becomes_a_header_nested_ones_too() {
        let schema = object(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry"},
            "note": {"type": "string"},
            "route": {"type": "object", "properties": {
                "zone": {"type": "string", "x-mcp-header": "Zone"}
            }},
            "absent": {"type": "string", "x-mcp-header": "Absent"}
        }}));
        let sent = object(json!({
            "region": "eu-west", "count": 3, "dry": false, "note": "n",
            "route": {"zone": "b"}
        }));
        let mut headers = shown(param_headers(&schema, &sent));
        headers.sort();
        assert_eq!(
            headers,
            [
                "mcp-param-count: 3",
                "mcp-param-dry: false",
                "mcp-param-region: eu-west",
                "mcp-param-zone: b",
            ]
        );
    }

    #[test]
    fn what_a_header_cannot_carry_travels_in_base64() {
        assert_eq!(encoded("eu-west 1"), "eu-west 1");
        assert_eq!(encoded("café"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(encoded(" x"), "=?base64?IHg=?=");
        assert_eq!(encoded("x\t"), "=?base64?eAk=?=");
        assert_eq!(encoded("a\r\nb"), "=?base64?YQ0KYg==?=");
        assert_eq!(encoded("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }

    #[test]
    fn an_object_or_array_value_is_not_a_header() {
        let schema = object(json!({"properties": {
            "tags": {"type": "array", "x-mcp-header": "Tags"}
        }}));
        let sent = object(json!({"tags": ["a"]}));
        assert_eq!(shown(param_headers(&schema, &sent)), Vec::<String>::new());
    }

    fn call(name: &str, arguments: Value) -> ClientJsonRpcMessage {
        serde_json::from_value(json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}
        }))
        .expect("a tools/call")
    }

    fn client() -> ParamHeaders<()> {
        let schemas = ToolSchemas::default();
        schemas.write().unwrap().insert(
            String::from("route"),
            Arc::new(object(json!({"properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}
            }}))),
        );
        ParamHeaders::new((), schemas)
    }

    fn standard() -> HashMap<HeaderName, HeaderValue> {
        HashMap::from([(
            HeaderName::from_static("mcp-method"),
            HeaderValue::from_static("tools/call"),
        )])
    }

    fn names(headers: &HashMap<HeaderName, HeaderValue>) -> Vec<String> {
        let mut names: Vec<String> = headers
            .iter()
            .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("?")))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_call_without_its_headers_gets_them() {
        let headers = client().completed(&call("route", json!({"region": "eu"})), standard());
        assert_eq!(
            names(&headers),
            ["mcp-method: tools/call", "mcp-param-region: eu"]
        );
    }

    #[test]
    fn headers_the_transport_set_are_kept_and_older_revisions_get_none() {
        let mut set = standard();
        set.insert(
            HeaderName::from_static("mcp-param-region"),
            HeaderValue::from_static("as-set"),
        );
        let message = call("route", json!({"region": "eu"}));
        let kept = client().completed(&message, set);
        assert_eq!(
            names(&kept),
            ["mcp-method: tools/call", "mcp-param-region: as-set"]
        );
        // Before 2026-07-28 there is no Mcp-Method, and no header is added.
        assert!(client().completed(&message, HashMap::new()).is_empty());
        // A tool the client never listed gets none.
        let unknown = client().completed(&call("other", json!({"region": "eu"})), standard());
        assert_eq!(names(&unknown), ["mcp-method: tools/call"]);
    }
}
