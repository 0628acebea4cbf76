//! The loopback redirect listener of the authorization code grant (RFC 8252
//! §7.3, OAuth 2.1 §8.4.2): bound on `127.0.0.1` at a port the system picks,
//! it waits for the authorization response of the login in progress (its
//! `state`), has it judged (RFC 9207 `iss`, the token request), and answers
//! the browser with a short page saying what became of it.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

use super::options::AuthorizationError;

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

    /// Waits up to `limit` for the authorization response of the login
    /// whose `state` (RFC 6749 §4.1.1) is given, and gives each one to
    /// `judge` (its full URL: the redirect URI with the query) until the
    /// judge settles it:
    ///
    /// - a request to another path, or to the callback path without `code`
    ///   or `error`, gets `404` (a browser's `/favicon.ico`);
    /// - a redirect whose `state` is not this login's gets `400` (`This is
    ///   not the redirect of the login in progress: its state does not
    ///   match. The login goes on waiting.`) and the wait goes on: it does
    ///   not end the login (RFC 6749 §10.12);
    /// - the first redirect with this login's `state` goes to `judge`, and
    ///   ends the wait: [`Verdict::Accepted`] answers `200` (`Authorization
    ///   received: you may close this window and return to the terminal.`)
    ///   and gives its value; [`Verdict::Failed`] answers `400` (`The
    ///   authorization failed: ERROR. Return to the terminal.`) and gives
    ///   the error.
    ///
    /// # Errors
    ///
    /// The error of a [`Verdict::Failed`];
    /// [`AuthorizationError::RedirectTimeout`] when `limit` passes;
    /// [`AuthorizationError::Loopback`] when accepting fails.
    pub(crate) async fn wait<T, F, Fut>(
        self,
        limit: Duration,
        state: &str,
        judge: F,
    ) -> Result<T, AuthorizationError>
    where
        F: FnOnce(String) -> Fut,
        Fut: Future<Output = Verdict<T>>,
    {
        let base = format!("http://{}", self.address);
        let (found, mut redirects) = mpsc::channel::<Redirect>(1);
        let expected: Arc<str> = Arc::from(state);
        let accept = async {
            loop {
                let (stream, _) = self
                    .listener
                    .accept()
                    .await
                    .map_err(AuthorizationError::Loopback)?;
                let found = found.clone();
                let base = base.clone();
                let expected = Arc::clone(&expected);
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                        let found = found.clone();
                        let base = base.clone();
                        let expected = Arc::clone(&expected);
                        async move {
                            Ok::<_, Infallible>(answer(&request, &base, &expected, &found).await)
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .keep_alive(false)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        };
        let settle = async {
            let Some(redirect) = redirects.recv().await else {
                return Err(AuthorizationError::RedirectTimeout(limit));
            };
            let (status, text, outcome) = match judge(redirect.url).await {
                Verdict::Accepted(value) => (StatusCode::OK, String::from(RECEIVED), Ok(value)),
                Verdict::Failed(error) => (
                    StatusCode::BAD_REQUEST,
                    format!("The authorization failed: {error}. Return to the terminal."),
                    Err(error),
                ),
            };
            let _ = redirect.reply.send(page(status, text));
            outcome
        };
        tokio::select! {
            failed = accept => failed,
            settled = settle => settled,
            () = tokio::time::sleep(limit) => Err(AuthorizationError::RedirectTimeout(limit)),
        }
    }
}

/// What the judge of [`Loopback::wait`] makes of an authorization response
/// with the login's `state`.
pub(crate) enum Verdict<T> {
    /// Taken: the wait ends with it.
    Accepted(T),
    /// Refused (an error response, an `iss` that is not the authorization
    /// server's, RFC 9207 §2.4, a failed token request): the wait ends with
    /// the error.
    Failed(AuthorizationError),
}

/// The page of an accepted redirect.
const RECEIVED: &str =
    "Authorization received: you may close this window and return to the terminal.";

/// An authorization response on its way to the judge, with where its page
/// goes.
struct Redirect {
    url: String,
    reply: oneshot::Sender<Response<Full<Bytes>>>,
}

/// The answer to one request: `404` for anything but a redirect, `400` for
/// a redirect of another login (`state` not `expected`), else the page the
/// judge's verdict gives (sent on `found`).
async fn answer(
    request: &Request<hyper::body::Incoming>,
    base: &str,
    expected: &str,
    found: &mpsc::Sender<Redirect>,
) -> Response<Full<Bytes>> {
    let uri = request.uri();
    let query = uri.query().unwrap_or("");
    let pairs = || url::form_urlencoded::parse(query.as_bytes());
    let is_redirect =
        uri.path() == CALLBACK_PATH && pairs().any(|(key, _)| key == "code" || key == "error");
    if !is_redirect {
        return page(
            StatusCode::NOT_FOUND,
            String::from("Not the authorization redirect."),
        );
    }
    let state = pairs().find(|(key, _)| key == "state").map(|(_, v)| v);
    if state.as_deref() != Some(expected) {
        return page(
            StatusCode::BAD_REQUEST,
            String::from(
                "This is not the redirect of the login in progress: its state does not match. The login goes on waiting.",
            ),
        );
    }
    let (reply, page_back) = oneshot::channel();
    let redirect = Redirect {
        url: format!("{base}{CALLBACK_PATH}?{query}"),
        reply,
    };
    if found.send(redirect).await.is_ok()
        && let Ok(response) = page_back.await
    {
        return response;
    }
    page(
        StatusCode::BAD_REQUEST,
        String::from("This login has already ended. Return to the terminal."),
    )
}

/// A short `text/plain` page, never cached.
fn page(status: StatusCode, text: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(text)));
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

    /// `(status, text)` of a GET of `url`.
    async fn get(client: &reqwest::Client, url: String) -> (u16, String) {
        let response = client.get(url).send().await.unwrap();
        let status = response.status().as_u16();
        assert_eq!(response.headers()["cache-control"], "no-store");
        (status, response.text().await.unwrap())
    }

    #[tokio::test]
    async fn only_a_redirect_with_the_state_of_the_login_is_judged_and_accepted() {
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
            let mut pages = Vec::new();
            for path in [
                "/favicon.ico",
                "/callback?state=s1",
                "/callback?code=abc&state=WRONG&iss=http%3A%2F%2Fas",
                "/callback?error=access_denied&state=x",
                "/callback?code=c%2B1&state=s1&iss=http%3A%2F%2Fas",
            ] {
                pages.push(get(&client, format!("{base}{path}")).await);
            }
            pages
        });
        let mut judged = Vec::new();
        // A bound far above what the requests take: a listener that never
        // answers fails the test instead of hanging it.
        let accepted = loopback
            .wait(Duration::from_secs(60), "s1", |url| {
                judged.push(url.clone());
                async move { Verdict::Accepted(url) }
            })
            .await
            .unwrap();
        assert_eq!(
            accepted,
            format!("{redirect_uri}?code=c%2B1&state=s1&iss=http%3A%2F%2Fas")
        );
        assert_eq!(judged, std::slice::from_ref(&accepted));
        let wrong_state = (
            400,
            String::from(
                "This is not the redirect of the login in progress: its state does not match. The login goes on waiting.",
            ),
        );
        assert_eq!(
            browser.await.unwrap(),
            [
                (404, String::from("Not the authorization redirect.")),
                (404, String::from("Not the authorization redirect.")),
                wrong_state.clone(),
                wrong_state,
                (200, String::from(RECEIVED)),
            ]
        );
    }

    #[tokio::test]
    async fn a_failed_verdict_ends_the_wait_and_says_so_on_the_page() {
        let loopback = Loopback::bind().await.unwrap();
        let redirect_uri = loopback.redirect_uri();
        let browser = tokio::spawn(async move {
            let client = reqwest::Client::new();
            get(
                &client,
                format!("{redirect_uri}?error=access_denied&state=s1"),
            )
            .await
        });
        let failed = loopback
            .wait(Duration::from_secs(60), "s1", |_| async {
                Verdict::<()>::Failed(AuthorizationError::Refused {
                    error: String::from("access_denied"),
                    description: None,
                })
            })
            .await
            .unwrap_err();
        assert_eq!(
            failed.to_string(),
            "the authorization server refused: access_denied"
        );
        assert_eq!(
            browser.await.unwrap(),
            (
                400,
                String::from(
                    "The authorization failed: the authorization server refused: access_denied. Return to the terminal."
                )
            )
        );
    }
}
