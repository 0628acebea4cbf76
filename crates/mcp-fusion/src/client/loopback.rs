//! The loopback redirect listener of the authorization code grant (RFC 8252
//! §7.3, OAuth 2.1 §8.4.2): bound on `127.0.0.1` at a port the system picks,
//! it waits for the one request the authorization server redirects the
//! browser to, answers it with a short page, and gives its URL back.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::oauth::AuthorizationError;

/// The path the redirect URI names.
const CALLBACK_PATH: &str = "/callback";

/// A bound listener, not yet waiting.
pub(crate) struct Loopback {
    listener: TcpListener,
    address: SocketAddr,
}

impl Loopback {
    /// Binds `127.0.0.1:0`.
    ///
    /// # Errors
    ///
    /// [`AuthorizationError::Loopback`] when the socket cannot be bound.
    pub(crate) async fn bind() -> Result<Loopback, AuthorizationError> {
        Self::bind_port(0).await
    }

    /// Binds `127.0.0.1:port` (the port of a redirect URI registered
    /// before, so that it matches even where the authorization server does
    /// not let a loopback redirect's port vary, RFC 8252 §7.3), else
    /// `127.0.0.1:0` when that port is taken.
    ///
    /// # Errors
    ///
    /// [`AuthorizationError::Loopback`] when no socket can be bound.
    pub(crate) async fn bind_preferring(port: u16) -> Result<Loopback, AuthorizationError> {
        match Self::bind_port(port).await {
            Ok(loopback) => Ok(loopback),
            Err(_) => Self::bind_port(0).await,
        }
    }

    /// The port bound.
    pub(crate) fn port(&self) -> u16 {
        self.address.port()
    }

    async fn bind_port(port: u16) -> Result<Loopback, AuthorizationError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(AuthorizationError::Loopback)?;
        let address = listener
            .local_addr()
            .map_err(AuthorizationError::Loopback)?;
        Ok(Loopback { listener, address })
    }

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    pub(crate) fn redirect_uri(&self) -> String {
        format!("http://{}{CALLBACK_PATH}", self.address)
    }

    /// Waits up to `limit` for a request to the callback path that carries a
    /// `code` or an `error`, and returns its full URL (the redirect URI with
    /// the query). Other requests (a browser's `/favicon.ico`) get 404 and
    /// the wait goes on.
    ///
    /// # Errors
    ///
    /// [`AuthorizationError::RedirectTimeout`] when `limit` passes;
    /// [`AuthorizationError::Loopback`] when accepting fails.
    pub(crate) async fn wait(self, limit: Duration) -> Result<String, AuthorizationError> {
        let base = format!("http://{}", self.address);
        let (found, mut first) = mpsc::channel::<String>(1);
        let accept = async {
            loop {
                let (stream, _) = self
                    .listener
                    .accept()
                    .await
                    .map_err(AuthorizationError::Loopback)?;
                let found = found.clone();
                let base = base.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                        let found = found.clone();
                        let base = base.clone();
                        async move { Ok::<_, Infallible>(answer(&request, &base, &found)) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .keep_alive(false)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        };
        tokio::select! {
            failed = accept => failed,
            Some(url) = first.recv() => Ok(url),
            () = tokio::time::sleep(limit) => Err(AuthorizationError::RedirectTimeout(limit)),
        }
    }
}

/// The answer to one request; a redirect with `code` or `error` is sent on
/// `found`.
fn answer(
    request: &Request<hyper::body::Incoming>,
    base: &str,
    found: &mpsc::Sender<String>,
) -> Response<Full<Bytes>> {
    let uri = request.uri();
    let query = uri.query().unwrap_or("");
    let is_redirect = uri.path() == CALLBACK_PATH
        && url::form_urlencoded::parse(query.as_bytes())
            .any(|(key, _)| key == "code" || key == "error");
    let (status, text) = if is_redirect {
        let _ = found.try_send(format!("{base}{CALLBACK_PATH}?{query}"));
        (
            StatusCode::OK,
            "Authorization received: you may close this window and return to the terminal.",
        )
    } else {
        (StatusCode::NOT_FOUND, "Not the authorization redirect.")
    };
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response.headers_mut().insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_redirect_with_a_code_is_returned_and_other_requests_get_404() {
        let loopback = Loopback::bind().await.unwrap();
        let redirect_uri = loopback.redirect_uri();
        assert!(
            redirect_uri.starts_with("http://127.0.0.1:"),
            "{redirect_uri}"
        );
        assert!(redirect_uri.ends_with("/callback"), "{redirect_uri}");
        let base = redirect_uri.trim_end_matches("/callback").to_owned();
        let browser = tokio::spawn(async move {
            let client = reqwest::Client::new();
            let favicon = client
                .get(format!("{base}/favicon.ico"))
                .send()
                .await
                .unwrap();
            let no_code = client
                .get(format!("{base}/callback?state=s"))
                .send()
                .await
                .unwrap();
            let redirect = client
                .get(format!(
                    "{base}/callback?code=c%2B1&state=s&iss=http%3A%2F%2Fas"
                ))
                .send()
                .await
                .unwrap();
            (
                favicon.status().as_u16(),
                no_code.status().as_u16(),
                redirect.status().as_u16(),
                redirect.headers()["cache-control"]
                    .to_str()
                    .unwrap()
                    .to_owned(),
                redirect.text().await.unwrap(),
            )
        });
        // A bound far above what the requests take: a listener that never
        // answers fails the test instead of hanging it.
        let url = loopback.wait(Duration::from_secs(60)).await.unwrap();
        assert_eq!(
            url,
            format!("{redirect_uri}?code=c%2B1&state=s&iss=http%3A%2F%2Fas")
        );
        let (favicon, no_code, redirect, cache, text) = browser.await.unwrap();
        assert_eq!((favicon, no_code, redirect), (404, 404, 200));
        assert_eq!(cache, "no-store");
        assert_eq!(
            text,
            "Authorization received: you may close this window and return to the terminal."
        );
    }
}
