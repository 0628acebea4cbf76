//! `tools/call` around [`guarded`]: routing (the fallback, the refusals of
//! hidden actions), deprecation warnings, the envelope of the result, and
//! the call's metrics.

use std::sync::Arc;

use metrics::SharedString;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::guarded::guarded;
use super::request::{CallRequest, Origin, Target, context, error_result};
use crate::capability::{RegisteredAction, Registry, RouteError};
use crate::contract::SelfHealing;
use crate::envelope::{validation_result, written_validation_result};
use crate::error::{ErrorCode, ToolError, ValidationFailure};
use crate::handler::{Capability, FromOutput, States, ToolOutput};
use crate::metrics_names::{self as names, ActionLabels};
use crate::pipeline::Outcome;

/// The target of this file's logs: its module's path before
/// `dispatch.rs` was split, so that log filters and readers see the same
/// target.
const TARGET: &str = "mcp_fusion::server::dispatch";

/// Which names a fallback answers ([`ServerBuilder::fallback`](crate::server::ServerBuilder::fallback)).
pub(crate) type Claims = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The fallback of a server ([`ServerBuilder::fallback`](crate::server::ServerBuilder::fallback)):
/// which names it answers, and its action.
pub(crate) struct Fallback {
    /// Whether it answers a name no tool has.
    pub claims: Claims,
    /// Its action alone, built like every action (layers, guards), never
    /// listed.
    pub registry: Registry,
}

impl Fallback {
    /// Its action.
    fn action(&self) -> &RegisteredAction {
        &self.registry.tools()[0].actions[0]
    }

    /// Whether it answers a call of `name`, which no tool of `registry` has:
    /// when it claims it, unless the part before its first dot is a tool
    /// (`billing.get_invoice`), whose unknown-tool answer says how to call
    /// that action.
    fn answers(&self, name: &str, registry: &Registry) -> bool {
        name.split_once('.')
            .is_none_or(|(head, _)| registry.tool(head).is_none())
            && (self.claims)(name)
    }
}
/// The `AUTH_REQUIRED` or `FORBIDDEN` of the action `name` names as
/// `group.action`, when the caller of `origin` may not use it: the router
/// hides such an action (it names only what the caller sees), but a caller
/// who names it is told what it needs, as through its group.
fn refusal_of_dotted(
    registry: &Registry,
    name: &str,
    origin: &Origin,
    expose_internal_errors: bool,
    states: &Arc<States>,
) -> Option<ToolError> {
    let (group, key) = name.split_once('.')?;
    let tool = registry.tool(group)?;
    let action = tool.action(key)?;
    let target = Target {
        capability: Capability::Tool,
        tool: tool.name.clone(),
        action: action.key.clone(),
        name: action.dotted.clone(),
    };
    refusal_to_hidden(action, target, origin, expose_internal_errors, states)
}

/// The `AUTH_REQUIRED` or `FORBIDDEN` of tool `name` when the caller of
/// `origin` may see none of its actions for lack of credentials: a call of
/// it with an unknown or missing `action` is told what it needs, rather
/// than to pick from actions it is not shown.
fn refusal_of_hidden_tool(
    registry: &Registry,
    name: &str,
    origin: &Origin,
    expose_internal_errors: bool,
    states: &Arc<States>,
) -> Option<ToolError> {
    let tool = registry.tool(name)?;
    let principal = origin.principal.as_ref();
    if tool
        .actions
        .iter()
        .any(|action| action.callable.visibility.auth.lets_see(principal))
    {
        return None;
    }
    let target = Target {
        capability: Capability::Tool,
        tool: tool.name.clone(),
        action: None,
        name: tool.name.clone(),
    };
    refusal_to_hidden(
        tool.actions.first()?,
        target,
        origin,
        expose_internal_errors,
        states,
    )
}

/// What `action`'s auth answers the caller of `origin` (named as `target`)
/// when it hides the action from that caller; `None` when it shows it.
fn refusal_to_hidden(
    action: &RegisteredAction,
    target: Target,
    origin: &Origin,
    expose_internal_errors: bool,
    states: &Arc<States>,
) -> Option<ToolError> {
    let auth = &action.callable.visibility.auth;
    if auth.lets_see(origin.principal.as_ref()) {
        // Shown to this caller: the router's hint names how to call it.
        return None;
    }
    let ctx = context(
        target,
        origin.clone(),
        expose_internal_errors,
        Arc::clone(states),
    );
    auth.refusal(&ctx)
}

/// A call naming no tool: becomes JSON-RPC error -32602 (MCP).
pub(crate) struct UnknownTool {
    pub message: String,
    pub data: Value,
}

/// Runs `request` through the whole path. Every outcome but an unknown tool is
/// a `CallToolResult` built by [`crate::envelope`]. With `self_healing`, a
/// validation failure carries its action's contract changes (§4.1). A name
/// no tool has goes to `fallback` when it answers it.
pub(crate) async fn run(
    registry: &Registry,
    expose_internal_errors: bool,
    states: Arc<States>,
    self_healing: Option<&SelfHealing>,
    fallback: Option<&Fallback>,
    request: CallRequest,
) -> Result<CallToolResult, UnknownTool> {
    if let Some(fallback) = fallback
        && registry.tool(&request.name).is_none()
        && fallback.answers(&request.name, registry)
    {
        // Named as called: its guards' errors, its handler and its logs
        // see the name the caller sent.
        let target = Target {
            capability: Capability::Tool,
            tool: request.name.clone(),
            action: None,
            name: request.name,
        };
        let args = request.arguments.unwrap_or_default();
        return Ok(finish(
            fallback.action(),
            target,
            args,
            request.origin,
            expose_internal_errors,
            states,
            None,
            request.written,
        )
        .await);
    }
    // The errors of routing name only what the caller sees; its context is
    // made only when an error needs it.
    let routed = {
        let viewer = std::cell::OnceCell::new();
        let shows = |action: &RegisteredAction| {
            let ctx = viewer.get_or_init(|| {
                context(
                    Target::list(Capability::Tool),
                    request.origin.clone(),
                    expose_internal_errors,
                    Arc::clone(&states),
                )
            });
            action.callable.visibility.shows_to(ctx)
        };
        registry.route(&request.name, request.arguments, &shows)
    };
    let routed = match routed {
        Ok(routed) => routed,
        Err(RouteError::UnknownTool { message, data }) => {
            // `billing.get_invoice` sent as a tool name, for an action the
            // caller is not shown for lack of credentials: what its guard
            // would answer the same call made through its group.
            if let Some(refused) = refusal_of_dotted(
                registry,
                &request.name,
                &request.origin,
                expose_internal_errors,
                &states,
            ) {
                return Ok(error_result(&refused, request.written));
            }
            tracing::debug!(target: TARGET, tool = %request.name, "unknown tool");
            return Err(UnknownTool { message, data });
        }
        Err(RouteError::Envelope(err)) => {
            tracing::debug!(target: TARGET, tool = %request.name, code = %err.code, "call not routed");
            let err = refusal_of_hidden_tool(
                registry,
                &request.name,
                &request.origin,
                expose_internal_errors,
                &states,
            )
            .map_or(err, Box::new);
            // A known tool, no known action: counted with `action=""`.
            if let Some(tool) = registry.tool(&request.name)
                && let Some(first) = tool.actions.first()
            {
                record_call(
                    &first.callable.labels.tool_only(),
                    names::ERROR,
                    code_label(&err.code),
                    None,
                );
            }
            return Ok(error_result(&err, request.written));
        }
    };
    let action = routed.action;
    let target = Target {
        capability: Capability::Tool,
        tool: routed.tool.name.clone(),
        action: action.key.clone(),
        name: action.dotted.clone(),
    };
    Ok(finish(
        action,
        target,
        routed.args,
        request.origin,
        expose_internal_errors,
        states,
        self_healing,
        request.written,
    )
    .await)
}

/// Runs `action`, the action a call of `target` reached, with `args`
/// through its guarded path, and makes its result: warnings, metrics, the
/// span, the envelope (as text when `written`, see [`CallRequest::written`]).
#[allow(clippy::too_many_arguments)] // the parts of one call, each used once
async fn finish(
    action: &RegisteredAction,
    target: Target,
    args: Map<String, Value>,
    origin: Origin,
    expose_internal_errors: bool,
    states: Arc<States>,
    self_healing: Option<&SelfHealing>,
    written: bool,
) -> CallToolResult {
    let field_warnings: Vec<ToolError> = action
        .deprecated_fields
        .iter()
        .filter(|(field, _)| args.get(field).is_some_and(|v| !v.is_null()))
        .map(|(field, replacement)| deprecated_field_warning(&action.dotted, field, replacement))
        .collect();
    let args = Value::Object(args);
    let ctx = context(target, origin, expose_internal_errors, states);
    // One span per call (level debug: failures are normal traffic and must
    // cost nothing unless asked for, DESIGN "Speed").
    let span = tracing::debug_span!(
        target: TARGET,
        "tool_call",
        tool = %ctx.tool(),
        action = %ctx.action().unwrap_or(""),
        caller = tracing::field::Empty,
        outcome = tracing::field::Empty,
        code = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    );
    let started = std::time::Instant::now();
    let outcome = guarded(&action.callable, &ctx, args)
        .instrument(span.clone())
        .await;
    let took = started.elapsed();
    // A tool's success, with its warnings; a middleware that answered with
    // another capability's success is the server's fault.
    let outcome: Result<Tooled, ToolError> = match outcome {
        Ok(Outcome::Output(output)) => match ToolOutput::from_output(output) {
            Some(mut output) => {
                if let Some(replacement) = &action.deprecated {
                    output = output.with_warning(deprecation_warning(&action.dotted, replacement));
                }
                for warning in field_warnings {
                    output = output.with_warning(warning);
                }
                Ok(Tooled::Output(output))
            }
            None => Err(crate::pipeline::resolve(
                &ctx,
                ToolError::internal(
                    "a middleware answered a tool call with another capability's success",
                ),
            )),
        },
        Ok(Outcome::Invalid(failure)) => Ok(Tooled::Invalid(failure)),
        Ok(Outcome::Stopped) => {
            // Not finished: the adapter answers with the input-required
            // result of the call's rounds; the call is counted when it
            // finishes.
            tracing::debug!(target: TARGET, parent: &span, "tool call waits for the client's input");
            return CallToolResult::success(Vec::new());
        }
        Err(err) => Err(err),
    };
    // The one place a routed call's final outcome is told: the span's
    // fields and the metrics, with the same words.
    let (result, code) = match &outcome {
        Ok(Tooled::Output(output)) => match output.warnings().first() {
            Some(warning) => (names::WARNING, code_label(&warning.code)),
            None => (names::OK, SharedString::const_str("")),
        },
        Ok(Tooled::Invalid(_)) => (names::ERROR, code_label(&ErrorCode::ValidationError)),
        Err(err) => (names::ERROR, code_label(&err.code)),
    };
    if !span.is_disabled() {
        match ctx.principal() {
            Some(principal) => span.record("caller", tracing::field::display(&principal.subject)),
            None => span.record("caller", tracing::field::display(ctx.peer())),
        };
        span.record("outcome", tracing::field::display(result));
        span.record("code", tracing::field::display(&*code));
        span.record("duration_ms", took.as_secs_f64() * 1000.0);
        tracing::debug!(target: TARGET, parent: &span, "tool call finished");
    }
    record_call(&action.callable.labels, result, code, Some(took));
    match outcome {
        Ok(Tooled::Invalid(mut failure)) => {
            // Self-healing hand-off: the changes of exactly this action.
            let action_name = action.key.as_deref().unwrap_or(ctx.tool());
            if let Some(awareness) = self_healing.and_then(|h| h.awareness(ctx.tool(), action_name))
            {
                failure.contract_awareness = Some(awareness.clone());
            }
            if written {
                written_validation_result(&failure)
            } else {
                validation_result(&failure)
            }
        }
        Ok(Tooled::Output(output)) => output.into_call_tool_result(action.structured),
        Err(err) => error_result(&err, written),
    }
}

/// How a tool call that passed its guards ended: a tool's success, or a
/// validation failure.
enum Tooled {
    Output(ToolOutput),
    Invalid(ValidationFailure),
}

/// The `code` label of `code`: a named code (not `Custom`) without copying its text.
fn code_label(code: &ErrorCode) -> SharedString {
    match code.static_str() {
        Some(text) => SharedString::const_str(text),
        None => SharedString::from_owned(code.as_str().to_owned()),
    }
}

/// Counts one finished call in `mcp_fusion_tool_calls_total`, and its
/// duration (when an action ran) in `mcp_fusion_tool_call_duration_seconds`.
fn record_call(
    labels: &ActionLabels,
    outcome: &'static str,
    code: SharedString,
    took: Option<std::time::Duration>,
) {
    metrics::counter!(
        names::TOOL_CALLS_TOTAL,
        names::TOOL => labels.tool.clone(),
        names::ACTION => labels.action.clone(),
        names::OUTCOME => outcome,
        names::CODE => code,
    )
    .increment(1);
    if let Some(took) = took {
        metrics::histogram!(
            names::TOOL_CALL_DURATION_SECONDS,
            names::TOOL => labels.tool.clone(),
            names::ACTION => labels.action.clone(),
        )
        .record(took.as_secs_f64());
    }
}

/// The `DEPRECATED` warning attached to every success of a deprecated action.
pub(crate) fn deprecation_warning(action: &str, replacement: &str) -> ToolError {
    ToolError::deprecated(format!(
        "{action} is deprecated and will be removed; use {replacement} instead."
    ))
    .suggest(format!("The call succeeded. Next time call {replacement}."))
    .actions([replacement])
}

/// The `DEPRECATED` warning attached to a success whose arguments used a
/// deprecated field.
pub(crate) fn deprecated_field_warning(action: &str, field: &str, replacement: &str) -> ToolError {
    ToolError::deprecated(format!(
        "The field \"{field}\" of {action} is deprecated and will be removed; use \"{replacement}\" instead."
    ))
    .suggest(format!(
        "The call succeeded. Next time send \"{replacement}\" instead of \"{field}\"."
    ))
}
