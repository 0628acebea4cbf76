//! The client a [`FusionClient`](crate::client::FusionClient) registered
//! dynamically (RFC 7591), kept for the life of the client so that a later
//! authorization (step-up, a new token) reuses it instead of registering
//! again (MCP "Client Registration": credentials are kept per authorization
//! server, SEP-2352).

use secrecy::SecretString;

/// One registration with one authorization server.
pub(crate) struct Registered {
    /// The authorization server's issuer, as its metadata named it.
    pub(crate) issuer: Option<String>,
    /// The `client_id` the authorization server assigned.
    pub(crate) client_id: String,
    /// The `client_secret` it assigned, if any (RFC 7591 §3.2.1).
    pub(crate) client_secret: Option<SecretString>,
    /// The `scope` registered (RFC 7591 §2); empty when none was sent.
    pub(crate) scopes: Vec<String>,
    /// The port of the loopback redirect URI registered.
    pub(crate) redirect_port: u16,
}

impl Registered {
    /// Whether this registration, made with the authorization server
    /// `issuer`, may ask for `scopes`: the same issuer, and a registered
    /// `scope` that lists each of them (or none registered: the
    /// authorization server's default applies). Scopes compare as written
    /// (RFC 6749 §3.3).
    pub(crate) fn covers(&self, issuer: Option<&str>, scopes: &[String]) -> bool {
        self.issuer.as_deref() == issuer
            && (self.scopes.is_empty() || scopes.iter().all(|scope| self.scopes.contains(scope)))
    }
}

/// Where the registration is kept: one per client, set by the first
/// dynamic registration and replaced only by another one.
pub(crate) type Registration = std::sync::Mutex<Option<Registered>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn registered(issuer: &str, scopes: &[&str]) -> Registered {
        Registered {
            issuer: Some(issuer.to_owned()),
            client_id: String::from("c1"),
            client_secret: None,
            scopes: strings(scopes),
            redirect_port: 5,
        }
    }

    #[test]
    fn a_registration_covers_the_scopes_it_lists_with_its_issuer_only() {
        let both = registered("http://as", &["billing:read", "billing:write"]);
        assert!(both.covers(Some("http://as"), &strings(&["billing:write"])));
        assert!(both.covers(Some("http://as"), &[]));
        assert!(!both.covers(Some("http://as"), &strings(&["billing:admin"])));
        assert!(!both.covers(Some("http://other"), &strings(&["billing:read"])));
        assert!(!both.covers(None, &strings(&["billing:read"])));
        // Case-sensitive.
        assert!(!both.covers(Some("http://as"), &strings(&["Billing:Read"])));
        // None registered: whatever the authorization server allows.
        assert!(registered("http://as", &[]).covers(Some("http://as"), &strings(&["x"])));
    }
}
