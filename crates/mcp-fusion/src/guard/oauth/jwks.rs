//! The authorization server's signing keys (its JWKS, RFC 7517 §5), fetched
//! from its `jwks_uri`, kept, fetched again when they are older than
//! `max_age` or when a token names a key (`kid`) they lack — at most once
//! per `cooldown`, so that tokens with made-up key ids cannot make the
//! server hammer its authorization server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use tokio::sync::Mutex;

use super::fetch::get_json;
use crate::guard::AuthFailure;

/// One usable key of the set.
struct Key {
    kid: Option<String>,
    key: Arc<DecodingKey>,
}

#[derive(Default)]
struct Fetched {
    keys: Vec<Key>,
    at: Option<Instant>,
    /// Whether the last fetch failed (the authorization server did not
    /// answer): a key the set lacks is then not known to be unknown.
    failed: bool,
}

/// The keys of one JWKS URI.
pub(crate) struct KeyCache {
    http: reqwest::Client,
    uri: String,
    pub cooldown: Duration,
    pub max_age: Duration,
    fetched: Mutex<Fetched>,
}

fn usable(jwk: &Jwk) -> Option<Key> {
    let signing = jwk
        .common
        .public_key_use
        .as_ref()
        .is_none_or(|u| *u == jsonwebtoken::jwk::PublicKeyUse::Signature);
    if !signing {
        return None;
    }
    Some(Key {
        kid: jwk.common.key_id.clone(),
        key: Arc::new(DecodingKey::from_jwk(jwk).ok()?),
    })
}

impl KeyCache {
    pub(crate) fn new(http: reqwest::Client, uri: String) -> Self {
        KeyCache {
            http,
            uri,
            cooldown: Duration::from_secs(10),
            max_age: Duration::from_secs(3600),
            fetched: Mutex::new(Fetched::default()),
        }
    }

    async fn refetch(&self, fetched: &mut Fetched) -> Result<(), AuthFailure> {
        let set: JwkSet = match get_json(&self.http, &self.uri).await {
            Ok(set) => set,
            Err(reason) => {
                tracing::warn!(jwks_uri = %self.uri, "cannot fetch the authorization server's keys: {reason}");
                // Keys fetched before stay in use; the next try waits a cooldown.
                if fetched.at.is_some() {
                    fetched.at = Some(Instant::now());
                }
                fetched.failed = true;
                return Err(AuthFailure::Unavailable);
            }
        };
        fetched.keys = set.keys.iter().filter_map(usable).collect();
        fetched.at = Some(Instant::now());
        fetched.failed = false;
        tracing::debug!(jwks_uri = %self.uri, keys = fetched.keys.len(), "fetched the authorization server's keys");
        Ok(())
    }

    fn find(fetched: &Fetched, kid: Option<&str>) -> Option<Arc<DecodingKey>> {
        match kid {
            Some(kid) => fetched
                .keys
                .iter()
                .find(|k| k.kid.as_deref() == Some(kid))
                .map(|k| Arc::clone(&k.key)),
            // A token without `kid` is checked with the one key of a set
            // of one.
            None if fetched.keys.len() == 1 => Some(Arc::clone(&fetched.keys[0].key)),
            None => None,
        }
    }

    /// The key for a token whose header names `kid`.
    ///
    /// # Errors
    /// [`AuthFailure::UnknownKey`] when the set lacks it even fetched again
    /// (or fetched within the cooldown); [`AuthFailure::Unavailable`] when
    /// the set could never be fetched, or lacks it and could not be fetched
    /// again (the last fetch failed).
    pub(crate) async fn key(&self, kid: Option<&str>) -> Result<Arc<DecodingKey>, AuthFailure> {
        let mut fetched = self.fetched.lock().await;
        let age = fetched.at.map(|at| at.elapsed());
        if age.is_none_or(|age| age >= self.max_age) {
            let refreshed = self.refetch(&mut fetched).await;
            if fetched.at.is_none() {
                return Err(refreshed.err().unwrap_or(AuthFailure::Unavailable));
            }
        }
        if let Some(key) = Self::find(&fetched, kid) {
            return Ok(key);
        }
        let recent = fetched.at.is_some_and(|at| at.elapsed() < self.cooldown);
        if !recent {
            // A key the set lacks: the authorization server may have rotated.
            let _ = self.refetch(&mut fetched).await;
            if let Some(key) = Self::find(&fetched, kid) {
                return Ok(key);
            }
        }
        if fetched.failed {
            return Err(AuthFailure::Unavailable);
        }
        Err(AuthFailure::UnknownKey)
    }
}
