//! The client side (wire contract §8): [`FusionClient`], a client for any MCP
//! server (ours or foreign) that turns failed tool calls back into typed errors.
//!
//! ```no_run
//! use mcp_fusion::client::{ClientOptions, FusionClient, FusionClientError, Target};
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), FusionClientError> {
//! let target = Target::stdio("fusion", ["serve", "--stdio"]);
//! let client = FusionClient::connect(&target, ClientOptions::default()).await?;
//! match client.call_checked("billing.get_invoice", json!({"id": "inv_1"})).await {
//!     Ok(success) => println!("{}", success.text()),
//!     Err(FusionClientError::Tool(failure)) => {
//!         println!("{}: {}", failure.code, failure.message);
//!         if let Some(recovery) = &failure.recovery {
//!             println!("next: {recovery}");
//!         }
//!     }
//!     Err(other) => return Err(other),
//! }
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! What a call returns:
//!
//! - [`FusionClient::call`] gives the raw
//!   [`model::CallToolResult`](crate::model::CallToolResult), whatever its
//!   `isError`; only JSON-RPC, transport and time-out failures are `Err`.
//! - [`FusionClient::call_checked`] gives a [`Success`] (with any warnings the
//!   server attached, §3) or a [`FusionClientError`]: an `isError` result
//!   becomes [`FusionClientError::Tool`] with the failure read from
//!   `_meta["mcp-fusion/error"]`, else from the `<tool_error>` /
//!   `<validation_error>` envelope in the text, else as code `UNKNOWN` with
//!   the whole text ([`check_result`] does this on a result you already have).
//! - [`FusionClient::call_many`] runs a batch of [`ToolCall`]s and returns
//!   every outcome.
//!
//! Over Streamable HTTP, [`ClientOptions::oauth`] answers a server's `401`
//! with MCP authorization: discovery, then a token by the authorization code
//! grant with PKCE (a loopback redirect), by client credentials (a secret, or
//! a `private_key_jwt` assertion signed with a [`ClientAssertionKey`]), or by
//! enterprise-managed authorization (an [`EnterpriseIdentity`]'s ID token
//! exchanged for an ID-JAG) ([`OAuthOptions`]); a failure is
//! [`FusionClientError::Authorization`].
//!
//! The client speaks MCP 2025-11-25 (the `initialize` handshake) unless
//! [`ClientOptions::protocol`] names another [`ProtocolRevision`]: on
//! 2026-07-28 it starts with `server/discover` and sends self-contained
//! requests (per-request `_meta`; over Streamable HTTP the
//! `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
//! headers), and answers input-required results itself. What a server may
//! ask of the client (elicitation, sampling, roots) is answered by the
//! handlers of [`ClientOptions::elicitation`], [`ClientOptions::sampling`]
//! and [`ClientOptions::roots`], on either revision.
//!
//! Beyond tools, the client reads the rest of a server's surface:
//! [`FusionClient::list_resources`], [`FusionClient::list_resource_templates`],
//! [`FusionClient::read_resource`], [`FusionClient::list_prompts`],
//! [`FusionClient::get_prompt`], [`FusionClient::complete`] and the skills
//! extension's [`FusionClient::list_skills`], [`FusionClient::get_skill`]
//! and [`FusionClient::read_resource_directory`] (rmcp's model types in and
//! out, every page of a list).
//!
//! Dotted names route to grouped tools ([`FusionClient::route`]),
//! [`FusionClient::tool_listings`] (or
//! [`ToolListing::of`](crate::capability::ToolListing::of) on a listed
//! [`model::Tool`](crate::model::Tool)) tells each tool's actions and
//! required fields, and an opt-in [`RetryPolicy`] retries `RATE_LIMITED`,
//! `SERVER_BUSY` and `HANDOFF_CONNECTING` after their `retry_after`.

mod answer;
mod batch;
mod cause;
mod client_side;
mod connect;
mod error;
mod features;
mod fusion_client;
mod oauth;
mod options;
mod outcome;
mod pages;
mod param_headers;
#[cfg(feature = "redis")]
mod redis_cache;
mod response_cache;
mod retry;
mod revision;
mod route;
mod sent;
mod skills;
mod stderr;
mod surface;
mod target;

pub use batch::{BatchMode, ToolCall};
pub use cause::ConnectCause;
pub use client_side::NOTIFICATION_BUFFER;
pub use error::{FailureSource, FusionClientError, ToolFailure};
pub use features::{ElicitationHandler, Roots, SamplingHandler};
pub use fusion_client::FusionClient;
pub use oauth::{
    AuthorizationError, AuthorizationUrlHook, ClientAssertionAlgorithm, ClientAssertionKey,
    EnterpriseIdentity, OAuthGrant, OAuthOptions, UnknownAlgorithm, UnsupportedKey,
};
pub use options::{ClientOptions, ServerStderr, ToolsChangedHook};
pub use outcome::{Success, check_result};
pub use pages::MAX_LIST_PAGES;
pub use response_cache::{MAX_CACHE_TTL, ResponseCache};
pub use retry::RetryPolicy;
pub use revision::{ProtocolRevision, UnknownRevision};
pub use route::Route;
pub use target::Target;
