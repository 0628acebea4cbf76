//! The server's signing keys ([`ServerBuilder::signing_keys`](super::ServerBuilder::signing_keys)):
//! the secrets for what the server hands to clients and must know again,
//! each use under its own domain: the lists' cursors
//! ([`crate::server::adapter::pagination`]) and the `requestState` of
//! input-required results ([`crate::server::rounds::request_state`]).
//!
//! One key signs; every key of the set opens. What is signed names its key
//! by id (as a JWT's `kid`, RFC 7515 §4.1.4), so a fleet can rotate its key
//! without refusing what another replica signed: see [`SigningKeys`].

use secrecy::{ExposeSecret, SecretSlice};

use crate::capability::BuildError;

/// The fewest bytes a signing key may have: 32, the output size of SHA-256
/// (RFC 2104 §3: keys shorter than the hash output weaken the MAC).
pub const MIN_SIGNING_KEY_BYTES: usize = 32;

/// The id of the key [`ServerBuilder::signing_key`](super::ServerBuilder::signing_key)
/// gives, and of the random key a server draws without one: `"default"`.
pub const DEFAULT_SIGNING_KEY_ID: &str = "default";

/// The longest key id: 64 characters.
pub const MAX_SIGNING_KEY_ID_CHARS: usize = 64;

/// The keys a server signs with and accepts: one active key that signs
/// every new cursor and `requestState`, and keys that are still accepted
/// (what they signed is opened) but sign nothing.
///
/// A key is at least [`MIN_SIGNING_KEY_BYTES`] (32) bytes of secret, random
/// data. A key id is 1 to [`MAX_SIGNING_KEY_ID_CHARS`] (64) ASCII letters,
/// digits, `.`, `_` or `-`; it is written in clear in what the key signs
/// (ids are not secret), and the ids of one set differ.
///
/// # Rotating the key of a fleet
/// Replicas behind one endpoint must open what any of them signed, also
/// while a change rolls out one replica at a time:
/// 1. Every replica signs with `k1`: `SigningKeys::new("k1", k1)`.
/// 2. Roll out the new key as accepted only:
///    `SigningKeys::new("k1", k1).accept("k2", k2)`. Nothing is signed
///    with `k2` yet, so replicas still at step 1 are not disturbed.
/// 3. Once every replica has step 2, roll out the switch:
///    `SigningKeys::new("k2", k2).accept("k1", k1)`. Replicas still at
///    step 2 open what `k2` signs, and those at step 3 what `k1` signed.
/// 4. After a `requestState`'s life
///    ([`ServerBuilder::request_state_ttl`](super::ServerBuilder::request_state_ttl),
///    10 minutes by default), drop `k1`: `SigningKeys::new("k2", k2)`. A
///    cursor `k1` signed is then refused with `-32602` and its client lists
///    from the first page again.
///
/// `fusion serve` and `fusion gateway` take the same set from
/// `FUSION_SIGNING_KEY`, `FUSION_SIGNING_KEY_ID` and
/// `FUSION_ACCEPTED_SIGNING_KEYS`.
///
/// ```
/// use mcp_fusion::server::SigningKeys;
///
/// // Step 3 of a rotation: sign with k2, still open what k1 signed.
/// let keys = SigningKeys::new("k2", "a-second-key-of-at-least-thirty-two-bytes")
///     .accept("k1", "the-first-key-of-at-least-thirty-two-bytes");
/// assert_eq!(keys.active_id(), "k2");
/// assert_eq!(keys.ids().collect::<Vec<_>>(), ["k2", "k1"]);
/// ```
#[derive(Clone)]
pub struct SigningKeys {
    /// The active key first, then the accepted ones in the order given.
    keys: Vec<(String, SecretSlice<u8>)>,
}

impl std::fmt::Debug for SigningKeys {
    /// The ids, never a key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKeys")
            .field("active", &self.active_id())
            .field("accepted", &self.ids().skip(1).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl SigningKeys {
    /// A set whose key `key`, named `id`, signs (and opens).
    /// [`ServerBuilder::build`](super::ServerBuilder::build) checks the
    /// set: [`BuildError::BadSigningKeys`] for an id that is empty, longer
    /// than 64 characters, of other characters or given twice, and
    /// [`BuildError::SigningKeyTooShort`] for a key under 32 bytes.
    pub fn new(id: impl Into<String>, key: impl Into<Vec<u8>>) -> SigningKeys {
        SigningKeys {
            keys: vec![(id.into(), key.into().into())],
        }
    }

    /// The set with `key`, named `id`, also accepted: what it signed is
    /// opened, nothing new is signed with it.
    pub fn accept(mut self, id: impl Into<String>, key: impl Into<Vec<u8>>) -> SigningKeys {
        self.keys.push((id.into(), key.into().into()));
        self
    }

    /// The id of the key that signs.
    pub fn active_id(&self) -> &str {
        &self.keys[0].0
    }

    /// Every id, the active one first, then the accepted ones in the order
    /// given.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(id, _)| id.as_str())
    }

    /// Each id with its key's bytes, the active one first.
    pub(crate) fn exposed(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.keys
            .iter()
            .map(|(id, key)| (id.as_str(), key.expose_secret()))
    }

    /// A set of 32 random bytes named [`DEFAULT_SIGNING_KEY_ID`], the keys
    /// of a server built without any: two version-4 UUIDs, 244 bits from
    /// the operating system's random source (uuid draws them with
    /// getrandom).
    pub(crate) fn random() -> SigningKeys {
        let mut key = Vec::with_capacity(MIN_SIGNING_KEY_BYTES);
        key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        SigningKeys::new(DEFAULT_SIGNING_KEY_ID, key)
    }

    /// The set, if every id and key can be used.
    ///
    /// # Errors
    /// [`BuildError::BadSigningKeys`] naming the first id that is empty,
    /// too long, of characters other than ASCII letters, digits, `.`, `_`
    /// and `-`, or given twice; [`BuildError::SigningKeyTooShort`] for a key
    /// under [`MIN_SIGNING_KEY_BYTES`].
    pub(crate) fn checked(self) -> Result<SigningKeys, BuildError> {
        for (index, (id, key)) in self.keys.iter().enumerate() {
            if let Some(reason) = id_problem(id) {
                return Err(BuildError::BadSigningKeys {
                    id: crate::text::cut_chars(id, MAX_SIGNING_KEY_ID_CHARS, "…").into_owned(),
                    reason,
                });
            }
            if self.keys[..index].iter().any(|(other, _)| other == id) {
                return Err(BuildError::BadSigningKeys {
                    id: id.clone(),
                    reason: "it is given twice",
                });
            }
            let length = key.expose_secret().len();
            if length < MIN_SIGNING_KEY_BYTES {
                return Err(BuildError::SigningKeyTooShort { length });
            }
        }
        Ok(self)
    }
}

/// What is wrong with the key id `id`, if anything.
fn id_problem(id: &str) -> Option<&'static str> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if id.is_empty() {
        Some("it is empty")
    } else if id.chars().count() > MAX_SIGNING_KEY_ID_CHARS {
        Some("it is longer than 64 characters")
    } else if !id.chars().all(allowed) {
        Some("it holds a character other than ASCII letters, digits, '.', '_' and '-'")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef";

    fn refused(keys: SigningKeys) -> String {
        keys.checked().unwrap_err().to_string()
    }

    #[test]
    fn ids_are_checked_in_order_and_named_in_the_error() {
        assert_eq!(
            refused(SigningKeys::new("", KEY)),
            "signing key id \"\": it is empty"
        );
        assert_eq!(
            refused(SigningKeys::new("k1", KEY).accept("k 2", KEY)),
            "signing key id \"k 2\": it holds a character other than ASCII letters, digits, '.', '_' and '-'"
        );
        assert_eq!(
            refused(SigningKeys::new("k1", KEY).accept("k1", KEY)),
            "signing key id \"k1\": it is given twice"
        );
        let long = "k".repeat(65);
        assert_eq!(
            refused(SigningKeys::new(long, KEY)),
            format!(
                "signing key id \"{}…\": it is longer than 64 characters",
                "k".repeat(63)
            )
        );
    }

    #[test]
    fn an_accepted_key_shorter_than_32_bytes_is_refused_too() {
        assert_eq!(
            refused(SigningKeys::new("k1", KEY).accept("k0", "short")),
            "the signing key has 5 bytes; give at least 32 (e.g. `openssl rand -base64 48`), the same on every replica"
        );
        let fine = SigningKeys::new("k-1.a_B", KEY).accept("k0", KEY);
        assert_eq!(fine.checked().unwrap().ids().count(), 2);
    }

    #[test]
    fn debug_shows_ids_and_never_a_key() {
        let keys = SigningKeys::new("k2", KEY).accept("k1", KEY);
        let shown = format!("{keys:?}");
        assert_eq!(
            shown,
            "SigningKeys { active: \"k2\", accepted: [\"k1\"], .. }"
        );
    }
}
