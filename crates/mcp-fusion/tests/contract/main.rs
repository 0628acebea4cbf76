//! Contracts (`docs/contracts.md`): the diff rules, `fusion.lock` and the
//! digests, the `<contract_awareness>` section of a validation error, and
//! self-healing over a real client.

#[path = "../support/mod.rs"]
mod support;

mod diff;
mod envelope;
#[cfg(all(feature = "client", feature = "http"))]
mod lockfile;
#[cfg(all(feature = "client", feature = "http"))]
mod self_healing;
