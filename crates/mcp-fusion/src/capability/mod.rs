//! What a server offers: tools (plain actions and groups), prompts,
//! resources and resource templates, and the completion of their arguments,
//! each checked when it is added.

mod build_error;
mod catalog;
mod completion;
mod invoke;
mod prompt;
mod resource;
pub mod tool;

pub use build_error::BuildError;
pub(crate) use catalog::{Catalog, Resolved};
pub use completion::{CompletionRequest, MAX_COMPLETION_VALUES};
pub use invoke::{Invoke, InvokeWithArgs, InvokeWithoutArgs};
pub(crate) use prompt::PromptError;
pub use prompt::{Prompt, PromptMessages};
pub(crate) use resource::TemplateError;
pub use resource::{Resource, ResourceData, ResourceTemplate};
pub use tool::{
    ACTIONS_META_KEY, Action, ActionListing, DEFAULT_DISCRIMINATOR, DISCRIMINATOR_META_KEY, Group,
    Handler, Hints, NoArgs, ToolListing,
};
pub(crate) use tool::{BuildContext, Definition, Registry, RouteError};
