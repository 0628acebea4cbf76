//! [`limit_key`]: whom a per-caller bound of the HTTP endpoint counts a
//! request against (its open `subscriptions/listen` streams, its
//! sessions): the verified principal, else the address it came from, as
//! the rate limits count a caller.

use std::net::{IpAddr, Ipv6Addr};

use crate::handler::{Peer, Principal};

/// The key a per-caller bound counts the request of `principal` from
/// `peer` under: `subject:` and the principal's subject when the request
/// carried verified credentials (wherever it came from, whatever session
/// it names), else `address:` and where it came from (`address:203.0.113.9`;
/// an IPv6 address counts as its /64 network, `address:2001:db8::/64`, as a
/// host holds a whole one; `address:http` when it is unknown). A session id
/// is never part of the key: a caller could open sessions at will and so
/// never reach its bound.
pub(crate) fn limit_key(principal: Option<&Principal>, peer: Peer) -> String {
    if let Some(principal) = principal {
        return format!("subject:{}", principal.subject);
    }
    match peer {
        Peer::Http(Some(IpAddr::V6(ip))) => {
            let network = u128::from(ip) & !((1u128 << 64) - 1);
            format!("address:{}/64", Ipv6Addr::from(network))
        }
        peer => format!("address:{peer}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_principal_is_counted_by_subject_anyone_else_by_address() {
        let ip = |text: &str| Peer::Http(Some(text.parse().unwrap()));
        let ada = Principal::new("ada", Vec::<String>::new());
        assert_eq!(limit_key(Some(&ada), ip("10.0.0.1")), "subject:ada");
        assert_eq!(limit_key(None, ip("10.0.0.1")), "address:10.0.0.1");
        assert_eq!(
            limit_key(None, ip("2001:db8::1:2:3:4")),
            "address:2001:db8::/64"
        );
        assert_eq!(limit_key(None, Peer::Http(None)), "address:http");
    }
}
