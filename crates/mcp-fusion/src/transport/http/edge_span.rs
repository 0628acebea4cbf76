//! The OpenTelemetry span of an HTTP request to `/mcp` (feature `otel`),
//! outermost of the endpoint's layers, so that what the edge refuses before
//! any JSON-RPC is read (`401`, `403`, `413`, a `Host` or `Origin` refused)
//! is traced too. A SERVER span named `{method} /mcp` on the HTTP
//! conventions (`http.request.method`, `http.route`, `url.path`,
//! `http.response.status_code`; `error.type` for a 5xx answer), recorded
//! when the request carries a `traceparent` header (its parent; its context
//! rides in the request's extensions to the MCP span, which links it) or
//! when the answer is a `4xx` or `5xx`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::SystemTime;

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

/// Runs `request` through the rest of the endpoint, recording its HTTP
/// span: always when the request carries a `traceparent` header (the span
/// joins the caller's trace, and the MCP span links it), else only when
/// the answer is a refusal or a failure (`4xx`, `5xx`): a request without
/// one that the server answers is told by its MCP span alone, not by a
/// trace of its own besides.
pub(crate) async fn edge_span(
    State(tracer): State<Arc<BoxedTracer>>,
    mut request: Request,
    next: Next,
) -> Response {
    let parent = carrier::extract_headers(request.headers());
    let started = SystemTime::now();
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
    let start = |parent: &Context, attributes: Vec<KeyValue>| {
        let span = tracer
            .span_builder(span_name(method))
            .with_kind(SpanKind::Server)
            .with_start_time(started)
            .with_attributes(attributes)
            .start_with_context(&*tracer, parent);
        Context::new().with_span(span)
    };
    let joined = parent.map(|parent| start(&parent, attributes.clone()));
    request.extensions_mut().insert(EdgeContext {
        cx: joined.clone(),
        client,
    });
    let response = next.run(request).await;
    let status = response.status().as_u16();
    let recorded = match joined {
        Some(cx) => Some(cx),
        None if status >= 400 => Some(start(&Context::new(), attributes)),
        None => None,
    };
    if let Some(cx) = recorded {
        end(&cx, status);
    }
    response
}

/// Ends the span of `cx` with the answer's `status`: an error (`error.type`,
/// status `ERROR`) only for a 5xx (the HTTP conventions: a 4xx is the
/// client's to fix).
fn end(cx: &Context, status: u16) {
    let span = cx.span();
    span.set_attribute(KeyValue::new(
        "http.response.status_code",
        i64::from(status),
    ));
    if status >= 500 {
        span.set_attribute(KeyValue::new("error.type", status.to_string()));
        span.set_status(Status::error(status.to_string()));
    }
    span.end();
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
