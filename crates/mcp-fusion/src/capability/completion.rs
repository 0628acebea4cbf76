//! Argument completion (`completion/complete`, MCP 2025-11-25 "Completion")
//! for prompt arguments and resource template variables.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;

/// The most values one completion answer holds (MCP: "must not exceed 100
/// items"); the rest are counted in `total` with `hasMore: true`.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What a completer is asked: which argument, what the user typed so far, and
/// the arguments already filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What was typed so far (may be empty).
    pub value: String,
    /// Arguments already resolved, from the request's `context.arguments`.
    pub arguments: HashMap<String, String>,
}

type Completer = Arc<dyn Fn(CompletionRequest) -> BoxFuture<'static, Vec<String>> + Send + Sync>;

/// The completers of one prompt or template, by argument name.
#[derive(Clone, Default)]
pub(crate) struct Completions {
    by_argument: HashMap<String, Completer>,
}

impl std::fmt::Debug for Completions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<_> = self.by_argument.keys().collect();
        names.sort();
        f.debug_struct("Completions")
            .field("arguments", &names)
            .finish()
    }
}

/// One completion answer: at most [`MAX_COMPLETION_VALUES`] values, the
/// total count, and whether more exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Completed {
    pub values: Vec<String>,
    pub total: usize,
    pub has_more: bool,
}

impl Completions {
    /// Adds an async completer for `argument` (a later one replaces it).
    pub(crate) fn add<F, Fut>(&mut self, argument: impl Into<String>, completer: F)
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.by_argument.insert(
            argument.into(),
            Arc::new(move |request| Box::pin(completer(request))),
        );
    }

    /// Adds a fixed list of values for `argument`: those that start with what
    /// was typed (case-insensitively), in the given order.
    pub(crate) fn add_values<I, S>(&mut self, argument: impl Into<String>, values: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let values: Arc<[String]> = values.into_iter().map(Into::into).collect();
        self.add(argument, move |request: CompletionRequest| {
            let typed = request.value.to_lowercase();
            let matching = values
                .iter()
                .filter(|v| v.to_lowercase().starts_with(&typed))
                .cloned()
                .collect();
            std::future::ready(matching)
        });
    }

    /// Whether any argument has a completer.
    pub(crate) fn any(&self) -> bool {
        !self.by_argument.is_empty()
    }

    /// Completes `request`: an argument without a completer gets no values.
    pub(crate) async fn complete(&self, request: CompletionRequest) -> Completed {
        let Some(completer) = self.by_argument.get(&request.argument).cloned() else {
            return Completed {
                values: Vec::new(),
                total: 0,
                has_more: false,
            };
        };
        let mut values = completer(request).await;
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        Completed {
            has_more: total > values.len(),
            values,
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(argument: &str, value: &str) -> CompletionRequest {
        CompletionRequest {
            argument: argument.into(),
            value: value.into(),
            arguments: HashMap::new(),
        }
    }

    #[tokio::test]
    async fn fixed_values_complete_by_prefix_ignoring_case() {
        let mut completions = Completions::default();
        completions.add_values("city", ["Paris", "park", "Lyon"]);
        let done = completions.complete(request("city", "PA")).await;
        assert_eq!(done.values, ["Paris", "park"]);
        assert_eq!((done.total, done.has_more), (2, false));
        let none = completions.complete(request("country", "f")).await;
        assert!(none.values.is_empty());
    }

    #[tokio::test]
    async fn more_than_a_hundred_values_are_cut_and_counted() {
        let mut completions = Completions::default();
        completions.add("n", |_request| async {
            (0..250).map(|i| i.to_string()).collect()
        });
        let done = completions.complete(request("n", "")).await;
        assert_eq!(done.values.len(), 100);
        assert_eq!((done.total, done.has_more), (250, true));
    }
}
