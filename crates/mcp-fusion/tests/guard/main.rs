//! The runtime guards (wire contract §5) and the mutation serializer (§10)
//! through the whole call path, the
//! Redis rate-limit store against a real `redis-server`, the Prometheus
//! exporter of `HttpOptions::metrics`, and credentials kept out of printed
//! output.
//!
//! `metrics` installs the process's one global recorder, and every test of
//! this binary that runs after it records there too. Its exact counts hold
//! because it reads only the series of its own tools (`metrics_ping`,
//! `metrics_gone`): no other test may give a tool those names.

#[cfg(all(feature = "http", feature = "jwt"))]
mod auth;
#[cfg(all(feature = "http", feature = "jwt"))]
mod guards;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_guards;
#[cfg(all(feature = "http", feature = "jwt", feature = "client"))]
mod serializer;
#[cfg(feature = "redis")]
use fusion_test_support::redis_server;
#[cfg(all(feature = "client", feature = "http", feature = "redis"))]
mod secrets;
