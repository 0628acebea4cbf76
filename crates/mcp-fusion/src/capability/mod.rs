//! What a server offers: tools (plain actions and groups), prompts,
//! resources and resource templates, skills (SEP-2640), and the completion
//! of their arguments, each checked when it is added; the `_meta` a server's
//! code sets on them; MCP Apps' views and the tools linked to them
//! ([`UiResource`], [`UiLink`]).

mod app;
mod assembly;
pub(crate) mod build_error;
mod cache_hint;
mod catalog;
pub(crate) mod completion;
mod meta;
mod place;
pub(crate) mod prompt;
pub(crate) mod resource;
mod settings;
pub(crate) mod skills;
pub(crate) mod tool;
pub mod tool_search;

pub use crate::listing::{ActionListing, Annotations, ToolListing};
pub(crate) use app::bad_ui_uri;
pub use app::{
    MCP_APP_MIME_TYPE, UI_EXTENSION_ID, UiCsp, UiLink, UiPermissions, UiResource, UiVisibility,
};
pub(crate) use assembly::{Assembly, Callable};
pub(crate) use build_error::BuildError;
pub(crate) use cache_hint::CacheHints;
pub use cache_hint::{CacheHint, CacheableMethod};
pub(crate) use catalog::{Catalog, Resolved};
pub(crate) use completion::Completed;
pub(crate) use completion::CompletionRequest;
pub use completion::MAX_COMPLETION_VALUES;
pub(crate) use place::{Place, Places};
pub(crate) use prompt::Prompt;
pub(crate) use resource::contents;
pub(crate) use resource::{Resource, ResourceTemplate};
pub(crate) use skills::{AssembledSkills, Skills};
#[cfg(test)]
pub(crate) use tool::finds;
pub use tool::transform::{
    HiddenValue, ToolFilter, ToolTransform, TransformError, Transformed, Transforms,
};
pub use tool::{ACTIONS_META_KEY, DEFAULT_DISCRIMINATOR, DISCRIMINATOR_META_KEY, GATED_META_KEY};
pub(crate) use tool::{Action, Group, TaskSupport};
pub(crate) use tool::{Definition, Found, RegisteredAction, RegisteredTool, Registry, Shown};
pub use tool_search::ToolSearch;
