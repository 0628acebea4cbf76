//! The `taskIds` of a `subscriptions/listen` request (the Tasks extension
//! `io.modelcontextprotocol/tasks`, SEP-2663 "Task Status Notifications"):
//! the tasks whose `notifications/tasks` the stream asks for.
//!
//! rmcp's `SubscriptionFilter` has no `taskIds` field, so rmcp drops it when
//! it reads the request and leaves it out of the acknowledgement. Each
//! transport reads it from the message's text ([`requested_task_ids`]) and
//! hands it to the server in the request's extensions ([`ListenTaskIds`]);
//! it adds it to the acknowledgement it sends ([`acknowledge_task_ids`]).

use rmcp::model::{ClientCapabilities, ClientJsonRpcMessage, ClientRequest, ErrorData, RequestId};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::server::MAX_SUBSCRIPTIONS;

/// The `notifications.taskIds` of a `subscriptions/listen` request (at most
/// [`MAX_SUBSCRIPTIONS`], duplicates dropped, in the request's order): the
/// tasks the stream is told of, as the acknowledgement lists them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ListenTaskIds(pub(crate) Vec<String>);

/// Of the request `message` read from `raw`: for a `subscriptions/listen`
/// request whose `params.notifications.taskIds` is a list, its task ids;
/// `Ok(None)` for any other message.
///
/// # Errors
/// The request's id and `-32021` (Missing required client capability,
/// `data.requiredCapabilities` naming the extension) when it asks for task
/// ids without declaring the tasks extension in its `_meta` client
/// capabilities (SEP-2663: "MUST return a JSON-RPC error").
pub(crate) fn requested_task_ids(
    message: &ClientJsonRpcMessage,
    raw: &[u8],
) -> Result<Option<ListenTaskIds>, (RequestId, ErrorData)> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return Ok(None);
    };
    let ClientRequest::SubscriptionsListenRequest(_) = &request.request else {
        return Ok(None);
    };
    let Ok(text) = serde_json::from_slice::<Value>(raw) else {
        return Ok(None);
    };
    let Some(Value::Array(ids)) = text.pointer("/params/notifications/taskIds") else {
        return Ok(None);
    };
    let declared = text
        .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
        .cloned()
        .and_then(|value| serde_json::from_value::<ClientCapabilities>(value).ok())
        .is_some_and(|capabilities| capabilities.supports_tasks());
    if !declared {
        return Err((
            request.id.clone(),
            ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ),
        ));
    }
    let mut kept: Vec<String> = Vec::new();
    for id in ids.iter().filter_map(Value::as_str) {
        if kept.len() == MAX_SUBSCRIPTIONS {
            break;
        }
        if !kept.iter().any(|k| k == id) {
            kept.push(id.to_owned());
        }
    }
    Ok(Some(ListenTaskIds(kept)))
}

/// The task ids the listen request of `context` asked for: put in its
/// extensions by the stdio transport, or in its HTTP request head's by the
/// Streamable HTTP edge; empty when it asked for none.
pub(crate) fn task_ids_of(context: &RequestContext<RoleServer>) -> Vec<String> {
    if let Some(ids) = context.extensions.get::<ListenTaskIds>() {
        return ids.0.clone();
    }
    #[cfg(feature = "http")]
    if let Some(ids) = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ListenTaskIds>())
    {
        return ids.0.clone();
    }
    Vec::new()
}

/// Of `ids`, in their order, those of tasks the caller of the Streamable
/// HTTP request `head` created (its verified principal's subject, else its
/// session or address, `tasks::owner_key`): what the acknowledgement lists
/// and the stream is told of. Another caller's task is left out, as is one
/// that does not exist (`tasks/get` answers "Unknown task" for both: the
/// Tasks extension, "Auth binding").
#[cfg(feature = "http")]
pub(crate) async fn owned_by_caller(
    server: &crate::FusionServer,
    ids: ListenTaskIds,
    head: &axum::http::request::Parts,
) -> ListenTaskIds {
    let peer = head
        .extensions
        .get::<crate::handler::Peer>()
        .copied()
        .unwrap_or(crate::handler::Peer::Http(None));
    let caller = crate::server::adapter::caller::caller_key(None, Some(head), peer);
    let principal = head.extensions.get::<crate::handler::Principal>();
    let owner = crate::server::tasks::owner_key(principal, &caller);
    ListenTaskIds(server.tasks().owned(ids.0, &owner).await)
}

/// Adds `ids` as `params.notifications.taskIds` to `message` when it is a
/// `notifications/subscriptions/acknowledged` (JSON-RPC text); whether it
/// was one.
pub(crate) fn acknowledge_task_ids(message: &mut Value, ids: &[String]) -> bool {
    if message.get("method").and_then(Value::as_str)
        != Some("notifications/subscriptions/acknowledged")
    {
        return false;
    }
    let Some(notifications) = message
        .pointer_mut("/params/notifications")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    notifications.insert(String::from("taskIds"), Value::from(ids.to_vec()));
    true
}

/// The JSON-RPC error answer (text) to request `id`.
pub(crate) fn error_answer(id: &RequestId, error: &ErrorData) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &Value) -> Result<Option<ListenTaskIds>, (RequestId, ErrorData)> {
        let raw = serde_json::to_vec(text).unwrap();
        let message: ClientJsonRpcMessage = serde_json::from_slice(&raw).unwrap();
        requested_task_ids(&message, &raw)
    }

    fn listen(meta: Value, notifications: Value) -> Value {
        json!({
            "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": notifications}
        })
    }

    #[test]
    fn task_ids_are_read_deduplicated_and_need_the_extension() {
        let declared = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            }
        });
        assert_eq!(
            read(&listen(
                declared.clone(),
                json!({"taskIds": ["a", "b", "a"], "toolsListChanged": true})
            )),
            Ok(Some(ListenTaskIds(vec![
                String::from("a"),
                String::from("b")
            ])))
        );
        assert_eq!(
            read(&listen(declared, json!({"toolsListChanged": true}))),
            Ok(None)
        );
        let undeclared = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let (id, error) = read(&listen(undeclared, json!({"taskIds": ["a"]}))).unwrap_err();
        assert_eq!(
            serde_json::from_str::<Value>(&error_answer(&id, &error)).unwrap(),
            json!({
                "jsonrpc": "2.0", "id": 7,
                "error": {
                    "code": -32021,
                    "message": "Missing required client capability",
                    "data": {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
                }
            })
        );
    }

    #[test]
    fn the_acknowledgement_lists_the_task_ids() {
        let mut ack = json!({
            "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": {"toolsListChanged": true}}
        });
        assert!(acknowledge_task_ids(&mut ack, &[String::from("a")]));
        assert_eq!(
            ack["params"]["notifications"],
            json!({"toolsListChanged": true, "taskIds": ["a"]})
        );
        let mut other = json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": {}});
        assert!(!acknowledge_task_ids(&mut other, &[String::from("a")]));
    }
}
