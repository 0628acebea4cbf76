//! `fusion gateway` end to end, with real upstream processes (started by
//! `gateway`): mounting, upstreams killed and restarted, the gateway's own
//! guards (`upstreams`), handoffs, `fusion lock` against the gateway, and the gateway's own
//! credentials for its upstreams (`credentials`).
//!
//! Every upstream here is `fusion serve`: without the `example` feature
//! (`--no-default-features`), none is built.

#![cfg(feature = "example")]

mod credentials;
mod gateway;
#[path = "../support/mod.rs"]
mod support;

mod handoff;
mod lock;
mod upstreams;
