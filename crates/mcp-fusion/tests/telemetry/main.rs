//! OpenTelemetry (feature `otel`), read from the SDK's in-memory exporters:
//! the SERVER span of each request and the CLIENT span of each request
//! sent, their names, kinds, parents (through `params._meta`) and
//! attributes, for a success, a tool error, a validation error, an unknown
//! tool, a cancelled call and an auth refusal over HTTP; and the duration
//! histograms. One global provider for the binary: each test reads only
//! the spans of its own trace.

#![cfg(all(feature = "otel", feature = "client"))]

mod recorded;
mod spans;

#[cfg(feature = "http")]
mod http;
