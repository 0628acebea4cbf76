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
/// then as [`AuthorizationError::Token`](super::AuthorizationError::Token).
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
