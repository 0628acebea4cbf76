//! The client features a server may ask a [`FusionClient`](super::FusionClient)
//! for (MCP "Client Features"): elicitation, sampling and roots. Each is
//! declared in the client's capabilities only when a handler is given
//! ([`ClientOptions`](super::ClientOptions)), and answered the same way on
//! both revisions: a server request on 2025-11-25, an entry of an
//! input-required result's `inputRequests` on 2026-07-28 (rmcp answers each
//! through these handlers and retries the request with `inputResponses` and
//! the `requestState` as received; basic/patterns/mrtr).

// Sampling and roots are deprecated by SEP-2577 (2026-07-28) in rmcp's
// types; both revisions still define them, so the client still answers them.
#![allow(deprecated)]

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorData,
    Root,
};

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Answers `elicitation/create` (MCP 2025-11-25 / 2026-07-28
/// client/elicitation): the form (`requestedSchema`) or the URL the server
/// asks the user about, and the user's answer (`accept` with `content`
/// matching the schema, `decline` or `cancel`). With it the client declares
/// the `elicitation` capability with form and URL mode.
#[derive(Clone)]
pub struct ElicitationHandler(
    Arc<dyn Fn(ElicitRequestParams) -> Boxed<ElicitResult> + Send + Sync>,
);

impl ElicitationHandler {
    /// The handler `answer`, an async function of the request.
    pub fn new<F, Fut>(answer: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        ElicitationHandler(Arc::new(move |request| Box::pin(answer(request))))
    }

    pub(crate) async fn answer(&self, request: ElicitRequestParams) -> ElicitResult {
        (self.0)(request).await
    }
}

impl fmt::Debug for ElicitationHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ElicitationHandler")
    }
}

/// Answers `sampling/createMessage` (MCP client/sampling; deprecated by
/// 2026-07-28, still served): the messages the server wants a model to
/// continue, and the model's message, or an `ErrorData` (the spec's
/// example for a refusal is code `-1`, "User rejected sampling request").
/// With it the client declares the `sampling` capability.
#[derive(Clone)]
pub struct SamplingHandler(
    Arc<
        dyn Fn(CreateMessageRequestParams) -> Boxed<Result<CreateMessageResult, ErrorData>>
            + Send
            + Sync,
    >,
);

impl SamplingHandler {
    /// The handler `answer`, an async function of the request.
    pub fn new<F, Fut>(answer: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorData>> + Send + 'static,
    {
        SamplingHandler(Arc::new(move |request| Box::pin(answer(request))))
    }

    pub(crate) async fn answer(
        &self,
        request: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorData> {
        (self.0)(request).await
    }
}

impl fmt::Debug for SamplingHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SamplingHandler")
    }
}

/// The roots a client offers (MCP client/roots; deprecated by 2026-07-28,
/// still served): each a `file://` URI and an optional name, the answer to
/// `roots/list`. Given, the client declares the `roots` capability
/// (without `listChanged`: the list is fixed for the connection).
pub type Roots = Arc<Vec<Root>>;
