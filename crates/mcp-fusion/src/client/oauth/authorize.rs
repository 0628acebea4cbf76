//! Obtaining a token for one server, by rmcp's `auth` flows: the grant
//! [`OAuthOptions`] names, seeded by the server's `WWW-Authenticate`
//! challenge. The result is an [`AuthorizationManager`] holding the token in
//! memory (and refreshing it).

use oauth2::basic::BasicTokenType;
use oauth2::{ClientSecret, Scope};
use rmcp::transport::AuthorizationManager;
use rmcp::transport::auth::enterprise::{
    EmaAccessToken, EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    AuthError, AuthorizationMetadata, AuthorizationRequest, AuthorizationSession,
    ClientCredentialsConfig, CredentialStore, InMemoryCredentialStore, OAuthClientConfig,
    OAuthTokenResponse, StoredCredentials, VendorExtraTokenFields, WWWAuthenticateParams,
    default_oauth_http_client,
};
use secrecy::{ExposeSecret, SecretString};

use super::deadline::within;
use super::enterprise::EnterpriseIdentity;
use super::loopback::{Loopback, Verdict};
use super::options::{AuthorizationError, OAuthGrant, OAuthOptions};
use super::registration::{Registered, Registration};
use super::{discovery, endpoints, scopes, token_failure};

/// The target of this file's logs: its module's path before it
/// moved into `oauth/`, so that log filters and readers see the same target.
const TARGET: &str = "mcp_fusion::client::authorize";

/// The OIDC Dynamic Client Registration `application_type` of a client on
/// the user's machine with a loopback redirect (SEP-837).
const APPLICATION_TYPE: &str = "native";

/// The RFC 9728 §3 well-known suffix of protected resource metadata.
const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Authorizes with the server at `server_url` after its `challenge` (a 401's
/// or 403's `WWW-Authenticate` value). `scopes` overrides the scope
/// selection (step-up: the union of held and challenged scopes); `None`
/// takes [`OAuthOptions::scopes`] when given, else the challenge's `scope`,
/// else the protected resource metadata's `scopes_supported`, else none. A
/// dynamic registration is taken from, and kept in, `registration`.
///
/// # Errors
///
/// The stage that failed, as an [`AuthorizationError`].
pub(crate) async fn authorize(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
    registration: &Registration,
) -> Result<AuthorizationManager, AuthorizationError> {
    let scopes = scopes.or_else(|| (!options.scopes.is_empty()).then(|| options.scopes.clone()));
    match options.grant {
        OAuthGrant::ClientCredentials => {
            client_credentials(server_url, options, challenge, scopes).await
        }
        OAuthGrant::AuthorizationCode => {
            authorization_code(server_url, options, challenge, scopes, registration).await
        }
        OAuthGrant::EnterpriseManaged => {
            enterprise_managed(server_url, options, challenge, scopes).await
        }
    }
}

/// A manager for `server_url` with the authorization server's metadata
/// discovered from `challenge` (rmcp: the challenge's `resource_metadata`,
/// else the RFC 9728 well-known URIs, else RFC 8414 metadata at the origin),
/// and that metadata.
///
/// # Errors
///
/// [`AuthorizationError::NoMetadata`] when the server publishes none (unless
/// [`OAuthOptions::legacy_endpoints`]); [`discovery::failure`] when
/// discovery fails; [`AuthorizationError::TimedOut`] after
/// [`OAuthOptions::request_timeout`]; [`AuthorizationError::InsecureEndpoint`]
/// for an authorization server that takes credentials in cleartext.
async fn discover(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
) -> Result<(AuthorizationManager, AuthorizationMetadata), AuthorizationError> {
    let mut manager = AuthorizationManager::new(server_url.as_str())
        .await
        .map_err(AuthorizationError::Discovery)?;
    let resolution = within(
        options.request_timeout,
        "authorization server discovery",
        async {
            manager
                .resolve_metadata_from_challenge(Some(challenge))
                .await
                .map_err(|error| discovery::failure(error, server_url))
        },
    )
    .await?;
    if !resolution.source.is_discovered() && !options.legacy_endpoints {
        let named = WWWAuthenticateParams::parse(challenge, server_url)
            .resource_metadata_url
            .is_some();
        return Err(if named {
            AuthorizationError::Discovery(AuthError::NoAuthorizationSupport)
        } else {
            AuthorizationError::NoMetadata {
                challenge: challenge.to_owned(),
                probed: well_known_uris(server_url),
            }
        });
    }
    endpoints::require_secure(&resolution.metadata)?;
    manager.set_metadata(resolution.metadata.clone());
    Ok((manager, resolution.metadata))
}

/// The RFC 9728 §3.1 well-known URIs of `server_url`'s protected resource
/// metadata, in the order MCP clients try them: the path form (when the URL
/// has a path), then the root form.
pub(crate) fn well_known_uris(server_url: &url::Url) -> Vec<String> {
    let origin = server_url.origin().ascii_serialization();
    let path = server_url.path().trim_end_matches('/');
    let root = format!("{origin}{RESOURCE_METADATA_PATH}");
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
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
    let (mut manager, metadata) = discover(server_url, options, challenge).await?;
    let scopes = scopes::without_offline_access(match scopes {
        Some(scopes) => scopes,
        None => manager.select_initial_scopes(&[]).await,
    });
    let resource = resource(server_url);
    tracing::debug!(
        target: TARGET,
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
    within(options.request_timeout, "token request", async {
        match exchange_client_credentials(manager, config).await {
            Ok(manager) => Ok(manager),
            Err(error) => Err(token_failure::failure(
                error,
                &metadata.token_endpoint,
                options.request_timeout,
            )
            .await),
        }
    })
    .await
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

/// Whether the authorization server takes Client ID Metadata Documents
/// (`client_id_metadata_document_supported`, MCP 2025-11-25).
fn supports_client_metadata_documents(metadata: &AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// Authorization code with PKCE S256 and a loopback redirect. The client is,
/// in the order of MCP "Client Registration": the pre-registered one of the
/// options, the Client ID Metadata Document when the authorization server
/// takes them, else the one registered dynamically: the one in
/// `registration` when it covers the scopes asked for, else a new one
/// (registered for those scopes and every scope the server names,
/// [`AuthorizationManager::select_scopes`]), kept there.
async fn authorization_code(
    server_url: &url::Url,
    options: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
    registration: &Registration,
) -> Result<AuthorizationManager, AuthorizationError> {
    let (mut manager, metadata) = discover(server_url, options, challenge).await?;
    let cimd =
        options.client_metadata_url.is_some() && supports_client_metadata_documents(&metadata);
    let dynamic = options.client_id.is_none() && !cimd;
    let asked = match &scopes {
        Some(scopes) => scopes.clone(),
        None => manager.select_initial_scopes(&[]).await,
    };
    let held = if dynamic {
        held_registration(registration, metadata.issuer.as_deref(), &asked)
    } else {
        None
    };
    let loopback = match &held {
        Some((_, _, port)) => Loopback::bind_preferring(*port).await?,
        None => Loopback::bind().await?,
    };
    let redirect_uri = loopback.redirect_uri();
    let mut request = AuthorizationRequest::new(redirect_uri.clone())
        .with_challenge(challenge)
        .with_client_name(options.client_name.clone())
        .with_application_type(APPLICATION_TYPE);
    request = match scopes {
        Some(scopes) => request.with_scopes(scopes),
        None => request.with_initial_scope_selection(),
    };
    let client = if let Some(client_id) = &options.client_id {
        Some((client_id.clone(), options.client_secret.clone()))
    } else if dynamic {
        let login = Login {
            options,
            redirect_uri: &redirect_uri,
            asked: &asked,
            loopback: &loopback,
        };
        Some(
            dynamic_client(
                &mut manager,
                held,
                registration,
                metadata.issuer.clone(),
                &login,
            )
            .await?,
        )
    } else {
        None
    };
    if let Some((client_id, secret)) = client {
        request = request.with_preregistered_client(client_id);
        if let Some(secret) = secret {
            request = request.with_client_secret(secret.expose_secret().to_owned());
        }
    }
    if let Some(url) = &options.client_metadata_url {
        request = request.with_client_metadata_url(url.clone());
    }
    let session = within(options.request_timeout, "client registration", async {
        AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, error)| AuthorizationError::from_start(error))
    })
    .await?;
    log_in(session, loopback, metadata.token_endpoint.as_str(), options).await
}

/// The client registered dynamically before, kept in `registration`, when
/// it was registered with the authorization server `issuer` for the scopes
/// `asked`: its id, secret and redirect port.
fn held_registration(
    registration: &Registration,
    issuer: Option<&str>,
    asked: &[String],
) -> Option<(String, Option<SecretString>, u16)> {
    registration.lock().ok().and_then(|slot| {
        slot.as_ref()
            .filter(|held| held.covers(issuer, asked))
            .map(|held| {
                (
                    held.client_id.clone(),
                    held.client_secret.clone(),
                    held.redirect_port,
                )
            })
    })
}

/// What registering a client for a login needs.
struct Login<'a> {
    options: &'a OAuthOptions,
    redirect_uri: &'a str,
    asked: &'a [String],
    loopback: &'a Loopback,
}

/// The client of a login without a pre-registered one: the one `held`
/// from before, else one registered now, kept in `registration` with the
/// authorization server's `issuer`.
async fn dynamic_client(
    manager: &mut AuthorizationManager,
    held: Option<(String, Option<SecretString>, u16)>,
    registration: &Registration,
    issuer: Option<String>,
    login: &Login<'_>,
) -> Result<(String, Option<SecretString>), AuthorizationError> {
    if let Some((client_id, secret, _)) = held {
        tracing::debug!(target: TARGET, "reusing the client {client_id} registered before");
        return Ok((client_id, secret));
    }
    let registered = within(
        login.options.request_timeout,
        "client registration",
        register(
            manager,
            login.options,
            login.redirect_uri,
            login.asked,
            login.loopback,
        ),
    )
    .await?;
    let client = (
        registered.client_id.clone(),
        registered.client_secret.clone(),
    );
    if let Ok(mut slot) = registration.lock() {
        *slot = Some(Registered {
            issuer,
            ..registered
        });
    }
    Ok(client)
}

/// The login itself: the user sent to the authorization URL, its answer
/// awaited on `loopback` and judged (the code exchanged at
/// `token_endpoint`).
async fn log_in(
    session: AuthorizationSession,
    loopback: Loopback,
    token_endpoint: &str,
    options: &OAuthOptions,
) -> Result<AuthorizationManager, AuthorizationError> {
    let authorization_url = session.get_authorization_url();
    let state = query_value(authorization_url, "state").unwrap_or_default();
    (options.on_authorization_url.0)(authorization_url);
    let session_ref = &session;
    loopback
        .wait(options.redirect_timeout, &state, |redirect| async move {
            judge(session_ref, &redirect, token_endpoint, options).await
        })
        .await?;
    Ok(session.auth_manager)
}

/// What becomes of an authorization response with the login's `state`: an
/// error response (RFC 6749 §4.1.2.1), or a code whose `iss` is missing or
/// not the issuer (RFC 9207 §2.4), fails the login; else the code is
/// exchanged for the token, within [`OAuthOptions::request_timeout`].
async fn judge(
    session: &AuthorizationSession,
    redirect: &str,
    token_endpoint: &str,
    options: &OAuthOptions,
) -> Verdict<()> {
    if let Some(refused) = refusal(redirect) {
        return Verdict::Failed(refused);
    }
    let exchanged = within(options.request_timeout, "token request", async {
        session
            .handle_callback_url(redirect)
            .await
            .map(|_| ())
            .map_err(AuthorizationError::from_callback)
    })
    .await;
    match exchanged {
        Ok(()) => Verdict::Accepted(()),
        Err(AuthorizationError::Token(error)) => Verdict::Failed(
            token_failure::failure(error, token_endpoint, options.request_timeout).await,
        ),
        Err(error) => Verdict::Failed(error),
    }
}

/// The value of `key` in `url`'s query (e.g. the `state` of the
/// authorization URL, RFC 6749 §4.1.1).
fn query_value(url: &str, key: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.into_owned())
}

/// Registers the client dynamically (RFC 7591) with `redirect_uri`, for the
/// scopes `asked` and every scope the server names (its challenge's and its
/// `scopes_supported`, with `offline_access` when the authorization server
/// lists it), so that a later step-up can reuse it.
///
/// # Errors
///
/// [`AuthorizationError::Registration`] when the authorization server
/// refuses, or has no registration endpoint.
async fn register(
    manager: &mut AuthorizationManager,
    options: &OAuthOptions,
    redirect_uri: &str,
    asked: &[String],
    loopback: &Loopback,
) -> Result<Registered, AuthorizationError> {
    // rmcp registers with the manager's `application_type` (SEP-837),
    // which configuring a client sets; the registration then replaces it.
    manager
        .configure_client(
            OAuthClientConfig::new("", redirect_uri).with_application_type(APPLICATION_TYPE),
        )
        .map_err(AuthorizationError::Registration)?;
    let scopes = scopes::union(asked, &manager.select_scopes(None, &[]));
    let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
    let config = manager
        .register_client(&options.client_name, redirect_uri, &scope_refs)
        .await
        .map_err(AuthorizationError::Registration)?;
    tracing::debug!(
        target: TARGET,
        "registered the client {} with scope \"{}\"",
        config.client_id,
        scopes.join(" ")
    );
    Ok(Registered {
        issuer: None,
        client_id: config.client_id,
        client_secret: config.client_secret.map(SecretString::from),
        scopes,
        redirect_port: loopback.port(),
    })
}

/// Enterprise-managed authorization ([`super::enterprise`]): obtains a token
/// for the server at `server_url` after its `challenge` by the two exchanges, asking for `scopes` (else the challenge's `scope`, else
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
async fn enterprise_managed(
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
    let (metadata, issuer) = discovered_issuer(&mut manager, challenge).await?;
    manager.set_metadata(metadata.clone());
    let scopes = scopes::without_offline_access(match scopes {
        Some(scopes) => scopes,
        None => manager.select_initial_scopes(&[]).await,
    });
    let resource = resource(server_url);
    let idp = identity_provider(identity);
    let resource_as = EmaAuthorizationServer::new(
        issuer.clone(),
        metadata.token_endpoint.clone(),
        client_id.clone(),
    )
    .with_client_authentication(client_authentication(&metadata, options));
    tracing::debug!(
        target: TARGET,
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

    let store = credentials(token, client_id, issuer).await?;
    manager.set_credential_store(store);
    // Without a refresh token, an expired token makes rmcp answer
    // "authorization required", which is a new 401 to this client.
    manager
        .configure_client_id(client_id)
        .map_err(AuthorizationError::Token)?;
    Ok(manager)
}

/// The metadata of the MCP authorization server named by `challenge`, and
/// its issuer; a discovery error when none was discovered or it names no
/// issuer.
async fn discovered_issuer(
    manager: &mut AuthorizationManager,
    challenge: &str,
) -> Result<(AuthorizationMetadata, String), AuthorizationError> {
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
    Ok((metadata, issuer))
}

/// The enterprise identity provider of `identity`, as the first exchange
/// asks it (with its client secret, when it has one).
fn identity_provider(identity: &EnterpriseIdentity) -> EmaAuthorizationServer {
    EmaAuthorizationServer::new(
        identity.issuer.clone(),
        identity.token_endpoint.clone(),
        identity.client_id.clone(),
    )
    .with_client_authentication(match &identity.client_secret {
        Some(secret) => EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(
            secret.expose_secret().to_owned(),
        )),
        None => EmaClientAuthentication::None,
    })
}

/// A credential store holding `token`, the access token of `client_id`
/// from the authorization server `issuer`, with the scopes it granted.
async fn credentials(
    token: EmaAccessToken,
    client_id: &str,
    issuer: String,
) -> Result<InMemoryCredentialStore, AuthorizationError> {
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
        client_id.to_owned(),
        Some(response),
        granted,
        Some(received_at),
    )
    .with_issuer(Some(issuer));
    store
        .save(stored)
        .await
        .map_err(AuthorizationError::Token)?;
    Ok(store)
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
    fn the_well_known_uris_are_the_path_form_then_the_root_form() {
        let url = url::Url::parse("http://127.0.0.1:9/public/mcp?x=1").unwrap();
        assert_eq!(
            well_known_uris(&url),
            [
                "http://127.0.0.1:9/.well-known/oauth-protected-resource/public/mcp",
                "http://127.0.0.1:9/.well-known/oauth-protected-resource",
            ]
        );
        let root = url::Url::parse("https://mcp.example.com/").unwrap();
        assert_eq!(
            well_known_uris(&root),
            ["https://mcp.example.com/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn the_enterprise_client_authenticates_as_the_metadata_allows() {
        let metadata = |methods: Option<&[&str]>| {
            let mut metadata = AuthorizationMetadata::default();
            if let Some(methods) = methods {
                metadata.additional_fields.insert(
                    String::from("token_endpoint_auth_methods_supported"),
                    serde_json::json!(methods),
                );
            }
            metadata
        };
        let confidential = OAuthOptions::default().client_secret("s3");
        let chosen = |methods, options: &OAuthOptions| {
            format!("{:?}", client_authentication(&metadata(methods), options))
        };
        // RFC 8414 §2: no list means client_secret_basic.
        assert_eq!(chosen(None, &confidential), "ClientSecretBasic { .. }");
        assert_eq!(
            chosen(
                Some(&["client_secret_post", "client_secret_basic"]),
                &confidential
            ),
            "ClientSecretBasic { .. }"
        );
        assert_eq!(
            chosen(Some(&["client_secret_post"]), &confidential),
            "ClientSecretPost { .. }"
        );
        assert_eq!(
            chosen(Some(&["client_secret_basic"]), &OAuthOptions::default()),
            "None"
        );
    }

    #[test]
    fn the_resource_is_the_url_without_fragment_and_with_a_lower_case_host() {
        let url = url::Url::parse("HTTP://MCP.Example.COM:8443/Mcp#frag").unwrap();
        assert_eq!(resource(&url), "http://mcp.example.com:8443/Mcp");
    }
}
