//! The server's signing key ([`ServerBuilder::signing_key`](super::ServerBuilder::signing_key)):
//! one secret for what the server hands to clients and must know again, each
//! use under its own domain: the lists' cursors ([`crate::server::adapter::pagination`]) and
//! the `requestState` of input-required results ([`crate::server::rounds::request_state`]).

/// The fewest bytes a signing key may have: 32, the output size of SHA-256
/// (RFC 2104 §3: keys shorter than the hash output weaken the MAC).
pub const MIN_SIGNING_KEY_BYTES: usize = 32;

/// 32 random bytes, the key of a server built without one: two version-4
/// UUIDs, 244 bits from the operating system's random source (uuid draws
/// them with getrandom).
pub(crate) fn random() -> Vec<u8> {
    let mut key = Vec::with_capacity(MIN_SIGNING_KEY_BYTES);
    key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    key
}
