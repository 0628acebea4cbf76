//! The side-by-side load bench of `benches/load/`.
//!
//! Every server it measures serves the same tool, `get_invoice`
//! (`{id: ^inv_[0-9]+$, email: an email address, amount: integer >= 1}`, all
//! required; success text `{"id":"<id>","status":"open"}`). Two binaries:
//!
//! - `load`, the driver: speaks raw JSON-RPC (no MCP SDK) to a server over
//!   stdio ([`stdio`]) or Streamable HTTP ([`http`]), keeps a fixed number of
//!   requests in flight (closed loop), checks every answer ([`check`]) and
//!   reports calls/s, p50/p99 latency in µs and the server's RSS in MiB
//!   ([`report`]).
//! - `floor`, the floor server: bare rmcp with three hand-written checks
//!   ([`floor`]), the least work an rmcp server can do for this tool.
//!
//! `benches/load/compare.sh` runs them against `fusion serve --example
//! bench`, the official TypeScript SDK (`ts/`) and FastMCP (`fastmcp/`).

#![warn(missing_docs)]

pub mod calls;
pub mod check;
pub mod error;
pub mod floor;
pub mod http;
pub mod report;
pub mod sse;
pub mod stats;
pub mod stdio;

pub use calls::{CallPath, Measure, RunPlan};
pub use check::{Outcome, Tally};
pub use error::Error;
pub use report::Report;
