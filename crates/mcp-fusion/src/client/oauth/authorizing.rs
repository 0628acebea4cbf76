//! [`Authorizing`]: the Streamable HTTP client of a [`FusionClient`](crate::client::FusionClient)
//! with [`OAuthOptions`]. It sends each request through rmcp's [`AuthClient`]
//! (the token, refreshed when it expires) and answers the server's
//! challenges:
//!
//! - `401` → authorize ([`authorize`]) and send the request again, once; a
//!   second `401` is [`AuthorizationError::TokenRefused`];
//! - `403` with `error="insufficient_scope"` → authorize again with the
//!   union of the scopes held and challenged, and send the request again,
//!   once (MCP "Step-Up Authorization Flow"); a second `403` is
//!   [`AuthorizationError::InsufficientScope`], and a token request the
//!   authorization server refuses (e.g. `invalid_scope`) is
//!   [`AuthorizationError::StepUpRefused`].
//!
//! A request may go through both, in that order (a `401`, then a `403` to
//! the request sent with the new token), each once. When authorizing fails,
//! or the step-up did not get the scopes, the server's answer goes back to
//! rmcp as it was and the failure is kept ([`Authorizer::take_failure`]) for
//! the [`FusionClientError`](crate::client::FusionClientError) the caller gets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::auth::WWWAuthenticateParams;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::authorize::authorize;
use super::options::{AuthorizationError, OAuthOptions};
use super::registration::Registration;
use super::scopes;
use super::token_failure;

/// The target of this file's logs: its module's path before it
/// moved into `oauth/`, so that log filters and readers see the same target.
const TARGET: &str = "mcp_fusion::client::authorizing";

type HttpError = StreamableHttpError<reqwest::Error>;

/// What the client shares between its requests: the options, the one
/// authorization in progress, the client registered, the last failure.
pub(crate) struct Authorizer {
    server_url: url::Url,
    options: OAuthOptions,
    /// Held while authorizing, so concurrent 401s authorize once.
    running: tokio::sync::Mutex<()>,
    /// Counts the authorizations done; a request that saw a 401 authorizes
    /// only if none finished since it was sent.
    generation: AtomicU64,
    failure: Mutex<Option<AuthorizationError>>,
    /// The client registered dynamically, reused by later authorizations.
    registration: Registration,
    /// Whether an authorization has started (the connection's time limit
    /// then allows for the user's time in the browser).
    started: AtomicBool,
}

impl Authorizer {
    /// Whether the client has started to authorize at least once.
    pub(crate) fn started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// The last authorization failure, taken (so it is reported once).
    pub(crate) fn take_failure(&self) -> Option<AuthorizationError> {
        self.failure.lock().ok().and_then(|mut slot| slot.take())
    }

    fn keep_failure(&self, error: AuthorizationError) {
        tracing::debug!(target: TARGET, %error, "OAuth authorization failed");
        if let Ok(mut slot) = self.failure.lock() {
            *slot = Some(error);
        }
    }
}

/// The HTTP client: rmcp's [`AuthClient`] over reqwest, plus the answers to
/// challenges.
#[derive(Clone)]
pub(crate) struct Authorizing {
    inner: AuthClient<reqwest::Client>,
    authorizer: Arc<Authorizer>,
}

impl Authorizing {
    /// A client for the server at `server_url` that holds no token yet.
    ///
    /// # Errors
    ///
    /// [`AuthorizationError::Discovery`] when rmcp cannot set up its
    /// authorization manager for the URL.
    pub(crate) async fn new(
        server_url: url::Url,
        options: OAuthOptions,
    ) -> Result<(Authorizing, Arc<Authorizer>), AuthorizationError> {
        let manager = rmcp::transport::AuthorizationManager::new(server_url.as_str())
            .await
            .map_err(AuthorizationError::Discovery)?;
        let authorizer = Arc::new(Authorizer {
            server_url,
            options,
            running: tokio::sync::Mutex::new(()),
            generation: AtomicU64::new(0),
            failure: Mutex::new(None),
            registration: Mutex::new(None),
            started: AtomicBool::new(false),
        });
        let client = Authorizing {
            inner: AuthClient::new(reqwest::Client::default(), manager),
            authorizer: Arc::clone(&authorizer),
        };
        Ok((client, authorizer))
    }

    /// Runs `call`; on a `401`, authorizes and runs it again; on a `403`
    /// (`insufficient_scope`), steps up and runs it again; each once.
    /// `operation` names the request for the error of a second `403`.
    async fn run<T, F, Fut>(&self, operation: impl Fn() -> String, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut authorized = false;
        let mut stepped_up = false;
        loop {
            let seen = self.authorizer.generation.load(Ordering::Acquire);
            let outcome = call().await;
            let (challenge, step_up) = match &outcome {
                Err(StreamableHttpError::AuthRequired(e)) if !authorized => {
                    (e.www_authenticate_header.clone(), false)
                }
                Err(StreamableHttpError::InsufficientScope(e)) if !stepped_up => {
                    (e.www_authenticate_header.clone(), true)
                }
                Err(StreamableHttpError::AuthRequired(e)) => {
                    self.token_refused(&e.www_authenticate_header);
                    return outcome;
                }
                Err(StreamableHttpError::InsufficientScope(e)) => {
                    self.still_insufficient(&e.www_authenticate_header, operation())
                        .await;
                    return outcome;
                }
                _ => return outcome,
            };
            if step_up {
                stepped_up = true;
            } else {
                authorized = true;
            }
            let step_up = step_up.then(&operation);
            if !self.reauthorize(&challenge, step_up, seen).await {
                return outcome;
            }
        }
    }

    /// Keeps [`AuthorizationError::TokenRefused`] for a `401` to the request
    /// sent again with the token just obtained, with the `error` and
    /// `error_description` of its `challenge`.
    fn token_refused(&self, challenge: &str) {
        let params = WWWAuthenticateParams::parse(challenge, &self.authorizer.server_url);
        self.authorizer
            .keep_failure(AuthorizationError::TokenRefused {
                error: params.error,
                description: params.error_description,
            });
    }

    /// Keeps [`AuthorizationError::InsufficientScope`] for a `403` that came
    /// after a step-up: the scopes held, and those of `challenge` missing.
    async fn still_insufficient(&self, challenge: &str, operation: String) {
        let server_url = &self.authorizer.server_url;
        let granted = self
            .inner
            .auth_manager
            .lock()
            .await
            .get_current_scopes()
            .await;
        let challenged = scopes::challenged(challenge, server_url);
        let mut missing: Vec<String> = challenged
            .iter()
            .filter(|scope| !granted.contains(scope))
            .cloned()
            .collect();
        if missing.is_empty() {
            missing = challenged;
        }
        let description = WWWAuthenticateParams::parse(challenge, server_url).error_description;
        self.authorizer
            .keep_failure(AuthorizationError::InsufficientScope {
                operation,
                granted,
                missing,
                description,
            });
    }

    /// Authorizes after `challenge` unless another request did since
    /// generation `seen`; whether the request should be sent again.
    /// `step_up` names the request refused with `403` when this is a
    /// step-up: a token request the authorization server then refuses is
    /// kept as [`AuthorizationError::StepUpRefused`].
    async fn reauthorize(&self, challenge: &str, step_up: Option<String>, seen: u64) -> bool {
        let authorizer = &self.authorizer;
        let _running = authorizer.running.lock().await;
        if authorizer.generation.load(Ordering::Acquire) != seen {
            return true;
        }
        authorizer.started.store(true, Ordering::Release);
        let mut missing = Vec::new();
        let scopes = if step_up.is_some() {
            let held = self
                .inner
                .auth_manager
                .lock()
                .await
                .get_current_scopes()
                .await;
            let challenged = scopes::challenged(challenge, &authorizer.server_url);
            missing = challenged
                .iter()
                .filter(|scope| !held.contains(scope))
                .cloned()
                .collect();
            if missing.is_empty() {
                missing.clone_from(&challenged);
            }
            Some(scopes::union(&held, &challenged))
        } else {
            None
        };
        match authorize(
            &authorizer.server_url,
            &authorizer.options,
            challenge,
            scopes,
            &authorizer.registration,
        )
        .await
        {
            Ok(manager) => {
                *self.inner.auth_manager.lock().await = manager;
                authorizer.generation.fetch_add(1, Ordering::AcqRel);
                true
            }
            Err(AuthorizationError::Token(source)) if step_up.is_some() => {
                let error = match token_failure::refusal(&source) {
                    Some(refusal) => AuthorizationError::StepUpRefused {
                        operation: step_up.unwrap_or_default(),
                        missing,
                        refusal,
                        source,
                    },
                    None => AuthorizationError::Token(source),
                };
                authorizer.keep_failure(error);
                false
            }
            Err(error) => {
                authorizer.keep_failure(error);
                false
            }
        }
    }
}

/// The request `message` in words: its JSON-RPC method, and for
/// `tools/call` / `prompts/get` / `resources/read` the name or URI it
/// carries (what MCP 2026-07-28 sends as `Mcp-Name`), e.g. `tools/call
/// billing`; `a JSON-RPC response` for a message without a method.
fn operation(message: &ClientJsonRpcMessage) -> String {
    let value = serde_json::to_value(message).unwrap_or_default();
    let Some(method) = value.get("method").and_then(serde_json::Value::as_str) else {
        return String::from("a JSON-RPC response");
    };
    let params = value.get("params");
    let name = params
        .and_then(|p| p.get("name").or_else(|| p.get("uri")))
        .and_then(serde_json::Value::as_str);
    match name {
        Some(name) => format!("{method} {name}"),
        None => method.to_owned(),
    }
}

/// The operation of a `GET` for the server's event stream.
fn event_stream() -> String {
    String::from("the event stream (GET)")
}

impl StreamableHttpClient for Authorizing {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.run(
            || operation(&message),
            || {
                self.inner.post_message(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    None,
                    custom_headers.clone(),
                )
            },
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.run(
            || operation(&message),
            || {
                self.inner.post_message_with_max_sse_event_size(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    None,
                    custom_headers.clone(),
                    max_sse_event_size,
                )
            },
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.run(
            || operation(&message),
            || {
                self.inner.post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    None,
                    custom_headers.clone(),
                    limits,
                )
            },
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        // Closing needs no new authorization: a refused DELETE is left as is.
        self.inner
            .delete_session(uri, session_id, None, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, HttpError> {
        self.run(event_stream, || {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                None,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, HttpError> {
        self.run(event_stream, || {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                None,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
