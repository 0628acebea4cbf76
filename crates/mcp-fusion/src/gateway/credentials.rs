//! [`UpstreamCredentials`]: the gateway's own credentials for a Streamable
//! HTTP upstream. The MCP authorization spec forbids token passthrough
//! (MCP 2025-11-25 "Authorization", "Access Token Privilege Restriction";
//! security best practices, "Token Passthrough"): a caller's
//! `Authorization` header never leaves the gateway, and each upstream gets
//! the credentials configured for it here, or none.

use std::fmt;

use secrecy::{ExposeSecret, SecretString};

use crate::client::{ClientOptions, OAuthOptions};

/// The credentials the gateway itself presents to one HTTP upstream.
///
/// TOML, in an `[[upstream]]` table with a `url` (never with a `command`:
/// a stdio server takes its credentials from its own environment or
/// arguments):
///
/// ```toml
/// bearer_env = "CRM_TOKEN"              # Bearer: the token in $CRM_TOKEN
///
/// [upstream.oauth]                      # or ClientCredentials
/// client_id = "gateway"
/// client_secret_env = "CRM_CLIENT_SECRET"
/// scopes = ["crm:read"]                 # optional
/// ```
///
/// Secrets are read from the environment when the configuration is read;
/// there is no inline form, so that a configuration file holds no secret.
/// `Debug` prints each secret as `[REDACTED]`.
#[derive(Clone)]
#[non_exhaustive]
pub enum UpstreamCredentials {
    /// A bearer token sent as `Authorization: Bearer TOKEN` on every request
    /// (RFC 6750 §2.1). TOML: `bearer_env = "VAR"`, the token the value of
    /// the environment variable `VAR`.
    Bearer(SecretString),
    /// An access token obtained by the OAuth 2.1 client credentials grant
    /// (OAuth 2.1 §4.2; the MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`) when the upstream
    /// first answers `401`: the authorization server is discovered from the
    /// upstream's challenge (RFC 9728, RFC 8414), the token is asked for with
    /// the upstream's URL as its `resource` (RFC 8707), kept in memory and
    /// obtained again when it expires. TOML: the `[upstream.oauth]` table.
    ClientCredentials {
        /// The gateway's client id at the authorization server. TOML:
        /// `client_id`.
        client_id: String,
        /// Its client secret. TOML: `client_secret_env = "VAR"`, the secret
        /// the value of the environment variable `VAR`.
        client_secret: SecretString,
        /// The scopes to ask for; empty: those the upstream's challenge or
        /// protected resource metadata names. TOML: `scopes = [..]`
        /// (optional).
        scopes: Vec<String>,
    },
}

impl UpstreamCredentials {
    /// [`Bearer`](Self::Bearer) with `token` (without the `Bearer ` prefix).
    pub fn bearer(token: impl Into<String>) -> Self {
        UpstreamCredentials::Bearer(SecretString::from(token.into()))
    }

    /// [`ClientCredentials`](Self::ClientCredentials) for the client
    /// `client_id` with `client_secret`, asking for `scopes` (empty: the
    /// upstream's).
    pub fn client_credentials<I, S>(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        scopes: I,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        UpstreamCredentials::ClientCredentials {
            client_id: client_id.into(),
            client_secret: SecretString::from(client_secret.into()),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }

    /// What they are, in words for a banner or a log line, without the
    /// secret: `bearer token`, `OAuth client credentials of "gateway"`.
    pub fn describe(&self) -> String {
        match self {
            UpstreamCredentials::Bearer(_) => String::from("bearer token"),
            UpstreamCredentials::ClientCredentials { client_id, .. } => {
                format!("OAuth client credentials of \"{client_id}\"")
            }
        }
    }

    /// `options` set to present these credentials.
    pub(crate) fn apply(&self, options: ClientOptions) -> ClientOptions {
        match self {
            UpstreamCredentials::Bearer(token) => options.bearer(token.expose_secret()),
            UpstreamCredentials::ClientCredentials {
                client_id,
                client_secret,
                scopes,
            } => options.oauth(
                OAuthOptions::client_credentials(client_id.clone(), client_secret.expose_secret())
                    .scopes(scopes.iter().cloned()),
            ),
        }
    }
}

impl fmt::Debug for UpstreamCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpstreamCredentials::Bearer(_) => f.write_str("Bearer([REDACTED])"),
            UpstreamCredentials::ClientCredentials {
                client_id, scopes, ..
            } => f
                .debug_struct("ClientCredentials")
                .field("client_id", client_id)
                .field("client_secret", &"[REDACTED]")
                .field("scopes", scopes)
                .finish(),
        }
    }
}

impl PartialEq for UpstreamCredentials {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (UpstreamCredentials::Bearer(a), UpstreamCredentials::Bearer(b)) => {
                a.expose_secret() == b.expose_secret()
            }
            (
                UpstreamCredentials::ClientCredentials {
                    client_id: a_id,
                    client_secret: a_secret,
                    scopes: a_scopes,
                },
                UpstreamCredentials::ClientCredentials {
                    client_id: b_id,
                    client_secret: b_secret,
                    scopes: b_scopes,
                },
            ) => {
                a_id == b_id
                    && a_scopes == b_scopes
                    && a_secret.expose_secret() == b_secret.expose_secret()
            }
            _ => false,
        }
    }
}

/// Why credentials cannot be given to a stdio upstream, as a configuration
/// error's reason.
pub(crate) const NOT_FOR_STDIO: &str = "bearer_env and [upstream.oauth] are for url upstreams (Streamable HTTP); a command upstream (stdio) takes its credentials from its own environment or arguments";

/// The secret in the environment variable `variable`, named by the setting
/// `key` of `namespace`'s upstream.
///
/// # Errors
/// The configuration error's text when the variable is not set, is empty,
/// or is not Unicode.
pub(crate) fn from_env(namespace: &str, key: &str, variable: &str) -> Result<SecretString, String> {
    let why = match std::env::var(variable) {
        Ok(value) if !value.trim().is_empty() => {
            return Ok(SecretString::from(value.trim().to_owned()));
        }
        Ok(_) => "is empty",
        Err(std::env::VarError::NotPresent) => "is not set",
        Err(std::env::VarError::NotUnicode(_)) => "is not Unicode",
    };
    Err(format!(
        "upstream \"{namespace}\": {key} names the environment variable {variable}, which {why}"
    ))
}
