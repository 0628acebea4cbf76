//! [`InsufficientScope`]: how a request whose token lacks a scope its
//! capability needs is answered over Streamable HTTP.

/// How a caller whose token lacks a scope is answered over Streamable HTTP
/// ([`ServerBuilder::insufficient_scope`](crate::ServerBuilder::insufficient_scope)).
/// Over stdio and in-process calls there is no HTTP status: the answer is
/// always the `FORBIDDEN` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsufficientScope {
    /// HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
    /// scope="<every scope the call lacks>", resource_metadata="…"` (MCP
    /// authorization, "Runtime Insufficient Scope Errors"; RFC 6750 §3.1),
    /// decided before the handler runs, for `tools/call` (an action of a
    /// group found through its discriminator), `prompts/get` and
    /// `resources/read`: an OAuth client steps up (asks for a token with
    /// the scopes) and retries. The default with a verifier that names its
    /// protected resource (`OAuthResourceServer`, feature `oauth`).
    StepUp,
    /// The `FORBIDDEN` result naming the missing scopes (wire contract §5),
    /// for the model to read and tell the user. The default with any other
    /// verifier.
    Envelope,
}
