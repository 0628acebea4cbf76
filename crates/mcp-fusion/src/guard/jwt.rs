//! [`JwtVerifier`]: bearer tokens that are JSON Web Tokens (feature `jwt`).

use std::collections::BTreeSet;

use futures::future::BoxFuture;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use super::auth::{AuthConfigError, AuthFailure, TokenVerifier};
use crate::handler::Principal;

/// JSON Web Tokens (`jsonwebtoken`): the signature and `exp` are checked; the
/// subject is `sub`; scopes come from `scope` (space-separated, OAuth 2.0) or
/// `scopes` / `scp` (arrays).
#[derive(Clone)]
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("algorithms", &self.validation.algorithms)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scopes: Option<Vec<String>>,
    #[serde(default)]
    scp: Option<Vec<String>>,
}

impl JwtVerifier {
    /// HMAC-SHA256 tokens signed with `secret`.
    ///
    /// # Errors
    /// [`AuthConfigError::Key`] when the secret is refused (e.g. empty).
    pub fn hs256(secret: &[u8]) -> Result<Self, AuthConfigError> {
        if secret.is_empty() {
            return Err(AuthConfigError::Key(String::from(
                "the HS256 secret is empty",
            )));
        }
        Ok(JwtVerifier {
            key: DecodingKey::from_secret(secret)
                .map_err(|e| AuthConfigError::Key(e.to_string()))?,
            validation: Validation::new(Algorithm::HS256),
        })
    }

    /// RSA-SHA256 tokens, checked with a PEM public key.
    ///
    /// # Errors
    /// [`AuthConfigError::Key`] when the PEM is not an RSA public key.
    pub fn rs256_pem(pem: &[u8]) -> Result<Self, AuthConfigError> {
        Ok(JwtVerifier {
            key: DecodingKey::from_rsa_pem(pem).map_err(|e| AuthConfigError::Key(e.to_string()))?,
            validation: Validation::new(Algorithm::RS256),
        })
    }

    /// Only tokens whose `iss` is `issuer`.
    pub fn issuer(mut self, issuer: &str) -> Self {
        self.validation.set_issuer(&[issuer]);
        self
    }

    /// Only tokens whose `aud` includes `audience`.
    pub fn audience(mut self, audience: &str) -> Self {
        self.validation.set_audience(&[audience]);
        self
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, AuthFailure>> {
        let result = jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => AuthFailure::Expired,
                _ => AuthFailure::Invalid,
            })
            .map(|data| {
                let claims = data.claims;
                let mut scopes: BTreeSet<String> = claims
                    .scope
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect();
                scopes.extend(claims.scopes.unwrap_or_default());
                scopes.extend(claims.scp.unwrap_or_default());
                Principal {
                    subject: claims.sub,
                    scopes,
                }
            });
        Box::pin(std::future::ready(result))
    }
}
