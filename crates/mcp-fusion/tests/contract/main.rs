//! Contracts (`docs/contracts.md`): the diff rules, `fusion.lock` and the
//! digests, the `<contract_awareness>` section of a validation error, and
//! self-healing over a real client.

use fusion_test_support::library as support;

mod diff;
mod envelope;
#[cfg(feature = "client")]
mod lockfile;
mod presenters;
#[cfg(feature = "client")]
mod self_healing;
