//! [`Suggestion`]: a next call a presenter proposes, computed from the data.

use serde::Serialize;
use serde_json::{Map, Value};

/// A next call a presenter proposes after a result (`unpaid` invoice → pay
/// it): the arguments the model sends as they are, and why. The action it
/// calls is named where the suggestion is declared
/// ([`Presenter::suggest`](super::Presenter::suggest)), and checked when the
/// server is built.
///
/// ```
/// use mcp_fusion::present::Suggestion;
///
/// let pay = Suggestion::new("The invoice is unpaid.").argument("id", "inv_2026_0002");
/// # let _ = pay;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// Why the model should make this call: one short sentence.
    pub(crate) reason: String,
    /// The call's arguments (the group's discriminator is added when the
    /// suggestion is written).
    pub(crate) arguments: Map<String, Value>,
}

impl Suggestion {
    /// A suggestion whose reason is `reason` (one short sentence), without
    /// arguments yet.
    pub fn new(reason: impl Into<String>) -> Self {
        Suggestion {
            reason: reason.into(),
            arguments: Map::new(),
        }
    }

    /// Adds the argument `name` with `value` (any `Serialize` value; one
    /// that does not serialize is left out).
    pub fn argument(mut self, name: impl Into<String>, value: impl Serialize) -> Self {
        if let Ok(value) = serde_json::to_value(value) {
            self.arguments.insert(name.into(), value);
        }
        self
    }

    /// Why the model should make this call.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The arguments, as given.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }
}
