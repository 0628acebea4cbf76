//! The SERVER side: a request's operation from what rmcp hands the server
//! (its `params._meta`, its HTTP head), and its outcome from the answer.

use opentelemetry::Context;
use opentelemetry::trace::{Link, SpanKind, TraceContextExt};
use rmcp::service::{RequestContext, RoleServer};

use super::carrier;
use super::instruments::Instruments;
use super::operation::{Operation, Outcome, Request};
use crate::named::Named;

/// What the HTTP edge puts in a request's head for its MCP span: the
/// context of the edge's span, which the MCP span links (the MCP
/// conventions, "Context propagation": transport and MCP contexts are
/// independent), and the caller's socket address (`client.address`,
/// `client.port`).
#[derive(Clone)]
pub(crate) struct EdgeContext {
    /// The edge span's context, when it is recorded before the request
    /// goes on (the request carried a `traceparent` header).
    pub cx: Option<Context>,
    pub client: Option<std::net::SocketAddr>,
}

/// Starts the SERVER operation of a `method` request naming `named`. Its
/// parent is the context `params._meta` carries (`traceparent`), else the
/// HTTP `traceparent` header's, else none (a new trace); the HTTP contexts
/// it does not take as parent are linked.
pub(crate) fn start(
    instruments: &Instruments,
    method: &'static str,
    named: Named<'_>,
    context: &RequestContext<RoleServer>,
    transport: &'static str,
) -> Operation {
    let head = context.extensions.get::<http::request::Parts>();
    let from_meta = carrier::extract(&context.meta.0.0);
    let from_header = head.and_then(|head| carrier::extract_headers(&head.headers));
    let edge = head.and_then(|head| head.extensions.get::<EdgeContext>());
    let mut links = Vec::new();
    let parent = match (from_meta, from_header) {
        (Some(meta), header) => {
            links.extend(header.map(|cx| link(&cx)));
            meta
        }
        (None, Some(header)) => header,
        (None, None) => Context::new(),
    };
    links.extend(edge.and_then(|edge| edge.cx.as_ref()).map(link));
    let mut request = Request::new(method, named);
    request.id = Some(context.id.to_string());
    request.protocol_version = context
        .protocol_version()
        .map(|v| super::conventions::protocol_version(v.as_str()));
    request.session_id = head
        .and_then(|head| head.headers.get("mcp-session-id"))
        .and_then(|value| value.to_str().ok());
    request.transport = Some(transport);
    request.client = edge.and_then(|edge| edge.client);
    Operation::start(
        &instruments.tracer,
        &instruments.server_duration,
        SpanKind::Server,
        request,
        &parent,
        links,
    )
}

/// How the answer `result` ends its operation: `tool_error` when
/// `tool_error` finds a failed tool call in it (with its envelope's code).
pub(crate) fn outcome<'a, T>(
    result: &'a Result<T, rmcp::ErrorData>,
    tool_error: impl Fn(&'a T) -> Option<Option<&'a str>>,
) -> Outcome<'a> {
    match result {
        Ok(answer) => match tool_error(answer) {
            Some(code) => Outcome::ToolError(code),
            None => Outcome::Ok,
        },
        Err(error) => Outcome::JsonRpc(error.code.0),
    }
}

/// Whether `result` is a failed tool call (`isError: true`), with the code
/// of the envelope in its `_meta` twin when it has one (a result a gateway
/// passes on from its upstream); `None` for a success. The dispatch
/// records the code of the failures it makes itself (their result may hold
/// the envelope already written as text).
pub(crate) fn tool_error(result: &rmcp::model::CallToolResult) -> Option<Option<&str>> {
    (result.is_error == Some(true)).then(|| crate::envelope::code_in(result.meta.as_ref()))
}

fn link(cx: &Context) -> Link {
    Link::with_context(cx.span().span_context().clone())
}
