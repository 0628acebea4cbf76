//! The auth step of the door: with a token verifier on the server, every
//! request to the MCP endpoint is checked before any JSON-RPC is read (MCP
//! basic/authorization, "Access Token Usage"; RFC 6750 §3). Without
//! credentials (or with credentials of another scheme) it gets `401` with
//! `WWW-Authenticate: Bearer` (no error code, RFC 6750 §3.1) unless the
//! server allows anonymous callers (who are served when they send no
//! `Authorization` header at all); a refused
//! token `401` with `error="invalid_token"` and a description that says what
//! was wrong (never the token); a malformed header `400` with
//! `error="invalid_request"`. No session is made for a refused request.
//! Every challenge carries `Cache-Control: no-store` (OAuth 2.1 §5.3).

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::guard::{BearerRefusal, TokenVerifier, verify_bearer};
use crate::handler::Principal;

/// The realm of every challenge.
const REALM: &str = "mcp";

/// The edge's auth settings: the server's verifier and its policy for
/// requests without credentials.
pub(crate) struct EdgeAuth {
    pub verifier: Arc<dyn TokenVerifier>,
    pub allow_anonymous: bool,
}

impl EdgeAuth {
    /// The principal of a request with `headers`, `None` for an anonymous one
    /// the policy lets through.
    ///
    /// # Errors
    /// The 401 or 400 response for a request refused here.
    pub(crate) async fn admit(&self, headers: &HeaderMap) -> Result<Option<Principal>, Response> {
        match verify_bearer(self.verifier.as_ref(), headers).await {
            Ok(Some(principal)) => Ok(Some(principal)),
            Ok(None) if self.allow_anonymous => Ok(None),
            Ok(None) | Err(BearerRefusal::NotBearer) => Err(challenge(
                StatusCode::UNAUTHORIZED,
                None,
                "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)",
            )),
            Err(refusal @ BearerRefusal::Malformed(_)) => Err(challenge(
                StatusCode::BAD_REQUEST,
                Some(("invalid_request", &refusal.description())),
                &format!("Bad Request: {}", refusal.description()),
            )),
            Err(refusal @ BearerRefusal::Invalid(_)) => Err(challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &refusal.description())),
                &format!("Unauthorized: {}", refusal.description()),
            )),
        }
    }
}

/// A refusal with its `WWW-Authenticate: Bearer` challenge: `error` is the
/// RFC 6750 error code and its description, `body` the plain-text body.
fn challenge(status: StatusCode, error: Option<(&str, &str)>, body: &str) -> Response {
    let mut value = format!("Bearer realm=\"{REALM}\"");
    if let Some((code, description)) = error {
        // RFC 6750 §3: the description is quoted text without `"` or `\`.
        let description: String = description
            .chars()
            .filter(|c| *c != '"' && *c != '\\' && !c.is_control())
            .collect();
        value.push_str(&format!(
            ", error=\"{code}\", error_description=\"{description}\""
        ));
    }
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body.to_owned(),
    )
        .into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&value) {
        headers.insert(header::WWW_AUTHENTICATE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Who owns a session, as the session table keeps it: the subject of the
/// principal that opened it, or `anonymous`.
pub(crate) fn owner_of(principal: Option<&Principal>) -> String {
    match principal {
        Some(principal) => format!("sub:{}", principal.subject),
        None => String::from("anonymous"),
    }
}
