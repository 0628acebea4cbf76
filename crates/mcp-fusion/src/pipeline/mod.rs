//! The call path after routing: validated [`Call`]s through middleware to the
//! handler, with unmarked errors and panics turned into `INTERNAL_ERROR`
//! (wire contract §6).

mod call;
mod internal;
mod middleware;
mod validate;

pub use call::Call;
pub(crate) use internal::catch_panic;
#[cfg(feature = "client")]
pub(crate) use internal::panic_text;
pub(crate) use middleware::{BoxLayer, box_layer, handler_service};
pub use middleware::{CallService, FromFn, FromFnLayer, Next, from_fn};
pub(crate) use validate::{ActionService, Outcome, Validate};
