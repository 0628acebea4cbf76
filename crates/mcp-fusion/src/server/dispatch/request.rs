//! What a request is as the transport hands it to dispatch ([`Origin`],
//! [`CallRequest`], its [`Lookup`]), what it calls ([`Target`]), and the
//! one [`CallContext`] made of them ([`context`]).

use std::sync::Arc;

use ::http::request::Parts;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::capability::{Found, RegisteredAction, Registry, TaskSupport};
use crate::handler::{
    CallContext, Capability, ContextInner, Peer, Principal, RequestIdText, SharedChannel, States,
};

/// Where a request came from, as the transport hands it over: everything of
/// its [`CallContext`] but what it calls.
#[derive(Clone)]
pub(crate) struct Origin {
    pub request_id: RequestIdText,
    pub cancellation: CancellationToken,
    /// Cancelled when the client's connection ends before the call does
    /// (its HTTP session deleted): the call is cancelled then.
    pub ended: Option<CancellationToken>,
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
    /// Where its name leads, looked up once when it arrived.
    pub lookup: Lookup,
}

/// A `tools/call` looked up once, when it arrives: the server's tools as
/// the call found them (the table read once) and where its name leads
/// ([`Registry::find`]). Everything on the call's way asks this — the
/// client capabilities its action requires, whether it runs as a task,
/// routing — rather than the table again.
#[derive(Clone)]
pub(crate) struct Lookup {
    /// The table the call was looked up in.
    pub registry: Arc<Registry>,
    /// Where its name leads.
    pub found: Found,
}

impl Lookup {
    /// A call of `name` with `arguments` looked up in `registry`.
    pub fn new(
        registry: Arc<Registry>,
        name: &str,
        arguments: Option<&Map<String, Value>>,
    ) -> Self {
        let found = registry.find(name, arguments);
        Lookup { registry, found }
    }

    /// The action the call reaches, when its name (and discriminator)
    /// name one.
    pub fn action(&self) -> Option<&RegisteredAction> {
        match self.found {
            Found::Action { tool, action } => Some(&self.registry.tools()[tool].actions[action]),
            _ => None,
        }
    }

    /// Whether the call may run as a task: its action's [`TaskSupport`];
    /// [`TaskSupport::Forbidden`] when it reaches none (it is answered
    /// directly with its routing error).
    pub fn task_support(&self) -> TaskSupport {
        self.action()
            .map_or(TaskSupport::Forbidden, |action| action.task_support)
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
            ended: origin.ended,
        }),
        cancellation: origin.cancellation,
    }
}
