//! Enterprise-managed authorization (the MCP extension
//! `io.modelcontextprotocol/enterprise-managed-authorization`, SEP-990; the
//! IETF draft "Identity Assertion JWT Authorization Grant", ID-JAG): the
//! client holds an OpenID Connect ID token from the enterprise's identity
//! provider (IdP) and, with no browser,
//!
//! 1. exchanges it at the IdP's token endpoint for an ID-JAG (RFC 8693 token
//!    exchange: `subject_token_type=…:id_token`,
//!    `requested_token_type=urn:ietf:params:oauth:token-type:id-jag`,
//!    `audience` = the MCP authorization server's issuer, `resource` = the
//!    MCP server);
//! 2. presents the ID-JAG at the MCP authorization server's token endpoint
//!    (RFC 7523 §2.1 JWT bearer grant,
//!    `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`), authenticated
//!    as its client there, and gets the access token.
//!
//! [`EnterpriseIdentity`] says which IdP and ID token; the exchanges are
//! rmcp's `auth-enterprise-managed` (`EmaExchangeRequest`, run by the
//! client's `authorize`), which checks the ID-JAG's type, issuer, audience,
//! client, resource and scopes.

use std::fmt;

use secrecy::SecretString;

/// The enterprise identity provider and the user's ID token it issued, for
/// [`OAuthGrant::EnterpriseManaged`](super::OAuthGrant::EnterpriseManaged).
/// The client must be registered at the IdP as
/// [`client_id`](Self::client_id) (the ID token's `aud`) and at the MCP
/// authorization server as
/// [`OAuthOptions::client_id`](super::OAuthOptions::client_id). `Debug`
/// prints the ID token and secret as `[REDACTED]`.
#[derive(Clone)]
#[non_exhaustive]
pub struct EnterpriseIdentity {
    /// The IdP's issuer identifier (its RFC 8414 / OpenID Connect `issuer`,
    /// e.g. `https://idp.example.com`); the ID-JAG's `iss` must equal it.
    /// `https`, or `http` on a loopback host.
    pub issuer: String,
    /// The IdP's token endpoint (the RFC 8693 token exchange).
    pub token_endpoint: String,
    /// The client's id at the IdP.
    pub client_id: String,
    /// The client's secret at the IdP, sent as `client_secret_basic`
    /// (RFC 6749 §2.3.1); `None` for a public client (`client_id` in the
    /// body).
    pub client_secret: Option<SecretString>,
    /// The OpenID Connect ID token the IdP issued to the user of this client.
    pub id_token: SecretString,
}

impl EnterpriseIdentity {
    /// The IdP `issuer` with its `token_endpoint`, the client's `client_id`
    /// there (a public client), and the user's `id_token`.
    pub fn new(
        issuer: impl Into<String>,
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        id_token: impl Into<String>,
    ) -> Self {
        EnterpriseIdentity {
            issuer: issuer.into(),
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: None,
            id_token: SecretString::from(id_token.into()),
        }
    }

    /// Sets [`client_secret`](Self::client_secret).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(SecretString::from(secret.into()));
        self
    }
}

impl fmt::Debug for EnterpriseIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterpriseIdentity")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[REDACTED]"),
            )
            .field("id_token", &"[REDACTED]")
            .finish()
    }
}
