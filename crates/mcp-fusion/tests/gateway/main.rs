//! The gateway from the library: `GatewayConfig` from TOML and from the
//! builder, and `Gateway::install` with a handoff, called in process.

#[cfg(all(feature = "gateway", feature = "http"))]
mod builder;
#[cfg(feature = "gateway")]
mod config;
