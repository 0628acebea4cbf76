//! The state gate on the call path: refuses a call its session's state does
//! not allow, and moves the session after a successful one.

use std::sync::Arc;

use futures::future::BoxFuture;
use tower::ServiceExt;

use super::gates::{ActionGate, has_session};
use super::refusal;
use crate::error::ToolError;
use crate::guard::layer::Guard;
use crate::handler::Output;
use crate::pipeline::{ActionService, Call, Outcome};

/// One action's state gate.
pub(crate) struct StateGateGuard {
    pub(crate) gate: ActionGate,
}

/// Whether `outcome` is a success (a warning is one; a validation failure
/// or a result marked `isError` is not).
fn succeeded(outcome: &Outcome) -> bool {
    match outcome {
        Outcome::Output(Output::Tool(output)) => !output.is_error_result(),
        Outcome::Output(_) => true,
        Outcome::Invalid(_) => false,
    }
}

impl Guard for StateGateGuard {
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>> {
        let caller = call.ctx.caller().to_owned();
        if !has_session(&caller) {
            let refused = refusal::no_session(&self.gate, call.ctx.name());
            return Box::pin(std::future::ready(Err(refused)));
        }
        Box::pin(async move {
            // Held until the call and its move end.
            let _turn = self.gate.turn(&caller).await;
            let state = self.gate.current_shared(&caller).await;
            if !self.gate.allows(&state) {
                return Err(refusal::not_now(&self.gate, call.ctx.name(), &state));
            }
            let outcome = next.oneshot(call).await?;
            if succeeded(&outcome) {
                self.gate.moved(&caller, &state).await;
            }
            Ok(outcome)
        })
    }
}
