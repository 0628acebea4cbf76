//! [`ToolSet`]: the tools of a running server while
//! [`FusionServer::update_tools`](crate::server::FusionServer::update_tools) changes
//! them.

use crate::capability::{Action, Assembly, BuildError, Definition, Group, Registry};

/// A copy of a running server's tools, changed inside
/// [`FusionServer::update_tools`](crate::server::FusionServer::update_tools): each
/// addition is built and checked at once, exactly as
/// [`ServerBuilder::build`](super::ServerBuilder::build) builds a tool (the
/// server's layers, guard settings and states), and a failed one leaves the
/// set as it was. The copy replaces the server's tools only when the change
/// returns `Ok`.
pub struct ToolSet<'a> {
    registry: Registry,
    assembly: &'a Assembly,
    changed: bool,
}

impl std::fmt::Debug for ToolSet<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSet")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("changed", &self.changed)
            .finish()
    }
}

impl<'a> ToolSet<'a> {
    /// The set `registry`, whose additions are built with `assembly`.
    pub(crate) fn new(registry: Registry, assembly: &'a Assembly) -> Self {
        ToolSet {
            registry,
            assembly,
            changed: false,
        }
    }

    /// Whether anything was added or removed.
    pub(crate) fn changed(&self) -> bool {
        self.changed
    }

    /// The changed table.
    pub(crate) fn into_registry(self) -> Registry {
        self.registry
    }

    /// Adds a plain tool, listed after the others.
    ///
    /// # Errors
    /// The [`BuildError`] [`ServerBuilder::build`](super::ServerBuilder::build)
    /// would give for it, [`BuildError::DuplicateTool`] for a name the set
    /// already has; the set is unchanged then.
    pub fn add_tool(&mut self, action: Action) -> Result<(), BuildError> {
        self.add(Definition::Plain(action))
    }

    /// Adds a group, listed after the others.
    ///
    /// # Errors
    /// As [`add_tool`](Self::add_tool), and the errors of a group (empty, a
    /// discriminator that is empty or a field of an action).
    pub fn add_group(&mut self, group: Group) -> Result<(), BuildError> {
        self.add(Definition::Group(group))
    }

    /// Adds the tool of `definition`, its presenters bound to the set's
    /// tools; on an error the set is unchanged.
    fn add(&mut self, definition: Definition) -> Result<(), BuildError> {
        let mut registry = self.registry.clone();
        registry.add(definition, self.assembly)?;
        registry.bind_presentations()?;
        self.registry = registry;
        self.changed = true;
        Ok(())
    }

    /// Removes the tool (plain or group) named `name`; whether there was one.
    pub fn remove_tool(&mut self, name: &str) -> bool {
        let removed = self.registry.remove(name);
        self.changed |= removed;
        removed
    }

    /// Lists the tool named `name` after all the others (`tools/list` shows
    /// the tools in order: those given at build, then those added, in the
    /// order added); whether there is one. The tool is not rebuilt: its
    /// guards keep their state (rate-limit budgets, running calls).
    pub fn move_to_end(&mut self, name: &str) -> bool {
        let moved = self.registry.move_to_end(name);
        self.changed |= moved;
        moved
    }

    /// Whether the set has a tool named `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.registry.tool(name).is_some()
    }

    /// The names of its tools, in list order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.registry.tools().iter().map(|t| t.name.as_str())
    }
}
