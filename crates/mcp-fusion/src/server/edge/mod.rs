//! What the HTTP edge asks of the server before a request runs: the
//! scopes its capabilities need ([`scopes`]: RFC 9728 metadata, the scope of
//! a 401 and a 403 challenge) and the `Mcp-Param-*` headers its tools
//! declare ([`param_headers`]: the CORS preflight). Functions of a
//! [`FusionServer`](crate::server::FusionServer).

pub(crate) mod param_headers;
pub(crate) mod scopes;
