//! Results written for the model (`docs/wire-contract.md` §9): what a
//! successful result carries on its way out, after the handler. The
//! [egress guard](egress) cuts a result over its size limit at boundaries
//! that keep every part valid; [state sync](state_sync) tells the model
//! which earlier reads a mutation made stale, and a read action's
//! [`Freshness`] tells clients how long its results stay fresh.

pub mod egress;
mod freshness;
pub mod state_sync;

pub use egress::DEFAULT_EGRESS_LIMIT;
pub use freshness::Freshness;

#[cfg(test)]
mod wire_doc_tests;
