//! What the test programs of `mcp-fusion` and `fusion-cli` share, as one
//! crate both take as a dev-dependency (instead of `#[path]` lines reaching
//! into another crate's `tests/`):
//!
//! - [`authorization_server`]: a real OAuth 2.1 authorization server
//!   (`oidc-provider`);
//! - [`redis_server`]: a real `redis-server` on a free port;
//! - [`interop_server`]: the official SDKs' servers, for the client's
//!   interoperability tests;
//! - [`library`]: the library's helpers: assertions on `CallToolResult`s,
//!   the XML well-formedness check, where proptest keeps its regressions;
//! - [`cli`]: fusion-cli's helpers: temporary databases, `fusion serve`
//!   started over stdio or Streamable HTTP, an rmcp client session;
//! - [`otlp_receiver`]: a small OTLP/HTTP receiver that keeps the spans
//!   and histogram points exported to it;
//! - [`stateless`]: raw MCP 2026-07-28 requests over Streamable HTTP;
//! - [`tasks`]: tasks as read back, without their timestamps.
//!
//! Each program uses a part of it: `use fusion_test_support::library as support;`,
//! `use fusion_test_support::cli as support;`,
//! `use fusion_test_support::redis_server;`.

pub mod authorization_server;
pub mod cli;
pub mod interop_server;
pub mod library;
pub mod otlp_receiver;
pub mod redis_server;
pub mod stateless;
pub mod tasks;
