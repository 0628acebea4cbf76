//! Every request a [`FusionClient`] sends goes through [`FusionClient::sent`]:
//! within [`ClientOptions::call_timeout`](super::ClientOptions::call_timeout)
//! and, with the `otel` feature, in its CLIENT span, whose context goes out
//! in the request's `params._meta` (MCP SEP-414; [`crate::telemetry`]).

use std::future::Future;

use rmcp::model::{PaginatedRequestParams, RequestParamsMeta};

use super::answer::{Answer, Named};
use super::error::FusionClientError;
use super::fusion_client::FusionClient;

impl FusionClient {
    /// Sends `params` as a `method` request naming what `named` reads of
    /// them, with `send`, within the call time limit (see [`limited`](Self::limited)); with
    /// the `otel` feature, in its CLIENT span, `params._meta` carrying the
    /// span's context.
    ///
    /// # Errors
    ///
    /// As [`limited`](Self::limited).
    pub(super) async fn sent<P, T, F, Fut>(
        &self,
        method: &'static str,
        named: fn(&P) -> Named<'_>,
        #[allow(unused_mut)] mut params: P,
        send: F,
    ) -> Result<T, FusionClientError>
    where
        P: RequestParamsMeta,
        F: FnOnce(P) -> Fut,
        Fut: Future<Output = Result<T, rmcp::ServiceError>>,
        T: Answer,
    {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::context::FutureExt as _;
            let operation =
                self.telemetry
                    .start(method, named(&params).into(), self.protocol_version());
            crate::telemetry::client::carry(&operation, params.meta_mut());
            let request = send(params).with_context(operation.context().clone());
            let result = self.limited(request).await;
            operation.end(super::answer::outcome(&result));
            result
        }
        #[cfg(not(feature = "otel"))]
        {
            let _ = (method, named);
            self.limited(send(params)).await
        }
    }

    /// One page of the list `method` from `cursor` (`None`: the first),
    /// sent with `send` as [`sent`](Self::sent) sends a request.
    ///
    /// # Errors
    ///
    /// As [`limited`](Self::limited).
    pub(super) async fn page<T, F, Fut>(
        &self,
        method: &'static str,
        cursor: Option<String>,
        send: F,
    ) -> Result<T, FusionClientError>
    where
        F: FnOnce(Option<PaginatedRequestParams>) -> Fut,
        Fut: Future<Output = Result<T, rmcp::ServiceError>>,
        T: Answer,
    {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        self.sent(method, |_| Named::Nothing, params, |p| send(Some(p)))
            .await
    }
}
