//! The input-required rounds of MCP 2026-07-28 (SEP-2322,
//! `basic/patterns/mrtr`): a `tools/call`, `prompts/get` or `resources/read`
//! whose handler asks the client is answered with an input-required result,
//! and the client sends the request again with its answers.
//!
//! - [`input_required`]: a request's rounds before its handler runs, and its
//!   answer once the handler stopped for the client's input;
//! - [`request_state`]: the signed `requestState` that carries the answers
//!   of earlier rounds from one round to the next.

pub(crate) mod input_required;
pub(crate) mod request_state;

pub(crate) use input_required::{Asking, Rounds, input_required, rounds_of};
pub(crate) use request_state::RequestStates;
