//! [`Group`]: one MCP tool whose discriminator field selects an action.

use super::Action;
use crate::capability::app::UiLink;
use crate::capability::assembly::VisibleFn;
use crate::capability::meta::meta_setter;
use crate::capability::settings::{serializer_setters, settings_setters};
use crate::guard::Guards;
use crate::pipeline::BoxLayer;
use crate::tool_meta::DEFAULT_DISCRIMINATOR;

/// A grouped tool (`billing`): one MCP tool whose arguments carry a
/// discriminator field (default `action`) naming one of its actions
/// (`get_invoice`). The dotted name `billing.get_invoice` names the action in
/// errors, logs and `available_actions`.
pub struct Group {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) discriminator: String,
    pub(crate) actions: Vec<Action>,
    pub(crate) layers: Vec<BoxLayer>,
    pub(crate) visible_when: Vec<VisibleFn>,
    pub(crate) guards: Guards,
    /// The `_meta` its code set ([`Group::meta`]).
    pub(crate) meta: serde_json::Map<String, serde_json::Value>,
    /// Its app's view ([`Group::ui`]).
    pub(crate) ui: Option<UiLink>,
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name)
            .field("discriminator", &self.discriminator)
            .field("actions", &self.actions)
            .finish_non_exhaustive()
    }
}

impl Group {
    /// An empty group named `name` (letters, digits, `_` and `-`).
    pub fn new(name: impl Into<String>) -> Self {
        Group {
            name: name.into(),
            description: None,
            discriminator: DEFAULT_DISCRIMINATOR.to_owned(),
            actions: Vec::new(),
            layers: Vec::new(),
            visible_when: Vec::new(),
            guards: Guards::default(),
            meta: serde_json::Map::new(),
            ui: None,
        }
    }

    /// The tool's description in `tools/list` (the list of actions is appended).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The discriminator field (default `action`). It must not be a field of
    /// any action's input.
    pub fn discriminator(mut self, field: impl Into<String>) -> Self {
        self.discriminator = field.into();
        self
    }

    /// Adds an action. Action keys are unique within the group.
    pub fn action(mut self, action: Action) -> Self {
        self.actions.push(action);
        self
    }

    meta_setter!("the group's tool in `tools/list`");

    /// Links the group's tool to an app's view, as
    /// [`Action::ui`](super::Action::ui) links a plain tool: the view renders
    /// the result of whichever action was called.
    pub fn ui(mut self, link: UiLink) -> Self {
        self.ui = Some(link);
        self
    }

    settings_setters!(
        "calls of each action of this group",
        "each action of this group",
        "For a group it is a default: an action that sets its own keeps it, and each action has its own guard (its own slots, its own rate-limit budget) unless they share a `SharedConcurrency`."
    );
    serializer_setters!(
        "For a group it is a default: an action that sets its own keeps it, and each action has keys of its own."
    );
}
