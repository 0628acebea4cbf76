//! `fusion gateway` end to end, with real upstream processes (started by
//! `gateway`): mounting, upstreams killed and restarted, the gateway's own
//! guards (`upstreams`), handoffs, `fusion lock` against the gateway, and the gateway's own
//! credentials for its upstreams (`credentials`: bearer tokens, and OAuth
//! client credentials from a real authorization server, oidc-provider).
//!
//! Every upstream here is `fusion serve`: without the `example` feature
//! (`--no-default-features`), none is built.

#![cfg(feature = "example")]

use fusion_test_support::authorization_server;
mod credentials;
mod gateway;
use fusion_test_support::cli as support;

mod handoff;
mod lock;
#[cfg(feature = "otel")]
mod otel;
mod transforms;
mod upstreams;
