//! [`ProtectedResource`]: what an OAuth resource server says about itself
//! (RFC 9728), shared by the verifier that knows it and the HTTP edge that
//! serves it.

/// A protected resource, as RFC 9728 §2 describes it: its identifier and the
/// authorization servers that issue tokens for it. A
/// [`TokenVerifier`](super::TokenVerifier) that checks tokens of an OAuth
/// authorization server returns it from
/// [`protected_resource`](super::TokenVerifier::protected_resource).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtectedResource {
    /// The resource identifier (RFC 9728 `resource`, RFC 8707 §2): the
    /// canonical URI of the MCP endpoint, e.g. `https://mcp.example.com/mcp`
    /// (absolute, no fragment, lowercase scheme and host, no trailing slash
    /// unless the path is significant).
    pub resource: String,
    /// The issuer identifiers of the authorization servers whose tokens the
    /// resource takes (RFC 9728 `authorization_servers`; MCP authorization
    /// requires at least one).
    pub authorization_servers: Vec<String>,
    /// The scopes a `401` challenge that names no operation asks for (its
    /// `scope`, RFC 6750 §3; MCP authorization, "Scope Selection
    /// Strategy"): a request without credentials to `initialize`, a list,
    /// a `GET`. `None` (the default): the scopes the server's read-only
    /// capabilities need, else every scope. A `401` to a call of a scoped
    /// capability names that capability's scopes whatever this says.
    pub challenge_scopes: Option<Vec<String>>,
}

impl ProtectedResource {
    /// The resource `resource` with the one authorization server `issuer`.
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        ProtectedResource {
            resource: resource.into(),
            authorization_servers: vec![issuer.into()],
            challenge_scopes: None,
        }
    }

    /// The same resource, whose `401` challenges that name no operation ask
    /// for `scopes` (see [`challenge_scopes`](Self::challenge_scopes)).
    pub fn with_challenge_scopes(
        mut self,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.challenge_scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }
}
