//! `fusion serve` end to end, run as the real binary: the billing and bench
//! examples driven by rmcp's client over stdio and Streamable HTTP, the HTTP
//! and stdio edges spoken to in raw frames (`raw`), sessions, who a rate
//! limit counts, the guards' flags, `--metrics`, the client's recovery of a
//! lost session, a clean shutdown, and two replicas sharing tasks in Redis
//! where one is killed (`task_lease`).
//!
//! Every test starts `fusion serve`: without the `example` feature
//! (`--no-default-features`), none is built.

#![cfg(feature = "example")]

use fusion_test_support::authorization_server;
mod raw;
use fusion_test_support::cli as support;
use fusion_test_support::redis_server;

mod bench;
mod billing;
mod billing_schemas;
mod callers;
mod client_session;
mod edge_http;
mod edge_stdio;
mod guards;
mod metrics;
mod oauth;
mod sessions;
mod shutdown;
mod task_lease;
