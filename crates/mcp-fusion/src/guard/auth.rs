//! Bearer-token auth: `AUTH_REQUIRED`, `UNAUTHORIZED`, `FORBIDDEN` (wire
//! contract §5). A [`TokenVerifier`] turns a bearer token into a
//! [`Principal`] — at the HTTP edge, before any JSON-RPC is read
//! ([`verify_bearer`]); each capability's [`AuthRule`] then says what its
//! caller must have, checked by the guard on its path.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use subtle::ConstantTimeEq;
use tower::ServiceExt;

use super::layer::Guard;
use super::protected_resource::ProtectedResource;
use crate::error::ToolError;
use crate::handler::{CallContext, Peer, Principal};
use crate::pipeline::{ActionService, Call, Outcome};

/// Why a token was refused. Its text is shown to the model, so it never holds
/// the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthFailure {
    /// The token is unknown, malformed or badly signed.
    #[error("is not valid")]
    Invalid,
    /// The token was valid but has expired (its `exp`, RFC 7519 §4.1.4).
    #[error("has expired")]
    Expired,
    /// The token's `nbf` is still to come (RFC 7519 §4.1.5).
    #[error("is not valid yet")]
    NotYetValid,
    /// The token does not name this server's resource URI in its audience
    /// (`aud`; RFC 8707 §2, MCP authorization "Token Audience Binding"),
    /// or names none.
    #[error(
        "was not issued for this server (its audience does not include this server's resource URI)"
    )]
    WrongAudience,
    /// The token was issued by another authorization server than the one
    /// this server trusts (`iss`, RFC 9068 §4).
    #[error("was issued by another authorization server than the one this server trusts")]
    WrongIssuer,
    /// The token is signed with a key (`kid`) the authorization server does
    /// not publish in its JWKS, even after fetching it again.
    #[error("is signed with a key the authorization server does not publish")]
    UnknownKey,
    /// The token's signature does not verify with the authorization
    /// server's key.
    #[error("has a signature that does not verify")]
    BadSignature,
    /// The token is a JWT but not a JWT access token (header `typ` is not
    /// `at+jwt`, RFC 9068 §2.1), e.g. an ID token.
    #[error("is not an access token (its JWT type is not at+jwt)")]
    NotAccessToken,
    /// The authorization server says the token is not active (RFC 7662
    /// §2.2: revoked, expired or unknown to it).
    #[error(
        "is not active (the authorization server says it was revoked, has expired or is unknown)"
    )]
    Inactive,
    /// The authorization server refused to check the token: its
    /// introspection endpoint answered 400 (RFC 7662 §2.3; e.g. a token
    /// type it does not take) or 413 (a token too large).
    #[error("was not accepted by the authorization server")]
    Rejected,
    /// The token could not be checked: the authorization server (its JWKS
    /// or introspection endpoint) did not answer, or answered an error
    /// other than those of [`AuthFailure::Rejected`] (5xx, 401 to this
    /// server's own credentials, 429) or something unreadable.
    #[error("could not be checked: the authorization server did not answer")]
    Unavailable,
}

/// Checks bearer tokens. Ship-ready implementations: [`StaticTokens`] and
/// (feature `jwt`) `JwtVerifier`; implement it for anything else (an introspection
/// endpoint, a database).
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal `token` stands for.
    ///
    /// # Errors
    /// [`AuthFailure`] when the token is invalid or expired.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, AuthFailure>>;

    /// The protected resource this verifier guards, when its tokens come
    /// from an OAuth authorization server (RFC 9728): then the Streamable
    /// HTTP edge serves its metadata and names it in every challenge
    /// (`resource_metadata`). `None` (the default) for verifiers of tokens
    /// made elsewhere, whose challenges name the realm alone.
    fn protected_resource(&self) -> Option<ProtectedResource> {
        None
    }
}

/// A fixed set of tokens, each standing for a subject with scopes. Its
/// `Debug` shows the subjects, never the tokens.
#[derive(Debug, Clone, Default)]
pub struct StaticTokens {
    entries: Vec<(SecretString, Principal)>,
}

/// Why a token file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The file is not the expected JSON.
    #[error(
        "{path} is not a token file: {reason} (expected {{\"tokens\": [{{\"token\": \"…\", \"subject\": \"…\", \"scopes\": [\"…\"]}}]}})"
    )]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A JWT key could not be read (`JwtVerifier`, feature `jwt`).
    #[error("invalid JWT key: {0}")]
    Key(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenFile {
    tokens: Vec<TokenEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenEntry {
    token: String,
    subject: String,
    #[serde(default)]
    scopes: Vec<String>,
}

impl StaticTokens {
    /// No tokens yet.
    pub fn new() -> Self {
        StaticTokens::default()
    }

    /// Adds `token`, standing for `subject` with `scopes`.
    pub fn token<I, S>(
        mut self,
        token: impl Into<String>,
        subject: impl Into<String>,
        scopes: I,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.entries.push((
            SecretString::from(token.into()),
            Principal::new(subject, scopes),
        ));
        self
    }

    /// Reads a JSON token file:
    /// `{"tokens": [{"token": "…", "subject": "…", "scopes": ["billing:read"]}]}`.
    ///
    /// # Errors
    /// [`AuthConfigError`] when the file cannot be read, is not that shape, has
    /// no tokens, an empty token or subject, or a token twice.
    pub fn from_file(path: &Path) -> Result<Self, AuthConfigError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| AuthConfigError::Read {
            path: name.clone(),
            source,
        })?;
        let format = |reason: String| AuthConfigError::Format {
            path: name.clone(),
            reason,
        };
        let file: TokenFile = serde_json::from_str(&text).map_err(|e| format(e.to_string()))?;
        if file.tokens.is_empty() {
            return Err(format(String::from("it lists no tokens")));
        }
        let mut tokens = StaticTokens::new();
        for (i, entry) in file.tokens.into_iter().enumerate() {
            if entry.token.trim().is_empty() || entry.subject.trim().is_empty() {
                return Err(format(format!("entry {i} has an empty token or subject")));
            }
            if entry.token.chars().any(char::is_whitespace) {
                return Err(format(format!(
                    "the token of entry {i} contains white space, which a bearer header cannot carry"
                )));
            }
            if tokens
                .entries
                .iter()
                .any(|(t, _)| t.expose_secret() == entry.token)
            {
                return Err(format(format!("entry {i} repeats a token")));
            }
            tokens = tokens.token(entry.token, entry.subject, entry.scopes);
        }
        Ok(tokens)
    }
}

impl TokenVerifier for StaticTokens {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, AuthFailure>> {
        // Every entry is compared, in constant time each.
        let found = self.entries.iter().fold(None, |found, (t, p)| {
            if bool::from(t.expose_secret().as_bytes().ct_eq(token.as_bytes())) {
                Some(p)
            } else {
                found
            }
        });
        Box::pin(std::future::ready(
            found.cloned().ok_or(AuthFailure::Invalid),
        ))
    }
}

/// What one action asks of its caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AuthRule {
    /// Credentials are needed even when no scope is.
    pub required: bool,
    /// Scopes the credentials must all carry.
    pub scopes: Vec<String>,
}

impl AuthRule {
    /// Whether a caller without credentials is refused.
    pub(crate) fn needs_credentials(&self) -> bool {
        self.required || !self.scopes.is_empty()
    }
}

/// Why the credentials of a request were refused before it was read (RFC
/// 6750 §3.1): the HTTP edge answers 401 or 400, an in-process call
/// `UNAUTHORIZED`. Its text never holds the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BearerRefusal {
    /// An `Authorization` header of another scheme than `Bearer`: the
    /// credentials this server does not take, HTTP 401 with the `Bearer`
    /// challenge and no error code.
    NotBearer,
    /// More than one `Authorization` header, or a `Bearer` one without a
    /// token: `invalid_request`, HTTP 400.
    Malformed(&'static str),
    /// A bearer token the verifier refused: `invalid_token`, HTTP 401.
    Invalid(AuthFailure),
}

impl BearerRefusal {
    /// What the model or the user reads about it.
    pub(crate) fn description(&self) -> String {
        match self {
            BearerRefusal::NotBearer => String::from(
                "The Authorization header does not hold a bearer token (`Bearer TOKEN`).",
            ),
            BearerRefusal::Malformed(reason) => (*reason).to_owned(),
            BearerRefusal::Invalid(failure) => format!("The bearer token {failure}."),
        }
    }
}

/// The principal of a request's `Authorization` header, checked with
/// `verifier`: `Ok(None)` without a header, `Ok(Some)` for a valid token.
///
/// # Errors
/// [`BearerRefusal`] for a malformed header or a refused token.
pub(crate) async fn verify_bearer(
    verifier: &dyn TokenVerifier,
    headers: &http::HeaderMap,
) -> Result<Option<Principal>, BearerRefusal> {
    let mut values = headers.get_all(http::header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(BearerRefusal::Malformed(
            "The request carries more than one Authorization header.",
        ));
    }
    let Ok(value) = value.to_str() else {
        return Err(BearerRefusal::Malformed(
            "The Authorization header is not readable text.",
        ));
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(BearerRefusal::NotBearer);
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(BearerRefusal::Malformed(
            "The Authorization header says Bearer but holds no token.",
        ));
    }
    verifier
        .verify(token)
        .await
        .map(Some)
        .map_err(BearerRefusal::Invalid)
}

/// The `UNAUTHORIZED` answer to an in-process call whose credentials were
/// refused (over HTTP the edge answers 401 instead).
pub(crate) fn unauthorized(refusal: &BearerRefusal) -> ToolError {
    let recovery = match refusal {
        BearerRefusal::Invalid(_) => {
            "Do not retry with the same token. Ask the user for a valid token, then call again."
        }
        _ => "Send the token as `Authorization: Bearer TOKEN`, then call again.",
    };
    ToolError::unauthorized(refusal.description()).suggest(recovery)
}

/// Checks one capability's caller against its rule: the principal the
/// transport established (at the HTTP edge) is in the call's context.
pub(crate) struct AuthGuard {
    pub rule: AuthRule,
}

fn auth_required(name: &str, peer: Peer) -> ToolError {
    let recovery = match peer {
        Peer::Stdio => {
            "This server is reached over stdio, which carries no credentials: tell the user this needs an authenticated connection (Streamable HTTP with a bearer token), and do not call it again here."
        }
        _ => {
            "Ask the user to configure a bearer token for this server (HTTP Authorization header), then call again."
        }
    };
    ToolError::auth_required(format!(
        "{name} needs credentials, and the call carried none."
    ))
    .suggest(recovery)
}

fn forbidden(name: &str, missing: &[&String]) -> ToolError {
    let list = missing
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let (noun, pronoun) = if missing.len() == 1 {
        ("scope", "it")
    } else {
        ("scopes", "them")
    };
    ToolError::forbidden(format!(
        "{name} needs the {noun} {list}, which these credentials do not have."
    ))
    .suggest(format!(
        "Do not retry: the same credentials will be refused again. Tell the user the token lacks the {noun} {list} and ask for one that has {pronoun}."
    ))
    .detail("missing_scopes", missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "))
}

impl AuthRule {
    /// Whether a caller with `principal` may use the capability: any
    /// principal when it only needs credentials, one with every scope when it
    /// names scopes, anyone when it needs nothing. (Lists show a capability
    /// to a caller with credentials even when a scope is missing: using it
    /// then says which, so the model can tell the user.)
    pub(crate) fn lets_see(&self, principal: Option<&Principal>) -> bool {
        principal.is_some() || !self.needs_credentials()
    }

    /// Whether a caller with `principal` (`None`: no credentials) may use
    /// the capability: exactly when [`refusal`](Self::refusal) has nothing
    /// to say (what `subscriptions/listen` accepts a resource URI by).
    pub(crate) fn admits(&self, principal: Option<&Principal>) -> bool {
        match principal {
            None => !self.needs_credentials(),
            Some(principal) => self.missing_scopes(principal).is_empty(),
        }
    }

    /// Why the caller in `ctx` may not use the capability, if it may not:
    /// `AUTH_REQUIRED` or `FORBIDDEN`, as its guard answers a call.
    pub(crate) fn refusal(&self, ctx: &CallContext) -> Option<ToolError> {
        if self.admits(ctx.principal()) {
            return None;
        }
        let name = ctx.name();
        Some(match ctx.principal() {
            None => auth_required(name, ctx.peer()),
            Some(principal) => forbidden(name, &self.missing_scopes(principal)),
        })
    }

    /// The scopes of this rule that `principal` lacks, in the rule's order
    /// (see [`covers`] for what a granted scope satisfies).
    pub(crate) fn missing_scopes<'a>(&'a self, principal: &Principal) -> Vec<&'a String> {
        self.scopes
            .iter()
            .filter(|required| {
                !principal
                    .scopes
                    .iter()
                    .any(|granted| covers(granted, required))
            })
            .collect()
    }
}

/// Whether the granted scope `granted` satisfies the required scope
/// `required`: the same scope, or a broader one whose name followed by `:`
/// starts the required one (`billing` covers `billing:read` and
/// `billing:invoices:write`; `billing:read` covers `billing:read:summary`,
/// never `billing:write`). MCP authorization (2026-07-28, "Step-Up
/// Authorization Flow") asks servers to honour scope hierarchies; this is
/// the one hierarchy mcp-fusion knows.
pub(crate) fn covers(granted: &str, required: &str) -> bool {
    granted == required
        || required
            .strip_prefix(granted)
            .is_some_and(|rest| rest.starts_with(':'))
}

impl Guard for AuthGuard {
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>> {
        match self.rule.refusal(&call.ctx) {
            Some(refused) => Box::pin(std::future::ready(Err(refused))),
            None => Box::pin(next.oneshot(call)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn static_tokens_verify_in_constant_time() {
        let tokens = StaticTokens::new().token("t-1", "alice", ["billing:read"]);
        assert_eq!(
            tokens.verify("t-1").await,
            Ok(Principal::new("alice", ["billing:read"]))
        );
        assert_eq!(tokens.verify("t-2").await, Err(AuthFailure::Invalid));
        assert_eq!(tokens.verify("").await, Err(AuthFailure::Invalid));
    }

    #[test]
    fn a_broader_scope_covers_the_narrower_ones_under_it() {
        assert!(covers("billing:read", "billing:read"));
        assert!(covers("billing", "billing:read"));
        assert!(covers("billing", "billing:invoices:write"));
        assert!(covers("billing:read", "billing:read:summary"));
        assert!(!covers("billing:read", "billing:write"));
        assert!(!covers("bill", "billing:read"));
        assert!(!covers("billing:read", "billing"));
        let rule = AuthRule {
            required: false,
            scopes: vec!["billing:read".into(), "billing:write".into()],
        };
        let reader = Principal::new("alice", ["billing:read"]);
        assert_eq!(
            rule.missing_scopes(&reader),
            [&String::from("billing:write")]
        );
        let owner = Principal::new("root", ["billing"]);
        assert!(rule.missing_scopes(&owner).is_empty());
    }

    #[test]
    fn forbidden_names_the_scope_not_the_token() {
        let scope = String::from("billing:write");
        let err = forbidden("billing.void_invoice", &[&scope]);
        assert_eq!(
            err.message,
            "billing.void_invoice needs the scope \"billing:write\", which these credentials do not have."
        );
    }
}
