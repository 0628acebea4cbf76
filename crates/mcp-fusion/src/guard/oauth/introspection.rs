//! Opaque tokens, checked at the authorization server's introspection
//! endpoint (RFC 7662): the resource server authenticates as a client, the
//! answer is kept for a short time, keyed by the token's SHA-256 (the token
//! itself is never stored).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;

use super::claims::Claims;
use super::fetch::{FetchError, post_form};
use crate::guard::AuthFailure;
use crate::handler::Principal;

/// The most answers kept; past it the cache starts over.
const MAX_ENTRIES: usize = 10_000;

/// An introspection answer (RFC 7662 §2.2): `active`, then the claims.
#[derive(Deserialize)]
struct Answer {
    active: bool,
    #[serde(flatten)]
    claims: Claims,
}

/// An answer kept: until when, and the verdict.
type Kept = (Instant, Result<Principal, AuthFailure>);

/// The introspection endpoint and the resource server's client credentials.
pub(crate) struct Introspection {
    http: reqwest::Client,
    endpoint: String,
    client_id: String,
    client_secret: SecretString,
    /// How long an answer is kept (never past the token's `exp`).
    pub ttl: Duration,
    cache: Mutex<HashMap<[u8; 32], Kept>>,
}

impl Introspection {
    pub(crate) fn new(
        http: reqwest::Client,
        endpoint: String,
        client_id: String,
        client_secret: SecretString,
    ) -> Self {
        Introspection {
            http,
            endpoint,
            client_id,
            client_secret,
            ttl: Duration::from_secs(30),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The principal of the opaque `token`, for the resource `resource`
    /// from the issuer `issuer`.
    ///
    /// # Errors
    /// [`AuthFailure::Inactive`], [`AuthFailure::WrongAudience`],
    /// [`AuthFailure::WrongIssuer`] (an `iss` other than `issuer`, compared
    /// exactly), [`AuthFailure::Expired`], [`AuthFailure::Rejected`] (the
    /// endpoint answered 400 or 413), [`AuthFailure::Unavailable`] (the endpoint
    /// did not answer, or answered another error; not kept).
    pub(crate) async fn verify(
        &self,
        token: &str,
        issuer: &str,
        resource: &str,
    ) -> Result<Principal, AuthFailure> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if !self.ttl.is_zero()
            && let Some((until, answer)) = self.cache.lock().await.get(&key)
            && Instant::now() < *until
        {
            return answer.clone();
        }
        let answer: Answer = match post_form(
            &self.http,
            &self.endpoint,
            (&self.client_id, self.client_secret.expose_secret()),
            &[("token", token), ("token_type_hint", "access_token")],
        )
        .await
        {
            Ok(answer) => answer,
            // A 400 (or 413) about this token (RFC 7662 §2.3: e.g.
            // oidc-provider's `unsupported_token_type` for a JWT it did not
            // issue): the authorization server does not take it, which the
            // caller is told (401), logged at debug: any caller can send one.
            Err(FetchError::Refused(status)) => {
                tracing::debug!(endpoint = %self.endpoint, status, "the introspection endpoint refused the token");
                return Err(AuthFailure::Rejected);
            }
            Err(FetchError::Failed(reason)) => {
                tracing::warn!(endpoint = %self.endpoint, "token introspection failed: {reason}");
                return Err(AuthFailure::Unavailable);
            }
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let exp = answer.claims.exp;
        let verdict = if !answer.active {
            Err(AuthFailure::Inactive)
        } else if exp.is_some_and(|exp| exp <= now) {
            Err(AuthFailure::Expired)
        } else if answer
            .claims
            .iss
            .as_deref()
            .is_some_and(|iss| iss != issuer)
        {
            Err(AuthFailure::WrongIssuer)
        } else if !answer.claims.audience_names(resource) {
            Err(AuthFailure::WrongAudience)
        } else {
            answer.claims.principal()
        };
        if !self.ttl.is_zero() {
            let mut keep = self.ttl;
            if let Some(exp) = exp {
                keep = keep.min(Duration::from_secs(exp.saturating_sub(now)));
            }
            let mut cache = self.cache.lock().await;
            if cache.len() >= MAX_ENTRIES {
                cache.clear();
            }
            cache.insert(key, (Instant::now() + keep, verdict.clone()));
        }
        verdict
    }
}
