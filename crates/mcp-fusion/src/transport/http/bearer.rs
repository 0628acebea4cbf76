//! The bearer-token layer of the MCP endpoint, on a server with a token
//! verifier: every request's token is checked ([`EdgeAuth::admit`]) before
//! its body is read (MCP basic/authorization, "Access Token Usage"; 401,
//! 400 or 503 as [`super::auth`] writes them). An OAuth resource server's
//! 401 to a POST names the scopes of what it calls: its body is read for
//! that, within the body limit, and parsed once. The principal goes in the
//! request's extensions; a session serves only the principal that opened
//! it (another's request on it gets 404), and one opened by a POST is
//! bound to its principal here.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

use super::answers::{SESSION_HEADER, session_gone, session_id};
use super::auth::{EdgeAuth, Refusal, owner_of};
use super::body_limit::BodyLimit;
use super::sessions::Sessions;
use super::step_up;
use crate::wire::jsonrpc::too_many_values;
use crate::wire::message_text::MessageText;

/// What the layer checks with.
#[derive(Clone)]
pub(crate) struct Bearer {
    pub auth: Arc<EdgeAuth>,
    pub sessions: Sessions,
    /// The limits an unauthorized POST's body is read within.
    pub body: BodyLimit,
    /// The most JSON values that body may hold.
    pub max_json_values: usize,
}

/// The layer (axum `from_fn_with_state`).
pub(crate) async fn bearer(
    State(bearer): State<Bearer>,
    mut request: Request,
    next: Next,
) -> Response {
    let session = session_id(request.headers());
    let principal = match bearer.auth.admit(request.headers()).await {
        Ok(principal) => principal,
        Err(Refusal::Answer(refused)) => return refused,
        Err(Refusal::Unauthorized { description, body }) => {
            let scopes = if request.method() == Method::POST && bearer.auth.scopes_by_operation() {
                bearer.operation_scopes(request).await
            } else {
                None
            };
            return bearer
                .auth
                .unauthorized(description.as_deref(), &body, scopes.as_deref());
        }
    };
    let owner = owner_of(principal.as_ref());
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    // Every session is bound when it opens: a session whose owner cannot be
    // found (Redis down, its record gone) is refused like another
    // principal's, never served.
    if let Some(id) = &session
        && bearer
            .sessions
            .owner(id)
            .await
            .is_none_or(|bound| bound != owner)
    {
        tracing::debug!(session = %id, "a request on a session this principal is not known to own: refused");
        return session_gone();
    }
    let is_post = request.method() == Method::POST;
    let response = next.run(request).await;
    if is_post {
        match &session {
            // A session just opened belongs to the principal that opened it.
            None => {
                if let Some(id) = response
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|v| v.to_str().ok())
                {
                    bearer.sessions.bind_owner(id, &owner).await;
                }
            }
            // One taken up from Redis keeps its owner here, checked above,
            // for when Redis cannot answer.
            Some(id) => bearer.sessions.remember_owner(id, &owner),
        }
    }
    response
}

impl Bearer {
    /// The scopes the capability a POST without (valid) credentials calls
    /// needs, for its 401's challenge (MCP authorization, "Scope Selection
    /// Strategy"): its body read within the limits (a JSON body of at most
    /// the body limit, the JSON values counted first); `None` when it
    /// cannot be read or calls nothing that needs scopes.
    async fn operation_scopes(&self, request: Request) -> Option<Vec<String>> {
        let server = self.auth.server()?;
        if self.body.declared_over(request.headers()) {
            return None;
        }
        let bytes = self.body.read(request.into_body()).await.ok()?;
        let text = MessageText::read(&bytes, self.max_json_values);
        if too_many_values(&text, false).is_some() {
            return None;
        }
        let message = text.message().ok()?;
        let needs = crate::server::edge::scopes::operation_needs(
            server,
            &step_up::operation(server, &message)?,
        )?;
        Some(needs.scopes)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tower::ServiceExt;

    use super::*;
    use crate::guard::StaticTokens;
    use crate::handler::Principal;

    /// The layer in front of an endpoint that names the principal it got.
    fn router() -> axum::Router {
        let sessions = super::super::test_support::sessions();
        let bearer = Bearer {
            auth: Arc::new(EdgeAuth {
                verifier: Arc::new(StaticTokens::new().token("t0k", "ada", Vec::<String>::new())),
                allow_anonymous: false,
                oauth: None,
            }),
            sessions,
            body: BodyLimit {
                max_bytes: 1024,
                read_timeout: Duration::from_secs(5),
            },
            max_json_values: 100,
        };
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::any(|request: Request| async move {
                    request
                        .extensions()
                        .get::<Principal>()
                        .map(|p| p.subject.clone())
                        .unwrap_or_default()
                }),
            )
            .layer(axum::middleware::from_fn_with_state(bearer, self::bearer))
    }

    /// Status, `WWW-Authenticate`, body.
    async fn send(headers: &[(&str, &str)]) -> (u16, Option<String>, String) {
        let request = super::super::test_support::post_with(headers);
        let response = router().oneshot(request).await.expect("an answer");
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().expect("text").to_owned());
        let body = super::super::test_support::body_text(response).await;
        (status, challenge, body)
    }

    #[tokio::test]
    async fn a_request_without_a_token_gets_the_challenge() {
        let (status, challenge, _) = send(&[]).await;
        assert_eq!(status, 401);
        assert_eq!(challenge.as_deref(), Some("Bearer realm=\"mcp\""));
    }

    #[tokio::test]
    async fn a_refused_token_is_named_invalid() {
        let (status, challenge, _) = send(&[("authorization", "Bearer nope")]).await;
        assert_eq!(status, 401);
        assert_eq!(
            challenge.as_deref(),
            Some(
                "Bearer realm=\"mcp\", error=\"invalid_token\", \
                 error_description=\"The bearer token is not valid.\""
            )
        );
    }

    #[tokio::test]
    async fn a_good_token_passes_with_its_principal_and_a_stranger_session_is_gone() {
        assert_eq!(
            send(&[("authorization", "Bearer t0k")]).await,
            (200, None, "ada".into())
        );
        assert_eq!(
            send(&[("authorization", "Bearer t0k"), ("mcp-session-id", "s-1")]).await,
            (404, None, "Not Found: Session not found".into())
        );
    }
}
