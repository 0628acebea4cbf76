//! Unmarked failures — errors that are not a [`ToolError`], and panics — become
//! `INTERNAL_ERROR` (wire contract §6).

use std::any::Any;
use std::error::Error as StdError;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

use super::CallContext;
use crate::error::{ErrorCode, ToolError};

/// Any error a handler or middleware may return. A [`ToolError`] anywhere in its
/// `source()` chain is marked and reaches the wire unchanged; anything else is
/// unmarked and becomes `INTERNAL_ERROR`.
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// The recovery line of every `INTERNAL_ERROR` (§5: do not retry blindly).
pub const INTERNAL_RECOVERY: &str = "Do not retry this call blindly: the same call is likely to fail again. Tell the user the action failed and give them the error id, or try a different approach.";

/// Classifies `error`: a marked [`ToolError`] (the error itself or one in its
/// `source()` chain) is returned as it is; anything else is logged with a new
/// error id and replaced by [`internal_error`].
pub fn classify(ctx: &CallContext, error: BoxError) -> ToolError {
    let error = match error.downcast::<ToolError>() {
        Ok(marked) => return *marked,
        Err(error) => error,
    };
    let mut source = error.source();
    while let Some(inner) = source {
        if let Some(marked) = inner.downcast_ref::<ToolError>() {
            return marked.clone();
        }
        source = inner.source();
    }
    internal_error(ctx, &error.to_string())
}

/// An `INTERNAL_ERROR` for the call in `ctx`: the model gets the action name
/// and a fresh error id (12 hex digits); `internal` goes to the log (`tracing`,
/// level error, fields `error_id`, `action`) and, only when the server exposes
/// internal errors, into a `internal_error` detail.
pub fn internal_error(ctx: &CallContext, internal: &str) -> ToolError {
    let error_id = new_error_id();
    tracing::error!(error_id = %error_id, action = %ctx.name(), error = %internal, "tool call failed with an internal error");
    let mut err = ToolError::new(
        ErrorCode::InternalError,
        format!(
            "{} failed with an internal error (error id {error_id}).",
            ctx.name()
        ),
    )
    .suggest(INTERNAL_RECOVERY)
    .detail("error_id", &error_id);
    if ctx.exposes_internal_errors() {
        err = err.detail("internal_error", internal);
    }
    err
}

/// Runs `future`, turning a panic inside it into an `INTERNAL_ERROR` for `ctx`.
/// The panic payload's text is logged like any internal error; the task and the
/// server go on.
pub async fn catch_panic<F, T>(ctx: &CallContext, future: F) -> Result<T, ToolError>
where
    F: Future<Output = Result<T, ToolError>>,
{
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => result,
        Err(payload) => Err(internal_error(
            ctx,
            &format!("panic: {}", panic_text(payload.as_ref())),
        )),
    }
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        String::from("(a panic without a message)")
    }
}

fn new_error_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("wrapped")]
    struct Wrapper(#[source] ToolError);

    #[test]
    fn marked_errors_pass_and_others_become_internal() {
        let ctx = CallContext::detached("billing", Some("get_invoice"));
        let marked = classify(&ctx, Box::new(ToolError::not_found("gone")));
        assert_eq!(marked, ToolError::not_found("gone"));
        let wrapped = classify(&ctx, Box::new(Wrapper(ToolError::conflict("paid"))));
        assert_eq!(wrapped, ToolError::conflict("paid"));
        let io = std::io::Error::other("disk on fire");
        let internal = classify(&ctx, Box::new(io));
        assert_eq!(internal.code, ErrorCode::InternalError);
        assert!(
            internal
                .message
                .starts_with("billing.get_invoice failed with an internal error (error id ")
        );
        assert_eq!(internal.recovery.as_deref(), Some(INTERNAL_RECOVERY));
        assert_eq!(internal.details.len(), 1);
        assert_eq!(internal.details[0].0, "error_id");
        assert!(!internal.message.contains("disk on fire"));
    }
}
