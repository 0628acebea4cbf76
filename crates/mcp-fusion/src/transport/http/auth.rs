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
//! Every challenge carries `Cache-Control: no-store` (OAuth 2.1 §5.3); its
//! quoted values hold only what RFC 6750 §3 allows (the rest
//! percent-encoded), a name they repeat at most [`MAX_NAME_CHARS`]
//! characters.
//!
//! A token the verifier could not check because the authorization server
//! did not answer ([`AuthFailure::Unavailable`]: its JWKS or introspection
//! endpoint unreachable) gets `503 Service Unavailable` with `Retry-After`
//! ([`AUTHORIZATION_SERVER_RETRY_SECS`]) and no challenge: the token may
//! be fine, asking for another would not help.
//!
//! With a verifier that names its protected resource (an OAuth resource
//! server, RFC 9728), a challenge carries `resource_metadata="…"` and
//! `scope="…"` instead of the realm, and a token that lacks a scope the
//! called capability needs gets `403` with `error="insufficient_scope"`
//! under the step-up policy ([`super::step_up`]). The `scope` of a `401`
//! follows least privilege (MCP authorization, "Scope Selection
//! Strategy"): for a JSON-RPC request that calls a capability needing
//! scopes (`tools/call`, `prompts/get`, `resources/read`,
//! `resources/subscribe`, `completion/complete`: [`super::step_up::operation`];
//! the edge reads the body, within its limits, to know) exactly that capability's scopes; for
//! any other (`initialize`, a list, a `GET`, no readable body) the
//! server's challenge scopes: those set on the resource
//! ([`ProtectedResource::challenge_scopes`](crate::guard::ProtectedResource)),
//! else the scopes its read-only capabilities need (actions marked
//! read-only, prompts, resources), else every scope. A client's first
//! token thus carries what reading needs; writing steps up through the
//! `403`.

use std::borrow::Cow;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

use crate::guard::{AuthFailure, BearerRefusal, TokenVerifier, verify_bearer};
use crate::handler::Principal;
use crate::server::FusionServer;
use crate::text::cut_chars;

/// The realm of every challenge of a verifier without a protected resource.
const REALM: &str = "mcp";

/// How long a request whose token could not be checked (the authorization
/// server unreachable) is told to wait (its `503`'s `Retry-After`), in
/// seconds: the default least time between two fetches of the
/// authorization server's keys.
pub const AUTHORIZATION_SERVER_RETRY_SECS: u64 = 10;

/// Why [`EdgeAuth::admit`] refused a request.
pub(crate) enum Refusal {
    /// A `401`: no credentials (`description` `None`), or a refused token
    /// (the `invalid_token` description); its challenge's `scope` depends
    /// on what the request calls ([`EdgeAuth::unauthorized`]).
    Unauthorized {
        description: Option<String>,
        body: String,
    },
    /// A complete answer: `400 invalid_request`, `503`.
    Answer(Response),
}

/// What an OAuth resource server's challenges carry (RFC 9728 §5.1, RFC 6750
/// §3): where its metadata is, and the scopes to ask for.
pub(crate) struct OAuthChallenge {
    /// The URL of its protected resource metadata (path form).
    pub metadata_url: String,
    /// The server, for the scopes its capabilities need.
    pub server: FusionServer,
    /// The scopes of a challenge that names no operation, when set
    /// (`None`: read-only scopes, else every scope).
    pub challenge_scopes: Option<Vec<String>>,
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
    /// The [`Refusal`] of a request refused here.
    pub(crate) async fn admit(&self, headers: &HeaderMap) -> Result<Option<Principal>, Refusal> {
        match verify_bearer(self.verifier.as_ref(), headers).await {
            Ok(Some(principal)) => Ok(Some(principal)),
            Ok(None) if self.allow_anonymous => Ok(None),
            Ok(None) | Err(BearerRefusal::NotBearer) => Err(Refusal::Unauthorized {
                description: None,
                body: String::from(
                    "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)",
                ),
            }),
            Err(refusal @ BearerRefusal::Malformed(_)) => {
                let scopes = self.challenge_scopes();
                Err(Refusal::Answer(self.challenge(
                    StatusCode::BAD_REQUEST,
                    Some(("invalid_request", &refusal.description())),
                    &scopes,
                    &format!("Bad Request: {}", refusal.description()),
                )))
            }
            Err(BearerRefusal::Invalid(AuthFailure::Unavailable)) => {
                Err(Refusal::Answer(unavailable()))
            }
            Err(refusal @ BearerRefusal::Invalid(_)) => Err(Refusal::Unauthorized {
                description: Some(refusal.description()),
                body: format!("Unauthorized: {}", refusal.description()),
            }),
        }
    }

    /// Whether the `scope` of a `401` depends on what the request calls:
    /// with an OAuth resource server, whose challenges name scopes.
    pub(crate) fn scopes_by_operation(&self) -> bool {
        self.oauth.is_some()
    }

    /// The server, when challenges name the scopes its capabilities need.
    pub(crate) fn server(&self) -> Option<&FusionServer> {
        self.oauth.as_ref().map(|oauth| &oauth.server)
    }

    /// The scopes of a challenge that names no operation: the ones set,
    /// else those the server's read-only capabilities need, else every
    /// scope the server uses (MCP authorization, "Scope Selection
    /// Strategy"). Empty without an OAuth resource server.
    pub(crate) fn challenge_scopes(&self) -> Vec<String> {
        let Some(oauth) = &self.oauth else {
            return Vec::new();
        };
        if let Some(scopes) = &oauth.challenge_scopes {
            return scopes.clone();
        }
        let read_only = crate::server::edge::scopes::read_only_scopes(&oauth.server);
        if read_only.is_empty() {
            crate::server::edge::scopes::scopes_supported(&oauth.server)
        } else {
            read_only
        }
    }

    /// The `401` of `refused`, its challenge naming `operation_scopes` (the
    /// scopes of the capability the request calls) when there are any,
    /// else the [`challenge_scopes`](Self::challenge_scopes).
    pub(crate) fn unauthorized(
        &self,
        description: Option<&str>,
        body: &str,
        operation_scopes: Option<&[String]>,
    ) -> Response {
        let scopes = match operation_scopes {
            Some(scopes) if !scopes.is_empty() => scopes.to_vec(),
            _ => self.challenge_scopes(),
        };
        self.challenge(
            StatusCode::UNAUTHORIZED,
            description.map(|d| ("invalid_token", d)),
            &scopes,
            body,
        )
    }

    /// A 401 or 400 refusal with its `WWW-Authenticate: Bearer` challenge:
    /// `error` is the RFC 6750 error code and its description. An OAuth
    /// resource server's names its metadata and `scopes` (MCP
    /// authorization, "Scope Selection Strategy"); another's, the realm.
    fn challenge(
        &self,
        status: StatusCode,
        error: Option<(&str, &str)>,
        scopes: &[String],
        body: &str,
    ) -> Response {
        let mut params = Vec::new();
        if let Some((code, description)) = error {
            params.push(format!("error=\"{code}\""));
            params.push(format!("error_description=\"{}\"", quoted(description)));
        }
        match &self.oauth {
            Some(oauth) => {
                params.push(oauth.metadata_param());
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
    /// Scope Errors"; RFC 6750 §3.1), `name` being what it calls (cut to
    /// [`MAX_NAME_CHARS`]; its challenge percent-encodes what RFC 6750 §3
    /// does not let a quoted value hold).
    pub(crate) fn insufficient_scope(&self, name: &str, missing: &[String]) -> Response {
        let name = shown_name(name);
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

/// The `503` of a token that could not be checked: the authorization
/// server (its JWKS or introspection endpoint) did not answer. With
/// `Retry-After` and `Cache-Control: no-store`, without a challenge.
fn unavailable() -> Response {
    let mut response = (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!(
            "Service Unavailable: the authorization server could not be reached to check the bearer token; try again in {AUTHORIZATION_SERVER_RETRY_SECS} seconds"
        ),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::RETRY_AFTER,
        HeaderValue::from(AUTHORIZATION_SERVER_RETRY_SECS),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// What a challenge's quoted value percent-encodes (RFC 3986 §2.1): besides
/// every byte that is not printable ASCII (which `utf8_percent_encode`
/// always encodes), `"`, `\\` and `%` itself.
const NOT_QUOTABLE: &AsciiSet = &CONTROLS.add(b'"').add(b'\\').add(b'%');

/// The most characters of a name (a tool, a prompt, a URI) a refusal
/// repeats: a longer one is cut, ending in `...`.
pub(crate) const MAX_NAME_CHARS: usize = 128;

/// `name` as a refusal repeats it: at most [`MAX_NAME_CHARS`] characters.
pub(crate) fn shown_name(name: &str) -> Cow<'_, str> {
    cut_chars(name, MAX_NAME_CHARS, "...")
}

/// `text` as an RFC 6750 §3 quoted value, whose characters may only be
/// `%x20-21 / %x23-5B / %x5D-7E`: anything else (non-ASCII, control
/// characters, `"`, `\\`) percent-encoded as UTF-8, and `%` too so that the
/// text can be decoded.
fn quoted(text: &str) -> String {
    utf8_percent_encode(text, NOT_QUOTABLE).to_string()
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
