//! Obtaining a token for one server, by rmcp's `auth` flows: the grant
//! [`OAuthOptions`] names, seeded by the server's `WWW-Authenticate`
//! challenge. The result is an [`AuthorizationManager`] holding the token in
//! memory (and refreshing it).

use rmcp::transport::AuthorizationManager;
use rmcp::transport::auth::{AuthError, AuthorizationRequest, ClientCredentialsConfig, OAuthState};
use secrecy::ExposeSecret;

use super::enterprise::enterprise_managed;
use super::loopback::Loopback;
use super::oauth::{AuthorizationError, OAuthGrant, OAuthOptions};
use super::scopes;

/// The OIDC Dynamic Client Registration `application_type` of a client on
/// the user's machine with a loopback redirect (SEP-837).
const APPLICATION_TYPE: &str = "native";

/// Authorizes with the server at `server_url` after its `challenge` (a 401's
/// or 403's `WWW-Authenticate` value). `scopes` overrides the scope
/// selection (step-up: the union of held and challenged scopes); `None`
/// takes the challenge's `scope`, else the protected resource metadata's
/// `scopes_supported`, else none.
///
/// # Errors
///
/// The stage that failed, as an [`AuthorizationError`].
pub(crate) async fn authorize(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
) -> Result<AuthorizationManager, AuthorizationError> {
    match options.grant {
        OAuthGrant::ClientCredentials => {
            client_credentials(server_url, options, challenge, scopes).await
        }
        OAuthGrant::AuthorizationCode => {
            authorization_code(server_url, options, challenge, scopes).await
        }
        OAuthGrant::EnterpriseManaged => {
            enterprise_managed(server_url, options, challenge, scopes).await
        }
    }
}

/// Client credentials (OAuth 2.1 §4.2), the client authenticated by its
/// `private_key_jwt` assertion (RFC 7523 §2.2) when it has a key, else by its
/// secret, with RFC 8707 `resource` = the
/// server's URL, asking for the selected scopes but `offline_access` (which
/// rmcp's selection adds when the authorization server lists it): this grant
/// gets no refresh token (RFC 6749 §4.4.3), and an authorization server may
/// refuse the scope for it (oidc-provider answers `invalid_scope`).
async fn client_credentials(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
) -> Result<AuthorizationManager, AuthorizationError> {
    let Some(client_id) = &options.client_id else {
        return Err(AuthorizationError::Config(String::from(
            "the client credentials grant needs a client id",
        )));
    };
    let mut manager = AuthorizationManager::new(server_url.as_str())
        .await
        .map_err(AuthorizationError::Discovery)?;
    let resolution = manager
        .resolve_metadata_from_challenge(Some(challenge))
        .await
        .map_err(AuthorizationError::Discovery)?;
    manager.set_metadata(resolution.metadata);
    let scopes = scopes::without_offline_access(match scopes {
        Some(scopes) => scopes,
        None => manager.select_initial_scopes(&[]).await,
    });
    let resource = resource(server_url);
    tracing::debug!(
        "client credentials token request for {resource} with scope \"{}\"",
        scopes.join(" ")
    );
    let config = match (&options.client_assertion_key, &options.client_secret) {
        (Some(key), _) => ClientCredentialsConfig::PrivateKeyJwt {
            client_id: client_id.clone(),
            signing_key: key.pem_bytes(),
            signing_algorithm: key.algorithm().to_rmcp(),
            token_endpoint_audience: None,
            scopes,
            resource: Some(resource),
        },
        (None, Some(secret)) => ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: secret.expose_secret().to_owned(),
            scopes,
            resource: Some(resource),
        },
        (None, None) => {
            return Err(AuthorizationError::Config(String::from(
                "the client credentials grant needs a client secret or a client assertion key",
            )));
        }
    };
    manager
        .validate_client_credentials_metadata(&config)
        .map_err(AuthorizationError::Token)?;
    manager
        .configure_client_credentials(&config)
        .map_err(AuthorizationError::Token)?;
    exchange_client_credentials(manager, config)
        .await
        .map_err(AuthorizationError::Token)
}

/// rmcp's client credentials token request, on a blocking thread of its
/// own: rmcp 3.11's `exchange_client_credentials` future is not `Send` (its
/// `private_key_jwt` branch holds a form serializer across an `.await`), and
/// the HTTP client's futures must be.
async fn exchange_client_credentials(
    manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<AuthorizationManager, AuthError> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        runtime.block_on(async move {
            manager.exchange_client_credentials(&config).await?;
            Ok(manager)
        })
    })
    .await
    .map_err(|error| AuthError::InternalError(format!("the token request task failed: {error}")))?
}

/// Authorization code with PKCE S256 and a loopback redirect.
async fn authorization_code(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
) -> Result<AuthorizationManager, AuthorizationError> {
    let loopback = Loopback::bind().await?;
    let mut request = AuthorizationRequest::new(loopback.redirect_uri())
        .with_challenge(challenge)
        .with_client_name(options.client_name.clone())
        .with_application_type(APPLICATION_TYPE);
    request = match scopes {
        Some(scopes) => request.with_scopes(scopes),
        None => request.with_initial_scope_selection(),
    };
    if let Some(client_id) = &options.client_id {
        request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = &options.client_secret {
            request = request.with_client_secret(secret.expose_secret().to_owned());
        }
    }
    if let Some(url) = &options.client_metadata_url {
        request = request.with_client_metadata_url(url.clone());
    }
    let mut state = OAuthState::new(server_url.as_str(), None)
        .await
        .map_err(AuthorizationError::Discovery)?;
    state
        .start_authorization(request)
        .await
        .map_err(AuthorizationError::from_start)?;
    let authorization_url = state
        .get_authorization_url()
        .await
        .map_err(AuthorizationError::from_start)?;
    (options.on_authorization_url.0)(&authorization_url);
    let redirect = loopback.wait(options.redirect_timeout).await?;
    if let Some(refused) = refusal(&redirect) {
        return Err(refused);
    }
    state
        .handle_callback_url(&redirect)
        .await
        .map_err(AuthorizationError::from_callback)?;
    state.into_authorization_manager().ok_or_else(|| {
        AuthorizationError::Response(rmcp::transport::auth::AuthError::InternalError(
            String::from("the authorization did not complete"),
        ))
    })
}

/// The RFC 8707 resource indicator for `server_url`: absolute, without a
/// fragment, scheme and host in lower case (the URL parser's form).
pub(crate) fn resource(server_url: &url::Url) -> String {
    let mut url = server_url.clone();
    url.set_fragment(None);
    url.to_string()
}

/// The error a redirect carries instead of a code (RFC 6749 §4.1.2.1).
fn refusal(redirect: &str) -> Option<AuthorizationError> {
    let url = url::Url::parse(redirect).ok()?;
    let mut error = None;
    let mut description = None;
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "error" => error = Some(value.into_owned()),
            "error_description" => description = Some(value.into_owned()),
            _ => {}
        }
    }
    error.map(|error| AuthorizationError::Refused { error, description })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_with_an_error_is_a_refusal() {
        let refused = refusal(
            "http://127.0.0.1:5/callback?error=access_denied&error_description=The%20user%20said%20no&state=x",
        )
        .unwrap();
        assert_eq!(
            refused.to_string(),
            "the authorization server refused: access_denied (The user said no)"
        );
        assert!(refusal("http://127.0.0.1:5/callback?code=abc&state=x").is_none());
    }

    #[test]
    fn the_resource_is_the_url_without_fragment_and_with_a_lower_case_host() {
        let url = url::Url::parse("HTTP://MCP.Example.COM:8443/Mcp#frag").unwrap();
        assert_eq!(resource(&url), "http://mcp.example.com:8443/Mcp");
    }
}
