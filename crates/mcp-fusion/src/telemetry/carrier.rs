//! Trace context in a request's `params._meta` (MCP SEP-414: the W3C keys
//! `traceparent`, `tracestate` and `baggage`, unprefixed) read and written
//! with the configured OpenTelemetry propagator.

use opentelemetry::Context;
use opentelemetry::propagation::Extractor;
#[cfg(feature = "client")]
use opentelemetry::propagation::Injector;
use serde_json::{Map, Value};

/// A `_meta` object read as a propagation carrier: only its string values.
struct MetaExtractor<'a>(&'a Map<String, Value>);

impl Extractor for MetaExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

#[cfg(feature = "client")]
/// A `_meta` object written as a propagation carrier: what the propagator
/// writes replaces what was there (a gateway's own context replaces its
/// caller's).
struct MetaInjector<'a>(&'a mut Map<String, Value>);

#[cfg(feature = "client")]
impl Injector for MetaInjector<'_> {
    /// An empty value (`tracestate` when there is none) is not written.
    fn set(&mut self, key: &str, value: String) {
        if !value.is_empty() {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }
}

/// The remote context `meta` carries, when it carries one (`traceparent`).
pub(crate) fn extract(meta: &Map<String, Value>) -> Option<Context> {
    meta.get("traceparent")?;
    let cx = opentelemetry::global::get_text_map_propagator(|p| p.extract(&MetaExtractor(meta)));
    has_remote_span(&cx).then_some(cx)
}

/// The remote context an HTTP request's `traceparent` header carries.
pub(crate) fn extract_headers(headers: &http::HeaderMap) -> Option<Context> {
    headers.get("traceparent")?;
    let carrier = opentelemetry_http::HeaderExtractor(headers);
    let cx = opentelemetry::global::get_text_map_propagator(|p| p.extract(&carrier));
    has_remote_span(&cx).then_some(cx)
}

#[cfg(feature = "client")]
/// Writes `cx` into `meta` (nothing when `cx` holds no valid span).
pub(crate) fn inject(cx: &Context, meta: &mut Map<String, Value>) {
    opentelemetry::global::get_text_map_propagator(|p| {
        p.inject_context(cx, &mut MetaInjector(meta));
    });
}

fn has_remote_span(cx: &Context) -> bool {
    use opentelemetry::trace::TraceContextExt;
    cx.span().span_context().is_valid()
}
