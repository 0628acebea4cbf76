//! [`guarded`]: a capability's [`Callable`] run for one call, the part of
//! the path every capability shares (guards, validation, middleware,
//! handler), with the client's cancellation and the input rounds around it.
//! It is the call path's one panic boundary and the one place an unmarked
//! failure becomes `INTERNAL_ERROR` ([`catch_panic`]).

use serde_json::Value;
use tower::ServiceExt;

use crate::capability::Callable;
use crate::error::{ToolError, ValidationFailure};
use crate::handler::{CallContext, Capability, FromOutput, until_input};
use crate::pipeline::{Call, Outcome, catch_panic};

/// How a guarded call ended, its success as the capability's own type.
pub(crate) enum Guarded<T> {
    /// The handler's success (or a middleware's in its place).
    Output(T),
    /// Validation refused the arguments before any middleware ran.
    Invalid(ValidationFailure),
    /// On 2026-07-28, the handler stopped where it waits for the client's
    /// input: the adapter answers with the input-required result.
    Stopped,
}

/// Runs `callable` (guards, validation, middleware, handler) for the call
/// in `ctx` with `args`. A panic anywhere on that path, and every error
/// that is not a marked [`ToolError`], becomes the masked `INTERNAL_ERROR`
/// here and nowhere else, as does a success of another kind than `T` (a
/// middleware that answered with another capability's); the client's
/// cancellation ends it with `CANCELLED`; on MCP 2026-07-28 a handler that
/// waits for an answer the client has not given yet is stopped there
/// ([`Guarded::Stopped`]).
pub(crate) async fn guarded<T: FromOutput>(
    callable: &Callable,
    ctx: &CallContext,
    args: Value,
) -> Result<Guarded<T>, ToolError> {
    let call = Call {
        ctx: ctx.clone(),
        args,
    };
    let work = catch_panic(ctx, async {
        typed(ctx, callable.service.clone().oneshot(call).await?)
    });
    // On 2026-07-28 the handler stops where it waits for an answer the
    // client has not given yet (`InputRounds`).
    let work = async {
        match ctx.inner.client.as_ref().and_then(|c| c.rounds()) {
            Some(rounds) => until_input(rounds, work)
                .await
                .unwrap_or(Ok(Guarded::Stopped)),
            None => work.await,
        }
    };
    // The connection's end cancels the call's own token, so that work the
    // handler handed it to stops too.
    let ended = async {
        match &ctx.inner.ended {
            Some(ended) => ended.cancelled().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        () = ctx.cancellation().cancelled() => Err(ToolError::cancelled_by_client(ctx.name())),
        () = ended => {
            ctx.cancellation().cancel();
            Err(ToolError::cancelled_by_client(ctx.name()))
        }
        outcome = work => outcome,
    }
}

/// `outcome` with its success as `T`; a success of another kind is the
/// server's fault (an unmarked error, for [`catch_panic`] to mask).
fn typed<T: FromOutput>(ctx: &CallContext, outcome: Outcome) -> Result<Guarded<T>, ToolError> {
    match outcome {
        Outcome::Output(output) => T::from_output(output).map(Guarded::Output).ok_or_else(|| {
            let asked = match ctx.capability() {
                Capability::Tool => String::from("a tool call"),
                other => format!("a {other} request"),
            };
            ToolError::internal(format!(
                "a middleware answered {asked} with another capability's success"
            ))
        }),
        Outcome::Invalid(failure) => Ok(Guarded::Invalid(failure)),
    }
}
