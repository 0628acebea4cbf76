//! Middleware: tower layers over the call path, and an axum-style [`from_fn`].
//!
//! Every stage after validation is a tower [`Service`] from [`Call`] to
//! [`Output`] with [`ToolError`] as its error, for every capability (an
//! action, a prompt, a resource, a completer: [`CallContext::capability`]
//! says which). A middleware sees validated
//! arguments and may end the call early with `Err`: its error type is anything
//! `Into<ToolError>`, as a handler's is, and follows the same rule (a
//! `ToolError` reaches the wire intact, [`ToolError::internal`] and any other
//! unexpected error become the masked `INTERNAL_ERROR`; wire contract §6).
//! That happens once, where the call path began, outside every middleware:
//! a middleware sees the errors of the path inside it as they were returned
//! (a [`ToolError::internal`] still holds its `internal` source), and a
//! panic inside it unwinds through it, as in tower.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

use super::Call;
use crate::error::ToolError;
#[cfg(doc)]
use crate::handler::CallContext;
use crate::handler::{Erased, Output};

/// The call path from a middleware inward, boxed: `Call -> Result<Output, ToolError>`.
pub type CallService = BoxCloneSyncService<Call, Output, ToolError>;

/// A layer as the server builder stores it: wraps a [`CallService`].
pub(crate) type BoxLayer = Arc<dyn Fn(CallService) -> CallService + Send + Sync>;

/// Boxes any tower layer whose service speaks the call path.
pub(crate) fn box_layer<L>(layer: L) -> BoxLayer
where
    L: Layer<CallService> + Send + Sync + 'static,
    L::Service: Service<Call, Response = Output, Error = ToolError> + Clone + Send + Sync + 'static,
    <L::Service as Service<Call>>::Future: Send + 'static,
{
    Arc::new(move |inner| BoxCloneSyncService::new(layer.layer(inner)))
}

/// The innermost service: runs `handler`, its success as an [`Output`].
/// Its errors go out as they are, and a panic unwinds, through the
/// middleware around it to the call path's one boundary
/// (`dispatch::guarded`), where both become `INTERNAL_ERROR`.
pub(crate) fn handler_service<O>(handler: Erased<O>) -> CallService
where
    O: Into<Output> + Send + 'static,
{
    BoxCloneSyncService::new(tower::service_fn(move |call: Call| {
        let handler = handler(call.ctx, call.args);
        async move { handler.await.map(Into::into) }
    }))
}

/// The rest of the call path, handed to a [`from_fn`] middleware.
#[derive(Clone)]
pub struct Next {
    inner: CallService,
}

impl Next {
    /// Runs the rest of the path (inner middleware, then the handler) on `call`.
    pub async fn run(self, call: Call) -> Result<Output, ToolError> {
        self.inner.oneshot(call).await
    }
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Next")
    }
}

/// A middleware from an async function, as axum's `middleware::from_fn`:
///
/// ```
/// use mcp_fusion::pipeline::{from_fn, Call, Next};
/// use mcp_fusion::ToolError;
///
/// let audit = from_fn(|call: Call, next: Next| async move {
///     if call.ctx.name() == "billing.void_invoice" && call.args.get("reason").is_none() {
///         return Err(ToolError::forbidden("Voiding needs a reason.").suggest("Add a reason."));
///     }
///     next.run(call).await
/// });
/// # let _ = audit;
/// ```
///
/// `f` returns `Result<R, E>`: `R` is the [`Output`] `next.run` gave, or any
/// success that converts into one (`ToolOutput::text("cached")` for a tool);
/// `E` any error type that converts into a [`ToolError`] (a `ToolError` is
/// kept, a [`ToolError::internal`] becomes the masked `INTERNAL_ERROR`).
pub fn from_fn<F>(f: F) -> FromFnLayer<F> {
    FromFnLayer { f }
}

/// The [`Layer`] made by [`from_fn`].
#[derive(Clone)]
pub struct FromFnLayer<F> {
    f: F,
}

impl<F, S> Layer<S> for FromFnLayer<F>
where
    F: Clone,
    S: Service<Call, Response = Output, Error = ToolError> + Clone + Send + Sync + 'static,
    S::Future: Send + 'static,
{
    type Service = FromFn<F>;

    fn layer(&self, inner: S) -> Self::Service {
        FromFn {
            f: self.f.clone(),
            inner: BoxCloneSyncService::new(inner),
        }
    }
}

/// The [`Service`] made by [`from_fn`]'s layer.
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
    inner: CallService,
}

impl<F, Fut, R, E> Service<Call> for FromFn<F>
where
    F: Fn(Call, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<R, E>> + Send + 'static,
    R: Into<Output>,
    E: Into<ToolError>,
{
    type Response = Output;
    type Error = ToolError;
    type Future = BoxFuture<'static, Result<Output, ToolError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), ToolError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let next = Next {
            inner: self.inner.clone(),
        };
        let future = (self.f)(call, next);
        Box::pin(async move { future.await.map(Into::into).map_err(Into::into) })
    }
}
