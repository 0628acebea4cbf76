//! The MCP surface beyond tool calls, read by rmcp's client over an
//! in-process pipe (`connection`) or over Streamable HTTP: capabilities,
//! prompts, resources, completion, SEP-2549 caching hints, what a handler asks of the client (over
//! 2026-07-28: input-required results), list changes, and guards on prompts
//! and templates; CORS of the HTTP router; MCP 2026-07-28's stateless
//! requests over HTTP (`subscriptions/listen`, removed methods, required
//! client capabilities, `Mcp-Param-*` headers); the HTTP router under random
//! requests; and the prompt and resource
//! macros against the builders; the state gate's lists, moves and refusals;
//! skills (SEP-2640) from a directory.

#[cfg(feature = "client")]
mod connection;
#[cfg(feature = "client")]
use fusion_test_support::library as support;

#[cfg(feature = "client")]
mod apps;
#[cfg(all(feature = "client", feature = "http"))]
mod cache_hints;
#[cfg(feature = "client")]
mod cancellation;
#[cfg(feature = "client")]
mod capabilities;
#[cfg(feature = "client")]
mod changes;
#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod completion;
#[cfg(feature = "http")]
mod cors;
#[cfg(feature = "http")]
mod edge_properties;
#[cfg(all(feature = "client", feature = "http"))]
mod http;
#[cfg(all(feature = "client", feature = "http"))]
mod http_guards;
#[cfg(all(feature = "client", feature = "http"))]
mod input_required;
#[cfg(all(feature = "client", feature = "http"))]
mod keep_alive;
#[cfg(all(feature = "client", feature = "http"))]
mod key_rotation;
#[cfg(all(feature = "client", feature = "http"))]
mod list_bursts;
#[cfg(all(feature = "client", feature = "http"))]
mod listen_callers;
mod macros;
#[cfg(feature = "client")]
mod meta;
#[cfg(all(feature = "client", feature = "http"))]
mod mounts;
#[cfg(all(feature = "client", feature = "http"))]
mod pages;
#[cfg(feature = "client")]
mod presenters;
#[cfg(feature = "client")]
mod prompts;
#[cfg(feature = "client")]
mod resources;
#[cfg(feature = "client")]
mod results;
#[cfg(all(feature = "client", feature = "http"))]
mod session_callers;
#[cfg(all(feature = "client", feature = "http"))]
mod skills;
#[cfg(feature = "client")]
mod state_gate;
#[cfg(all(feature = "client", feature = "http"))]
mod stateless;
#[cfg(feature = "client")]
mod tool_changes;
#[cfg(all(feature = "client", feature = "http"))]
mod tool_search;
