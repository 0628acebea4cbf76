//! The one path every capability request takes after the transport: route
//! → guards → validate → middleware → handler → response (DESIGN "The one
//! path a request takes").
//!
//! - [`request`]: what the transport hands over ([`Origin`],
//!   [`CallRequest`] and its [`Lookup`], the one name→action lookup), what
//!   it calls ([`Target`]), its one [`CallContext`](crate::CallContext)
//!   ([`context`]);
//! - `guarded`: [`guarded`] runs a capability's `Callable` for one call —
//!   the one panic boundary, the one place `INTERNAL_ERROR` is made;
//! - [`tool_call`]: [`Dispatch::run`] is `tools/call` around it (routing,
//!   deprecation warnings, metrics); `super::surface` holds the other
//!   capabilities';
//! - `reply`: [`Reply`], what dispatch answers, written for its transport
//!   by the adapter.

pub(crate) mod guarded;
mod reply;
pub(crate) mod request;
pub(crate) mod tool_call;

pub(crate) use guarded::{Guarded, guarded};
pub(crate) use reply::Reply;
pub(crate) use request::{CallRequest, Lookup, Origin, Target, context};
pub(crate) use tool_call::{Claims, Dispatch, Fallback, UnknownTool};

#[cfg(test)]
mod tests;
