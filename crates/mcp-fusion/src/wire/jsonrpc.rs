//! JSON-RPC 2.0 §5 errors for the messages rmcp cannot take, the same over
//! stdio and Streamable HTTP:
//!
//! | the client sent | the answer |
//! |---|---|
//! | bytes that are not JSON | `-32700` Parse error, `"id": null` |
//! | JSON that is not a valid request | `-32600` Invalid Request, with the request's `id` where it can be read (a string or a number), else `null` |
//! | a standard MCP method with malformed `params` (e.g. `tools/call` without `name`) | `-32602` Invalid params, with the request's `id` |
//! | a method MCP 2026-07-28 removed, in a request naming that revision in `_meta` | `-32601` Method not found, with the request's `id` ([`super::removed_methods`]) |
//! | a notification (an object with a string `method` and no `id`) that is not valid | over stdio nothing (JSON-RPC never answers a notification); over HTTP a 400 with `-32600` and `"id": null`, as MCP's Streamable HTTP allows |
//!
//! rmcp itself answers none of the first (stdio) or a `415` (HTTP), the second
//! without any `id`, and the third with `-32601`; JSON-RPC 2.0 §5 says a
//! response whose request id could not be read carries `"id": null`.

use rmcp::model::{
    CallToolRequestMethod, CancelTaskMethod, CompleteRequestMethod, ConstString,
    DiscoverRequestMethod, ErrorData, GetPromptRequestMethod, GetTaskMethod,
    InitializeResultMethod, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
    ListResourcesRequestMethod, ListToolsRequestMethod, PingRequestMethod,
    ReadResourceRequestMethod, RequestId, SetLevelRequestMethod, SubscribeRequestMethod,
    SubscriptionsListenRequestMethod, UnsubscribeRequestMethod, UpdateTaskMethod,
};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::message_text::MessageText;

/// JSON-RPC 2.0's code for a message that is not JSON.
pub(crate) const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0's code for JSON that is not a valid request.
pub(crate) const INVALID_REQUEST: i32 = -32600;

/// The client-to-server request methods of MCP: a request naming one of them
/// whose `params` rmcp could not read has malformed `params` (`-32602`), not
/// an unknown method (`-32601`).
const STANDARD_METHODS: &[&str] = &[
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    DiscoverRequestMethod::VALUE,
    CompleteRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    GetPromptRequestMethod::VALUE,
    ListPromptsRequestMethod::VALUE,
    ListResourcesRequestMethod::VALUE,
    ListResourceTemplatesRequestMethod::VALUE,
    ReadResourceRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
    CallToolRequestMethod::VALUE,
    ListToolsRequestMethod::VALUE,
    GetTaskMethod::VALUE,
    UpdateTaskMethod::VALUE,
    CancelTaskMethod::VALUE,
    SubscriptionsListenRequestMethod::VALUE,
];

/// A JSON-RPC error response, as JSON-RPC 2.0 §5 writes it (`id` is always
/// present, `null` when it could not be read), as one line of JSON text: the
/// id is echoed exactly as the client wrote it.
fn error_response(id: &RawValue, code: i32, message: String) -> String {
    #[derive(Serialize)]
    struct Response<'a> {
        jsonrpc: &'static str,
        id: &'a RawValue,
        error: Value,
    }
    serde_json::to_string(&Response {
        jsonrpc: "2.0",
        id,
        error: json!({"code": code, "message": message}),
    })
    .unwrap_or_default()
}

/// The JSON `null`, as an id.
fn null_id() -> Box<RawValue> {
    RawValue::from_string(String::from("null")).unwrap_or_default()
}

/// The answer to a message that did not parse as a client JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unreadable {
    /// The JSON-RPC error response, one line of JSON: `-32700`, `-32600` or
    /// `-32602` (see the module table).
    pub answer: String,
    /// The message was a notification: JSON-RPC answers nothing over stdio
    /// (over HTTP, the answer goes with a 400 all the same).
    pub notification: bool,
    /// The answer's error code: `-32601` for a method MCP 2026-07-28 removed
    /// (over HTTP a 404), else `-32700`, `-32600` or `-32602` (a 400).
    pub code: i32,
}

/// The `id` member as written, when it can be read once.
#[derive(Deserialize)]
struct IdOnly<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

/// A request whose envelope is valid JSON-RPC as MCP uses it: `"jsonrpc":
/// "2.0"`, a string or integer `id`, a string `method`, each once.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Envelope {
    jsonrpc: String,
    id: RequestId,
    method: String,
    #[serde(default)]
    params: Option<Value>,
}

/// The answer to `bytes` (one whole message, its byte order mark already
/// taken off by the transport) that did not parse as a client JSON-RPC
/// message: a second mark is not JSON (RFC 8259 §8.1). `repeated_key`, a
/// key the text repeats in one object ([`MessageText::repeated_key`]), is
/// what a standard method's `-32602` names when there is one.
pub(crate) fn reject_unreadable(bytes: &[u8], repeated_key: Option<&str>) -> Unreadable {
    let answer = |id: &RawValue, code: i32, message: String| Unreadable {
        answer: error_response(id, code, message),
        notification: false,
        code,
    };
    let null = null_id();
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(e) => {
            return answer(
                &null,
                PARSE_ERROR,
                format!("Parse error: the message cannot be read as JSON ({e})"),
            );
        }
    };
    let Value::Object(object) = &value else {
        let what = match value {
            Value::Array(_) => "a JSON array (JSON-RPC batches are not part of MCP)",
            _ => "not a JSON object",
        };
        return answer(
            &null,
            INVALID_REQUEST,
            format!("Invalid Request: the message is {what}"),
        );
    };
    // The id exactly as written (a huge number is echoed digit for digit).
    let parsed_id = serde_json::from_slice::<IdOnly<'_>>(bytes);
    let id: &RawValue = match &parsed_id {
        // JSON-RPC ids are strings or numbers; anything else is echoed as null.
        Ok(IdOnly { id: Some(raw) })
            if raw.get().starts_with(['"', '-'])
                || raw.get().starts_with(|c: char| c.is_ascii_digit()) =>
        {
            raw
        }
        Ok(_) => &null,
        Err(_) => {
            return answer(
                &null,
                INVALID_REQUEST,
                String::from("Invalid Request: the \"id\" member appears more than once"),
            );
        }
    };
    if let Ok(envelope) = serde_json::from_slice::<Envelope>(bytes)
        && envelope.jsonrpc == "2.0"
        && let Some(error) = invalid_params_of(&envelope.method, envelope.params.as_ref())
    {
        let message = match repeated_key {
            Some(key) if error.code == rmcp::model::ErrorCode::INVALID_PARAMS => {
                repeated_key_message(&envelope.method, key)
            }
            _ => error.message.into_owned(),
        };
        return answer(id, error.code.0, message);
    }
    let notification =
        !object.contains_key("id") && object.get("method").is_some_and(Value::is_string);
    let problem = match (request_problem(object, notification), repeated_key) {
        // A message whose members are all there but repeat a key: the key
        // is what a reader may have taken either way (RFC 8259 §4).
        (problem, Some(key)) if problem.ends_with("shape") => format!(
            "the key {} appears twice in one object; send each key once",
            Value::String(key.to_owned())
        ),
        (problem, _) => problem.to_owned(),
    };
    Unreadable {
        answer: error_response(id, INVALID_REQUEST, format!("Invalid Request: {problem}")),
        notification,
        code: INVALID_REQUEST,
    }
}

/// What makes `object` an invalid JSON-RPC 2.0 request, in one phrase.
fn request_problem(object: &serde_json::Map<String, Value>, notification: bool) -> &'static str {
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return "\"jsonrpc\" must be \"2.0\"";
    }
    if notification {
        return "the notification does not match its method's shape";
    }
    let has_outcome = object.contains_key("result") || object.contains_key("error");
    match object.get("id") {
        None if has_outcome => return "a response needs an \"id\"",
        None => return "a request needs an \"id\" and a string \"method\"",
        Some(Value::String(_)) => {}
        Some(Value::Number(n)) if n.is_i64() => {}
        Some(_) => return "\"id\" must be a string or an integer",
    }
    match object.get("method") {
        Some(Value::String(_)) => "the message does not match the method's request shape",
        Some(_) => "\"method\" must be a string",
        None if has_outcome => "the response is not a valid JSON-RPC response",
        None => "a request needs a string \"method\"",
    }
}

/// `-32602` for a request of a standard MCP method whose `params` rmcp could
/// not read (it then holds it as a custom request); `None` for any other
/// message. Used by the HTTP edge, which answers before rmcp.
#[cfg(feature = "http")]
pub(crate) fn invalid_params(message: &ClientJsonRpcMessage) -> Option<(RequestId, ErrorData)> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::CustomRequest(custom) = &request.request else {
        return None;
    };
    invalid_params_of(&custom.method, custom.params.as_ref()).map(|e| (request.id.clone(), e))
}

/// `-32602` for a custom request's `method` and `params` when the method is a
/// standard MCP one (`-32601` when MCP 2026-07-28, which the request names,
/// removed it: [`super::removed_methods`]); `None` for any other method.
pub(crate) fn invalid_params_of(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    if let Some(removed) = super::removed_methods::removed_method(method, params) {
        return Some(removed);
    }
    if !STANDARD_METHODS.contains(&method) {
        return None;
    }
    let reason = if method == CallToolRequestMethod::VALUE {
        match params {
            Some(params @ Value::Object(_)) => {
                match serde_json::from_value::<rmcp::model::CallToolRequestParams>(params.clone()) {
                    Err(e) => e.to_string(),
                    Ok(_) => String::from("the params do not match the request"),
                }
            }
            _ => String::from(
                "params must be an object: {\"name\": the tool's name, \"arguments\": an object}",
            ),
        }
    } else if method == SubscriptionsListenRequestMethod::VALUE {
        let sent = match params {
            Some(params @ Value::Object(_)) => {
                match serde_json::from_value::<rmcp::model::SubscriptionsListenRequestParams>(
                    params.clone(),
                ) {
                    Err(e) => e.to_string(),
                    Ok(_) => String::from("the params do not match the request"),
                }
            }
            _ => String::from("params is not an object"),
        };
        format!(
            "{sent}; expected {{\"notifications\": {{\"toolsListChanged\"?: boolean, \"promptsListChanged\"?: boolean, \"resourcesListChanged\"?: boolean, \"resourceSubscriptions\"?: [URI strings]}}}}"
        )
    } else {
        String::from("the params do not match the method's schema")
    };
    Some(ErrorData::invalid_params(
        format!("Invalid params for {method}: {reason}"),
        None,
    ))
}

/// `-32600` for a request whose `id` is already in use in its session.
pub(crate) fn duplicate_id_response(id: &RequestId) -> String {
    let raw = serde_json::value::to_raw_value(id).unwrap_or_else(|_| null_id());
    error_response(
        &raw,
        INVALID_REQUEST,
        format!(
            "Invalid Request: a request with id {id} is already in progress in this session; use a new id"
        ),
    )
}

/// One line of JSON: the JSON-RPC result of the request `id` carrying the
/// `<validation_error>` tool result of `failure` (wire contract §4).
fn validation_answer(id: &RawValue, failure: &crate::error::ValidationFailure) -> String {
    let mut result = crate::envelope::validation_result(failure);
    // Without `resultType`, as rmcp answers a peer of a protocol before
    // 2026-07-28; a newer client reads its absence as "complete".
    result.result_type = None;
    #[derive(Serialize)]
    struct Response<'a> {
        jsonrpc: &'static str,
        id: &'a RawValue,
        result: rmcp::model::CallToolResult,
    }
    serde_json::to_string(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
    .unwrap_or_default()
}

/// The answer of [`params_refusal`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamsRefusal {
    /// One line of JSON: a `-32602` error, or for a `tools/call` whose
    /// arguments repeat a key a tool result with the `<validation_error>`
    /// naming it (the model reads it and can send the call again).
    pub answer: String,
    /// `answer` is a tool result (over HTTP a 200), not an error (a 400).
    pub tool_result: bool,
}

/// `-32602` for what rmcp's types read without a word (bad input gets a
/// clear error, never a silent default):
///
/// - a request of a standard MCP method whose text `text` repeats a key in
///   one object, at any depth (the arguments, the params themselves, their
///   `_meta`): which of the two values counts is left to each reader (RFC
///   8259 §4), so a proxy that reads the first `action` or `id` and this
///   server, which would read the last, could disagree; and rmcp reads
///   params whose own key repeats as none. The answer names the key;
/// - a list request (`tools/list`, `prompts/list`, `resources/list`,
///   `resources/templates/list`) whose `cursor` is not a string (nor
///   `null`): rmcp reads such params as none, which would answer the first
///   page.
///
/// `None` for any other message (a notification is never answered).
pub(crate) fn params_refusal(
    message: &ClientJsonRpcMessage,
    text: &MessageText<'_>,
) -> Option<ParamsRefusal> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    // A vendor's method is left to its own answer (-32601 here).
    if let ClientRequest::CustomRequest(custom) = &request.request
        && !STANDARD_METHODS.contains(&custom.method.as_str())
    {
        return None;
    }
    let method = request.request.method();
    if let ClientRequest::CallToolRequest(call) = &request.request
        && let Some(key) = repeated_in_arguments(text)
    {
        let id = serde_json::value::to_raw_value(&request.id).unwrap_or_else(|_| null_id());
        let failure = crate::error::ValidationFailure::new(
            call.params.name.as_ref(),
            vec![crate::error::FieldError::new(
                "(root)",
                format!(
                    "Repeated key. You sent: {} twice in one object. Expected each key once: readers disagree on which of the two values counts.",
                    Value::String(key)
                ),
            )],
        );
        return Some(ParamsRefusal {
            answer: validation_answer(&id, &failure),
            tool_result: true,
        });
    }
    let error = match text.repeated_key() {
        Some(key) => ErrorData::invalid_params(repeated_key_message(method, key), None),
        None if matches!(
            request.request,
            ClientRequest::ListToolsRequest(_)
                | ClientRequest::ListPromptsRequest(_)
                | ClientRequest::ListResourcesRequest(_)
                | ClientRequest::ListResourceTemplatesRequest(_)
        ) =>
        {
            cursor_refusal(method, text)?
        }
        None => return None,
    };
    Some(ParamsRefusal {
        answer: invalid_params_response(&request.id, &error),
        tool_result: false,
    })
}

/// The first key repeated in one object inside the `arguments` of the
/// `tools/call` text `text`, when its params can be read (a key of the
/// params themselves repeated is not the arguments').
fn repeated_in_arguments(text: &MessageText<'_>) -> Option<String> {
    text.repeated_key()?;
    #[derive(Deserialize)]
    struct CallText<'a> {
        #[serde(borrow)]
        params: ParamsText<'a>,
    }
    #[derive(Deserialize)]
    struct ParamsText<'a> {
        #[serde(borrow, default)]
        arguments: Option<&'a RawValue>,
    }
    let call = serde_json::from_slice::<CallText<'_>>(text.text()).ok()?;
    let arguments = call.params.arguments?.get().as_bytes();
    MessageText::read(arguments, text.max_values())
        .repeated_key()
        .map(str::to_owned)
}

/// The `-32602` message of a request of `method` whose text repeats `key`
/// in one object.
fn repeated_key_message(method: &str, key: &str) -> String {
    format!(
        "Invalid params for {method}: the key {} appears twice in one object; send each key once",
        Value::String(key.to_owned())
    )
}

/// `-32602` for a list request of `method` whose text `text` gives a
/// `cursor` that is neither a string nor `null` (MCP "Pagination": the
/// cursor is the opaque string of a previous page's `nextCursor`).
fn cursor_refusal(method: &str, text: &MessageText<'_>) -> Option<ErrorData> {
    #[derive(Deserialize)]
    struct ListLine<'a> {
        #[serde(borrow, default)]
        params: Option<ListParams<'a>>,
    }
    #[derive(Deserialize)]
    struct ListParams<'a> {
        #[serde(borrow, default)]
        cursor: Option<&'a RawValue>,
    }
    // Read again only when the walk saw a cursor that is not text.
    if !text.odd_cursor() {
        return None;
    }
    let line = serde_json::from_slice::<ListLine<'_>>(text.text()).ok()?;
    let cursor = line.params?.cursor?.get();
    if cursor.starts_with('"') || cursor == "null" {
        return None;
    }
    Some(ErrorData::invalid_params(
        format!(
            "Invalid params for {method}: \"cursor\" must be a string, the nextCursor of the previous page (you sent {}); omit it for the first page",
            crate::text::cut_chars(cursor, 50, "...")
        ),
        None,
    ))
}

/// The answer to a message that holds more JSON values than a transport
/// takes ([`MessageText::over_limit`]), found before the message
/// is parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TooManyValues {
    /// One line of JSON: for a `tools/call` request, a JSON-RPC result
    /// carrying a `<validation_error>` tool result (wire contract §4: the
    /// model can act on it, MCP tools "Error Handling" puts input errors in
    /// the result); for any other request, a `-32600` error.
    pub answer: String,
    /// `answer` is a tool result (over HTTP a 200), not an error (a 400).
    pub tool_result: bool,
    /// The message was a notification: JSON-RPC answers nothing over stdio
    /// (over HTTP, the answer goes with a 400 all the same).
    pub notification: bool,
}

/// What of a message is read when it is too big to be parsed: its `id` as
/// written, its `method`, and a `tools/call`'s tool name; every other member
/// is skipped without being built.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<HeadParams>,
}

#[derive(Deserialize)]
struct HeadParams {
    #[serde(default)]
    name: Option<String>,
}

/// The answer to the message `text` when it holds more JSON values than the
/// limit its walk counted against ([`MessageText::read`]); `None` when it
/// holds no more (or is not JSON: its parse answers it). The text is only
/// walked, never built, so a message of millions of values costs no more
/// memory than its bytes. A `tools/call` gets a tool result only
/// `in_session` (a request outside any session gets the `-32600`).
pub(crate) fn too_many_values(text: &MessageText<'_>, in_session: bool) -> Option<TooManyValues> {
    if !text.over_limit() {
        return None;
    }
    let max = text.max_values();
    let head = serde_json::from_slice::<Head<'_>>(text.text()).ok();
    let null = null_id();
    // A head that repeats a member (`params`, `name`) cannot be read whole;
    // its `id`, given once, still can: the answer keeps it.
    let raw_id = match &head {
        Some(head) => head.id,
        None => serde_json::from_slice::<IdOnly<'_>>(text.text())
            .ok()
            .and_then(|only| only.id),
    };
    let id = raw_id.filter(|raw| {
        raw.get().starts_with(['"', '-']) || raw.get().starts_with(|c: char| c.is_ascii_digit())
    });
    let method = head.as_ref().and_then(|h| h.method.as_deref());
    let tool = head
        .as_ref()
        .and_then(|h| h.params.as_ref())
        .and_then(|p| p.name.as_deref());
    if in_session
        && method == Some(CallToolRequestMethod::VALUE)
        && let (Some(id), Some(tool)) = (id, tool)
    {
        let failure = crate::error::ValidationFailure::new(
            tool,
            vec![crate::error::FieldError::new(
                "(root)",
                format!(
                    "Too many values. You sent: more than {max} JSON values in one request. \
                     Expected at most {max} (objects, arrays, strings, numbers, booleans and nulls \
                     each count one): send the data in several smaller calls."
                ),
            )],
        );
        return Some(TooManyValues {
            answer: validation_answer(id, &failure),
            tool_result: true,
            notification: false,
        });
    }
    let notification = head
        .as_ref()
        .is_some_and(|h| h.id.is_none() && h.method.is_some());
    Some(TooManyValues {
        answer: error_response(
            id.unwrap_or(&null),
            INVALID_REQUEST,
            format!(
                "Invalid Request: the message holds more than {max} JSON values, this server's limit; send less in one message"
            ),
        ),
        tool_result: false,
        notification,
    })
}

/// The JSON-RPC error response of `invalid_params` for request `id`.
pub(crate) fn invalid_params_response(id: &RequestId, error: &ErrorData) -> String {
    let id = serde_json::value::to_raw_value(id).unwrap_or_else(|_| null_id());
    error_response(&id, error.code.0, error.message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_and_id(unreadable: Unreadable) -> (i64, Value) {
        assert!(!unreadable.notification);
        let answer: Value = serde_json::from_str(&unreadable.answer).expect("JSON");
        assert_eq!(answer["jsonrpc"], "2.0");
        (
            answer["error"]["code"].as_i64().expect("a code"),
            answer["id"].clone(),
        )
    }

    #[test]
    fn not_json_is_a_parse_error_with_a_null_id() {
        assert_eq!(
            code_and_id(reject_unreadable(b"hello", None)),
            (-32700, Value::Null)
        );
        assert_eq!(
            code_and_id(reject_unreadable(b"{\"id\": 1,", None)),
            (-32700, Value::Null)
        );
        assert_eq!(
            code_and_id(reject_unreadable(b"\xff\xfe", None)),
            (-32700, Value::Null)
        );
        let answer: Value =
            serde_json::from_str(&reject_unreadable(b"hello", None).answer).expect("JSON");
        assert!(answer.as_object().expect("an object").contains_key("id"));
    }

    #[test]
    fn invalid_requests_keep_a_readable_id() {
        assert_eq!(
            code_and_id(reject_unreadable(br#"{"jsonrpc":"2.0","id":7}"#, None)),
            (-32600, json!(7))
        );
        assert_eq!(
            code_and_id(reject_unreadable(
                br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#,
                None,
            )),
            (-32600, json!("a"))
        );
        assert_eq!(
            code_and_id(reject_unreadable(
                br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
                None,
            )),
            (-32600, Value::Null)
        );
        assert_eq!(
            code_and_id(reject_unreadable(b"[]", None)),
            (-32600, Value::Null)
        );
        assert_eq!(
            code_and_id(reject_unreadable(
                b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                None,
            )),
            (-32700, Value::Null),
            "the transport took off the first mark; a second one is not JSON"
        );
        assert_eq!(
            code_and_id(reject_unreadable(b"42", None)),
            (-32600, Value::Null)
        );
    }

    #[test]
    fn notifications_are_marked() {
        let unreadable =
            reject_unreadable(br#"{"jsonrpc":"1.0","method":"notifications/x"}"#, None);
        assert!(unreadable.notification);
        assert_eq!(
            unreadable.answer,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}"#
        );
    }

    #[test]
    fn ids_that_are_not_strings_or_integers_make_an_invalid_request() {
        assert_eq!(
            code_and_id(reject_unreadable(
                br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
                None,
            )),
            (-32600, json!(1.5))
        );
        let huge = reject_unreadable(
            br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}"#,
            None,
        );
        assert_eq!(
            huge.answer,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer"}}"#
        );
        assert_eq!(
            code_and_id(reject_unreadable(
                br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
                None,
            )),
            (-32600, Value::Null)
        );
        let deep: Value = serde_json::from_str(&reject_unreadable(br#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#, None).answer).expect("JSON");
        assert_eq!(
            deep["error"]["message"],
            "Parse error: the message cannot be read as JSON (recursion limit exceeded at line 1 column 128)"
        );
    }

    #[test]
    fn a_standard_method_with_unreadable_params_is_invalid_params() {
        assert_eq!(
            code_and_id(reject_unreadable(
                br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":5}"#,
                None,
            )),
            (-32602, json!(3))
        );
    }

    #[test]
    fn a_top_level_key_given_twice_is_named() {
        let text =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5},"params":{}}"#;
        let read = MessageText::read(text, 100);
        assert_eq!(
            reject_unreadable(text, read.repeated_key()).answer,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: the key \"params\" appears twice in one object; send each key once"}}"#
        );
        // A message wrong in another way is told that first.
        let text = br#"{"jsonrpc":"1.0","id":1,"method":"x","method":"y"}"#;
        let read = MessageText::read(text, 100);
        assert!(
            reject_unreadable(text, read.repeated_key())
                .answer
                .contains(r#"\"jsonrpc\" must be \"2.0\""#)
        );
    }

    #[test]
    fn a_message_over_the_value_limit_that_repeats_a_member_keeps_its_id() {
        let text = br#"{"jsonrpc":"2.0","id":"r","method":"tools/list","params":{"a":[1,2,3]},"params":{}}"#;
        let refused = too_many_values(&MessageText::read(text, 4), true).expect("over the limit");
        assert_eq!(
            refused.answer,
            r#"{"jsonrpc":"2.0","id":"r","error":{"code":-32600,"message":"Invalid Request: the message holds more than 4 JSON values, this server's limit; send less in one message"}}"#
        );
    }

    #[test]
    fn a_message_over_the_value_limit_is_answered_from_its_head() {
        let ping =
            br#"{"jsonrpc":"2.0","id":"p","method":"ping","params":{"_meta":{"pad":[{},{},{}]}}}"#;
        // 9 values: the message, "2.0", "p", "ping", params, _meta, pad, 3 items.
        assert_eq!(too_many_values(&MessageText::read(ping, 10), true), None);
        let refused = too_many_values(&MessageText::read(ping, 9), true).expect("over the limit");
        assert_eq!(
            refused.answer,
            r#"{"jsonrpc":"2.0","id":"p","error":{"code":-32600,"message":"Invalid Request: the message holds more than 9 JSON values, this server's limit; send less in one message"}}"#
        );
        assert!(!refused.tool_result && !refused.notification);
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"xs":[1,2,3]}}}"#;
        let in_session =
            too_many_values(&MessageText::read(call, 5), true).expect("over the limit");
        assert!(in_session.tool_result);
        let answer: Value = serde_json::from_str(&in_session.answer).expect("JSON");
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["result"]["isError"], true);
        assert_eq!(answer["result"].get("resultType"), None);
        assert_eq!(
            answer["result"]["_meta"]["mcp-fusion/error"]["fields"],
            json!([{"path": "(root)", "message": "Too many values. You sent: more than 5 JSON values in one request. Expected at most 5 (objects, arrays, strings, numbers, booleans and nulls each count one): send the data in several smaller calls."}])
        );
        // Outside a session, a tools/call is refused as any request is.
        let outside = too_many_values(&MessageText::read(call, 5), false).expect("over the limit");
        assert!(!outside.tool_result);
        assert!(
            outside
                .answer
                .starts_with(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"#)
        );
        let notification =
            br#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":[1,2,3]}}"#;
        assert!(
            too_many_values(&MessageText::read(notification, 3), true)
                .expect("over")
                .notification
        );
    }

    #[test]
    fn malformed_tools_call_params_are_invalid_params() {
        let error = invalid_params_of("tools/call", Some(&json!({"arguments": {}})))
            .expect("invalid params");
        assert_eq!(error.code.0, -32602);
        assert_eq!(
            error.message,
            "Invalid params for tools/call: missing field `name`"
        );
        assert!(invalid_params_of("vendor/thing", None).is_none());
    }
}
