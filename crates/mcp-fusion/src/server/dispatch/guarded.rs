//! [`guarded`]: a capability's [`Callable`] run for one call, the part of
//! the path every capability shares (guards, validation, middleware,
//! handler), with the client's cancellation and the input rounds around it.

use serde_json::Value;
use tower::ServiceExt;

use crate::capability::Callable;
use crate::error::{ErrorCode, ToolError};
use crate::handler::{CallContext, until_input};
use crate::pipeline::{Call, Outcome, catch_panic};

/// Runs `callable` (guards, validation, middleware, handler) for the call
/// in `ctx` with `args`: a panic becomes `INTERNAL_ERROR`, the client's
/// cancellation ends it with `CANCELLED`; on MCP 2026-07-28 a handler that
/// waits for an answer the client has not given yet is stopped there
/// ([`Outcome::Stopped`]).
pub(crate) async fn guarded(
    callable: &Callable,
    ctx: &CallContext,
    args: Value,
) -> Result<Outcome, ToolError> {
    let call = Call {
        ctx: ctx.clone(),
        args,
    };
    let work = catch_panic(ctx, callable.service.clone().oneshot(call));
    // On 2026-07-28 the handler stops where it waits for an answer the
    // client has not given yet (`InputRounds`).
    let work = async {
        match ctx.inner.client.as_ref().and_then(|c| c.rounds()) {
            Some(rounds) => until_input(rounds, work)
                .await
                .unwrap_or(Ok(Outcome::Stopped)),
            None => work.await,
        }
    };
    tokio::select! {
        biased;
        () = ctx.cancellation().cancelled() => Err(
            ToolError::new(ErrorCode::Cancelled, format!("The call of {} was cancelled by the client.", ctx.name()))
        ),
        outcome = work => outcome,
    }
}
