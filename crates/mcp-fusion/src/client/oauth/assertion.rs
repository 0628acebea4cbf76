//! [`ClientAssertionKey`]: the private key a confidential client signs its
//! JWT client assertions with (`private_key_jwt` client authentication,
//! RFC 7523 §2.2 and OpenID Connect Core §9), and
//! [`ClientAssertionAlgorithm`], the JWS algorithm it signs with.
//!
//! rmcp's `auth-client-credentials-jwt` builds and signs the assertion: header
//! `alg` = the algorithm and `typ: client-authentication+jwt`; claims `iss` =
//! `sub` = the client id, `aud` = the authorization server's issuer (RFC 8414
//! metadata), `iat`, `exp` = `iat` + 300 s and a fresh `jti` (a UUID v4). The
//! header carries no `kid`: an authorization server that holds several keys
//! for the client tries each.

use std::fmt;
use std::str::FromStr;

use secrecy::{ExposeSecret, SecretString};

/// The JWS algorithm (RFC 7518 §3.1) of a client assertion. It must be one
/// the authorization server lists in
/// `token_endpoint_auth_signing_alg_values_supported` (RFC 8414 §2) when it
/// lists any, and match the key: `RS*` an RSA key, `ES256` a P-256 key,
/// `ES384` a P-384 key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClientAssertionAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (`RS256`).
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384 (`RS384`).
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512 (`RS512`).
    Rs512,
    /// ECDSA on P-256 with SHA-256 (`ES256`).
    Es256,
    /// ECDSA on P-384 with SHA-384 (`ES384`).
    Es384,
}

impl ClientAssertionAlgorithm {
    /// Every algorithm, in the order of their names.
    pub const ALL: [ClientAssertionAlgorithm; 5] = [
        ClientAssertionAlgorithm::Es256,
        ClientAssertionAlgorithm::Es384,
        ClientAssertionAlgorithm::Rs256,
        ClientAssertionAlgorithm::Rs384,
        ClientAssertionAlgorithm::Rs512,
    ];

    /// The JWS `alg` name, e.g. `"ES256"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientAssertionAlgorithm::Rs256 => "RS256",
            ClientAssertionAlgorithm::Rs384 => "RS384",
            ClientAssertionAlgorithm::Rs512 => "RS512",
            ClientAssertionAlgorithm::Es256 => "ES256",
            ClientAssertionAlgorithm::Es384 => "ES384",
        }
    }

    /// rmcp's name for it.
    pub(crate) fn to_rmcp(self) -> rmcp::transport::JwtSigningAlgorithm {
        use rmcp::transport::JwtSigningAlgorithm as Alg;
        match self {
            ClientAssertionAlgorithm::Rs256 => Alg::RS256,
            ClientAssertionAlgorithm::Rs384 => Alg::RS384,
            ClientAssertionAlgorithm::Rs512 => Alg::RS512,
            ClientAssertionAlgorithm::Es256 => Alg::ES256,
            ClientAssertionAlgorithm::Es384 => Alg::ES384,
        }
    }
}

impl ClientAssertionAlgorithm {
    /// The algorithm a private key in `pem` signs with when none is chosen:
    /// `RS256` for an RSA key (PKCS#8 or PKCS#1), `ES256` for a P-256 key,
    /// `ES384` for a P-384 key (PKCS#8 or SEC 1). RFC 7518 §3.3, §3.4.
    ///
    /// # Errors
    ///
    /// [`UnsupportedKey`] when `pem` holds none of those keys (another
    /// curve, an encrypted key, not PEM).
    pub fn for_key(pem: &str) -> Result<Self, UnsupportedKey> {
        use p256::pkcs8::DecodePrivateKey;
        use rsa::pkcs1::DecodeRsaPrivateKey;
        if p256::SecretKey::from_pkcs8_pem(pem).is_ok()
            || p256::SecretKey::from_sec1_pem(pem).is_ok()
        {
            return Ok(ClientAssertionAlgorithm::Es256);
        }
        if p384::SecretKey::from_pkcs8_pem(pem).is_ok()
            || p384::SecretKey::from_sec1_pem(pem).is_ok()
        {
            return Ok(ClientAssertionAlgorithm::Es384);
        }
        if rsa::PrivateKey::from_pkcs8_pem(pem).is_ok()
            || rsa::PrivateKey::from_pkcs1_pem(pem).is_ok()
        {
            return Ok(ClientAssertionAlgorithm::Rs256);
        }
        Err(UnsupportedKey)
    }

    /// Whether this algorithm signs with the kind of key `key_algorithm`
    /// ([`for_key`](Self::for_key)) is for: any `RS*` for an RSA key;
    /// `ES256` only for P-256 and `ES384` only for P-384.
    pub fn suits(self, key_algorithm: ClientAssertionAlgorithm) -> bool {
        use ClientAssertionAlgorithm::{Es256, Es384, Rs256, Rs384, Rs512};
        match key_algorithm {
            Rs256 | Rs384 | Rs512 => matches!(self, Rs256 | Rs384 | Rs512),
            Es256 | Es384 => self == key_algorithm,
        }
    }
}

/// A PEM text that holds no RSA, P-256 or P-384 private key
/// ([`ClientAssertionAlgorithm::for_key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "no RSA, P-256 or P-384 private key (an unencrypted PEM: BEGIN PRIVATE KEY, BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)"
)]
pub struct UnsupportedKey;

impl fmt::Display for ClientAssertionAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of [`ClientAssertionAlgorithm::ALL`] (the text
/// given, which is not secret).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown client assertion algorithm \"{0}\" (expected one of ES256, ES384, RS256, RS384, RS512)"
)]
pub struct UnknownAlgorithm(pub String);

impl FromStr for ClientAssertionAlgorithm {
    type Err = UnknownAlgorithm;

    /// Parses a JWS `alg` name, in any letter case (`"ES256"`, `"es256"`).
    ///
    /// # Errors
    ///
    /// [`UnknownAlgorithm`] for any other text.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ClientAssertionAlgorithm::ALL
            .into_iter()
            .find(|alg| alg.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| UnknownAlgorithm(text.to_owned()))
    }
}

/// A client's private key for `private_key_jwt` (RFC 7523 §2.2): PEM text
/// (PKCS#8 `BEGIN PRIVATE KEY`, PKCS#1 `BEGIN RSA PRIVATE KEY` or SEC 1
/// `BEGIN EC PRIVATE KEY`) and the [`ClientAssertionAlgorithm`] to sign with.
/// The authorization server holds the public half (the client's registered
/// `jwks` or `jwks_uri`). The key is parsed when the first assertion is
/// signed; a key that does not parse, or does not suit the algorithm, fails
/// then as [`AuthorizationError::Token`](super::AuthorizationError::Token)
/// ([`is_signing_error`](super::AuthorizationError::is_signing_error));
/// [`ClientAssertionAlgorithm::for_key`] gives the algorithm a key is for.
/// `Debug` prints the key as `[REDACTED]`.
#[derive(Clone)]
pub struct ClientAssertionKey {
    pem: SecretString,
    algorithm: ClientAssertionAlgorithm,
}

impl ClientAssertionKey {
    /// The key in `pem`, signing with `algorithm`.
    pub fn new(pem: impl Into<String>, algorithm: ClientAssertionAlgorithm) -> Self {
        ClientAssertionKey {
            pem: SecretString::from(pem.into()),
            algorithm,
        }
    }

    /// The signing algorithm.
    pub fn algorithm(&self) -> ClientAssertionAlgorithm {
        self.algorithm
    }

    /// The PEM bytes, for rmcp's signer.
    pub(crate) fn pem_bytes(&self) -> Vec<u8> {
        self.pem.expose_secret().as_bytes().to_vec()
    }
}

impl fmt::Debug for ClientAssertionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientAssertionKey")
            .field("pem", &"[REDACTED]")
            .field("algorithm", &self.algorithm)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names_parse_in_any_case_and_print_as_jws_names() {
        assert_eq!(
            "es256".parse::<ClientAssertionAlgorithm>(),
            Ok(ClientAssertionAlgorithm::Es256)
        );
        assert_eq!(
            "RS512".parse::<ClientAssertionAlgorithm>(),
            Ok(ClientAssertionAlgorithm::Rs512)
        );
        assert_eq!(ClientAssertionAlgorithm::Es384.to_string(), "ES384");
        assert_eq!(
            "HS256"
                .parse::<ClientAssertionAlgorithm>()
                .unwrap_err()
                .to_string(),
            "unknown client assertion algorithm \"HS256\" (expected one of ES256, ES384, RS256, RS384, RS512)"
        );
    }

    #[test]
    fn the_algorithm_is_read_from_the_key() {
        let keyed = include_str!("../../../../../tests/oauth/billing-keyed.pem");
        assert_eq!(
            ClientAssertionAlgorithm::for_key(keyed),
            Ok(ClientAssertionAlgorithm::Es256)
        );
        assert_eq!(
            ClientAssertionAlgorithm::for_key(
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            ),
            Err(UnsupportedKey)
        );
        use ClientAssertionAlgorithm::{Es256, Es384, Rs256, Rs512};
        assert!(Rs512.suits(Rs256));
        assert!(Es256.suits(Es256));
        assert!(!Rs256.suits(Es256));
        assert!(!Es384.suits(Es256));
        assert!(!Es256.suits(Rs256));
    }

    #[test]
    fn debug_does_not_show_the_key() {
        let key = ClientAssertionKey::new(
            "-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----\n",
            ClientAssertionAlgorithm::Es256,
        );
        assert_eq!(
            format!("{key:?}"),
            "ClientAssertionKey { pem: \"[REDACTED]\", algorithm: Es256 }"
        );
    }
}
