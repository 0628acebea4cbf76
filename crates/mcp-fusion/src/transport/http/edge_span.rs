//! The OpenTelemetry span of each HTTP request to `/mcp` (feature `otel`),
//! outermost of the endpoint's layers: what the edge refuses before any
//! JSON-RPC is read (`401`, `403`, `413`, a `Host` or `Origin` refused) is
//! traced too. A SERVER span named `{method} /mcp` on the HTTP conventions
//! (`http.request.method`, `http.route`, `url.path`,
//! `http.response.status_code`; `error.type` for a 5xx answer), its parent
//! the request's `traceparent` header. Its context rides in the request's
//! extensions to the MCP span, which links it.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use opentelemetry::global::BoxedTracer;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use crate::telemetry::carrier;
use crate::telemetry::operation::client_attributes;
use crate::telemetry::server::EdgeContext;

/// The tracer the endpoint's spans are made with.
pub(crate) fn tracer() -> Arc<BoxedTracer> {
    Arc::new(crate::telemetry::instruments::tracer())
}

/// Runs `request` through the rest of the endpoint inside its HTTP span.
pub(crate) async fn edge_span(
    State(tracer): State<Arc<BoxedTracer>>,
    mut request: Request,
    next: Next,
) -> Response {
    let parent = carrier::extract_headers(request.headers()).unwrap_or_default();
    let method = known_method(request.method());
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    let mut attributes = vec![
        KeyValue::new("http.request.method", method),
        KeyValue::new("http.route", "/mcp"),
        KeyValue::new("url.path", request.uri().path().to_owned()),
        KeyValue::new("network.protocol.name", "http"),
    ];
    attributes.extend(client.into_iter().flat_map(client_attributes));
    let span = tracer
        .span_builder(span_name(method))
        .with_kind(SpanKind::Server)
        .with_attributes(attributes)
        .start_with_context(&*tracer, &parent);
    let cx = Context::new().with_span(span);
    request.extensions_mut().insert(EdgeContext {
        cx: cx.clone(),
        client,
    });
    let response = next.run(request).await;
    let span = cx.span();
    let status = response.status().as_u16();
    span.set_attribute(KeyValue::new(
        "http.response.status_code",
        i64::from(status),
    ));
    if status >= 500 {
        span.set_attribute(KeyValue::new("error.type", status.to_string()));
        span.set_status(Status::error(status.to_string()));
    }
    span.end();
    response
}

/// `http.request.method` of a request whose method is `method`: one of the
/// standard methods (RFC 9110, RFC 5789), else `_OTHER` (the HTTP
/// conventions): any token is a method, and the caller's would make every
/// request a new span name.
fn known_method(method: &http::Method) -> &'static str {
    use http::Method;
    static KNOWN: [Method; 9] = [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::CONNECT,
        Method::OPTIONS,
        Method::TRACE,
        Method::PATCH,
    ];
    KNOWN
        .iter()
        .find(|known| *known == method)
        .map_or(crate::telemetry::conventions::OTHER_METHOD, Method::as_str)
}

/// The span's name: `{method} /mcp`, or `HTTP /mcp` for an `_OTHER` method
/// (the HTTP conventions).
fn span_name(method: &'static str) -> String {
    match method == crate::telemetry::conventions::OTHER_METHOD {
        true => String::from("HTTP /mcp"),
        false => format!("{method} /mcp"),
    }
}
