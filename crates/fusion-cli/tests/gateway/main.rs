//! `fusion gateway` end to end, with real upstream processes (started by
//! `gateway`): mounting, upstreams killed and restarted, the gateway's own
//! guards (`upstreams`), handoffs, and `fusion lock` against the gateway.
//!
//! Every upstream here is `fusion serve`: without the `example` feature
//! (`--no-default-features`), none is built.

#![cfg(feature = "example")]

mod gateway;
#[path = "../support/mod.rs"]
mod support;

mod handoff;
mod lock;
mod upstreams;
