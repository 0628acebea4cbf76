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
//!
//! With a verifier that names its protected resource (an OAuth resource
//! server, RFC 9728), a challenge carries `resource_metadata="…"` and
//! `scope="…"` instead of the realm, and a token that lacks a scope the
//! called capability needs gets `403` with `error="insufficient_scope"`
//! under the step-up policy ([`super::step_up`]).

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::guard::{BearerRefusal, TokenVerifier, verify_bearer};
use crate::handler::Principal;
use crate::server::FusionServer;

/// The realm of every challenge of a verifier without a protected resource.
const REALM: &str = "mcp";

/// What an OAuth resource server's challenges carry (RFC 9728 §5.1, RFC 6750
/// §3): where its metadata is, and the scopes to ask for.
pub(crate) struct OAuthChallenge {
    /// The URL of its protected resource metadata (path form).
    pub metadata_url: String,
    /// The server, for the scopes its capabilities need.
    pub server: FusionServer,
}

impl OAuthChallenge {
    /// `resource_metadata="…"`.
    fn metadata_param(&self) -> String {
        format!("resource_metadata=\"{}\"", quoted(&self.metadata_url))
    }
}

/// The edge's auth settings: the server's verifier and its policy for
/// requests without credentials.
pub(crate) struct EdgeAuth {
    pub verifier: Arc<dyn TokenVerifier>,
    pub allow_anonymous: bool,
    /// With a verifier that names its protected resource (OAuth).
    pub oauth: Option<OAuthChallenge>,
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
            Ok(None) | Err(BearerRefusal::NotBearer) => Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                None,
                "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)",
            )),
            Err(refusal @ BearerRefusal::Malformed(_)) => Err(self.challenge(
                StatusCode::BAD_REQUEST,
                Some(("invalid_request", &refusal.description())),
                &format!("Bad Request: {}", refusal.description()),
            )),
            Err(refusal @ BearerRefusal::Invalid(_)) => Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &refusal.description())),
                &format!("Unauthorized: {}", refusal.description()),
            )),
        }
    }

    /// A 401 or 400 refusal with its `WWW-Authenticate: Bearer` challenge:
    /// `error` is the RFC 6750 error code and its description. An OAuth
    /// resource server's names its metadata and every scope its
    /// capabilities need (MCP authorization, "Scope Selection Strategy");
    /// another's, the realm.
    fn challenge(&self, status: StatusCode, error: Option<(&str, &str)>, body: &str) -> Response {
        let mut params = Vec::new();
        if let Some((code, description)) = error {
            params.push(format!("error=\"{code}\""));
            params.push(format!("error_description=\"{}\"", quoted(description)));
        }
        match &self.oauth {
            Some(oauth) => {
                params.push(oauth.metadata_param());
                let scopes = oauth.server.scopes_supported();
                if !scopes.is_empty() {
                    params.push(format!("scope=\"{}\"", quoted(&scopes.join(" "))));
                }
            }
            None => params.insert(0, format!("realm=\"{REALM}\"")),
        }
        refusal(status, &params, body)
    }

    /// The 403 `insufficient_scope` refusal of a request whose capability
    /// needs the scopes `missing` (MCP authorization, "Runtime Insufficient
    /// Scope Errors"; RFC 6750 §3.1), `name` being what it calls.
    pub(crate) fn insufficient_scope(&self, name: &str, missing: &[String]) -> Response {
        let scopes = missing.join(" ");
        let noun = if missing.len() == 1 {
            "scope"
        } else {
            "scopes"
        };
        let description =
            format!("{name} needs the {noun} {scopes}, which the token does not have");
        let mut params = vec![
            String::from("error=\"insufficient_scope\""),
            format!("scope=\"{}\"", quoted(&scopes)),
        ];
        match &self.oauth {
            Some(oauth) => params.push(oauth.metadata_param()),
            None => params.insert(0, format!("realm=\"{REALM}\"")),
        }
        params.push(format!("error_description=\"{}\"", quoted(&description)));
        refusal(
            StatusCode::FORBIDDEN,
            &params,
            &format!("Forbidden: {description}"),
        )
    }
}

/// `text` as an RFC 6750 §3 quoted value: without `"`, `\` or control
/// characters.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| *c != '"' && *c != '\\' && !c.is_control())
        .collect()
}

/// A response with status `status`, the plain-text `body`, the challenge
/// `Bearer <params>` and `Cache-Control: no-store` (OAuth 2.1 §5.3).
fn refusal(status: StatusCode, params: &[String], body: &str) -> Response {
    let value = format!("Bearer {}", params.join(", "));
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
