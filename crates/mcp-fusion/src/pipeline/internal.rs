//! Unmarked failures — errors that are not a [`ToolError`], and panics — become
//! `INTERNAL_ERROR` (wire contract §6), in one place: [`catch_panic`], which
//! `dispatch::guarded` puts around a call's whole guarded path.

use std::any::Any;
use std::error::Error as StdError;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

use crate::error::{BoxError, ErrorCode, ToolError};
use crate::handler::CallContext;

/// The first sentence after the error id of every `INTERNAL_ERROR` message:
/// the failure is this call's, not the server's.
const INTERNAL_STILL_RUNNING: &str = "The server is still running and its other actions work.";

/// The recovery line of every `INTERNAL_ERROR` (§5: do not retry blindly).
const INTERNAL_RECOVERY: &str = "Retry this call once. If it fails again, do not retry it: call another action, or tell the user the action failed and give them the error id.";

/// `error` ready for the wire: an `INTERNAL_ERROR` still holding its
/// unexpected source ([`ToolError::internal`]) is logged and masked by
/// [`internal_error`]; any other error is returned unchanged.
fn resolve(ctx: &CallContext, mut error: ToolError) -> ToolError {
    match error.internal.take() {
        Some(source) => internal_error(ctx, source.as_ref()),
        None => error,
    }
}

/// `error` and its `source()` chain in one line: `top: cause: deeper cause`.
fn chain(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// An `INTERNAL_ERROR` for the call in `ctx`: the model gets the action name,
/// a fresh error id (12 hex digits), that the server still runs, and what to
/// do next; `internal` and its whole `source()` chain go to the log
/// (`tracing`, level error, fields `error_id`, `action`, `error`) and, only
/// when the server exposes internal errors, into an `internal_error` detail.
fn internal_error(ctx: &CallContext, internal: &(dyn StdError + 'static)) -> ToolError {
    let error_id = new_error_id();
    let internal = chain(internal);
    tracing::error!(error_id = %error_id, action = %ctx.name(), error = %internal, "tool call failed with an internal error");
    let mut err = ToolError::new(
        ErrorCode::InternalError,
        format!(
            "{} failed with an internal error (error id {error_id}). {INTERNAL_STILL_RUNNING}",
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

/// Runs `future`, turning a panic inside it into an `INTERNAL_ERROR` for
/// `ctx`, and resolving every error it returns ([`resolve`]). The panic
/// payload's text is logged like any internal error; the task and the server
/// go on.
pub(crate) async fn catch_panic<F, T>(ctx: &CallContext, future: F) -> Result<T, ToolError>
where
    F: Future<Output = Result<T, ToolError>>,
{
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => result.map_err(|e| resolve(ctx, e)),
        Err(payload) => {
            let text = format!("panic: {}", panic_text(payload.as_ref()));
            Err(internal_error(ctx, BoxError::from(text).as_ref()))
        }
    }
}

/// A panic payload's message: the `&str` or `String` it was given, else a
/// placeholder.
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
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

    /// A marked [`ToolError`] (the error itself or one in its `source()`
    /// chain) is returned as it is; anything else becomes the masked
    /// [`internal_error`], as a handler's `BoxError` does.
    fn classify(ctx: &CallContext, error: BoxError) -> ToolError {
        resolve(ctx, ToolError::from(error))
    }

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
        assert!(
            internal
                .message
                .ends_with("). The server is still running and its other actions work."),
            "{}",
            internal.message
        );
        assert_eq!(internal.recovery.as_deref(), Some(INTERNAL_RECOVERY));
        assert_eq!(internal.details.len(), 1);
        assert_eq!(internal.details[0].0, "error_id");
        assert!(!internal.message.contains("disk on fire"));
        assert!(internal.internal.is_none(), "resolved: nothing left to log");
    }

    #[derive(Debug, thiserror::Error)]
    #[error("the invoice store failed")]
    struct Store(#[source] std::io::Error);

    #[test]
    fn the_whole_source_chain_is_logged_text() {
        let error = Store(std::io::Error::other("disk on fire"));
        assert_eq!(chain(&error), "the invoice store failed: disk on fire");
        let ctx = CallContext::detached("billing", Some("get_invoice"));
        let err = resolve(&ctx, ToolError::internal(error));
        assert_eq!(err.code, ErrorCode::InternalError);
        assert!(!err.message.contains("disk"), "{}", err.message);
        assert!(err.internal.is_none());
    }
}
