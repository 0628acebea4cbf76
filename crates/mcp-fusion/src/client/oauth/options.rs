//! [`OAuthOptions`]: how a [`FusionClient`](crate::client::FusionClient) obtains an
//! access token when a Streamable HTTP server answers `401 Unauthorized`
//! (MCP 2025-11-25 / 2026-07-28 "Authorization"), and [`AuthorizationError`],
//! why it could not.
//!
//! The OAuth 2.1 work itself is rmcp's `auth` feature: discovery (the
//! challenge's `resource_metadata`, else the RFC 9728 well-known URIs, then
//! RFC 8414 / OpenID Connect metadata), registration (pre-registered, Client
//! ID Metadata Document, or RFC 7591 dynamic registration), PKCE S256, the
//! RFC 8707 `resource` parameter, RFC 9207 `iss` validation and refresh;
//! `private_key_jwt` client assertions (RFC 7523 §2.2) and the
//! enterprise-managed ID-JAG exchanges.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::AuthError;
use rmcp::transport::auth::enterprise::EmaError;
use secrecy::SecretString;

use super::assertion::ClientAssertionKey;
use super::enterprise::EnterpriseIdentity;

/// Which OAuth 2.1 grant obtains the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OAuthGrant {
    /// Authorization code with PKCE S256 (OAuth 2.1 §4.1, MCP "Authorization
    /// Code Protection"): the user opens the authorization URL in a browser,
    /// and the authorization server redirects to a loopback listener the
    /// client binds on `127.0.0.1` (RFC 8252 §7.3). The default.
    #[default]
    AuthorizationCode,
    /// Client credentials (OAuth 2.1 §4.2; the MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`): a confidential
    /// client's own credentials, no user. Needs [`OAuthOptions::client_id`]
    /// and either [`OAuthOptions::client_assertion_key`] (`private_key_jwt`,
    /// RFC 7523 §2.2: a signed JWT instead of a secret; preferred when both
    /// are set) or [`OAuthOptions::client_secret`] (`client_secret_post`, or
    /// `client_secret_basic` when the authorization server lists only that).
    ClientCredentials,
    /// Enterprise-managed authorization (the MCP extension
    /// `io.modelcontextprotocol/enterprise-managed-authorization`, SEP-990):
    /// the user's ID token from the enterprise identity provider is exchanged
    /// there for an ID-JAG (RFC 8693), which the MCP authorization server
    /// takes as a JWT bearer grant (RFC 7523 §2.1); no browser. Needs
    /// [`OAuthOptions::enterprise`] and [`OAuthOptions::client_id`] (the
    /// client at the MCP authorization server, authenticated by
    /// [`OAuthOptions::client_secret`] when given).
    EnterpriseManaged,
}

/// A function given the authorization URL the user must open
/// ([`OAuthOptions::on_authorization_url`]). It must return quickly (e.g.
/// print it, or start a browser); the client then waits for the redirect.
#[derive(Clone)]
pub struct AuthorizationUrlHook(pub Arc<dyn Fn(&str) + Send + Sync>);

impl fmt::Debug for AuthorizationUrlHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthorizationUrlHook")
    }
}

/// How a client answers a `401` from a Streamable HTTP server: discover the
/// authorization server, obtain a token with [`grant`](Self::grant), send it
/// as `Authorization: Bearer …` and repeat the request (once). Tokens stay in
/// memory for the life of the client and are refreshed (or obtained again)
/// when they expire. A `403` with `error="insufficient_scope"` (MCP
/// "Step-Up Authorization Flow") authorizes once more with the union of the
/// scopes held and the scopes challenged, then repeats the request once.
///
/// A client registered dynamically (RFC 7591) is registered once and kept
/// for the life of the client: a later authorization (step-up, or a new
/// token after one expired without a refresh token) reuses its client id and
/// secret, and registers again only when it needs a scope the registration
/// does not cover.
///
/// `OAuthOptions::default()`: authorization code with PKCE, no client id
/// (dynamic client registration, RFC 7591), no client metadata document,
/// the scopes the server names, client name `mcp-fusion`, 300 s to wait for
/// the redirect, 30 s for each exchange with the authorization server, the
/// authorization URL printed on stderr, no 2025-03-26 default endpoints.
///
/// Credentials go to an authorization server only over `https://`, or
/// `http://` on loopback (OAuth 2.1 §1.5): an issuer, authorization, token
/// or registration endpoint that is `http://` elsewhere is
/// [`AuthorizationError::InsecureEndpoint`], before any request that
/// carries a secret, a code verifier or a registration.
/// `Debug` prints the secret as `[REDACTED]`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// The grant. Default [`OAuthGrant::AuthorizationCode`].
    pub grant: OAuthGrant,
    /// A client id registered with the authorization server beforehand. For
    /// the authorization code grant, `None` registers one: by
    /// [`client_metadata_url`](Self::client_metadata_url) when the server
    /// supports Client ID Metadata Documents, else dynamically (RFC 7591).
    pub client_id: Option<String>,
    /// The client's secret (confidential clients; sent as the authorization
    /// server's metadata asks: `client_secret_post` or `client_secret_basic`).
    pub client_secret: Option<SecretString>,
    /// The client's private key for `private_key_jwt` client authentication
    /// (RFC 7523 §2.2) in the client credentials grant. The authorization
    /// server's metadata must list `private_key_jwt` in
    /// `token_endpoint_auth_methods_supported` and the key's algorithm in
    /// `token_endpoint_auth_signing_alg_values_supported` when it gives
    /// those lists.
    pub client_assertion_key: Option<ClientAssertionKey>,
    /// The identity provider and ID token of
    /// [`OAuthGrant::EnterpriseManaged`].
    pub enterprise: Option<EnterpriseIdentity>,
    /// An `https://` URL of this client's Client ID Metadata Document, used as
    /// its client id when the authorization server advertises
    /// `client_id_metadata_document_supported` (MCP 2025-11-25 "Client ID
    /// Metadata Documents").
    pub client_metadata_url: Option<String>,
    /// The scopes to ask for (RFC 6749 §3.3). Empty (the default): the
    /// scopes of the server's challenge, else its protected resource
    /// metadata's `scopes_supported` (MCP "Scope Selection Strategy"). A
    /// step-up adds the scopes challenged to those held.
    pub scopes: Vec<String>,
    /// The `client_name` sent in dynamic registration. Default `mcp-fusion`.
    pub client_name: String,
    /// The longest the client waits for the authorization redirect after
    /// giving out the URL. Default 300 s.
    pub redirect_timeout: Duration,
    /// The longest each exchange with the authorization server may take:
    /// discovery (protected resource and authorization server metadata),
    /// registration, the token request. Default 30 s (rmcp's own limit per
    /// HTTP request, which still applies). On expiry:
    /// [`AuthorizationError::TimedOut`].
    pub request_timeout: Duration,
    /// Given the authorization URL to open. Default: prints
    /// `Open this URL in a browser to authorize: URL` on stderr.
    pub on_authorization_url: AuthorizationUrlHook,
    /// Whether a server that publishes no OAuth metadata (no
    /// `resource_metadata` in its challenge, no RFC 9728 protected resource
    /// metadata at its well-known URIs, no RFC 8414 metadata at its origin)
    /// is sent to the default endpoints `/authorize`, `/token` and
    /// `/register` at its origin (MCP 2025-03-26 "Fallbacks for Servers
    /// without Metadata Discovery"; later revisions require the metadata).
    /// Default `false`: such a server fails with
    /// [`AuthorizationError::NoMetadata`], as it most likely takes a static
    /// bearer token.
    pub legacy_endpoints: bool,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        OAuthOptions {
            grant: OAuthGrant::AuthorizationCode,
            client_id: None,
            client_secret: None,
            client_assertion_key: None,
            enterprise: None,
            client_metadata_url: None,
            scopes: Vec::new(),
            client_name: String::from("mcp-fusion"),
            redirect_timeout: Duration::from_secs(300),
            request_timeout: Duration::from_secs(30),
            on_authorization_url: AuthorizationUrlHook(Arc::new(|url| {
                eprintln!("Open this URL in a browser to authorize: {url}");
            })),
            legacy_endpoints: false,
        }
    }
}

impl OAuthOptions {
    /// The authorization code grant with PKCE for a public client: the
    /// defaults.
    pub fn authorization_code() -> Self {
        OAuthOptions::default()
    }

    /// The client credentials grant for the confidential client `client_id`
    /// with `client_secret`.
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        OAuthOptions {
            grant: OAuthGrant::ClientCredentials,
            client_id: Some(client_id.into()),
            client_secret: Some(SecretString::from(client_secret.into())),
            ..OAuthOptions::default()
        }
    }

    /// The client credentials grant for the confidential client `client_id`
    /// authenticating with a JWT signed by `key` (`private_key_jwt`, RFC 7523
    /// §2.2; the MCP extension `io.modelcontextprotocol/oauth-client-credentials`).
    pub fn client_credentials_jwt(client_id: impl Into<String>, key: ClientAssertionKey) -> Self {
        OAuthOptions {
            grant: OAuthGrant::ClientCredentials,
            client_id: Some(client_id.into()),
            client_assertion_key: Some(key),
            ..OAuthOptions::default()
        }
    }

    /// Enterprise-managed authorization with `identity` (the IdP and the
    /// user's ID token), as the client `client_id` of the MCP authorization
    /// server (add [`client_secret`](Self::client_secret) for a confidential
    /// one).
    pub fn enterprise_managed(identity: EnterpriseIdentity, client_id: impl Into<String>) -> Self {
        OAuthOptions {
            grant: OAuthGrant::EnterpriseManaged,
            client_id: Some(client_id.into()),
            enterprise: Some(identity),
            ..OAuthOptions::default()
        }
    }

    /// Sets [`client_id`](Self::client_id) (a pre-registered client).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets [`client_secret`](Self::client_secret).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(SecretString::from(secret.into()));
        self
    }

    /// Sets [`client_assertion_key`](Self::client_assertion_key).
    pub fn client_assertion_key(mut self, key: ClientAssertionKey) -> Self {
        self.client_assertion_key = Some(key);
        self
    }

    /// Sets [`client_metadata_url`](Self::client_metadata_url).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets [`scopes`](Self::scopes).
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`client_name`](Self::client_name).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Sets [`redirect_timeout`](Self::redirect_timeout).
    pub fn redirect_timeout(mut self, limit: Duration) -> Self {
        self.redirect_timeout = limit;
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.request_timeout = limit;
        self
    }

    /// Sets [`legacy_endpoints`](Self::legacy_endpoints).
    pub fn legacy_endpoints(mut self, enabled: bool) -> Self {
        self.legacy_endpoints = enabled;
        self
    }

    /// Sets [`on_authorization_url`](Self::on_authorization_url).
    pub fn on_authorization_url(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_authorization_url = AuthorizationUrlHook(Arc::new(hook));
        self
    }
}

/// Why the client could not obtain a token the server accepts. Carried by
/// [`FusionClientError::Authorization`](crate::client::FusionClientError::Authorization);
/// `source()` leads to rmcp's [`AuthError`] or the operating system's error.
/// No variant holds a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthorizationError {
    /// The server answered `401` but publishes no OAuth metadata: its
    /// challenge names no `resource_metadata` (RFC 9728 §5.1), there is no
    /// protected resource metadata at the well-known URIs (RFC 9728 §3.1,
    /// path form then root form) nor authorization server metadata at its
    /// origin (RFC 8414 §3). Such a server takes a bearer token given as it
    /// is ([`ClientOptions::bearer`](crate::client::ClientOptions::bearer)). Not
    /// returned with [`OAuthOptions::legacy_endpoints`].
    #[error("the server needs a bearer token and publishes no OAuth metadata: its challenge ({challenge}) names no resource_metadata, and there is no protected resource metadata at {}", .probed.join(" or "))]
    NoMetadata {
        /// The server's `WWW-Authenticate` value.
        challenge: String,
        /// The well-known URIs that were probed, path form first.
        probed: Vec<String>,
    },
    /// Discovery failed: no usable protected resource metadata (RFC 9728; a
    /// `resource` that does not match the server is refused) or authorization
    /// server metadata (RFC 8414), or the authorization server does not
    /// support PKCE S256.
    #[error("authorization server discovery failed: {}", discovery_text(.0))]
    Discovery(#[source] AuthError),
    /// The protected resource metadata names no authorization server
    /// (RFC 9728 §2 `authorization_servers` empty or absent; MCP requires at
    /// least one), and the authorization server metadata at the server's
    /// origin is for another issuer than the server's URL.
    #[error(
        "the protected resource metadata names no authorization server (its authorization_servers is empty or absent), and the authorization server metadata at the server's origin is for the issuer {received_issuer}, not for this server"
    )]
    NoAuthorizationServer {
        /// The issuer named by the metadata found at the server's origin.
        received_issuer: String,
    },
    /// No authorization server the protected resource metadata names could
    /// be used. `refused` pairs each with why: not contacted because of its
    /// address (rmcp contacts a private, loopback, link-local or otherwise
    /// reserved address only for a server at an address of the same kind),
    /// or no usable RFC 8414 / OpenID Connect metadata there.
    #[error("the protected resource metadata at {resource_metadata} names no usable authorization server: {}", .refused.iter().map(|(url, why)| format!("{url} ({why})")).collect::<Vec<_>>().join(", "))]
    NoUsableAuthorizationServer {
        /// Where the protected resource metadata was read.
        resource_metadata: String,
        /// Each authorization server named, and why it was not used.
        refused: Vec<(String, String)>,
    },
    /// The discovered authorization server, or its authorization, token or
    /// registration endpoint, is not `https://` and not on loopback (OAuth
    /// 2.1 §1.5 "Communication security", RFC 8414 §2). Nothing was sent
    /// to it.
    #[error(
        "refusing the {role} {url}: it is not https:// (OAuth 2.1 §1.5, RFC 8414 §2), and only an authorization server on loopback (127.0.0.0/8, ::1, localhost) may use http://; no credential was sent"
    )]
    InsecureEndpoint {
        /// `authorization server`, `authorization endpoint`, `token
        /// endpoint` or `registration endpoint`.
        role: &'static str,
        /// The URL refused.
        url: String,
    },
    /// An exchange with the authorization server took longer than
    /// [`OAuthOptions::request_timeout`].
    #[error("the {stage} timed out after {} s", .limit.as_secs_f64())]
    TimedOut {
        /// `authorization server discovery`, `client registration` or
        /// `token request`.
        stage: &'static str,
        /// The limit that passed.
        limit: Duration,
    },
    /// The server answered `401` again to the request sent with the token
    /// just obtained: it does not accept tokens of that authorization server
    /// (e.g. another audience, RFC 8707; MCP "Token Handling").
    #[error("the server refused the token just obtained from its authorization server{}", refused_token(.error.as_deref(), .description.as_deref()))]
    TokenRefused {
        /// The `error` of the server's second challenge (RFC 6750 §3.1),
        /// e.g. `invalid_token`.
        error: Option<String>,
        /// Its `error_description`, when given.
        description: Option<String>,
    },
    /// The client could not be registered (dynamic registration refused, or
    /// a client metadata document the server cannot use).
    #[error("client registration failed: {0}")]
    Registration(#[source] AuthError),
    /// The grant needs something the options do not give (e.g. client
    /// credentials without a client id or secret).
    #[error("{0}")]
    Config(String),
    /// The loopback listener for the redirect could not be bound or failed.
    #[error("the loopback redirect listener on 127.0.0.1 failed: {0}")]
    Loopback(#[source] std::io::Error),
    /// No redirect came back within
    /// [`OAuthOptions::redirect_timeout`].
    #[error("no authorization redirect within {} s (was the URL opened?)", .0.as_secs())]
    RedirectTimeout(Duration),
    /// The authorization server redirected with an error (RFC 6749 §4.1.2.1),
    /// e.g. `access_denied`.
    #[error("the authorization server refused: {error}{}", .description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        /// The `error` code of the redirect.
        error: String,
        /// Its `error_description`, when given.
        description: Option<String>,
    },
    /// The authorization response failed validation: an unknown `state`, or
    /// an `iss` that is missing or not the issuer discovered (RFC 9207).
    #[error("the authorization response is not valid: {0}")]
    Response(#[source] AuthError),
    /// The token request was refused or its answer was unusable (also: a
    /// client assertion key that does not parse or suit its algorithm).
    #[error("the token request failed: {0}")]
    Token(#[source] AuthError),
    /// The token request got no usable answer from the token endpoint:
    /// no HTTP answer (`cause` says why: e.g. `connection refused: nothing
    /// is listening on 127.0.0.1:1`), or a status other than 200 with an
    /// empty body (a redirect is not followed, RFC 6749 §3.2).
    #[error("the token request to {endpoint} failed: {cause}")]
    TokenEndpoint {
        /// The token endpoint.
        endpoint: String,
        /// What happened, in words.
        cause: String,
        /// rmcp's error.
        #[source]
        source: AuthError,
    },
    /// After one step-up authorization (MCP "Step-Up Authorization Flow":
    /// the union of the scopes held and challenged was asked for), the
    /// server still answered `403` with `error="insufficient_scope"`: the
    /// authorization server granted fewer scopes than asked (RFC 6749 §3.3).
    /// Scopes are compared as written (case-sensitive).
    #[error("step-up authorization did not get the scopes needed: the authorization server granted {}; {operation} needs {}{}", scope_list(.granted), needed(.missing), .description.as_deref().map(|d| format!(" (the server says: {d})")).unwrap_or_default())]
    InsufficientScope {
        /// The request refused: its JSON-RPC method, and the tool, resource
        /// or prompt it names (e.g. `tools/call billing`).
        operation: String,
        /// The scopes of the token after the step-up, as the token response
        /// gave them.
        granted: Vec<String>,
        /// The scopes of the second challenge that the token does not have
        /// (all of its `scope` when none is missing by name).
        missing: Vec<String>,
        /// The challenge's `error_description`, when given.
        description: Option<String>,
    },
    /// A step-up authorization (MCP "Step-Up Authorization Flow", after a
    /// `403` with `error="insufficient_scope"`) was refused by the
    /// authorization server's token endpoint (RFC 6749 §5.2), e.g.
    /// `invalid_scope` for a scope this client may not have.
    #[error("step-up authorization for {operation} (needs {}) was refused by the authorization server: {refusal}", needed(.missing))]
    StepUpRefused {
        /// The request refused by the server: its JSON-RPC method, and the
        /// tool, resource or prompt it names (e.g. `tools/call billing`).
        operation: String,
        /// The scopes of the `403` challenge that the token did not have
        /// (all of its `scope` when none is missing by name).
        missing: Vec<String>,
        /// The authorization server's `error`, then `: error_description`
        /// when given (RFC 6749 §5.2), e.g. `invalid_scope: requested scope
        /// is not allowed`.
        refusal: String,
        /// rmcp's error.
        #[source]
        source: AuthError,
    },
    /// An exchange of [`OAuthGrant::EnterpriseManaged`] was refused, or its
    /// answer failed the checks (ID-JAG type, issuer, audience, client,
    /// resource, scopes); the error names the server: the identity provider
    /// or the MCP authorization server.
    #[error("enterprise-managed authorization failed: {0}")]
    Enterprise(#[source] EmaError),
}

/// `: ERROR (DESCRIPTION)` of a refused token's challenge, as far as given.
fn refused_token(error: Option<&str>, description: Option<&str>) -> String {
    match (error, description) {
        (Some(error), Some(description)) => format!(": {error} ({description})"),
        (Some(error), None) => format!(": {error}"),
        (None, Some(description)) => format!(": {description}"),
        (None, None) => String::new(),
    }
}

/// rmcp's discovery error, with the cause rmcp's text leaves out (e.g.
/// `connection refused` after `OAuth metadata discovery failed for URL`).
fn discovery_text(error: &AuthError) -> String {
    match error {
        AuthError::DiscoveryRequestFailed { url, source } => {
            let cause =
                crate::client::cause::known_cause(source.as_ref(), Some(url.as_str()), false)
                    .map_or_else(
                        || crate::client::cause::innermost_text(source.as_ref()),
                        |(_, text)| text,
                    );
            format!("{error}: {cause}")
        }
        other => other.to_string(),
    }
}

/// `missing` separated by spaces, or what to say when the challenge named
/// no scope.
fn needed(missing: &[String]) -> String {
    if missing.is_empty() {
        String::from("a scope its challenge does not name")
    } else {
        missing.join(" ")
    }
}

/// `scopes` separated by spaces, or `no scope` when there is none.
fn scope_list(scopes: &[String]) -> String {
    if scopes.is_empty() {
        String::from("no scope")
    } else {
        scopes.join(" ")
    }
}

impl AuthorizationError {
    /// rmcp's error from starting an authorization, sorted by stage.
    pub(crate) fn from_start(error: AuthError) -> Self {
        match error {
            AuthError::RegistrationFailed(_) => AuthorizationError::Registration(error),
            other => AuthorizationError::Discovery(other),
        }
    }

    /// rmcp's error from handling the redirect, sorted by stage.
    pub(crate) fn from_callback(error: AuthError) -> Self {
        match error {
            AuthError::TokenExchangeFailed(_) | AuthError::HttpError(_) => {
                AuthorizationError::Token(error)
            }
            other => AuthorizationError::Response(other),
        }
    }
}
