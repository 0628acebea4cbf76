//! [`TaskSupport`]: whether an action may run as a task.

/// Whether calls of an action may run as a task (the tool-level
/// `execution.taskSupport` of MCP 2025-11-25, `basic/utilities/tasks`; the
/// server-directed task creation of the 2026-07-28 Tasks extension
/// `io.modelcontextprotocol/tasks`, SEP-2663 "Capability Negotiation").
///
/// Set with [`Action::task_support`](super::Action::task_support). A call of
/// an [`Optional`](Self::Optional) or [`Required`](Self::Required) action
/// from a client that declared the tasks extension on its request is
/// answered at once with a `CreateTaskResult` (`resultType: "task"`) while
/// the action runs; the client polls `tasks/get` for its result, which is
/// the `CallToolResult` a direct call would have returned (a failure is the
/// `<tool_error>` envelope with `isError: true`, task status `completed`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task (`"forbidden"`, the default): every call is answered
    /// with its result.
    #[default]
    Forbidden,
    /// A task when the client declared the tasks extension on the request
    /// (`"optional"`); a direct call otherwise.
    Optional,
    /// Always a task (`"required"`): a client that did not declare the
    /// tasks extension gets JSON-RPC error `-32021` (Missing Required Client
    /// Capability) naming it in `data.requiredCapabilities` (SEP-2663
    /// "Capability Negotiation").
    Required,
}

impl TaskSupport {
    /// The spec's word for it: `"forbidden"`, `"optional"` or `"required"`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// Whether a call may run as a task.
    pub fn allows_task(self) -> bool {
        self != TaskSupport::Forbidden
    }
}

impl std::fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
