//! The step-up policy at the edge ([`InsufficientScope::StepUp`](crate::guard::InsufficientScope)):
//! a JSON-RPC request whose capability needs scopes the caller's token
//! lacks is refused with `403 insufficient_scope` before the server runs
//! it (MCP authorization, "Runtime Insufficient Scope Errors"), naming
//! every scope the call lacks in one challenge; an anonymous caller (the
//! server allows them) of a capability that needs credentials gets the
//! `401` challenge naming that capability's scopes, so that an OAuth client
//! authorizes, instead of the `AUTH_REQUIRED` result. Lists and calls of
//! what needs no credentials go on (an anonymous caller sees what is
//! open).
//!
//! [`operation`] is also how the edge knows what a request without
//! credentials calls, for the `scope` of its `401` ([`super::auth`]).

use axum::response::Response;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, Reference};

use super::auth::{EdgeAuth, shown_name};
use crate::handler::Principal;
use crate::server::FusionServer;
use crate::server::edge::scopes::{self, Operation};

/// The capability `message` calls, when it is a request that calls one:
/// `tools/call` (a tool, a group's action through its discriminator),
/// `prompts/get`, `resources/read` and `resources/subscribe` (which needs
/// what reading needs), `completion/complete` (of a prompt's argument or a
/// template's variable: what the prompt or template needs). `None` for
/// anything else (lists, `initialize`, notifications, responses). A
/// `tools/call` is looked up in `server`'s tools here, once for the call.
pub(crate) fn operation<'m>(
    server: &FusionServer,
    message: &'m ClientJsonRpcMessage,
) -> Option<Operation<'m>> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    match &request.request {
        ClientRequest::CallToolRequest(call) => Some(Operation::Tool(
            server.look_up(&call.params.name, call.params.arguments.as_ref()),
        )),
        ClientRequest::GetPromptRequest(get) => Some(Operation::Prompt(&get.params.name)),
        ClientRequest::ReadResourceRequest(read) => Some(Operation::Resource(&read.params.uri)),
        ClientRequest::SubscribeRequest(subscribe) => {
            Some(Operation::Resource(&subscribe.params.uri))
        }
        ClientRequest::CompleteRequest(complete) => match &complete.params.r#ref {
            Reference::Prompt(prompt) => Some(Operation::PromptCompletion(&prompt.name)),
            Reference::Resource(template) => Some(Operation::TemplateCompletion(&template.uri)),
            _ => None,
        },
        _ => None,
    }
}

/// The refusal of the request calling `operation` from `principal` (`None`: an anonymous caller
/// the server lets in): the 403 when the capability it calls needs scopes
/// the principal lacks; for an anonymous caller of an OAuth resource
/// server, the 401 when it needs credentials. Anything else (lists,
/// notifications, unknown names) goes on.
pub(crate) fn refusal(
    auth: &EdgeAuth,
    server: &FusionServer,
    operation: &Operation<'_>,
    principal: Option<&Principal>,
) -> Option<Response> {
    match principal {
        Some(principal) => {
            let (name, missing) = scopes::missing_scopes(server, operation, principal)?;
            Some(auth.insufficient_scope(&name, &missing))
        }
        None if auth.scopes_by_operation() => {
            let needs = scopes::operation_needs(server, operation)?;
            needs.credentials.then(|| {
                auth.unauthorized(
                    None,
                    &format!(
                        "Unauthorized: {} needs a bearer token (Authorization: Bearer TOKEN)",
                        shown_name(&needs.name)
                    ),
                    Some(&needs.scopes),
                )
            })
        }
        None => None,
    }
}
