//! What the in-process tests of the endpoint's layers share.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response};
use http_body_util::BodyExt;
use tokio_util::sync::CancellationToken;

use super::sessions::{Limits, Sessions};

/// Sessions without Redis: at most 4, idle for a minute.
pub(super) fn sessions() -> Sessions {
    Sessions::new(
        Limits {
            max_sessions: 4,
            max_per_caller: 4,
            max_live: 4,
            idle: Duration::from_secs(60),
        },
        None,
        CancellationToken::new(),
    )
}

/// The whole body of `response`, as UTF-8 text.
pub(super) async fn body_text(response: Response<Body>) -> String {
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

/// An empty `POST /mcp` with `headers`, in order.
pub(super) fn post_with(headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::post("/mcp");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).expect("a request")
}
