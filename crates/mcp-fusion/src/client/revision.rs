//! [`ProtocolRevision`]: which MCP revision a [`FusionClient`](super::FusionClient)
//! speaks, and so which lifecycle it starts with.

use std::fmt;
use std::str::FromStr;

use rmcp::model::ProtocolVersion;
use rmcp::service::ClientLifecycleMode;

/// The MCP revision a client speaks ([`ClientOptions::protocol`](super::ClientOptions::protocol)).
///
/// The default is [`ProtocolRevision::V2025_11_25`]: every MCP server in use
/// answers its `initialize` handshake, a server of 2026-07-28 included (the
/// 2026-07-28 revision keeps serving older clients, "Backward
/// Compatibility"), whereas a client that only speaks 2026-07-28 cannot talk
/// to a server of 2025-11-25 or earlier, and probing first
/// ([`Negotiate`](Self::Negotiate)) costs a `server/discover` round trip on
/// every connection to an older server.
///
/// Text form (`FromStr` / `Display`, e.g. `fusion call --protocol-version`):
/// `2025-11-25`, `2026-07-28`, `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ProtocolRevision {
    /// MCP 2025-11-25: the `initialize` / `notifications/initialized`
    /// handshake (basic/lifecycle), then a session (`Mcp-Session-Id` over
    /// Streamable HTTP); the server asks the client for elicitation, sampling
    /// and roots with requests of its own.
    #[default]
    V2025_11_25,
    /// MCP 2026-07-28: no handshake; `server/discover` first (a server
    /// answering `-32022` with the versions it supports is asked again with
    /// one of them), then every request self-contained: `_meta`
    /// `io.modelcontextprotocol/protocolVersion`, `clientCapabilities` and
    /// `clientInfo` (basic/index "`_meta`"), and over Streamable HTTP the
    /// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
    /// headers (basic/transports/streamable-http). The server asks the
    /// client through input-required results, answered by the client's
    /// handlers and retried with `inputResponses` and the `requestState`
    /// as received (basic/patterns/mrtr). A server without 2026-07-28 fails
    /// the connection.
    V2026_07_28,
    /// `server/discover` at 2026-07-28 first; when the server answers it
    /// with a JSON-RPC error of an older revision (e.g. `-32601`), or not
    /// within 10 s, the 2025-11-25 handshake on the same connection.
    Negotiate,
}

impl ProtocolRevision {
    /// The lifecycle rmcp runs for this revision.
    pub(crate) fn lifecycle(self) -> ClientLifecycleMode {
        // Newest first: what a 2026-07-28 server's -32022 may be answered with.
        let modern = vec![ProtocolVersion::V_2026_07_28];
        match self {
            ProtocolRevision::V2025_11_25 => ClientLifecycleMode::Initialize,
            ProtocolRevision::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: modern,
            },
            ProtocolRevision::Negotiate => ClientLifecycleMode::Auto {
                preferred_versions: modern,
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        }
    }
}

impl ProtocolRevision {
    /// The version an `initialize` request asks for: 2025-11-25 (also when
    /// [`Negotiate`](Self::Negotiate) falls back to the handshake); the
    /// discovering revisions send none.
    pub(crate) fn handshake_version(self) -> ProtocolVersion {
        match self {
            ProtocolRevision::V2026_07_28 => ProtocolVersion::V_2026_07_28,
            _ => ProtocolVersion::V_2025_11_25,
        }
    }
}

impl fmt::Display for ProtocolRevision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProtocolRevision::V2025_11_25 => "2025-11-25",
            ProtocolRevision::V2026_07_28 => "2026-07-28",
            ProtocolRevision::Negotiate => "auto",
        })
    }
}

/// A text that names no [`ProtocolRevision`]; its `Display` lists the ones
/// there are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown MCP protocol revision `{0}` (expected 2025-11-25, 2026-07-28 or auto)")]
pub struct UnknownRevision(pub String);

impl FromStr for ProtocolRevision {
    type Err = UnknownRevision;

    /// `2025-11-25`, `2026-07-28` or `auto`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "2025-11-25" => Ok(ProtocolRevision::V2025_11_25),
            "2026-07-28" => Ok(ProtocolRevision::V2026_07_28),
            "auto" => Ok(ProtocolRevision::Negotiate),
            other => Err(UnknownRevision(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        for revision in [
            ProtocolRevision::V2025_11_25,
            ProtocolRevision::V2026_07_28,
            ProtocolRevision::Negotiate,
        ] {
            assert_eq!(revision.to_string().parse(), Ok(revision));
        }
        assert_eq!(
            "2025-06-18"
                .parse::<ProtocolRevision>()
                .unwrap_err()
                .to_string(),
            "unknown MCP protocol revision `2025-06-18` (expected 2025-11-25, 2026-07-28 or auto)"
        );
    }
}
