//! [`ContractError`]: why a contract could not be read from `tools/list` or
//! from a lockfile entry.

/// A contract that cannot be built from what a server listed (or a lockfile
/// holds). Every variant names where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    /// A value has the wrong shape: `at` says where (e.g. `tool "billing",
    /// action 2 of _meta["mcp-fusion/actions"]`), `problem` what is wrong.
    #[error("{at}: {problem}")]
    Malformed {
        /// Where the value is.
        at: String,
        /// What is wrong with it, in one line.
        problem: String,
    },
    /// Two tools have the same name.
    #[error("the tool \"{0}\" is listed twice")]
    DuplicateTool(String),
    /// Two actions of one tool have the same name.
    #[error("the tool \"{tool}\" lists the action \"{action}\" twice")]
    DuplicateAction {
        /// The tool.
        tool: String,
        /// The repeated action name.
        action: String,
    },
}

impl ContractError {
    pub(crate) fn malformed(at: impl Into<String>, problem: impl Into<String>) -> Self {
        ContractError::Malformed {
            at: at.into(),
            problem: problem.into(),
        }
    }
}
