//! The CLIENT side: a span per request sent, a child of the context current
//! when it is sent, whose context goes out in the request's `params._meta`
//! (MCP SEP-414), and `mcp.client.operation.duration`.

use opentelemetry::Context;
use opentelemetry::trace::SpanKind;
use rmcp::model::RequestMetaObject;
use serde_json::Map;

use super::carrier;
use super::conventions::{PIPE, TCP};
use super::instruments::Instruments;
use super::operation::{Operation, Request};
use crate::named::Named;

/// A client's instruments and what its requests' spans say of the server.
pub(crate) struct ClientTelemetry {
    instruments: Instruments,
    transport: &'static str,
    server: Option<(String, u16)>,
}

impl ClientTelemetry {
    /// For a client of the Streamable HTTP endpoint `url`, or (`None`) of a
    /// server over stdio or in this process, when telemetry is enabled
    /// ([`super::enable`]); `None` before.
    pub(crate) fn enabled(url: Option<&str>) -> Option<Self> {
        super::enabled().then(|| Self::new(url))
    }

    fn new(url: Option<&str>) -> Self {
        let server = url
            .and_then(|url| url::Url::parse(url).ok())
            .and_then(|url| Some((url.host_str()?.to_owned(), url.port_or_known_default()?)));
        Self {
            instruments: Instruments::from_global(),
            transport: if url.is_some() { TCP } else { PIPE },
            server,
        }
    }

    /// Starts the CLIENT operation of a `method` request naming `named`,
    /// on a connection speaking `protocol_version`, under the current
    /// context.
    pub(crate) fn start(
        &self,
        method: &'static str,
        named: Named<'_>,
        protocol_version: Option<&'static str>,
    ) -> Operation {
        let mut request = Request::new(method, named);
        request.protocol_version = protocol_version;
        request.transport = Some(self.transport);
        request.server = self.server.clone();
        Operation::start(
            &self.instruments.tracer,
            &self.instruments.client_duration,
            SpanKind::Client,
            request,
            &Context::current(),
            Vec::new(),
        )
    }
}

/// Writes `operation`'s context into a request's `meta` (created when there
/// is something to write: nothing is sent when no span is recorded).
pub(crate) fn carry(operation: &Operation, meta: &mut Option<RequestMetaObject>) {
    let mut carried = Map::new();
    carrier::inject(operation.context(), &mut carried);
    if !carried.is_empty() {
        meta.get_or_insert_with(RequestMetaObject::new)
            .0
            .0
            .extend(carried);
    }
}

/// Writes into `meta` a new context marked not sampled (W3C flags `00`):
/// a request no trace should record, e.g. a liveness probe, which a server
/// sampling by its parent (the default, `parentbased_always_on`) then
/// leaves out as well.
pub(crate) fn carry_unsampled(meta: &mut RequestMetaObject) {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    let ids = uuid::Uuid::new_v4();
    let bytes = ids.as_bytes();
    let mut span_id = [0u8; 8];
    span_id.copy_from_slice(&bytes[..8]);
    let unsampled = SpanContext::new(
        TraceId::from_bytes(*bytes),
        SpanId::from_bytes(span_id),
        TraceFlags::NOT_SAMPLED,
        true,
        TraceState::default(),
    );
    let cx = Context::new().with_remote_span_context(unsampled);
    carrier::inject(&cx, &mut meta.0.0);
}
