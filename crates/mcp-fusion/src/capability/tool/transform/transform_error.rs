//! [`TransformError`]: a transform that does not fit the tools it is given.

/// A tool transform ([`Transforms`](super::Transforms)) that cannot apply to
/// the tools of the server it transforms. Each names the entry at fault by
/// the tool's own name (as the mounted server or upstream lists it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TransformError {
    /// A transform names a tool the server does not have.
    #[error("transform of \"{tool}\": the server has no tool of that name")]
    NoSuchTool {
        /// The tool named.
        tool: String,
    },
    /// A rename to a name another tool is listed under.
    #[error("transform of \"{tool}\": rename to \"{name}\", which another tool is listed as")]
    NameTaken {
        /// The renamed tool.
        tool: String,
        /// The name it was given.
        name: String,
    },
    /// A rename to a name that is empty, longer than 128 characters or has
    /// other characters than ASCII letters, digits, `_`, `-` and `.`.
    #[error(
        "transform of \"{tool}\": rename to \"{name}\" is not usable: write 1 to 128 ASCII letters, digits, _, - or ."
    )]
    BadName {
        /// The renamed tool.
        tool: String,
        /// The name it was given.
        name: String,
    },
    /// A hidden argument the tool's `inputSchema` has no property for.
    #[error("transform of \"{tool}\": hides \"{argument}\", which is not an argument of the tool")]
    NoSuchArgument {
        /// The tool.
        tool: String,
        /// The argument named.
        argument: String,
    },
    /// A group's discriminator hidden: the group would still be listed
    /// with every action's description and arguments while each call ran
    /// the one action hidden, so the model would be told of actions it
    /// cannot reach.
    #[error(
        "transform of \"{tool}\": hides \"{argument}\", the argument that picks the group's action; the group would still list every action: show the group whole, or filter it out"
    )]
    HidesDiscriminator {
        /// The group.
        tool: String,
        /// Its discriminator.
        argument: String,
    },
    /// An argument hidden twice.
    #[error("transform of \"{tool}\": hides \"{argument}\" twice")]
    HiddenTwice {
        /// The tool.
        tool: String,
        /// The argument named twice.
        argument: String,
    },
}
