//! Every envelope and text the gateway gives the model (wire contract §5,
//! the `HANDOFF_*` rows, and `UNAUTHORIZED` for an upstream that refuses
//! the gateway's credentials), in one place. None names an upstream's address or
//! command, or repeats its internal error text.

use crate::error::{ToolError, seconds_text};

/// The `retry_after` of `HANDOFF_CONNECTING`, in seconds, when nothing
/// better is known: a handshake usually takes a second or two.
pub const CONNECTING_RETRY_SECS: u64 = 2;

/// `HANDOFF_CONNECTING` (warning, `isError: false`): a call reached
/// `namespace` while its upstream is still connecting.
pub(crate) fn connecting(namespace: &str, retry_after: u64) -> ToolError {
    ToolError::handoff_connecting(format!(
        "The {namespace} tools are still connecting; the call was not made."
    ))
    .suggest(format!(
        "Wait {}, then call the same tool again with the same arguments.",
        seconds_text(retry_after)
    ))
    .retry_after(retry_after.max(1))
    .warning()
}

/// `HANDOFF_CONNECTING` (warning) acknowledging a handoff to `namespace`.
pub(crate) fn handoff_ack(namespace: &str, reason: Option<&str>) -> ToolError {
    let why = reason.map_or_else(String::new, |r| format!(" ({})", r.trim_end_matches('.')));
    ToolError::handoff_connecting(format!(
        "Handing over to the {namespace} tools{why}. Your tools are being updated."
    ))
    .suggest(format!(
        "Wait for the tools list to refresh, then go on with the {namespace}.* tools; call {namespace}.return_to_triage when the user's request is done."
    ))
    .retry_after(CONNECTING_RETRY_SECS)
    .warning()
}

/// Why an upstream gave no answer, as the model is told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unavailable {
    /// It cannot be reached now (down, reconnecting).
    Unreachable,
    /// It went away while the call was in flight.
    DiedMidCall,
    /// It did not answer within its call time limit.
    TimedOut,
    /// The handoff's connection failed after it was acknowledged.
    HandoffFailed,
    /// It cannot be reached now, so a handoff to it was refused.
    NotHandedOver,
    /// It answered the call with an error of its own (a JSON-RPC error
    /// other than invalid params), whose text is only logged.
    Failed,
}

/// `HANDOFF_UPSTREAM_UNAVAILABLE` (error): `namespace`'s upstream gave no
/// answer to the call of `tool`, for `why`; `handoff` says whether the caller
/// may return to triage.
pub(crate) fn unavailable(
    namespace: &str,
    tool: &str,
    why: Unavailable,
    retry_after: u64,
    handoff: bool,
) -> ToolError {
    let retry_after = retry_after.max(1);
    let message = match why {
        Unavailable::Unreachable => {
            format!("The {namespace} tools are unavailable right now; {tool} was not called.")
        }
        Unavailable::DiedMidCall => format!(
            "The {namespace} tools stopped answering during the call of {tool}; it may or may not have been done."
        ),
        Unavailable::TimedOut => format!(
            "The {namespace} tools did not answer the call of {tool} in time; it may or may not have been done."
        ),
        Unavailable::HandoffFailed => format!(
            "The handoff to the {namespace} tools could not connect them; {tool} was not called."
        ),
        Unavailable::NotHandedOver => format!(
            "The {namespace} tools are unavailable right now, so the conversation was not handed over."
        ),
        Unavailable::Failed => format!(
            "The {namespace} tools failed on the call of {tool}; it may or may not have been done."
        ),
    };
    let check = match why {
        Unavailable::DiedMidCall | Unavailable::TimedOut | Unavailable::Failed => {
            " If the call changes something, check first whether it was done."
        }
        Unavailable::Unreachable | Unavailable::HandoffFailed | Unavailable::NotHandedOver => "",
    };
    let triage = if handoff {
        format!(", or call {namespace}.return_to_triage")
    } else {
        String::new()
    };
    ToolError::handoff_upstream_unavailable(message)
        .suggest(format!(
            "Tell the user the {namespace} tools are unavailable for now, or call again in {}{triage}.{check}",
            seconds_text(retry_after)
        ))
        .retry_after(retry_after)
}

/// `UNAUTHORIZED` (critical: not fixed by calling again): `namespace`'s
/// upstream refused the gateway's own credentials (HTTP 401 or 403, or the
/// OAuth token request failed). `tool` is the namespaced tool whose call
/// was not made, `None` for a handoff that was not made; `handoff` says
/// whether the caller may return to triage. Only an operator can fix it,
/// in the gateway's configuration.
pub(crate) fn refused(namespace: &str, tool: Option<&str>, handoff: bool) -> ToolError {
    let message = match tool {
        Some(tool) => format!(
            "The {namespace} tools refused the gateway's credentials; {tool} was not called."
        ),
        None => format!(
            "The {namespace} tools refused the gateway's credentials, so the conversation was not handed over."
        ),
    };
    let triage = if handoff {
        format!(", or call {namespace}.return_to_triage")
    } else {
        String::new()
    };
    ToolError::unauthorized(message)
        .suggest(format!(
            "Do not call the {namespace} tools again: an operator must fix the gateway's credentials for {namespace} in gateway.toml. Tell the user the {namespace} tools are unavailable until then{triage}."
        ))
        .critical()
}

/// What a call named that the gateway cannot route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mismatch<'a> {
    /// The namespace is not mounted; with the namespaced name of the one
    /// mounted tool the call may have meant (`billing.list_invoices` from an
    /// upstream's own hint → `finance.billing`).
    NotMounted(Option<&'a str>),
    /// The namespace is mounted for handoffs, and not active for this caller.
    NotActive,
    /// The upstream has no such tool.
    NoSuchTool(&'a str),
    /// A handoff named a namespace that takes no handoffs.
    NoHandoffTarget,
}

/// `HANDOFF_NAMESPACE_MISMATCH` (error): the call of `name` names
/// `namespace`, which `what` says is wrong; `valid` are the namespaced tools
/// (or, for a handoff, the namespaces) the caller may use.
pub(crate) fn mismatch(
    name: &str,
    namespace: &str,
    what: Mismatch<'_>,
    valid: Vec<String>,
) -> ToolError {
    let message = match what {
        Mismatch::NotMounted(None) => {
            format!(
                "There is no tool named \"{name}\": no tools are mounted under \"{namespace}\"."
            )
        }
        Mismatch::NotMounted(Some(near)) => {
            format!(
                "There is no tool named \"{name}\": no tools are mounted under \"{namespace}\". Mounted tools are called with their namespace: did you mean \"{near}\"?"
            )
        }
        Mismatch::NotActive => format!(
            "The {namespace} tools are not active in this conversation, so \"{name}\" cannot be called."
        ),
        Mismatch::NoSuchTool(tool) => {
            format!("The {namespace} tools have no tool named \"{tool}\".")
        }
        Mismatch::NoHandoffTarget => {
            format!("There is no specialist named \"{namespace}\" to hand over to.")
        }
    };
    let recovery = match what {
        Mismatch::NoHandoffTarget => {
            String::from("Hand over to one of the namespaces in available_actions.")
        }
        Mismatch::NotActive => format!(
            "To use them, call handoff with {{\"namespace\": \"{namespace}\"}} and wait for the tools list to refresh; otherwise call one of the tools in available_actions."
        ),
        Mismatch::NotMounted(_) | Mismatch::NoSuchTool(_) => String::from(
            "Call one of the tools in available_actions; list the tools again with tools/list if they may have changed.",
        ),
    };
    ToolError::handoff_namespace_mismatch(message)
        .suggest(recovery)
        .actions(valid)
}

/// The text of `<namespace>.return_to_triage`.
pub(crate) fn returned(namespace: &str) -> String {
    format!(
        "The handoff to the {namespace} tools has ended; they are gone from your tools list and the triage tools remain."
    )
}

/// The text of a handoff's success body (the warning follows it).
pub(crate) fn handing_over(namespace: &str) -> String {
    format!("Handed over to the {namespace} tools.")
}

/// The description of `<namespace>.return_to_triage`.
pub(crate) fn return_description(namespace: &str) -> String {
    format!(
        "Ends the handoff to the {namespace} tools: they leave your tools list. Call it when the user's request for them is done."
    )
}
