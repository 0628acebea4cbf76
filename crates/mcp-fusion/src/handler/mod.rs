//! The one handler system: what a handler takes ([`CallContext`], extractors,
//! the arguments type last) and what it returns, for actions, prompts,
//! resources, resource templates and completers alike ([`Handler`]).

mod client;
mod context;
mod extract;
mod input;
mod output;
mod rounds;
mod signature;
mod tool_output;

pub use client::{Ask, LogLevel};
pub(crate) use client::{ClientChannel, ClientFailure, SharedChannel};
pub use context::{CallContext, Capability, Peer, Principal};
pub(crate) use context::{ContextInner, LOCAL_CALLER, RequestIdText, session_header};
pub use extract::{FromCallContext, State};
pub(crate) use extract::{StateNeed, StateType, States};
pub use input::NoArgs;
pub(crate) use input::deserialize_args;
pub(crate) use output::FromOutput;
pub use output::{IntoOutput, Output, PromptMessages, ResourceData};
pub(crate) use rounds::{InputRounds, Stop, until_input};
pub use signature::Handler;
pub(crate) use signature::{Erased, erase};
pub(crate) use tool_output::{Body, Shown};
pub use tool_output::{Json, ToolOutput};
