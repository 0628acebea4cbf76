//! The one tower service every guard runs in: a [`Guard`] decides, around the
//! rest of an action's stack, whether and how a call goes on.

use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use tower::Service;
use tower::util::BoxCloneSyncService;

use crate::error::ToolError;
use crate::pipeline::{ActionService, Call, Outcome};

/// One guard's logic.
pub(crate) trait Guard: Send + Sync + 'static {
    /// Runs `call` through `next` (validation, middleware, handler), or ends
    /// it with a [`ToolError`].
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>>;
}

/// `inner` behind `guard`.
pub(crate) fn wrap(guard: Arc<dyn Guard>, inner: ActionService) -> ActionService {
    BoxCloneSyncService::new(GuardService { guard, inner })
}

#[derive(Clone)]
struct GuardService {
    guard: Arc<dyn Guard>,
    inner: ActionService,
}

impl Service<Call> for GuardService {
    type Response = Outcome;
    type Error = ToolError;
    type Future = BoxFuture<'static, Result<Outcome, ToolError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), ToolError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        Arc::clone(&self.guard).around(call, self.inner.clone())
    }
}
