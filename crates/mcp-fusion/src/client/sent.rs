//! Every request a [`FusionClient`] sends goes through [`FusionClient::sent`]:
//! within [`ClientOptions::call_timeout`](super::ClientOptions::call_timeout)
//! and, with the `otel` feature, in its CLIENT span, whose context goes out
//! in the request's `params._meta` (MCP SEP-414; [`crate::telemetry`]).

use std::future::Future;

use rmcp::model::{PaginatedRequestParams, RequestParamsMeta};

use super::answer::Answer;
use super::error::FusionClientError;
use super::fusion_client::FusionClient;
use super::response_cache::{Cacheable, Lookup, page_key};
use crate::named::Named;

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
        if let Some(telemetry) = &self.telemetry {
            use opentelemetry::context::FutureExt as _;
            let operation = telemetry.start(method, named(&params), self.protocol_version());
            crate::telemetry::client::carry(&operation, params.meta_mut());
            let request = send(params).with_context(operation.context().clone());
            let result = self.limited(request).await;
            operation.end(super::answer::outcome(&result));
            return result;
        }
        let _ = (method, named);
        self.limited(send(params)).await
    }

    /// One page of the list `method` from `cursor` (`None`: the first),
    /// sent with `send` as [`sent`](Self::sent) sends a request; from the
    /// shared response cache while it is fresh there, and kept there for
    /// its `ttlMs` (rmcp's peer does the same in memory).
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
        T: Answer + Cacheable,
    {
        let key = page_key(method, cursor.as_deref());
        let revision = self.revision();
        let seen = match self.cached.lookup(&revision, &key).await {
            Lookup::Fresh(fresh) => return Ok(fresh),
            Lookup::Miss(seen) => seen,
        };
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = self
            .sent(method, |_| Named::Nothing, params, |p| send(Some(p)))
            .await?;
        self.cached.keep(&revision, &key, &page, seen).await;
        Ok(page)
    }

    /// Sends `ping`: with the `otel` feature, in its CLIENT span when
    /// `traced`, else carrying a context marked not sampled.
    ///
    /// # Errors
    ///
    /// As [`limited`](Self::limited).
    pub(super) async fn sent_ping(&self, traced: bool) -> Result<(), FusionClientError> {
        #[allow(unused_mut)]
        let mut request = rmcp::model::ClientRequest::PingRequest(Default::default());
        #[cfg(feature = "otel")]
        if let Some(telemetry) = &self.telemetry {
            use crate::telemetry::client::{carry, carry_unsampled};
            use opentelemetry::context::FutureExt as _;
            use rmcp::model::GetMeta as _;
            let meta = request.get_meta_mut();
            if !traced {
                carry_unsampled(meta);
                let sent = self.service.send_request(request);
                return self.limited(sent).await.map(|_| ());
            }
            let operation = telemetry.start("ping", Named::Nothing, self.protocol_version());
            let mut carried = Some(std::mem::take(meta));
            carry(&operation, &mut carried);
            *meta = carried.unwrap_or_default();
            let sent = self.service.send_request(request);
            let result = self
                .limited(sent.with_context(operation.context().clone()))
                .await;
            operation.end(super::answer::outcome(&result));
            return result.map(|_| ());
        }
        let _ = traced;
        self.limited(self.service.send_request(request))
            .await
            .map(|_| ())
    }
}
