//! Batches: [`FusionClient::call_many`] returns every call's outcome, in order.

use futures::StreamExt;
use serde_json::Value;

use super::error::FusionClientError;
use super::fusion_client::FusionClient;
use super::outcome::Success;

/// One call of a batch ([`FusionClient::call_many`]): a tool (or dotted
/// action) name and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool name, or `tool.action` for a grouped tool.
    pub name: String,
    /// The arguments: a JSON object, or `null` for none.
    pub args: Value,
}

impl ToolCall {
    /// A call of `name` with `args`.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        ToolCall {
            name: name.into(),
            args,
        }
    }
}

/// How [`FusionClient::call_many`] runs its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BatchMode {
    /// At most `max_in_flight` calls at once (`0` counts as 1); outcomes are
    /// still returned in the order of the calls.
    Concurrent {
        /// How many calls may be in flight together.
        max_in_flight: usize,
    },
    /// One after the other, in order. A failure does not stop the batch.
    Sequential,
}

impl BatchMode {
    /// [`BatchMode::Concurrent`] with 16 calls in flight.
    pub const fn concurrent() -> Self {
        BatchMode::Concurrent { max_in_flight: 16 }
    }
}

impl Default for BatchMode {
    /// [`BatchMode::concurrent`].
    fn default() -> Self {
        BatchMode::concurrent()
    }
}

impl FusionClient {
    /// Runs every call with [`call_checked`](Self::call_checked) (so with the
    /// client's retry policy) and returns one outcome per call, in the order of
    /// `calls`. One failure never discards or stops the others.
    pub async fn call_many<I>(
        &self,
        calls: I,
        mode: BatchMode,
    ) -> Vec<Result<Success, FusionClientError>>
    where
        I: IntoIterator<Item = ToolCall>,
    {
        let calls: Vec<ToolCall> = calls.into_iter().collect();
        match mode {
            BatchMode::Sequential => {
                let mut outcomes = Vec::with_capacity(calls.len());
                for call in calls {
                    outcomes.push(self.call_checked(&call.name, call.args).await);
                }
                outcomes
            }
            BatchMode::Concurrent { max_in_flight } => {
                futures::stream::iter(calls)
                    .map(|call| async move { self.call_checked(&call.name, call.args).await })
                    .buffered(max_in_flight.max(1))
                    .collect()
                    .await
            }
        }
    }
}
