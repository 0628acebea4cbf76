//! The authorization server's signing keys (its JWKS, RFC 7517 §5), fetched
//! from its `jwks_uri`, kept, fetched again when they are older than
//! `max_age` or when a token names a key (`kid`) they lack — at most once
//! per `cooldown`, so that tokens with made-up key ids cannot make the
//! server hammer its authorization server.
//!
//! A token whose key is kept never waits on a fetch: the keys are read
//! under a read lock that a fetch holds only to store its result. One
//! fetch runs at a time (a single flight): tokens of a key the set lacks
//! wait for it and share its result; keys older than `max_age` are fetched
//! again in the background while the ones kept go on verifying.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use tokio::sync::{Mutex, RwLock};

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
    /// When the set was last fetched.
    at: Option<Instant>,
    /// When a fetch last ended, fetched or failed.
    tried: Option<Instant>,
    /// Whether the last fetch failed (the authorization server did not
    /// answer): a key the set lacks is then not known to be unknown.
    failed: bool,
}

impl Fetched {
    fn find(&self, kid: Option<&str>) -> Option<Arc<DecodingKey>> {
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .find(|k| k.kid.as_deref() == Some(kid))
                .map(|k| Arc::clone(&k.key)),
            // A token without `kid` is checked with the one key of a set
            // of one.
            None if self.keys.len() == 1 => Some(Arc::clone(&self.keys[0].key)),
            None => None,
        }
    }
}

/// What a fetch shares with the background one.
struct Source {
    http: reqwest::Client,
    uri: String,
    fetched: RwLock<Fetched>,
    /// Held by the one fetch in progress.
    fetching: Mutex<()>,
}

/// The keys of one JWKS URI.
pub(crate) struct KeyCache {
    source: Arc<Source>,
    pub cooldown: Duration,
    pub max_age: Duration,
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

impl Source {
    /// Fetches the set and stores it; the keys kept before stay in use
    /// when it cannot be fetched. The caller holds `fetching`.
    async fn fetch(&self) {
        let answer = get_json::<JwkSet>(&self.http, &self.uri).await;
        let mut fetched = self.fetched.write().await;
        fetched.tried = Some(Instant::now());
        match answer {
            Ok(set) => {
                fetched.keys = set.keys.iter().filter_map(usable).collect();
                fetched.at = fetched.tried;
                fetched.failed = false;
                tracing::debug!(jwks_uri = %self.uri, keys = fetched.keys.len(), "fetched the authorization server's keys");
            }
            Err(reason) => {
                fetched.failed = true;
                tracing::warn!(jwks_uri = %self.uri, "cannot fetch the authorization server's keys: {reason}");
            }
        }
    }
}

impl KeyCache {
    pub(crate) fn new(http: reqwest::Client, uri: String) -> Self {
        KeyCache {
            source: Arc::new(Source {
                http,
                uri,
                fetched: RwLock::new(Fetched::default()),
                fetching: Mutex::new(()),
            }),
            cooldown: Duration::from_secs(10),
            max_age: Duration::from_secs(3600),
        }
    }

    /// Whether a fetch ended less than a cooldown ago.
    fn recent(&self, fetched: &Fetched) -> bool {
        fetched
            .tried
            .is_some_and(|tried| tried.elapsed() < self.cooldown)
    }

    /// The key for a token whose header names `kid`: at once when the set
    /// kept has it (older than `max_age`, the set is fetched again in the
    /// background); else after a fetch of the set, the one in progress or
    /// a new one unless one ended within the cooldown (the first fetch
    /// ignores the cooldown).
    ///
    /// # Errors
    /// [`AuthFailure::UnknownKey`] when the set lacks it even fetched again
    /// (or fetched within the cooldown); [`AuthFailure::Unavailable`] when
    /// the set could never be fetched, or lacks it and could not be fetched
    /// again (the last fetch failed).
    pub(crate) async fn key(&self, kid: Option<&str>) -> Result<Arc<DecodingKey>, AuthFailure> {
        let seen = {
            let fetched = self.source.fetched.read().await;
            if let Some(key) = fetched.find(kid) {
                let stale = fetched.at.is_some_and(|at| at.elapsed() >= self.max_age);
                if stale && !self.recent(&fetched) {
                    self.refresh_in_background();
                }
                return Ok(key);
            }
            fetched.tried
        };
        // A key the set lacks: the authorization server may have rotated.
        let _fetching = self.source.fetching.lock().await;
        let again = {
            let fetched = self.source.fetched.read().await;
            if let Some(key) = fetched.find(kid) {
                return Ok(key);
            }
            // A fetch that ended while this one waited answered for it.
            fetched.tried == seen && (fetched.at.is_none() || !self.recent(&fetched))
        };
        if again {
            self.source.fetch().await;
        }
        let fetched = self.source.fetched.read().await;
        if let Some(key) = fetched.find(kid) {
            return Ok(key);
        }
        if fetched.failed || fetched.at.is_none() {
            return Err(AuthFailure::Unavailable);
        }
        Err(AuthFailure::UnknownKey)
    }

    /// Fetches the set again off the request path, unless a fetch is in
    /// progress.
    fn refresh_in_background(&self) {
        let source = Arc::clone(&self.source);
        tokio::spawn(async move {
            if let Ok(_fetching) = source.fetching.try_lock() {
                source.fetch().await;
            }
        });
    }
}
