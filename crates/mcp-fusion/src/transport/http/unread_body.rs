//! [`close_unread`]: an answer given before the request's body was read to
//! its end (a `401` of the bearer layer, a `403` of the door, a `413`)
//! says `Connection: close` (RFC 9112 §9.6), so that a keep-alive client
//! opens a new connection for its next request instead of writing it on
//! one the server is about to close (curl's "Connection died", Python's
//! broken pipe). An answer to a request whose body was read keeps the
//! connection.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};

/// A request body that notes when it was read to its end.
struct Watched {
    inner: Body,
    read: Arc<AtomicBool>,
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.read.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The layer (axum `from_fn`, outermost on the MCP endpoint): the request
/// goes on with its body watched; the answer says `Connection: close`
/// when that body was not read to its end by the time the answer was made
/// (a request without a body counts as read).
pub(crate) async fn close_unread(request: Request, next: Next) -> Response {
    let read = Arc::new(AtomicBool::new(request.body().is_end_stream()));
    let watched = Arc::clone(&read);
    let request = request.map(|inner| {
        Body::new(Watched {
            inner,
            read: watched,
        })
    });
    let mut response = next.run(request).await;
    if !read.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    /// Whether the answer of a handler that never reads the body says
    /// `Connection: close`, for a request with `body`.
    async fn closes(body: Body) -> bool {
        let router = axum::Router::new()
            .route("/", axum::routing::post(|| async { "refused" }))
            .layer(axum::middleware::from_fn(super::close_unread));
        let request = Request::post("/").body(body).unwrap();
        let answer = router.oneshot(request).await.unwrap();
        answer.headers().get("connection").is_some()
    }

    #[tokio::test]
    async fn only_an_answer_made_before_the_body_was_read_closes() {
        assert!(!closes(Body::empty()).await, "no body: nothing unread");
        assert!(closes(Body::from("{\"unread\": true}")).await);
    }
}
