//! Building a server: [`ServerBuilder`] declares its tools, groups, layers
//! and settings and builds the [`FusionServer`](crate::server::FusionServer);
//! [`ToolSet`] builds tools the same way while the server runs; the
//! server's signing key is made or checked here.

mod builder;
mod extensions;
mod signing_key;
mod tool_set;

pub use builder::ServerBuilder;
pub use signing_key::MIN_SIGNING_KEY_BYTES;
pub use tool_set::ToolSet;
