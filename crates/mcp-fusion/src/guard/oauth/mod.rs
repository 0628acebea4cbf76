//! [`OAuthResourceServer`]: the server as an OAuth 2.1 resource server (MCP
//! authorization, "Access Token Usage" and "Token Handling"; feature
//! `oauth`). It trusts one authorization server, found by its issuer
//! (RFC 8414 metadata, else OpenID Connect discovery), and takes only
//! tokens issued for its own resource URI (RFC 8707 audience): JWT access
//! tokens (RFC 9068) checked against the authorization server's keys, and,
//! with [`OAuthResourceServer::introspection_client`], opaque tokens asked
//! about at its introspection endpoint (RFC 7662).

mod claims;
mod discovery;
mod fetch;
mod introspection;
mod jwks;
mod resource;

use std::collections::HashSet;
use std::time::Duration;

use futures::future::BoxFuture;
use jsonwebtoken::{Algorithm, Validation};
use secrecy::SecretString;

use super::auth::{AuthFailure, TokenVerifier};
use super::protected_resource::ProtectedResource;
use crate::handler::Principal;
use claims::Claims;
use introspection::Introspection;
use jwks::KeyCache;

/// Why an [`OAuthResourceServer`] could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The issuer is not an absolute http(s) URI.
    #[error("the issuer {0} is not an absolute http or https URI")]
    Issuer(String),
    /// The resource URI is not usable (RFC 8707 §2: absolute, no fragment).
    #[error("the resource URI cannot be used: {0}")]
    Resource(String),
    /// No metadata document of the issuer could be read (RFC 8414 §3,
    /// OpenID Connect Discovery §4), or none names it as its issuer.
    #[error("cannot discover the authorization server {issuer}: {tried}")]
    Discovery {
        /// The issuer.
        issuer: String,
        /// Each URL tried and what went wrong.
        tried: String,
    },
    /// The authorization server publishes neither a `jwks_uri` nor (with
    /// introspection credentials) an `introspection_endpoint`: no token
    /// could be checked.
    #[error(
        "the authorization server {0} publishes no jwks_uri, so its JWT access tokens cannot be checked; give introspection credentials (introspection_client) if its tokens are opaque"
    )]
    NoJwks(String),
    /// Introspection credentials were given, but the metadata has no
    /// `introspection_endpoint`.
    #[error("the authorization server {0} publishes no introspection_endpoint (RFC 7662)")]
    NoIntrospection(String),
    /// The HTTP client could not be made.
    #[error("cannot make the HTTP client: {0}")]
    Http(String),
}

/// An OAuth 2.1 resource server's [`TokenVerifier`]: tokens from one
/// authorization server (the issuer), for one resource (the MCP endpoint's
/// canonical URI).
///
/// A JWT is taken when its header `typ` is `at+jwt` (RFC 9068 §2.1), its
/// `iss` is exactly the issuer the authorization server's metadata names
/// (RFC 9068 §4; no trailing `/` more or less), its signature verifies with a key of the issuer's
/// JWKS (fetched at the first token, kept an hour, fetched again for a key
/// id it lacks at most every [`jwks_refetch_cooldown`](Self::jwks_refetch_cooldown);
/// a token whose key is kept never waits for such a fetch),
/// its `exp` and `nbf` hold (with [`leeway`](Self::leeway)), and its `aud`
/// names the resource (a string or an array; compared canonically, RFC 8707
/// §2). Anything else is an opaque token, asked about at the introspection
/// endpoint when [`introspection_client`](Self::introspection_client) gave
/// credentials (the same `iss`, `aud` and `exp` rules), else refused. The
/// principal's subject is `sub` (else `client_id`); its scopes are `scope`
/// (space-separated, RFC 9068 §2.2.3) when the token has it, else `scp`
/// (an array or a string).
///
/// A refusal says why ([`AuthFailure`]), never echoing the token; the
/// Streamable HTTP edge answers it with 401 `invalid_token` and the reason,
/// except [`AuthFailure::Unavailable`] (the JWKS or introspection endpoint
/// could not be reached, or answered 5xx): `503` with `Retry-After`
/// ([`AUTHORIZATION_SERVER_RETRY_SECS`](crate::transport::AUTHORIZATION_SERVER_RETRY_SECS)),
/// the token being perhaps fine. The `scope` of a 401 challenge is chosen
/// by least privilege ([`challenge_scopes`](Self::challenge_scopes)).
/// Its [`protected_resource`](TokenVerifier::protected_resource) makes the
/// edge serve RFC 9728 metadata and name it in challenges.
pub struct OAuthResourceServer {
    issuer: String,
    resource: String,
    keys: Option<KeyCache>,
    introspection_endpoint: Option<String>,
    introspection: Option<Introspection>,
    http: reqwest::Client,
    leeway: Duration,
    require_at_jwt: bool,
    challenge_scopes: Option<Vec<String>>,
}

impl std::fmt::Debug for OAuthResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthResourceServer")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("introspection", &self.introspection.is_some())
            .finish_non_exhaustive()
    }
}

/// The JWS algorithms a token may be signed with: the asymmetric ones
/// (a JWKS publishes public keys; `none` and HMAC never).
const ASYMMETRIC: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

impl OAuthResourceServer {
    /// Trusts the authorization server `issuer` (e.g.
    /// `https://auth.example.com`) for the resource `resource` (the MCP
    /// endpoint's URI, e.g. `https://mcp.example.com/mcp`, kept in its
    /// canonical form): reads the issuer's metadata
    /// (`/.well-known/oauth-authorization-server`, then
    /// `/.well-known/openid-configuration`; RFC 8414 §3, whose `issuer` must
    /// be `issuer`, a trailing `/` aside). From then on the issuer is the
    /// metadata's `issuer`, which tokens' `iss` must equal exactly. A
    /// request to the authorization server gives up after 10 seconds.
    ///
    /// # Errors
    /// [`OAuthError::Issuer`], [`OAuthError::Resource`],
    /// [`OAuthError::Discovery`], [`OAuthError::NoJwks`],
    /// [`OAuthError::Http`].
    pub async fn discover(issuer: &str, resource: &str) -> Result<Self, OAuthError> {
        let resource = resource::canonical(resource).map_err(OAuthError::Resource)?;
        let issuer = issuer.trim_end_matches('/').to_owned();
        resource::canonical(&issuer).map_err(|_| OAuthError::Issuer(issuer.clone()))?;
        let http = reqwest::Client::builder()
            .timeout(fetch::TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| OAuthError::Http(e.to_string()))?;
        let metadata = discovery::discover(&http, &issuer).await?;
        // From here on the issuer is the one the authorization server
        // names itself, compared exactly (RFC 8414 §3.3, RFC 9068 §4).
        let issuer = metadata.issuer.clone();
        Ok(OAuthResourceServer {
            keys: metadata
                .jwks_uri
                .map(|uri| KeyCache::new(http.clone(), uri)),
            introspection_endpoint: metadata.introspection_endpoint,
            introspection: None,
            issuer,
            resource,
            http,
            leeway: Duration::from_secs(30),
            require_at_jwt: true,
            challenge_scopes: None,
        })
        .and_then(|server| {
            if server.keys.is_none() {
                Err(OAuthError::NoJwks(server.issuer))
            } else {
                Ok(server)
            }
        })
    }

    /// Takes opaque tokens too, asking about each at the authorization
    /// server's introspection endpoint (RFC 7662 §2) as the client
    /// `client_id` with `client_secret` (HTTP Basic, RFC 6749 §2.3.1).
    ///
    /// # Errors
    /// [`OAuthError::NoIntrospection`] when the metadata names no
    /// introspection endpoint.
    pub fn introspection_client(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Result<Self, OAuthError> {
        let endpoint = self
            .introspection_endpoint
            .clone()
            .ok_or_else(|| OAuthError::NoIntrospection(self.issuer.clone()))?;
        self.introspection = Some(Introspection::new(
            self.http.clone(),
            endpoint,
            client_id.into(),
            SecretString::from(client_secret.into()),
        ));
        Ok(self)
    }

    /// How far `exp` and `nbf` may be off, for clocks that differ.
    /// Default: 30 seconds.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the JWKS for a key id it
    /// lacks (a rotated key). Default: 10 seconds.
    pub fn jwks_refetch_cooldown(mut self, cooldown: Duration) -> Self {
        if let Some(keys) = &mut self.keys {
            keys.cooldown = cooldown;
        }
        self
    }

    /// How long an introspection answer is kept (never past the token's
    /// `exp`; zero: every request asks). A revoked token is taken until
    /// then. Default: 30 seconds.
    pub fn introspection_cache(mut self, ttl: Duration) -> Self {
        if let Some(introspection) = &mut self.introspection {
            introspection.ttl = ttl;
        }
        self
    }

    /// Whether a JWT's header must say `typ: at+jwt` (RFC 9068 §4; the
    /// default, which keeps ID tokens out). Turn off for an authorization
    /// server whose access tokens say `JWT`.
    pub fn require_at_jwt(mut self, require: bool) -> Self {
        self.require_at_jwt = require;
        self
    }

    /// The scopes the `scope` of a `401` challenge that names no operation
    /// asks for (RFC 6750 §3; MCP authorization, "Scope Selection
    /// Strategy"): the first challenge most clients see (to `initialize`),
    /// hence the scopes of their first token. Least privilege by default:
    /// the scopes the server's read-only capabilities need (actions marked
    /// read-only, prompts, resources), else, when those need none, every
    /// scope the server uses. Whatever this says, a `401` to a call of a
    /// capability that needs scopes (`tools/call`, `prompts/get`,
    /// `resources/read`, `resources/subscribe`, `completion/complete`)
    /// names exactly that capability's, and a `403
    /// insufficient_scope` the ones the token lacks; the metadata's
    /// `scopes_supported` (RFC 9728 §2) stays every scope.
    pub fn challenge_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.challenge_scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// The issuer trusted.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The canonical resource URI tokens must name as their audience.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    async fn verify_jwt(
        &self,
        keys: &KeyCache,
        token: &str,
        header: jsonwebtoken::Header,
    ) -> Result<Principal, AuthFailure> {
        let typ = header.typ.as_deref().unwrap_or("").to_ascii_lowercase();
        if self.require_at_jwt && typ != "at+jwt" && typ != "application/at+jwt" {
            return Err(AuthFailure::NotAccessToken);
        }
        if !ASYMMETRIC.contains(&header.alg) {
            return Err(AuthFailure::Invalid);
        }
        // Whose token it is, before any key is looked for: another issuer's
        // token is refused as such (and fetches nothing).
        let unverified: Claims = jsonwebtoken::dangerous::insecure_decode_claims(token)
            .map_err(|_| AuthFailure::Invalid)?;
        if unverified.iss.as_deref() != Some(self.issuer.as_str()) {
            return Err(AuthFailure::WrongIssuer);
        }
        let key = keys.key(header.kid.as_deref()).await?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.required_spec_claims = HashSet::from([String::from("exp")]);
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            match e.kind() {
                ErrorKind::ExpiredSignature => AuthFailure::Expired,
                ErrorKind::ImmatureSignature => AuthFailure::NotYetValid,
                ErrorKind::InvalidSignature => AuthFailure::BadSignature,
                _ => AuthFailure::Invalid,
            }
        })?;
        if !data.claims.audience_names(&self.resource) {
            return Err(AuthFailure::WrongAudience);
        }
        data.claims.principal()
    }
}

impl TokenVerifier for OAuthResourceServer {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, AuthFailure>> {
        Box::pin(async move {
            let jwt = (token.split('.').count() == 3)
                .then(|| jsonwebtoken::decode_header(token).ok())
                .flatten();
            match (jwt, &self.keys, &self.introspection) {
                (Some(header), Some(keys), _) => self.verify_jwt(keys, token, header).await,
                (None, _, Some(introspection)) => {
                    introspection
                        .verify(token, &self.issuer, &self.resource)
                        .await
                }
                _ => Err(AuthFailure::Invalid),
            }
        })
    }

    fn protected_resource(&self) -> Option<ProtectedResource> {
        let resource = ProtectedResource::new(&self.resource, &self.issuer);
        Some(match &self.challenge_scopes {
            Some(scopes) => resource.with_challenge_scopes(scopes.iter().cloned()),
            None => resource,
        })
    }
}
