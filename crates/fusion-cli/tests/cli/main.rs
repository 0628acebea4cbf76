//! The other `fusion` commands, run as the real binary: `call` and `tools`,
//! `lock` and `diff` (`contract`), `envelope render|parse`, and how `call`
//! and `tools` answer a 401 (`oauth`).
//!
//! `call`, `contract` and `oauth` start `fusion serve`: without the `example`
//! feature (`--no-default-features`), they are not built.

#[cfg(feature = "example")]
mod call;
#[cfg(feature = "example")]
mod contract;
mod envelope;
#[cfg(feature = "example")]
mod oauth;
mod run;
#[cfg(feature = "example")]
#[path = "../support/mod.rs"]
mod support;
