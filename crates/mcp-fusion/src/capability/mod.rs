//! What a server offers: tools (plain actions and groups), prompts,
//! resources and resource templates, and the completion of their arguments,
//! each checked when it is added.

mod assembly;
mod build_error;
mod catalog;
mod completion;
mod prompt;
mod resource;
mod settings;
pub mod tool;

pub(crate) use assembly::{Assembly, Callable};
pub use build_error::BuildError;
pub(crate) use catalog::{Catalog, Resolved};
pub(crate) use completion::Completed;
pub use completion::{CompletionRequest, MAX_COMPLETION_VALUES};
pub use prompt::Prompt;
pub(crate) use resource::contents;
pub use resource::{Resource, ResourceTemplate};
pub use tool::{Action, ActionListing, Group, Hints, TaskSupport, ToolListing};
pub(crate) use tool::{Definition, RegisteredAction, Registry, RouteError, Shown};
