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
//! [`EnterpriseIdentity`] says which IdP and ID token; the exchange itself
//! is rmcp's `auth-enterprise-managed` (`EmaExchangeRequest`), which checks the
//! ID-JAG's type, issuer, audience, client, resource and scopes.

use std::fmt;

use oauth2::basic::BasicTokenType;
use oauth2::{ClientSecret, Scope};
use rmcp::transport::AuthorizationManager;
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    AuthError, AuthorizationMetadata, CredentialStore, InMemoryCredentialStore, OAuthTokenResponse,
    StoredCredentials, VendorExtraTokenFields, default_oauth_http_client,
};
use secrecy::{ExposeSecret, SecretString};

use super::authorize::resource;
use super::oauth::{AuthorizationError, OAuthOptions};
use super::scopes;

/// The enterprise identity provider and the user's ID token it issued, for
/// [`OAuthGrant::EnterpriseManaged`](super::OAuthGrant::EnterpriseManaged).
/// The client must be registered at the IdP as
/// [`client_id`](Self::client_id) (the ID token's `aud`) and at the MCP
/// authorization server as [`OAuthOptions::client_id`]. `Debug` prints the
/// ID token and secret as `[REDACTED]`.
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

/// Obtains a token for the server at `server_url` after its `challenge` by
/// the two exchanges, asking for `scopes` (else the challenge's `scope`, else
/// the protected resource metadata's `scopes_supported`, else none; never
/// `offline_access`: the JWT bearer grant gets no refresh token). The
/// returned manager holds the token (no refresh: when it expires, the next
/// `401` exchanges the ID token again).
///
/// # Errors
///
/// [`AuthorizationError::Config`] without an [`EnterpriseIdentity`] or a
/// client id; [`AuthorizationError::Discovery`] when no authorization server
/// metadata with an `issuer` is found; [`AuthorizationError::Enterprise`]
/// when an exchange is refused or its answer fails rmcp's checks.
pub(crate) async fn enterprise_managed(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
) -> Result<AuthorizationManager, AuthorizationError> {
    let (Some(identity), Some(client_id)) = (&options.enterprise, &options.client_id) else {
        return Err(AuthorizationError::Config(String::from(
            "enterprise-managed authorization needs an enterprise identity (IdP and ID token) and the client's id at the MCP authorization server",
        )));
    };
    let mut manager = AuthorizationManager::new(server_url.as_str())
        .await
        .map_err(AuthorizationError::Discovery)?;
    let resolution = manager
        .resolve_metadata_from_challenge(Some(challenge))
        .await
        .map_err(AuthorizationError::Discovery)?;
    let metadata = resolution.metadata;
    let Some(issuer) = metadata
        .issuer
        .clone()
        .filter(|_| resolution.source.is_discovered())
    else {
        return Err(AuthorizationError::Discovery(
            AuthError::NoAuthorizationSupport,
        ));
    };
    manager.set_metadata(metadata.clone());
    let scopes = scopes::without_offline_access(match scopes {
        Some(scopes) => scopes,
        None => manager.select_initial_scopes(&[]).await,
    });
    let resource = resource(server_url);
    let idp = EmaAuthorizationServer::new(
        identity.issuer.clone(),
        identity.token_endpoint.clone(),
        identity.client_id.clone(),
    )
    .with_client_authentication(match &identity.client_secret {
        Some(secret) => EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(
            secret.expose_secret().to_owned(),
        )),
        None => EmaClientAuthentication::None,
    });
    let resource_as = EmaAuthorizationServer::new(
        issuer.clone(),
        metadata.token_endpoint.clone(),
        client_id.clone(),
    )
    .with_client_authentication(client_authentication(&metadata, options));
    tracing::debug!(
        "enterprise-managed authorization for {resource} at {issuer} with scope \"{}\"",
        scopes.join(" ")
    );
    let http = default_oauth_http_client().map_err(AuthorizationError::Token)?;
    let token = EmaExchangeRequest::new_with_id_token(
        idp,
        resource_as,
        &resource,
        identity.id_token.expose_secret(),
    )
    .with_scopes(scopes)
    .exchange(&http, &http)
    .await
    .map_err(AuthorizationError::Enterprise)?;

    let mut response = OAuthTokenResponse::new(
        token.access_token,
        BasicTokenType::Bearer,
        VendorExtraTokenFields::default(),
    );
    response.set_expires_in(token.expires_in.as_ref());
    let mut granted: Vec<String> = token.scopes.into_iter().collect();
    granted.sort();
    if !granted.is_empty() {
        response.set_scopes(Some(granted.iter().cloned().map(Scope::new).collect()));
    }
    let store = InMemoryCredentialStore::new();
    let received_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or_default();
    let stored = StoredCredentials::new(
        client_id.clone(),
        Some(response),
        granted,
        Some(received_at),
    )
    .with_issuer(Some(issuer));
    store
        .save(stored)
        .await
        .map_err(AuthorizationError::Token)?;
    manager.set_credential_store(store);
    // Without a refresh token, an expired token makes rmcp answer
    // "authorization required", which is a new 401 to this client.
    manager
        .configure_client_id(client_id)
        .map_err(AuthorizationError::Token)?;
    Ok(manager)
}

/// How the client authenticates at the MCP authorization server: with its
/// secret, `client_secret_basic` unless the metadata lists only
/// `client_secret_post` (RFC 8414 §2: an absent list means
/// `client_secret_basic`); without one, as a public client.
fn client_authentication(
    metadata: &AuthorizationMetadata,
    options: &OAuthOptions,
) -> EmaClientAuthentication {
    let Some(secret) = &options.client_secret else {
        return EmaClientAuthentication::None;
    };
    let secret = ClientSecret::new(secret.expose_secret().to_owned());
    let methods: Vec<&str> = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(|methods| methods.as_array())
        .map(|methods| methods.iter().filter_map(|m| m.as_str()).collect())
        .unwrap_or_default();
    if methods.contains(&"client_secret_post") && !methods.contains(&"client_secret_basic") {
        EmaClientAuthentication::ClientSecretPost(secret)
    } else {
        EmaClientAuthentication::ClientSecretBasic(secret)
    }
}
