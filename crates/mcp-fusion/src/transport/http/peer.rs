//! Where an HTTP request came from: the TCP peer, or the last
//! `X-Forwarded-For` address when the proxy in front is trusted.

use std::net::{IpAddr, SocketAddr};

/// An address as `X-Forwarded-For` may write it: `203.0.113.9`,
/// `203.0.113.9:5000`, `2001:db8::1` or `[2001:db8::1]:5000`.
fn forwarded_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    text.parse::<IpAddr>()
        .or_else(|_| text.parse::<SocketAddr>().map(|a| a.ip()))
        .or_else(|_| {
            text.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
        })
        .ok()
}

/// Where an HTTP call came from: the TCP peer, or with `trust_forwarded_for`
/// the last `X-Forwarded-For` address (the one the proxy in front appended).
/// An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is read as IPv4.
pub(crate) fn peer_address(
    headers: &axum::http::HeaderMap,
    extensions: &axum::http::Extensions,
    trust_forwarded_for: bool,
) -> Option<IpAddr> {
    let forwarded = trust_forwarded_for
        .then(|| {
            headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .rfind(|v| !v.trim().is_empty())
                .and_then(forwarded_address)
        })
        .flatten();
    forwarded
        .or_else(|| {
            extensions
                .get::<axum::extract::ConnectInfo<SocketAddr>>()
                .map(|info| info.0.ip())
        })
        .map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::request::Parts;

    fn parts(forwarded: &[&str], peer: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder().uri("/mcp");
        for value in forwarded {
            request = request.header("x-forwarded-for", *value);
        }
        let (mut parts, ()) = request.body(()).expect("a request").into_parts();
        if let Some(peer) = peer {
            parts.extensions.insert(axum::extract::ConnectInfo(
                peer.parse::<SocketAddr>().expect("an address"),
            ));
        }
        parts
    }

    #[test]
    fn the_tcp_peer_unless_forwarded_for_is_trusted() {
        let p = parts(&["203.0.113.9, 198.51.100.7"], Some("10.0.0.2:5000"));
        assert_eq!(
            peer_address(&p.headers, &p.extensions, false),
            Some("10.0.0.2".parse().expect("ip"))
        );
        assert_eq!(
            peer_address(&p.headers, &p.extensions, true),
            Some("198.51.100.7".parse().expect("ip"))
        );
        let p = parts(&["203.0.113.9", "2001:db8::1"], Some("10.0.0.2:5000"));
        assert_eq!(
            peer_address(&p.headers, &p.extensions, true),
            Some("2001:db8::1".parse().expect("ip"))
        );
        let p = parts(&["not an address"], Some("10.0.0.2:5000"));
        assert_eq!(
            peer_address(&p.headers, &p.extensions, true),
            Some("10.0.0.2".parse().expect("ip"))
        );
        assert_eq!(
            peer_address(
                &parts(&[], None).headers,
                &parts(&[], None).extensions,
                true
            ),
            None
        );
    }
}
