//! Which authorization server URLs the client may send credentials to:
//! `https://` ones, and `http://` ones on loopback only (OAuth 2.1 §1.5
//! "Communication security"; RFC 8414 §2: the metadata's endpoints are
//! `https` URLs; RFC 8252 §8.3 for loopback). Checked on the discovered
//! metadata before any request that carries a client secret, a code
//! verifier or a registration.

use std::net::IpAddr;

use rmcp::transport::auth::AuthorizationMetadata;

use super::options::AuthorizationError;

/// Refuses `metadata` when its issuer or its authorization, token or
/// registration endpoint is not `https://`, unless it is `http://` on
/// loopback (`127.0.0.0/8`, `::1`, `localhost` or a name under
/// `.localhost`).
///
/// # Errors
///
/// [`AuthorizationError::InsecureEndpoint`] naming the first URL refused,
/// in the order issuer, authorization, token, registration endpoint.
pub(crate) fn require_secure(metadata: &AuthorizationMetadata) -> Result<(), AuthorizationError> {
    let named = [
        ("authorization server", metadata.issuer.as_deref()),
        (
            "authorization endpoint",
            Some(metadata.authorization_endpoint.as_str()),
        ),
        ("token endpoint", Some(metadata.token_endpoint.as_str())),
        (
            "registration endpoint",
            metadata.registration_endpoint.as_deref(),
        ),
    ];
    for (role, url) in named {
        if let Some(url) = url.filter(|url| !url.is_empty())
            && !is_secure(url)
        {
            return Err(AuthorizationError::InsecureEndpoint {
                role,
                url: url.to_owned(),
            });
        }
    }
    Ok(())
}

/// Whether `url` is `https://`, or `http://` with a loopback host.
fn is_secure(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    match url.scheme() {
        "https" => true,
        "http" => url.host().is_some_and(|host| match host {
            url::Host::Domain(name) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                name == "localhost" || name.ends_with(".localhost")
            }
            url::Host::Ipv4(ip) => IpAddr::V4(ip).is_loopback(),
            url::Host::Ipv6(ip) => IpAddr::V6(ip).is_loopback(),
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(issuer: &str, token: &str) -> AuthorizationMetadata {
        let mut metadata = AuthorizationMetadata::default();
        metadata.issuer = Some(issuer.to_owned());
        metadata.authorization_endpoint = format!("{issuer}/auth");
        metadata.token_endpoint = token.to_owned();
        metadata.registration_endpoint = Some(format!("{issuer}/reg"));
        metadata
    }

    #[test]
    fn https_and_loopback_http_are_secure_and_other_http_is_not() {
        for url in [
            "https://as.example.com/token",
            "https://10.0.0.9/token",
            "http://127.0.0.1:4000/token",
            "http://127.9.9.9/token",
            "http://[::1]:4000/token",
            "http://localhost:4000/token",
            "http://LOCALHOST./token",
            "http://as.localhost/token",
        ] {
            assert!(is_secure(url), "{url}");
        }
        for url in [
            "http://192.0.2.2:47556/token",
            "http://as.example.com/token",
            "http://10.0.0.9/token",
            "http://0.0.0.0:4000/token",
            "http://[::ffff:127.0.0.1]/token",
            "http://localhost.example.com/token",
            "ftp://127.0.0.1/token",
            "javascript:alert(1)",
            "/token",
        ] {
            assert!(!is_secure(url), "{url}");
        }
    }

    #[test]
    fn a_cleartext_authorization_server_or_endpoint_is_refused_by_name() {
        assert!(
            require_secure(&metadata(
                "http://127.0.0.1:4000",
                "http://127.0.0.1:4000/token"
            ))
            .is_ok()
        );
        assert!(
            require_secure(&metadata("https://as.example", "https://as.example/token")).is_ok()
        );
        let token = require_secure(&metadata(
            "http://127.0.0.1:47306",
            "http://192.0.2.2:47556/token",
        ))
        .unwrap_err();
        assert_eq!(
            token.to_string(),
            "refusing the token endpoint http://192.0.2.2:47556/token: it is not https:// (OAuth 2.1 §1.5, RFC 8414 §2), and only an authorization server on loopback (127.0.0.0/8, ::1, localhost) may use http://; no credential was sent"
        );
        let issuer = require_secure(&metadata(
            "http://192.0.2.2:47307",
            "http://127.0.0.1:47307/token",
        ))
        .unwrap_err();
        assert_eq!(
            issuer.to_string(),
            "refusing the authorization server http://192.0.2.2:47307: it is not https:// (OAuth 2.1 §1.5, RFC 8414 §2), and only an authorization server on loopback (127.0.0.0/8, ::1, localhost) may use http://; no credential was sent"
        );
    }
}
