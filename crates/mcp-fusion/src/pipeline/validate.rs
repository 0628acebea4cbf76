//! The validation stage as a service: arguments that miss the action's schema
//! end the call with a [`ValidationFailure`]; the rest go on to the middleware
//! and the handler (wire contract §4: the handler never sees invalid input).

use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use tower::util::BoxCloneSyncService;
use tower::{Service, ServiceExt};

use super::{Call, CallService};
use crate::error::{ToolError, ValidationFailure};
use crate::handler::Output;
use crate::present::{Presentation, SELECT};
use crate::validation::SchemaValidator;

/// How a call that passed the guards ended: with the handler's output, or
/// rejected by validation before any middleware ran.
#[derive(Debug)]
pub(crate) enum Outcome {
    Output(Output),
    Invalid(ValidationFailure),
}

/// An action's whole stack: guards, then validation, then middleware and handler.
pub(crate) type ActionService = BoxCloneSyncService<Call, Outcome, ToolError>;

/// Validates `call.args` in place (when there is an input schema), then runs
/// the inner stack; with an output validator, checks an action's success
/// against its `outputSchema` before it goes on (a mismatch is the server's
/// fault: an unmarked error, masked as `INTERNAL_ERROR` where the call path
/// began, `dispatch::guarded`).
#[derive(Clone)]
pub(crate) struct Validate {
    pub validator: Option<SchemaValidator>,
    pub output: Option<SchemaValidator>,
    /// An action's presenter: it presents the success (wire contract §9.1).
    pub presentation: Option<Arc<Presentation>>,
    pub inner: CallService,
}

impl Service<Call> for Validate {
    type Response = Outcome;
    type Error = ToolError;
    type Future = BoxFuture<'static, Result<Outcome, ToolError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), ToolError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut call: Call) -> Self::Future {
        if let Some(validator) = &self.validator
            && let Err(failure) = validator.check_call(call.ctx.name(), &mut call.args)
        {
            tracing::debug!(action = %call.ctx.name(), problems = failure.fields.len(), "invalid arguments");
            return Box::pin(std::future::ready(Ok(Outcome::Invalid(failure))));
        }
        let inner = self.inner.clone();
        if let Some(presentation) = self.presentation.clone() {
            return Box::pin(presented(presentation, inner, call));
        }
        let Some(output) = self.output.clone() else {
            return Box::pin(async move { inner.oneshot(call).await.map(Outcome::Output) });
        };
        Box::pin(async move {
            let produced = inner.oneshot(call).await?;
            let structured = match &produced {
                Output::Tool(tool) => tool.structured_value(),
                _ => None,
            };
            let checked = match structured {
                Some(value) => output.check(value),
                None => Err(String::from(
                    "the success has no structured content, but the action declares an outputSchema",
                )),
            };
            match checked {
                Ok(()) => Ok(Outcome::Output(produced)),
                Err(problems) => Err(ToolError::internal(format!(
                    "the result does not match the action's outputSchema: {problems}"
                ))),
            }
        })
    }
}

/// Runs `inner` for `call` and presents its success with `presentation`;
/// the `_select` argument, validated already, is taken out of the
/// arguments before the handler reads them.
async fn presented(
    presentation: Arc<Presentation>,
    inner: CallService,
    mut call: Call,
) -> Result<Outcome, ToolError> {
    let select = match presentation.presenter().selects() {
        true => call
            .args
            .as_object_mut()
            .and_then(|args| args.remove(SELECT)),
        false => None,
    };
    match inner.oneshot(call).await? {
        Output::Tool(tool) => Ok(Outcome::Output(Output::Tool(
            presentation.present(tool, select.as_ref())?,
        ))),
        other => Ok(Outcome::Output(other)),
    }
}
