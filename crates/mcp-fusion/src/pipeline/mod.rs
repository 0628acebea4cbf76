//! The call path after routing: validated [`Call`]s through middleware to the
//! handler, with unmarked errors and panics turned into `INTERNAL_ERROR`
//! (wire contract §6).

mod call;
mod client;
mod internal;
mod middleware;
mod output;
mod state;
mod validate;

pub use call::{Call, CallContext, Peer, Principal};
pub(crate) use call::{ContextInner, LOCAL_CALLER, session_header};
pub use client::LogLevel;
pub(crate) use client::{ClientChannel, ClientFailure, SharedChannel};
pub use internal::{
    BoxError, INTERNAL_RECOVERY, INTERNAL_STILL_RUNNING, catch_panic, classify, internal_error,
    resolve,
};
pub(crate) use middleware::{BoxLayer, box_layer};
pub use middleware::{CallService, FromFn, FromFnLayer, Next, from_fn};
pub use output::{IntoToolOutput, Json, ToolOutput};
pub(crate) use state::extract;
pub use state::{FromCallContext, State, StateNeed, States};
pub(crate) use validate::{ActionService, Outcome, Validate};
