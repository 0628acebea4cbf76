//! `tools/call` around [`guarded`]: routing (the fallback, the refusals of
//! hidden actions), deprecation warnings, the call's span and metrics, and
//! its [`Reply`].

use std::sync::Arc;
use std::time::Duration;

use metrics::SharedString;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tracing::{Instrument, Span};

use super::guarded::{Guarded, guarded};
use super::reply::Reply;
use super::request::{CallRequest, Origin, Target, context};
use crate::capability::{Found, RegisteredAction, RegisteredTool, Registry};
use crate::contract::SelfHealing;
use crate::error::{ErrorCode, ToolError, ValidationFailure};
use crate::handler::{CallContext, Capability, States, ToolOutput};
use crate::metrics_names::{self as names, ActionLabels};
use crate::present::{egress, state_sync};

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

    /// Whether it answers a call of `name`, which no tool has (`dotted` as
    /// [`Found::NoTool`] has it): when it claims it, unless the part before
    /// its first dot is a tool (`billing.get_invoice`), whose unknown-tool
    /// answer says how to call that action.
    fn answers(&self, name: &str, dotted: Option<(usize, Option<usize>)>) -> bool {
        dotted.is_none() && (self.claims)(name)
    }
}

/// A call naming no tool: becomes JSON-RPC error -32602 (MCP).
pub(crate) struct UnknownTool {
    pub message: String,
    pub data: Value,
}

/// What dispatch needs of the server for every `tools/call`: its settings,
/// its states, its contract deltas and its fallback.
pub(crate) struct Dispatch<'a> {
    /// Whether an `INTERNAL_ERROR` carries its cause
    /// ([`ServerBuilder::expose_internal_errors`](crate::server::ServerBuilder::expose_internal_errors)).
    pub expose_internal_errors: bool,
    /// The states handlers' extractors take.
    pub states: &'a Arc<States>,
    /// With self-healing, the contract deltas a validation failure carries
    /// (§4.1).
    pub self_healing: Option<&'a SelfHealing>,
    /// What answers a name no tool has.
    pub fallback: Option<&'a Fallback>,
    /// With tool search on, its settings: an unknown tool's error names
    /// the tools listed and the search tool.
    pub search: Option<&'a crate::capability::ToolSearch>,
}

/// An action a call reached, on its way through [`Dispatch::finish`].
struct Reached<'a> {
    action: &'a RegisteredAction,
    /// The call's one context.
    ctx: CallContext,
    /// Its arguments, without a group's discriminator.
    args: Map<String, Value>,
    /// The contract deltas its validation failure carries (none for the
    /// fallback, which has no contract).
    self_healing: Option<&'a SelfHealing>,
    /// Its stale-reads notice, when it invalidates domains (state sync).
    stale: Option<Arc<str>>,
}

impl Dispatch<'_> {
    /// Runs `request` through the whole path, where its [`Lookup`](super::Lookup)
    /// says it leads. Every outcome but an unknown tool is a [`Reply`]. A
    /// name no tool has goes to the fallback when it answers it.
    pub(crate) async fn run(&self, request: CallRequest) -> Result<Reply, UnknownTool> {
        let CallRequest {
            name,
            arguments,
            origin,
            lookup,
        } = request;
        let registry = &*lookup.registry;
        let mut args = arguments.unwrap_or_default();
        match lookup.found {
            Found::Action { tool, action } => {
                let tool = &*registry.tools()[tool];
                let action = &tool.actions[action];
                without_discriminator(tool, &mut args);
                let ctx = self.context(action_target(tool, action), origin);
                let stale = match action.invalidates.is_empty() {
                    true => None,
                    false => registry.stale_notice(&action.dotted).cloned(),
                };
                let reached = Reached {
                    action,
                    ctx,
                    args,
                    self_healing: self.self_healing,
                    stale,
                };
                Ok(self.finish(reached).await)
            }
            Found::NoTool { dotted } => match self.fallback {
                Some(fallback) if fallback.answers(&name, dotted) => {
                    // Named as called: its guards' errors, its handler and
                    // its logs see the name the caller sent.
                    let ctx = self.context(called(&name), origin);
                    let reached = Reached {
                        action: fallback.action(),
                        ctx,
                        args,
                        self_healing: None,
                        stale: None,
                    };
                    Ok(self.finish(reached).await)
                }
                _ => self.no_tool(registry, &name, dotted, origin),
            },
            Found::NoAction { tool, miss } => {
                let tool = &*registry.tools()[tool];
                without_discriminator(tool, &mut args);
                let ctx = self.context(tool_target(tool), origin);
                let shows = |action: &RegisteredAction| action.callable.visibility.shows_to(&ctx);
                let err = tool.miss_error(&miss, &args, &shows);
                tracing::debug!(target: TARGET, tool = %name, code = %err.code, "call not routed");
                let err = refusal_of_hidden_tool(tool, &ctx).unwrap_or(err);
                // A known tool, no known action: counted with `action=""`.
                let labels = tool.actions[0].callable.labels.tool_only();
                record_call(&labels, names::ERROR, code_label(&err.code), None);
                Ok(Reply::Error(err))
            }
        }
    }

    /// The answer to a call of `name`, which no tool has and the fallback
    /// does not answer: the `AUTH_REQUIRED` or `FORBIDDEN` of the action
    /// it names as `group.action` when that action is hidden from the
    /// caller for lack of credentials (what its guard would answer the same
    /// call made through its group), else the unknown tool, naming only
    /// what the caller sees.
    fn no_tool(
        &self,
        registry: &Registry,
        name: &str,
        dotted: Option<(usize, Option<usize>)>,
        origin: Origin,
    ) -> Result<Reply, UnknownTool> {
        let dotted_action = dotted.and_then(|(tool, action)| {
            let tool = &*registry.tools()[tool];
            Some((tool, &tool.actions[action?]))
        });
        let target = match dotted_action {
            Some((tool, action)) => action_target(tool, action),
            None => called(name),
        };
        let ctx = self.context(target, origin);
        if let Some((_, action)) = dotted_action
            && let Some(refused) = refusal_to_hidden(action, &ctx)
        {
            return Ok(Reply::Error(refused));
        }
        let shows = |action: &RegisteredAction| action.callable.visibility.shows_to(&ctx);
        let (message, data) = registry.unknown_tool(name, dotted, &shows, self.search);
        tracing::debug!(target: TARGET, tool = %name, "unknown tool");
        Err(UnknownTool { message, data })
    }

    /// The one context of a call of `target` from `origin`.
    fn context(&self, target: Target, origin: Origin) -> CallContext {
        context(
            target,
            origin,
            self.expose_internal_errors,
            Arc::clone(self.states),
        )
    }

    /// Runs the action a call reached through its guarded path, and makes
    /// its [`Reply`]: warnings, the span and the metrics, the contract
    /// deltas of a validation failure.
    async fn finish(&self, reached: Reached<'_>) -> Reply {
        let Reached {
            action,
            ctx,
            args,
            self_healing,
            stale,
        } = reached;
        let field_warnings = deprecated_fields(action, &args);
        let span = call_span(&ctx);
        let started = std::time::Instant::now();
        let outcome = guarded::<ToolOutput>(&action.callable, &ctx, Value::Object(args))
            .instrument(span.clone())
            .await;
        let took = started.elapsed();
        let outcome = match outcome {
            Ok(Guarded::Output(output)) => {
                Ok(Tooled::Output(warned(action, output, field_warnings)))
            }
            Ok(Guarded::Invalid(failure)) => Ok(Tooled::Invalid(failure)),
            Ok(Guarded::Stopped) => {
                // Not finished: the adapter answers with the input-required
                // result of the call's rounds; the call is counted when it
                // finishes.
                tracing::debug!(target: TARGET, parent: &span, "tool call waits for the client's input");
                return Reply::Result(CallToolResult::success(Vec::new()));
            }
            Err(err) => Err(err),
        };
        told(&span, &ctx, &action.callable.labels, &outcome, took);
        match outcome {
            Ok(Tooled::Invalid(mut failure)) => {
                // Self-healing hand-off: the changes of exactly this action.
                let action_name = action.key.as_deref().unwrap_or(ctx.tool());
                if let Some(awareness) =
                    self_healing.and_then(|h| h.awareness(ctx.tool(), action_name))
                {
                    failure.contract_awareness = Some(awareness.clone());
                }
                Reply::Invalid(failure)
            }
            Ok(Tooled::Output(output)) => {
                if let Some(shown) = &output.shown {
                    crate::present::observe(&shown.hidden);
                }
                let data = output.is_value();
                let result = output.into_call_tool_result(action.structured);
                Reply::Result(written_for_the_model(
                    action,
                    stale.as_deref(),
                    data,
                    result,
                ))
            }
            Err(err) => Reply::Error(err),
        }
    }
}

/// A successful `result` of `action` on its way out (`docs/wire-contract.md`
/// §9): state sync puts its stale-reads notice first (a success only: an
/// error changed nothing), then the egress guard cuts it to the action's
/// limit. The one place every tool result passes (stdio, HTTP, in memory,
/// tasks, a gateway's mounted tools). `data`: whether the result's first
/// block is the data (the handler returned a value, not a result it built).
fn written_for_the_model(
    action: &RegisteredAction,
    stale: Option<&str>,
    data: bool,
    mut result: CallToolResult,
) -> CallToolResult {
    let mut data_block = data.then_some(0);
    if let Some(notice) = stale
        && result.is_error != Some(true)
    {
        result = state_sync::prepend(result, notice);
        data_block = data_block.map(|at| at + 1);
    }
    egress::guard(result, action.egress_limit, &action.narrowed_by, data_block)
}

/// `args` without the discriminator of `tool`, when it is a group.
fn without_discriminator(tool: &RegisteredTool, args: &mut Map<String, Value>) {
    if let Some(field) = &tool.discriminator {
        args.remove(field);
    }
}

/// The target of a call of `action` of `tool`.
fn action_target(tool: &RegisteredTool, action: &RegisteredAction) -> Target {
    Target {
        capability: Capability::Tool,
        tool: tool.name.clone(),
        action: action.key.clone(),
        name: action.dotted.clone(),
    }
}

/// The target of a call of `tool` that reached none of its actions.
fn tool_target(tool: &RegisteredTool) -> Target {
    Target {
        capability: Capability::Tool,
        tool: tool.name.clone(),
        action: None,
        name: tool.name.clone(),
    }
}

/// The target of a call of `name`, no tool's, named as called.
fn called(name: &str) -> Target {
    Target {
        capability: Capability::Tool,
        tool: name.to_owned(),
        action: None,
        name: name.to_owned(),
    }
}

/// The `AUTH_REQUIRED` or `FORBIDDEN` of `tool` when the caller of `ctx`
/// may see none of its actions for lack of credentials: a call of it with
/// an unknown or missing `action` is told what it needs, rather than to
/// pick from actions it is not shown.
fn refusal_of_hidden_tool(tool: &RegisteredTool, ctx: &CallContext) -> Option<ToolError> {
    let principal = ctx.principal();
    if tool
        .actions
        .iter()
        .any(|action| action.callable.visibility.auth.lets_see(principal))
    {
        return None;
    }
    refusal_to_hidden(tool.actions.first()?, ctx)
}

/// What `action`'s auth answers the caller of `ctx` when it hides the
/// action from that caller; `None` when it shows it.
fn refusal_to_hidden(action: &RegisteredAction, ctx: &CallContext) -> Option<ToolError> {
    let auth = &action.callable.visibility.auth;
    if auth.lets_see(ctx.principal()) {
        // Shown to this caller: the router's hint names how to call it.
        return None;
    }
    auth.refusal(ctx)
}

/// The `DEPRECATED` warnings of the deprecated fields `args` sets.
fn deprecated_fields(action: &RegisteredAction, args: &Map<String, Value>) -> Vec<ToolError> {
    action
        .deprecated_fields
        .iter()
        .filter(|(field, _)| args.get(field).is_some_and(|v| !v.is_null()))
        .map(|(field, replacement)| ToolError::deprecated_field(&action.dotted, field, replacement))
        .collect()
}

/// `output` of `action` with its warnings: the action's deprecation, then
/// those of the deprecated fields it was sent.
fn warned(
    action: &RegisteredAction,
    mut output: ToolOutput,
    field_warnings: Vec<ToolError>,
) -> ToolOutput {
    if let Some(replacement) = &action.deprecated {
        output = output.with_warning(ToolError::deprecated_action(&action.dotted, replacement));
    }
    for warning in field_warnings {
        output = output.with_warning(warning);
    }
    output
}

/// One span per call (level debug: failures are normal traffic and must
/// cost nothing unless asked for, DESIGN "Speed").
fn call_span(ctx: &CallContext) -> Span {
    tracing::debug_span!(
        target: TARGET,
        "tool_call",
        tool = %ctx.tool(),
        action = %ctx.action().unwrap_or(""),
        caller = tracing::field::Empty,
        outcome = tracing::field::Empty,
        code = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    )
}

/// The one place a routed call's final outcome is told: the span's fields
/// and the metrics, with the same words.
fn told(
    span: &Span,
    ctx: &CallContext,
    labels: &ActionLabels,
    outcome: &Result<Tooled, ToolError>,
    took: Duration,
) {
    let (result, code) = match outcome {
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
        tracing::debug!(target: TARGET, parent: span, "tool call finished");
    }
    #[cfg(feature = "otel")]
    crate::telemetry::operation::record_call(ctx.action(), &code);
    record_call(labels, result, code, Some(took));
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
