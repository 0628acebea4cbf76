//! The one handler system: what a handler takes ([`CallContext`], extractors,
//! the arguments type last) and what it returns, for actions, prompts,
//! resources, resource templates and completers alike.

mod client;
mod context;
mod extract;
mod output;

pub use client::LogLevel;
pub(crate) use client::{ClientChannel, ClientFailure, SharedChannel};
pub use context::{CallContext, Peer, Principal};
pub(crate) use context::{ContextInner, LOCAL_CALLER, session_header};
pub(crate) use extract::extract;
pub use extract::{FromCallContext, State, StateNeed, States};
pub use output::{IntoToolOutput, Json, ToolOutput};
