//! Building a server: [`ServerBuilder`] declares its tools, groups, layers
//! and settings and builds the [`FusionServer`](crate::server::FusionServer);
//! [`ToolSet`] builds tools the same way while the server runs; the
//! server's signing keys are made or checked here.

mod builder;
mod extensions;
mod signing_keys;
mod tool_set;

pub use builder::ServerBuilder;
pub use signing_keys::{
    DEFAULT_SIGNING_KEY_ID, MAX_SIGNING_KEY_ID_CHARS, MIN_SIGNING_KEY_BYTES, SigningKeys,
};
pub use tool_set::ToolSet;
