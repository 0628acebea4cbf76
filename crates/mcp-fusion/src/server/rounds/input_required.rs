//! The three requests that may end in an input-required result on MCP
//! 2026-07-28 (`tools/call`, `prompts/get`, `resources/read`; SEP-2322):
//! their input rounds before the handler runs, and their answer once it
//! stopped for the client's input.

use std::sync::Arc;

use rmcp::model::{InputRequiredResult, InputResponses};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use super::request_state::{Binding, RequestStates};
use crate::handler::{InputRounds, Principal};
use crate::server::revision::is_stateless;

/// What a request that may ask the client names and carries.
pub(crate) struct Asking<'a> {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'a str,
    /// The tool, the prompt, or the URI read.
    pub name: &'a str,
    pub arguments: Option<&'a Map<String, Value>>,
    pub request_state: Option<&'a str>,
    pub input_responses: Option<InputResponses>,
}

/// A request's rounds, and what they are bound to.
pub(crate) struct Rounds {
    rounds: Arc<InputRounds>,
    method: String,
    name: String,
    arguments: Option<Map<String, Value>>,
    subject: Option<String>,
}

impl Rounds {
    /// The rounds, as the call's client link holds them.
    pub(crate) fn shared(&self) -> Arc<InputRounds> {
        Arc::clone(&self.rounds)
    }

    fn binding(&self) -> Binding<'_> {
        Binding {
            method: &self.method,
            name: &self.name,
            arguments: self.arguments.as_ref(),
            subject: self.subject.as_deref(),
        }
    }
}

/// The input rounds of `asking` when it came over 2026-07-28 (`None`
/// over 2025-11-25, where the handler sends requests to the client), read
/// from its `requestState` by the server's `states`.
///
/// # Errors
/// The `-32602` of a refused `requestState`.
pub(crate) fn rounds_of(
    states: &RequestStates,
    asking: Asking<'_>,
    context: &RequestContext<RoleServer>,
) -> Result<Option<Rounds>, rmcp::ErrorData> {
    if !is_stateless(context) {
        return Ok(None);
    }
    let subject = context
        .extensions
        .get::<::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>())
        .map(|principal| principal.subject.clone());
    let binding = Binding {
        method: asking.method,
        name: asking.name,
        arguments: asking.arguments,
        subject: subject.as_deref(),
    };
    let rounds = states.rounds(&binding, asking.request_state, asking.input_responses)?;
    Ok(Some(Rounds {
        rounds: Arc::new(rounds),
        method: asking.method.to_owned(),
        name: asking.name.to_owned(),
        arguments: asking.arguments.cloned(),
        subject,
    }))
}

/// The answer of a request whose handler stopped for the client's input:
/// its input-required result, or the `-32602` of a malformed answer;
/// `None` when the handler finished (or the request has no rounds).
pub(crate) fn input_required(
    states: &RequestStates,
    rounds: Option<&Rounds>,
) -> Option<Result<InputRequiredResult, rmcp::ErrorData>> {
    let rounds = rounds?;
    states.answer(&rounds.binding(), &rounds.rounds)
}
