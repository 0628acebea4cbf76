//! `subscriptions/listen` (MCP 2026-07-28, basic/patterns/subscriptions,
//! SEP-2575): the streams a stateless client opens to hear of list changes,
//! resource updates and its tasks' status.
//!
//! - [`stream`]: what a listen request may ask, what the server accepts of
//!   it, serving the acknowledged stream, and telling every open stream;
//! - [`listener`]: one open stream as a session holds it, and its queue;
//! - [`task_ids`]: the `taskIds` rmcp's filter drops, read by the transports
//!   from the message text.

pub(crate) mod listener;
pub(crate) mod stream;
pub(crate) mod task_ids;

pub use listener::LISTEN_QUEUE;
pub use stream::MAX_LISTEN_ID_BYTES;
pub(crate) use stream::tell_listeners;
