//! The body limit of the MCP endpoint, a layer of its own and the only
//! place a request body is bounded: a POST whose `Content-Length` is over
//! the limit gets 413 at once; the body of a JSON POST is read within the
//! limit (413, once the rest of a body without `Content-Length` is read
//! and dropped, up to a bound, so that its client gets the answer) and the
//! read timeout (408; a body that cannot be read, 400),
//! its UTF-8 byte order mark taken off (RFC 8259 §8.1 lets one start a
//! JSON text), and handed on as the bytes read. A POST of another
//! `Content-Type` passes unread (rmcp answers 415), as does every other
//! method. rmcp's own limit is off: what it reads has been bounded here.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use super::answers::text;
use crate::error::seconds_text;

/// The limits a body is read within.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimit {
    /// The most bytes a body may hold.
    pub max_bytes: usize,
    /// How long its bytes may take to arrive.
    pub read_timeout: Duration,
}

/// The layer (axum `from_fn_with_state`).
pub(crate) async fn body_limit(
    State(limit): State<BodyLimit>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    if limit.declared_over(request.headers()) {
        return limit.too_large();
    }
    if !is_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match limit.read(body).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(refused) => refused,
    }
}

/// Whether the `Content-Type` of `headers` is `application/json`.
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

impl BodyLimit {
    /// Whether `headers` declare a `Content-Length` over the limit.
    pub(crate) fn declared_over(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|len| len > self.max_bytes as u64)
    }

    /// The 413 of a body over the limit.
    fn too_large(&self) -> Response {
        text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: the request body is over the limit of {} bytes",
                self.max_bytes
            ),
        )
    }

    /// `body` read within the limit and the read timeout, without a UTF-8
    /// byte order mark.
    ///
    /// # Errors
    /// The 413, 400 or 408 answer when it cannot be read.
    pub(crate) async fn read(&self, mut body: Body) -> Result<Bytes, Response> {
        let read = Limited::new(&mut body, self.max_bytes).collect();
        let mut bytes = match tokio::time::timeout(self.read_timeout, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(e)) if e.is::<LengthLimitError>() => {
                drain(body).await;
                return Err(self.too_large());
            }
            Ok(Err(e)) => {
                return Err(text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: the request body could not be read ({e})"),
                ));
            }
            Err(_) => {
                return Err(text(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "Request Timeout: the body did not arrive within {}",
                        seconds_text(self.read_timeout.as_secs_f64().ceil() as u64)
                    ),
                ));
            }
        };
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes = bytes.slice(3..);
        }
        Ok(bytes)
    }
}

/// The most bytes of a refused body read and dropped before its 413 is
/// sent: 1 MiB, within [`DRAIN_TIME`].
const DRAIN_BYTES: usize = 1024 * 1024;

/// How long reading the rest of a refused body may take: 1 second.
const DRAIN_TIME: Duration = Duration::from_secs(1);

/// Reads and drops what is left of a body refused as too large, up to
/// [`DRAIN_BYTES`] within [`DRAIN_TIME`]. A client sending a body without
/// `Content-Length` is still sending when the limit is reached; had its
/// connection been closed with its bytes unread, the kernel would reset it
/// and the client lose the 413 waiting to be read (RFC 9112 §9.6: a server
/// closes gradually). A body longer than that is cut short, as before.
async fn drain(body: Body) {
    let rest = Limited::new(body, DRAIN_BYTES).collect();
    let _ = tokio::time::timeout(DRAIN_TIME, rest).await;
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use tower::ServiceExt;

    use super::*;

    /// The layer in front of an endpoint that echoes the body it got.
    fn router(max_bytes: usize) -> axum::Router {
        let limit = BodyLimit {
            max_bytes,
            read_timeout: Duration::from_secs(5),
        };
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::any(|body: Bytes| async move { body }),
            )
            .layer(axum::middleware::from_fn_with_state(limit, body_limit))
    }

    async fn send(request: axum::http::Request<Body>, max_bytes: usize) -> (u16, String) {
        let response = router(max_bytes).oneshot(request).await.expect("an answer");
        let status = response.status().as_u16();
        let body = super::super::test_support::body_text(response).await;
        (status, body)
    }

    fn post(content_type: &'static str, body: Body) -> axum::http::Request<Body> {
        axum::http::Request::post("/mcp")
            .header("content-type", content_type)
            .body(body)
            .expect("a request")
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_before_the_body_is_read() {
        let mut request = post("text/plain", Body::empty());
        request
            .headers_mut()
            .insert("content-length", HeaderValue::from_static("11"));
        assert_eq!(
            send(request, 10).await,
            (
                413,
                "Payload Too Large: the request body is over the limit of 10 bytes".into()
            )
        );
    }

    #[tokio::test]
    async fn a_json_body_is_read_within_the_limit_without_its_byte_order_mark() {
        let body = Body::from(&b"\xEF\xBB\xBF{\"a\":1}"[..]);
        assert_eq!(
            send(post("application/json", body), 10).await,
            (200, "{\"a\":1}".into())
        );
        // Streamed, with no length declared: counted as it arrives.
        let chunks = futures::stream::iter([Ok::<_, std::io::Error>("{\"a\":"), Ok("12345}")]);
        assert_eq!(
            send(post("application/json", Body::from_stream(chunks)), 10).await,
            (
                413,
                "Payload Too Large: the request body is over the limit of 10 bytes".into()
            )
        );
    }

    #[tokio::test]
    async fn other_bodies_and_methods_pass_unread() {
        let body = Body::from("x".repeat(20));
        assert_eq!(
            send(post("text/plain", body), 10).await,
            (200, "x".repeat(20))
        );
        let get = axum::http::Request::get("/mcp")
            .body(Body::from("y".repeat(20)))
            .expect("a request");
        assert_eq!(send(get, 10).await, (200, "y".repeat(20)));
    }
}
