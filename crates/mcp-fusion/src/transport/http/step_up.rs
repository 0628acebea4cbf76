//! The step-up policy at the edge ([`InsufficientScope::StepUp`](crate::guard::InsufficientScope)):
//! a JSON-RPC request whose capability needs scopes the caller's token
//! lacks is refused with `403 insufficient_scope` before the server runs
//! it (MCP authorization, "Runtime Insufficient Scope Errors"), naming
//! every scope the call lacks in one challenge.

use axum::response::Response;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};

use super::auth::EdgeAuth;
use crate::handler::Principal;
use crate::server::FusionServer;
use crate::server::scopes::Operation;

/// The 403 for `message` from `principal`, when the capability it calls
/// needs scopes the principal lacks: `tools/call` (a group's action through
/// its discriminator, or `group.action`), `prompts/get`, `resources/read`.
/// Anything else (lists, notifications, unknown names) goes on.
pub(crate) fn refusal(
    auth: &EdgeAuth,
    server: &FusionServer,
    message: &ClientJsonRpcMessage,
    principal: &Principal,
) -> Option<Response> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let operation = match &request.request {
        ClientRequest::CallToolRequest(call) => Operation::Tool {
            name: &call.params.name,
            arguments: call.params.arguments.as_ref(),
        },
        ClientRequest::GetPromptRequest(get) => Operation::Prompt(&get.params.name),
        ClientRequest::ReadResourceRequest(read) => Operation::Resource(&read.params.uri),
        _ => return None,
    };
    let (name, missing) = server.missing_scopes(&operation, principal)?;
    Some(auth.insufficient_scope(&name, &missing))
}
