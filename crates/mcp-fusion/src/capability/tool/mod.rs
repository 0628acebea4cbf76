//! Tools, groups and actions, and routing a call to its action: tool name →
//! group → discriminator (`action`) → action.

mod action;
mod group;
mod listing;
mod own_meta;
mod registry;
mod route;
mod task_support;
pub(crate) mod transform;

pub use crate::tool_meta::{
    ACTIONS_META_KEY, DEFAULT_DISCRIMINATOR, DISCRIMINATOR_META_KEY, GATED_META_KEY,
};
pub use action::Action;
pub use group::Group;
pub(crate) use registry::{Definition, RegisteredAction, RegisteredTool, Registry, Shown};
pub(crate) use route::Found;
#[cfg(test)]
pub(crate) use route::finds;
pub use task_support::TaskSupport;
