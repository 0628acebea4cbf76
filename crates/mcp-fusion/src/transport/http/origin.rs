//! Which `Host` and `Origin` a request may carry (MCP Streamable HTTP,
//! "Security Warning": validate `Origin` against DNS rebinding). Checked
//! before any JSON-RPC is read, so a refused request creates no session.

use std::net::IpAddr;

use axum::http::{HeaderMap, Uri, header, uri::Authority};

/// Why a request is refused at the door, with the HTTP status it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// More than one `Host` header (400).
    DuplicateHost,
    /// A `Host` that is not a valid authority, or none at all (400).
    BadHost,
    /// A host the server does not answer to (403).
    HostNotAllowed(String),
    /// A browser origin that is not allowed (403).
    OriginNotAllowed(String),
    /// More than one `Origin` header, which no browser sends (403).
    DuplicateOrigin,
}

impl Refusal {
    /// The HTTP status and the plain-text body of the refusal.
    pub fn status_and_text(&self) -> (u16, String) {
        match self {
            Refusal::DuplicateHost => (400, String::from("Bad Request: more than one Host header")),
            Refusal::DuplicateOrigin => {
                (403, String::from("Forbidden: more than one Origin header"))
            }
            Refusal::BadHost => (
                400,
                String::from("Bad Request: missing or invalid Host header"),
            ),
            Refusal::HostNotAllowed(host) => (
                403,
                format!(
                    "Forbidden: this server does not answer to the host \"{host}\" (DNS rebinding \
                     protection). To serve it, allow it: fusion serve --allowed-host {}, or \
                     HttpOptions::allowed_hosts.",
                    host_only(host)
                ),
            ),
            Refusal::OriginNotAllowed(origin) => (
                403,
                format!(
                    "Forbidden: requests from the browser origin \"{origin}\" are not allowed \
                     (DNS rebinding protection). To allow it: fusion serve --allowed-origin \
                     {origin}, or HttpOptions::allowed_origins."
                ),
            ),
        }
    }
}

/// `host:port` without the port (IPv6 brackets kept).
fn host_only(authority: &str) -> &str {
    match authority.parse::<Authority>() {
        Ok(parsed) if parsed.port().is_some() => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
        _ => authority,
    }
}

/// A host and an optional port, normalised (lower case, no IPv6 brackets).
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPort {
    host: String,
    port: Option<u16>,
}

impl HostPort {
    /// `authority` as a host and port, or `None` when it is not a plain
    /// `host[:port]`: user information (`evil@localhost`), a port that is not
    /// a number from 0 to 65 535, or an empty host. An IPv6 host is written in
    /// its canonical form, so that `[0:0:0:0:0:0:0:1]` and `[::1]` are one.
    fn parse(authority: &Authority) -> Option<Self> {
        let text = authority.as_str();
        if text.contains('@') {
            return None;
        }
        let host = authority.host();
        if host.is_empty() || host.contains('*') {
            return None;
        }
        let has_port = text.len() > host.len() && text[host.len()..].starts_with(':');
        if has_port && authority.port_u16().is_none() {
            return None;
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let host = match bare.parse::<IpAddr>() {
            Ok(ip) => ip.to_canonical().to_string(),
            Err(_) => bare.to_ascii_lowercase(),
        };
        Some(HostPort {
            host,
            port: authority.port_u16(),
        })
    }

    fn is_loopback(&self) -> bool {
        self.host == "localhost" || self.host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }
}

/// An allowed origin entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        /// `None`: any port (`:*`).
        port: Option<u16>,
    },
}

/// The port a scheme implies when an origin omits it (RFC 6454 §4).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// An origin as a browser sends it: `null`, or exactly `scheme://host[:port]`
/// (no user information, path, query or fragment), with the scheme's default
/// port filled in.
fn parse_origin(value: &str) -> Option<AllowedOrigin> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("null") {
        return Some(AllowedOrigin::Null);
    }
    let uri: Uri = value.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let path_is_empty = matches!(uri.path(), "" | "/") && !value.ends_with('/');
    if !path_is_empty || uri.query().is_some() {
        return None;
    }
    let authority = HostPort::parse(uri.authority()?)?;
    let port = authority.port.or_else(|| default_port(&scheme))?;
    Some(AllowedOrigin::Tuple {
        scheme,
        host: authority.host,
        port: Some(port),
    })
}

/// An allow-list entry: an origin, or one ending in `:*` for any port.
fn parse_allowed(value: &str) -> Option<AllowedOrigin> {
    match value.trim().strip_suffix(":*") {
        Some(base) => match parse_origin(base)? {
            AllowedOrigin::Tuple { scheme, host, .. } => Some(AllowedOrigin::Tuple {
                scheme,
                host,
                port: None,
            }),
            AllowedOrigin::Null => None,
        },
        None => parse_origin(value),
    }
}

/// The `Host` and `Origin` rules of one server.
#[derive(Debug, Clone)]
pub(crate) struct DoorPolicy {
    hosts: Vec<HostPort>,
    origins: Vec<AllowedOrigin>,
}

/// An allow-list entry that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// An `allowed_hosts` entry that is not `host` or `host:port` (a port
    /// from 0 to 65 535; no wildcard: list each name).
    #[error("allowed host \"{0}\" is not a host name or host:port (no wildcards: list each name)")]
    Host(String),
    /// An `allowed_origins` entry that is not `scheme://host[:port|:*]` or
    /// `null` (no path, no wildcard host).
    #[error(
        "allowed origin \"{0}\" is not scheme://host[:port] (or :* for any port, or null; no wildcard hosts)"
    )]
    Origin(String),
}

impl DoorPolicy {
    /// The policy of `allowed_hosts` and `allowed_origins` (see
    /// [`crate::transport::HttpOptions`]).
    pub fn new(allowed_hosts: &[String], allowed_origins: &[String]) -> Result<Self, PolicyError> {
        let hosts = allowed_hosts
            .iter()
            .map(|raw| {
                let trimmed = raw.trim();
                // A bare IPv6 address (`::1`) is not an authority until bracketed.
                let bracketed = if trimmed.parse::<std::net::Ipv6Addr>().is_ok() {
                    format!("[{trimmed}]")
                } else {
                    trimmed.to_owned()
                };
                bracketed
                    .parse::<Authority>()
                    .ok()
                    .and_then(|a| HostPort::parse(&a))
                    .ok_or_else(|| PolicyError::Host(raw.clone()))
            })
            .collect::<Result<_, _>>()?;
        let origins = allowed_origins
            .iter()
            .map(|raw| parse_allowed(raw).ok_or_else(|| PolicyError::Origin(raw.clone())))
            .collect::<Result<_, _>>()?;
        Ok(DoorPolicy { hosts, origins })
    }

    fn host_allowed(&self, host: &HostPort) -> bool {
        // An empty list allows every host (rmcp's rule too).
        self.hosts.is_empty()
            || self.hosts.iter().any(|allowed| {
                allowed.host == host.host && allowed.port.is_none_or(|p| host.port == Some(p))
            })
    }

    /// Checks a request's `Host` (and absolute target) and `Origin`.
    pub fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let host_port = self.allowed_host(uri, headers)?;
        self.check_origin(headers, &host_port)
    }

    /// Checks a request's `Host` (and absolute target) only (`/metrics`, the
    /// protected resource metadata).
    pub fn check_host(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        self.allowed_host(uri, headers).map(|_| ())
    }

    /// The host a request is for, when it is allowed.
    fn allowed_host(&self, uri: &Uri, headers: &HeaderMap) -> Result<HostPort, Refusal> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let host_header = hosts.next();
        if hosts.next().is_some() {
            return Err(Refusal::DuplicateHost);
        }
        let host = match host_header {
            Some(value) => value
                .to_str()
                .ok()
                .and_then(|s| s.parse::<Authority>().ok())
                .ok_or(Refusal::BadHost)?,
            None => uri.authority().cloned().ok_or(Refusal::BadHost)?,
        };
        let host_port = HostPort::parse(&host).ok_or(Refusal::BadHost)?;
        if !self.host_allowed(&host_port) {
            return Err(Refusal::HostNotAllowed(host.to_string()));
        }
        // An absolute request target names the host the request is for.
        if let Some(target) = uri.authority()
            && !HostPort::parse(target).is_some_and(|t| self.host_allowed(&t))
        {
            return Err(Refusal::HostNotAllowed(target.to_string()));
        }
        Ok(host_port)
    }

    /// Checks a request's `Origin` against the host it is for.
    fn check_origin(&self, headers: &HeaderMap, host_port: &HostPort) -> Result<(), Refusal> {
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let Some(origin) = origins.next() else {
            return Ok(());
        };
        if origins.next().is_some() {
            return Err(Refusal::DuplicateOrigin);
        }
        let text = String::from_utf8_lossy(origin.as_bytes()).into_owned();
        let Some(parsed) = parse_origin(&text) else {
            return Err(Refusal::OriginNotAllowed(text));
        };
        if self.origin_allowed(&parsed, host_port) {
            Ok(())
        } else {
            Err(Refusal::OriginNotAllowed(text.trim().to_owned()))
        }
    }

    fn origin_allowed(&self, origin: &AllowedOrigin, host: &HostPort) -> bool {
        let listed = self.origins.iter().any(|allowed| match (allowed, origin) {
            (AllowedOrigin::Null, AllowedOrigin::Null) => true,
            (
                AllowedOrigin::Tuple {
                    scheme: a_scheme,
                    host: a_host,
                    port: a_port,
                },
                AllowedOrigin::Tuple { scheme, host, port },
            ) => a_scheme == scheme && a_host == host && a_port.is_none_or(|p| *port == Some(p)),
            _ => false,
        });
        if listed {
            return true;
        }
        // Same origin on loopback: a page served by this very address (over
        // plain HTTP, which is all this server speaks).
        match origin {
            AllowedOrigin::Tuple {
                scheme,
                host: o_host,
                port,
            } => {
                scheme == "http"
                    && host.is_loopback()
                    && *o_host == host.host
                    && *port == host.port.or_else(|| default_port(scheme))
            }
            AllowedOrigin::Null => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn policy(origins: &[&str]) -> DoorPolicy {
        let hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
        let origins: Vec<String> = origins.iter().map(|s| (*s).to_owned()).collect();
        DoorPolicy::new(&hosts, &origins).expect("a valid policy")
    }

    fn check(policy: &DoorPolicy, host: &[&str], origin: Option<&str>) -> Result<(), Refusal> {
        let mut headers = HeaderMap::new();
        for h in host {
            headers.append(header::HOST, HeaderValue::from_str(h).expect("a header"));
        }
        if let Some(origin) = origin {
            headers.insert(
                header::ORIGIN,
                HeaderValue::from_str(origin).expect("a header"),
            );
        }
        policy.check(&Uri::from_static("/mcp"), &headers)
    }

    #[test]
    fn absent_and_same_origin_loopback_are_served() {
        let p = policy(&[]);
        assert_eq!(check(&p, &["127.0.0.1:8080"], None), Ok(()));
        assert_eq!(
            check(&p, &["127.0.0.1:8080"], Some("http://127.0.0.1:8080")),
            Ok(())
        );
        assert_eq!(
            check(&p, &["[::1]:8080"], Some("http://[::1]:8080")),
            Ok(())
        );
        assert_eq!(check(&p, &["localhost"], Some("http://localhost")), Ok(()));
    }

    #[test]
    fn other_origins_are_refused_unless_listed() {
        let p = policy(&[]);
        for origin in [
            "http://attacker.example",
            "null",
            "http://127.0.0.1:9999",
            "http://localhost:8080",
            "garbage",
        ] {
            assert_eq!(
                check(&p, &["127.0.0.1:8080"], Some(origin)),
                Err(Refusal::OriginNotAllowed(origin.to_owned())),
                "{origin}"
            );
        }
        let p = policy(&["null", "https://app.example", "http://localhost:*"]);
        assert_eq!(check(&p, &["127.0.0.1:8080"], Some("null")), Ok(()));
        assert_eq!(
            check(&p, &["127.0.0.1:8080"], Some("https://app.example")),
            Ok(())
        );
        assert_eq!(
            check(&p, &["127.0.0.1:8080"], Some("https://app.example:443")),
            Ok(())
        );
        assert!(check(&p, &["127.0.0.1:8080"], Some("https://app.example:8443")).is_err());
        assert_eq!(
            check(&p, &["127.0.0.1:8080"], Some("http://localhost:5173")),
            Ok(())
        );
    }

    #[test]
    fn a_second_origin_header_is_refused_as_such() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        for _ in 0..2 {
            headers.append(
                header::ORIGIN,
                HeaderValue::from_static("http://127.0.0.1:8080"),
            );
        }
        let refusal = policy(&[]).check(&Uri::from_static("/mcp"), &headers);
        assert_eq!(refusal, Err(Refusal::DuplicateOrigin));
        assert_eq!(
            Refusal::DuplicateOrigin.status_and_text(),
            (403, "Forbidden: more than one Origin header".into())
        );
    }

    #[test]
    fn hosts_are_checked_and_a_second_host_header_is_refused() {
        let p = policy(&[]);
        assert_eq!(
            check(&p, &["127.0.0.1:8080", "127.0.0.1:8080"], None),
            Err(Refusal::DuplicateHost)
        );
        assert_eq!(
            check(&p, &["192.168.1.5:8080"], None),
            Err(Refusal::HostNotAllowed("192.168.1.5:8080".into()))
        );
        let (status, text) = Refusal::HostNotAllowed("192.168.1.5:8080".into()).status_and_text();
        assert_eq!(status, 403);
        assert!(text.contains("--allowed-host 192.168.1.5,"), "{text}");
    }

    #[test]
    fn odd_hosts_and_origins_are_refused() {
        let p = policy(&[]);
        for host in ["evil@localhost", "localhost:99999", "localhost:*"] {
            assert_eq!(check(&p, &[host], None), Err(Refusal::BadHost), "{host}");
        }
        assert_eq!(check(&p, &["[0:0:0:0:0:0:0:1]:8080"], None), Ok(()));
        for origin in [
            "https://127.0.0.1:8080",
            "ftp://127.0.0.1:8080",
            "javascript://127.0.0.1:8080",
            "http://user@127.0.0.1:8080",
            "http://127.0.0.1:8080/path",
            "http://127.0.0.1:8080/",
        ] {
            assert!(
                check(&p, &["127.0.0.1:8080"], Some(origin)).is_err(),
                "{origin}"
            );
        }
        for bad in [
            "http://a.example:99999",
            "http://*.example",
            "http://a.example/x",
        ] {
            assert_eq!(
                DoorPolicy::new(&[], &[bad.into()]).unwrap_err(),
                PolicyError::Origin(bad.into())
            );
        }
        for bad in ["*", "example.com:99999", "user@example.com"] {
            assert_eq!(
                DoorPolicy::new(&[bad.into()], &[]).unwrap_err(),
                PolicyError::Host(bad.into())
            );
        }
    }

    #[test]
    fn bad_entries_are_named() {
        assert_eq!(
            DoorPolicy::new(&["a b".into()], &[]).unwrap_err(),
            PolicyError::Host("a b".into())
        );
        assert_eq!(
            DoorPolicy::new(&[], &["example.com".into()]).unwrap_err(),
            PolicyError::Origin("example.com".into())
        );
    }
}
