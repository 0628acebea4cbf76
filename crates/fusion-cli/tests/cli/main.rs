//! The other `fusion` commands, run as the real binary: `call` and `tools`,
//! `lock` and `diff` (`contract`), and `envelope render|parse`.
//!
//! `call` and `contract` start `fusion serve`: without the `example` feature
//! (`--no-default-features`), they are not built.

#[cfg(feature = "example")]
mod call;
#[cfg(feature = "example")]
mod contract;
mod envelope;
