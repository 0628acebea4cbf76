//! One MCP operation as OpenTelemetry sees it: a span named and attributed
//! as the MCP conventions say, and one measure of its duration, recorded
//! once, when it ends (or when it is dropped unanswered: cancelled).

use std::time::Instant;

use opentelemetry::metrics::Histogram;
use opentelemetry::trace::{Link, Span as _, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use super::conventions as names;
use crate::named::Named;

/// What is known of a request when its operation starts. Names and ids
/// only: never an argument value nor a credential.
#[derive(Default)]
pub(crate) struct Request<'a> {
    /// `mcp.method.name`.
    pub method: &'static str,
    /// `gen_ai.tool.name`, on `tools/call`.
    pub tool: Option<&'a str>,
    /// `gen_ai.prompt.name`, on `prompts/get`.
    pub prompt: Option<&'a str>,
    /// `mcp.resource.uri`, on the requests naming a resource (span only:
    /// opt-in on the metric, high cardinality).
    pub uri: Option<&'a str>,
    /// `jsonrpc.request.id`, as a string.
    pub id: Option<String>,
    /// `mcp.protocol.version`.
    pub protocol_version: Option<&'static str>,
    /// `mcp.session.id` (span only).
    pub session_id: Option<&'a str>,
    /// `network.transport`: [`names::PIPE`] or [`names::TCP`].
    pub transport: Option<&'static str>,
    /// `server.address` and `server.port` (client side, over HTTP; span only).
    pub server: Option<(String, u16)>,
    /// `client.address` and `client.port` (server side, over HTTP; span only).
    pub client: Option<std::net::SocketAddr>,
}

impl<'a> Request<'a> {
    /// A `method` request naming `named`.
    pub(crate) fn new(method: &'static str, named: Named<'a>) -> Self {
        let mut request = Request {
            method,
            ..Request::default()
        };
        match named {
            Named::Nothing => {}
            Named::Tool(tool) => request.tool = Some(tool),
            Named::Prompt(prompt) => request.prompt = Some(prompt),
            Named::Resource(uri) => request.uri = Some(uri),
        }
        request
    }
}

/// How an operation ended.
pub(crate) enum Outcome<'a> {
    /// A result, not an error.
    Ok,
    /// A `CallToolResult` with `isError: true`, with its envelope's code.
    ToolError(Option<&'a str>),
    /// A JSON-RPC error answer, with its code.
    JsonRpc(i32),
    /// Cancelled, or never answered.
    Cancelled,
    /// Failed on the client's side before an answer came: its `error.type`
    /// (`timeout`, `transport`, …).
    #[cfg(feature = "client")]
    Other(&'static str),
}

/// A started operation: its span's context (the parent of what it does)
/// and what its duration is recorded with.
pub(crate) struct Operation {
    cx: Context,
    /// The attributes shared by the span and the metric.
    measured: Vec<KeyValue>,
    /// `mcp.method.name`.
    method: &'static str,
    /// The tool or prompt the request names, with its attribute's key:
    /// added to the span's name and to the measure when it ends without a
    /// JSON-RPC error (an unknown tool or prompt is not named).
    target: Option<(&'static str, String)>,
    start: Instant,
    histogram: Histogram<f64>,
    ended: bool,
}

impl Operation {
    /// Starts the span of `request` (`kind` SERVER or CLIENT) under `parent`,
    /// linked to `links`.
    pub(crate) fn start(
        tracer: &impl Tracer<Span: Send + Sync + 'static>,
        histogram: &Histogram<f64>,
        kind: SpanKind,
        request: Request<'_>,
        parent: &Context,
        links: Vec<Link>,
    ) -> Self {
        let measured = measured(&request);
        // The tool or prompt joins the name and the measure once the
        // answer shows it exists: a name no tool has is the caller's text.
        let target = match (request.tool, request.prompt) {
            (Some(tool), _) => Some((names::GEN_AI_TOOL_NAME, clipped(tool))),
            (None, Some(prompt)) => Some((names::GEN_AI_PROMPT_NAME, clipped(prompt))),
            (None, None) => None,
        };
        let method = request.method;
        let mut span = tracer
            .span_builder(method)
            .with_kind(kind)
            .with_attributes(measured.clone())
            .with_links(links)
            .start_with_context(tracer, parent);
        // What only the span carries is written when it is recorded: a
        // sampled-out request costs no more than its measure.
        if span.is_recording() {
            span.set_attributes(unmeasured(request));
        }
        Self {
            cx: parent.with_span(span),
            measured,
            method,
            target,
            start: Instant::now(),
            histogram: histogram.clone(),
            ended: false,
        }
    }

    /// The context whose span is this operation's: what it does runs in it.
    pub(crate) fn context(&self) -> &Context {
        &self.cx
    }

    /// Ends the span with `outcome` and records the duration.
    pub(crate) fn end(mut self, outcome: Outcome<'_>) {
        self.end_with(outcome);
    }

    fn end_with(&mut self, outcome: Outcome<'_>) {
        self.ended = true;
        let span = self.cx.span();
        if let Some((key, target)) = self.target.take()
            && !matches!(outcome, Outcome::JsonRpc(_))
        {
            let attribute = KeyValue::new(key, target);
            if span.is_recording() {
                span.update_name(format!("{} {}", self.method, attribute.value));
                span.set_attribute(attribute.clone());
            }
            self.measured.push(attribute);
        }
        let error_type = match outcome {
            Outcome::Ok => None,
            Outcome::ToolError(code) => {
                // The code of a result a gateway passes on is its
                // upstream's text: kept to a bounded length.
                if let Some(code) = code {
                    span.set_attribute(KeyValue::new(names::FUSION_ERROR_CODE, clipped(code)));
                }
                Some(names::TOOL_ERROR.into())
            }
            Outcome::JsonRpc(code) => {
                let code = code.to_string();
                span.set_attribute(KeyValue::new(names::RPC_RESPONSE_STATUS_CODE, code.clone()));
                self.measured
                    .push(KeyValue::new(names::RPC_RESPONSE_STATUS_CODE, code.clone()));
                Some(code.into())
            }
            Outcome::Cancelled => Some(names::CANCELLED.into()),
            #[cfg(feature = "client")]
            Outcome::Other(kind) => Some(kind.into()),
        };
        if let Some(error_type) = error_type {
            let error_type: opentelemetry::StringValue = error_type;
            span.set_attribute(KeyValue::new(names::ERROR_TYPE, error_type.clone()));
            span.set_status(Status::error(error_type.to_string()));
            self.measured
                .push(KeyValue::new(names::ERROR_TYPE, error_type));
        }
        span.end();
        self.histogram
            .record(self.start.elapsed().as_secs_f64(), &self.measured);
    }
}

impl Drop for Operation {
    /// An operation dropped before it ended was cancelled: its future was
    /// dropped (the client cancelled it, or the connection closed).
    fn drop(&mut self) {
        if !self.ended {
            self.end_with(Outcome::Cancelled);
        }
    }
}

/// The attributes of `request` that only its span carries (high
/// cardinality): its id, URI, session and server.
fn unmeasured(request: Request<'_>) -> Vec<KeyValue> {
    let mut attributes = Vec::with_capacity(7);
    if let Some(id) = request.id {
        attributes.push(KeyValue::new(names::JSONRPC_REQUEST_ID, clipped(&id)));
    }
    if let Some(uri) = request.uri {
        attributes.push(KeyValue::new(names::MCP_RESOURCE_URI, clipped(uri)));
    }
    if let Some(session) = request.session_id {
        attributes.push(KeyValue::new(names::MCP_SESSION_ID, clipped(session)));
    }
    if let Some((address, port)) = request.server {
        attributes.push(KeyValue::new(names::SERVER_ADDRESS, address));
        attributes.push(KeyValue::new(names::SERVER_PORT, i64::from(port)));
    }
    if let Some(client) = request.client {
        attributes.extend(client_attributes(client));
    }
    attributes
}

/// At most [`names::MAX_VALUE_CHARS`] characters of `text`, a value the
/// caller sent (a tool's name, a URI, a session id, a request's id) or an
/// upstream answered (an envelope's code): what a span keeps of it.
fn clipped(text: &str) -> String {
    match text.char_indices().nth(names::MAX_VALUE_CHARS) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}

/// `client.address` and `client.port` of a caller at `address`.
pub(crate) fn client_attributes(address: std::net::SocketAddr) -> [KeyValue; 2] {
    [
        KeyValue::new(names::CLIENT_ADDRESS, address.ip().to_string()),
        KeyValue::new(names::CLIENT_PORT, i64::from(address.port())),
    ]
}

/// The attributes of `request` that both the span and the metric carry
/// (low cardinality: no id, no URI, no session).
fn measured(request: &Request<'_>) -> Vec<KeyValue> {
    let mut attributes = Vec::with_capacity(8);
    attributes.push(KeyValue::new(names::MCP_METHOD_NAME, request.method));
    if request.tool.is_some() {
        attributes.push(KeyValue::new(
            names::GEN_AI_OPERATION_NAME,
            names::EXECUTE_TOOL,
        ));
    }
    if let Some(version) = request.protocol_version {
        attributes.push(KeyValue::new(names::MCP_PROTOCOL_VERSION, version));
    }
    if let Some(transport) = request.transport {
        attributes.push(KeyValue::new(names::NETWORK_TRANSPORT, transport));
        if transport == names::TCP {
            attributes.push(KeyValue::new(names::NETWORK_PROTOCOL_NAME, "http"));
        }
    }
    attributes
}

/// Records on the operation running now what the contract adds to it:
/// the `action` a grouped tool's call reached (`mcp_fusion.action`) and the
/// envelope's `code` of a failure or of a success's first warning
/// (`mcp_fusion.error.code`). Told by the dispatch once the call is done.
pub(crate) fn record_call(action: Option<&str>, code: &str) {
    opentelemetry::trace::get_active_span(|span| {
        if let Some(action) = action {
            span.set_attribute(KeyValue::new(names::FUSION_ACTION, action.to_owned()));
        }
        if !code.is_empty() {
            span.set_attribute(KeyValue::new(names::FUSION_ERROR_CODE, clipped(code)));
        }
    });
}

#[cfg(test)]
mod tests {
    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};

    use super::*;

    /// A failed tool call whose envelope code is 100 000 characters (an
    /// upstream's answer, passed on by a gateway) keeps 256 of them.
    #[test]
    fn an_upstream_s_long_error_code_is_cut() {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let tracer = provider.tracer("test");
        let histogram = opentelemetry_sdk::metrics::SdkMeterProvider::default()
            .meter("test")
            .f64_histogram("d")
            .build();
        let request = Request::new("tools/call", Named::Tool("t"));
        let operation = Operation::start(
            &tracer,
            &histogram,
            SpanKind::Client,
            request,
            &Context::new(),
            Vec::new(),
        );
        let code = "C".repeat(100_000);
        operation.end(Outcome::ToolError(Some(&code)));
        let spans = exporter.get_finished_spans().unwrap();
        let kept = spans[0]
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == names::FUSION_ERROR_CODE)
            .map(|kv| kv.value.as_str().into_owned());
        assert_eq!(kept, Some("C".repeat(names::MAX_VALUE_CHARS)));
    }
}
