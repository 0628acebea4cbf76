//! `FusionClient`: how it reads tool results (no network), against foreign
//! servers built with the official TypeScript SDK, and against servers that
//! lose sessions or refuse the handshake, and speaking MCP 2026-07-28
//! (discovery, self-contained requests, input-required rounds), reading
//! resources, prompts and completions, and connected in memory to a server
//! of the same process; its response cache (SEP-2549), in memory and in a
//! Redis shared by two replicas.

#[cfg(feature = "client")]
use fusion_test_support::library as support;

#[cfg(feature = "client")]
mod cache;
#[cfg(feature = "client")]
mod in_memory;
#[cfg(feature = "client")]
mod interop;
#[cfg(feature = "client")]
use fusion_test_support::interop_server;
#[cfg(feature = "client")]
mod results;
#[cfg(all(feature = "client", feature = "http"))]
mod revision;
#[cfg(all(feature = "client", feature = "http"))]
mod session;
#[cfg(all(feature = "client", feature = "http"))]
mod surface;
