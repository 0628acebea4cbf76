//! The other `fusion` commands, run as the real binary: `call` and `tools`,
//! `lock` and `diff` (`contract`), `envelope render|parse`, and how `call`
//! and `tools` answer a 401 (`oauth`), and `call` authorized by a real
//! authorization server, oidc-provider (`oauth_grants`); `tools` and `lock`
//! reading a paginated list whole (`pages`); `resources`, `templates`,
//! `read`, `prompts`, `prompt` and `complete` against the conformance
//! example (`surface`); `skills` and `skill` against `examples/skills`
//! (`skills`); `call` against `examples/with-rmcp`, a plain rmcp
//! server with mcp-fusion's errors (`with_rmcp`).
//!
//! `call`, `contract`, `oauth`, `oauth_grants`, `pages` and `surface` start
//! `fusion serve`:
//! without the `example` feature (`--no-default-features`), they are not
//! built.

#[cfg(feature = "example")]
use fusion_test_support::authorization_server;
#[cfg(feature = "example")]
mod call;
#[cfg(feature = "example")]
mod contract;
mod envelope;
#[cfg(feature = "example")]
use fusion_test_support::interop_server;
#[cfg(feature = "example")]
mod oauth;
#[cfg(feature = "example")]
mod oauth_grants;
#[cfg(feature = "example")]
mod pages;
mod run;
#[cfg(feature = "example")]
use fusion_test_support::cli as support;
#[cfg(feature = "example")]
mod skills;
#[cfg(feature = "example")]
mod surface;
mod with_rmcp;
