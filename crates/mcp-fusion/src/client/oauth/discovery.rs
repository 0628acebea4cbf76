//! rmcp's discovery errors in the words of what happened: an authorization
//! server not contacted because of its address, a protected resource
//! metadata that names no authorization server (MCP "Authorization Server
//! Location", RFC 9728 §2).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use rmcp::transport::auth::AuthError;

use super::options::AuthorizationError;

/// The [`AuthorizationError`] of rmcp's discovery `error` for the server at
/// `server_url`:
///
/// - no authorization server named could be used →
///   [`AuthorizationError::NoUsableAuthorizationServer`], each with why
///   (not contacted because of its address, or no usable metadata);
/// - an issuer mismatch for the server's own URL (rmcp's last resort when
///   no protected resource metadata names an authorization server) →
///   [`AuthorizationError::NoAuthorizationServer`];
/// - anything else → [`AuthorizationError::Discovery`].
pub(crate) fn failure(error: AuthError, server_url: &url::Url) -> AuthorizationError {
    match error {
        AuthError::AuthorizationServersUnavailable {
            resource_metadata_url,
            authorization_servers,
        } => AuthorizationError::NoUsableAuthorizationServer {
            resource_metadata: resource_metadata_url.to_string(),
            refused: authorization_servers
                .into_iter()
                .map(|server| {
                    let why = not_contacted(&server, server_url).unwrap_or_else(|| {
                        String::from("no usable RFC 8414 or OpenID Connect metadata there")
                    });
                    (server, why)
                })
                .collect(),
        },
        AuthError::AuthorizationServerMismatch {
            expected_issuer,
            received_issuer,
        } if same_url(&expected_issuer, server_url) => {
            AuthorizationError::NoAuthorizationServer { received_issuer }
        }
        other => AuthorizationError::Discovery(other),
    }
}

/// Whether `text` is `url` (trailing slashes aside).
fn same_url(text: &str, url: &url::Url) -> bool {
    text.trim_end_matches('/') == url.as_str().trim_end_matches('/')
}

/// Why rmcp's discovery does not contact `server` (an authorization server
/// URL) for the server at `server_url`, when its host is an address it
/// refuses: a private, link-local or reserved one always, a loopback one
/// unless the server is on loopback too. `None` for a host it contacts.
fn not_contacted(server: &str, server_url: &url::Url) -> Option<String> {
    let url = url::Url::parse(server).ok()?;
    let ip = match url.host()? {
        url::Host::Ipv4(ip) => IpAddr::V4(ip),
        url::Host::Ipv6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(ip),
        },
        url::Host::Domain(_) => return None,
    };
    let server_on_loopback = match server_url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    let kind = match ip {
        IpAddr::V4(ip) if ip.is_loopback() => (!server_on_loopback).then_some("a loopback")?,
        IpAddr::V6(ip) if ip.is_loopback() => (!server_on_loopback).then_some("a loopback")?,
        IpAddr::V4(ip) if is_private_v4(ip) => "a private",
        IpAddr::V6(ip) if (ip.segments()[0] & 0xfe00) == 0xfc00 => "a private",
        IpAddr::V4(ip) if ip.is_link_local() => "a link-local",
        IpAddr::V6(ip) if (ip.segments()[0] & 0xffc0) == 0xfe80 => "a link-local",
        IpAddr::V4(ip) if is_reserved_v4(ip) => "a reserved",
        IpAddr::V6(ip) if is_reserved_v6(ip) => "a reserved",
        _ => return None,
    };
    Some(format!(
        "not contacted: {ip} is {kind} address, which the client does not contact for a server at {}",
        server_url.host_str().unwrap_or("its address")
    ))
}

/// RFC 1918 and the shared address space of RFC 6598 (`100.64.0.0/10`).
fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private() || (a == 100 && (64..=127).contains(&b))
}

/// Unspecified, broadcast, multicast, `0.0.0.0/8`, `198.18.0.0/15`.
fn is_reserved_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || a == 0
        || (a == 198 && matches!(b, 18 | 19))
}

/// Unspecified, multicast.
fn is_reserved_v6(ip: Ipv6Addr) -> bool {
    ip.is_unspecified() || ip.is_multicast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_authorization_server_at_a_refused_address_says_it_was_not_contacted() {
        let server = url::Url::parse("http://127.0.0.1:47302/mcp").unwrap();
        let error = failure(
            AuthError::AuthorizationServersUnavailable {
                resource_metadata_url: url::Url::parse(
                    "http://127.0.0.1:47302/.well-known/oauth-protected-resource/mcp",
                )
                .unwrap(),
                authorization_servers: vec![
                    String::from("http://10.255.255.1:80"),
                    String::from("http://169.254.169.254"),
                    String::from("http://127.0.0.1:4000"),
                ],
            },
            &server,
        );
        assert_eq!(
            error.to_string(),
            "the protected resource metadata at http://127.0.0.1:47302/.well-known/oauth-protected-resource/mcp names no usable authorization server: http://10.255.255.1:80 (not contacted: 10.255.255.1 is a private address, which the client does not contact for a server at 127.0.0.1), http://169.254.169.254 (not contacted: 169.254.169.254 is a link-local address, which the client does not contact for a server at 127.0.0.1), http://127.0.0.1:4000 (no usable RFC 8414 or OpenID Connect metadata there)"
        );
        let public = url::Url::parse("https://mcp.example.com/mcp").unwrap();
        assert_eq!(
            not_contacted("http://127.0.0.1:4000", &public).as_deref(),
            Some(
                "not contacted: 127.0.0.1 is a loopback address, which the client does not contact for a server at mcp.example.com"
            )
        );
        assert_eq!(not_contacted("https://as.example.com", &public), None);
    }

    #[test]
    fn an_issuer_mismatch_for_the_server_itself_means_no_authorization_server_is_named() {
        let server = url::Url::parse("http://127.0.0.1:47302/mcp").unwrap();
        let error = failure(
            AuthError::AuthorizationServerMismatch {
                expected_issuer: String::from("http://127.0.0.1:47302/mcp"),
                received_issuer: String::from("http://127.0.0.1:47302"),
            },
            &server,
        );
        assert_eq!(
            error.to_string(),
            "the protected resource metadata names no authorization server (its authorization_servers is empty or absent), and the authorization server metadata at the server's origin is for the issuer http://127.0.0.1:47302, not for this server"
        );
        let other = failure(
            AuthError::AuthorizationServerMismatch {
                expected_issuer: String::from("http://127.0.0.1:4000"),
                received_issuer: String::from("https://real-as.example"),
            },
            &server,
        );
        assert_eq!(
            other.to_string(),
            "authorization server discovery failed: Authorization server issuer mismatch: expected http://127.0.0.1:4000, received https://real-as.example"
        );
    }
}
