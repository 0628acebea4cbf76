//! The state gate: a [`StateMachine`] per workflow, the session's current
//! state per machine, actions listed and callable only in the states they
//! are allowed in, and a move after each successful call (wire contract
//! §10). The states live in this process's memory (or in Redis with a
//! `RedisGuardStore`), per session (the `CallContext::caller` key), each
//! kept a day after its last move ([`STATE_TTL`]).

mod gates;
mod guard;
mod machine;
mod refusal;
mod store;

pub(crate) use gates::{ActionGate, Gates};
pub(crate) use guard::StateGateGuard;
pub use machine::StateMachine;
#[cfg(feature = "redis")]
pub(crate) use store::STATE_TTL;
