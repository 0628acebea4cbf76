//! The one path every capability request takes after the transport: route
//! → guards → validate → middleware → handler → response (DESIGN "The one
//! path a request takes").
//!
//! - [`request`]: what the transport hands over ([`Origin`],
//!   [`CallRequest`]), what it calls ([`Target`]), its [`CallContext`](crate::CallContext)
//!   ([`context`]);
//! - `guarded`: [`guarded`] runs a capability's `Callable` for one call;
//! - [`tool_call`]: [`run`] is `tools/call` around it (routing, deprecation
//!   warnings, the envelope of the result); `super::surface` holds the other
//!   capabilities'.

pub(crate) mod guarded;
pub(crate) mod request;
pub(crate) mod tool_call;

pub(crate) use guarded::guarded;
pub(crate) use request::{CallRequest, Origin, Target, context, error_result};
pub(crate) use tool_call::{Claims, Fallback, UnknownTool, run};
