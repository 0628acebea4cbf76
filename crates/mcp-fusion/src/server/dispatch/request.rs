//! What a request is as the transport hands it to dispatch ([`Origin`],
//! [`CallRequest`]), what it calls ([`Target`]), and the one
//! [`CallContext`] made of them ([`context`]).

use std::sync::Arc;

use ::http::request::Parts;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::envelope::{to_call_tool_result, written_result};
use crate::error::ToolError;
use crate::handler::{
    CallContext, Capability, ContextInner, Peer, Principal, RequestIdText, SharedChannel, States,
};

/// Where a request came from, as the transport hands it over: everything of
/// its [`CallContext`] but what it calls.
#[derive(Clone)]
pub(crate) struct Origin {
    pub request_id: RequestIdText,
    pub cancellation: CancellationToken,
    pub http: Option<Parts>,
    pub peer: Peer,
    /// The connection, for progress, logs, sampling and elicitation.
    pub client: Option<SharedChannel>,
    /// Who is calling ([`CallContext::caller`]).
    pub caller: Arc<str>,
    /// The verified caller ([`CallContext::principal`]).
    pub principal: Option<Principal>,
}

/// One `tools/call` as the transport hands it over.
pub(crate) struct CallRequest {
    pub name: String,
    pub arguments: Option<Map<String, Value>>,
    pub origin: Origin,
    /// The transport writes envelope results as text
    /// ([`WritesEnvelopes`](crate::envelope::WritesEnvelopes)): they are
    /// made with [`envelope::written_result`](crate::envelope::written_result).
    pub written: bool,
}

/// The result of `err` as the request wants it: see [`CallRequest::written`].
pub(crate) fn error_result(err: &ToolError, written: bool) -> CallToolResult {
    if written {
        written_result(err)
    } else {
        to_call_tool_result(err)
    }
}
/// What a request calls, for its [`CallContext`].
pub(crate) struct Target {
    pub capability: Capability,
    /// The tool, prompt, URI or completed capability's name.
    pub tool: String,
    /// The action key inside a group.
    pub action: Option<String>,
    /// The name errors and logs use (`billing.get_invoice`).
    pub name: String,
}

impl Target {
    /// The target of a list (`tools/list`, …) of `capability`, for the
    /// lists' filter: the caller's context with no name called.
    pub fn list(capability: Capability) -> Self {
        Target {
            capability,
            tool: String::new(),
            action: None,
            name: String::new(),
        }
    }
}

/// The context of a call of `target` from `origin`.
pub(crate) fn context(
    target: Target,
    origin: Origin,
    expose_internal_errors: bool,
    states: Arc<States>,
) -> CallContext {
    CallContext {
        inner: Arc::new(ContextInner {
            capability: target.capability,
            tool: target.tool,
            action: target.action,
            name: target.name,
            request_id: origin.request_id,
            expose_internal_errors,
            http: origin.http,
            peer: origin.peer,
            caller: origin.caller,
            principal: origin.principal,
            states,
            client: origin.client,
        }),
        cancellation: origin.cancellation,
    }
}
