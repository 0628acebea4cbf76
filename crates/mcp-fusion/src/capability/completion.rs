//! Argument completion (`completion/complete`, MCP 2025-11-25 "Completion")
//! for prompt arguments and resource template variables.

use std::collections::HashMap;

use super::BuildError;
use super::assembly::{Assembly, Callable, Parts, VisibleFn};
use crate::error::ToolError;
use crate::guard::Guards;
use crate::handler::{Erased, Handler, StateNeed, erase};
use crate::metrics_names::ActionLabels;
use crate::pipeline::{BoxLayer, handler_service};

/// The most values one completion answer holds (MCP: "must not exceed 100
/// items"); the rest are counted in `total` with `hasMore: true`.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What a completer is asked: which argument, what the user typed so far, and
/// the arguments already filled in. A completer is a [`Handler`] whose input
/// (its last parameter) is this type and whose success is a `Vec<String>`.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct CompletionRequest {
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What was typed so far (may be empty).
    pub value: String,
    /// Arguments already resolved, from the request's `context.arguments`.
    #[serde(default)]
    pub arguments: HashMap<String, String>,
}

/// The setters of the completion of a prompt's arguments or a template's
/// variables, on a type with a `completions: Completions` field; `$what`
/// names what is completed ("argument", "variable") in the docs.
macro_rules! completion_setters {
    ($what:literal) => {
        #[doc = concat!("Completes the ", $what, " `name` with `completer`, a [`Handler`](crate::Handler)")]
        /// whose input is the [`CompletionRequest`](crate::CompletionRequest)
        /// (what was typed) and whose success is the values
        /// (`completion/complete`); at most 100 values are sent, the rest
        /// counted. It runs through the same guards and layers as what it
        /// completes.
        pub fn complete<M, H>(mut self, name: impl Into<String>, completer: H) -> Self
        where
            H: $crate::Handler<M, Vec<String>, Args = $crate::CompletionRequest>,
        {
            self.completions.add(name, completer);
            self
        }

        #[doc = concat!("Completes the ", $what, " `name` from a fixed list: the values that start")]
        /// with what was typed, ignoring case, in the order given.
        pub fn complete_values<I, S>(mut self, name: impl Into<String>, values: I) -> Self
        where
            I: IntoIterator<Item = S>,
            S: Into<String>,
        {
            self.completions.add_values(name, values);
            self
        }
    };
}

pub(crate) use completion_setters;

/// A completer: its handler and the states its extractors need.
#[derive(Clone)]
struct Completer {
    handler: Erased<Vec<String>>,
    state_needs: Vec<StateNeed>,
}

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

impl Completed {
    /// A completer's `values`, cut to [`MAX_COMPLETION_VALUES`] and counted.
    pub(crate) fn of(mut values: Vec<String>) -> Self {
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        Completed {
            has_more: total > values.len(),
            values,
            total,
        }
    }
}

impl Completions {
    /// Adds a completer for `argument` (a later one replaces it).
    pub(crate) fn add<M, H>(&mut self, argument: impl Into<String>, completer: H)
    where
        H: Handler<M, Vec<String>, Args = CompletionRequest>,
    {
        self.by_argument.insert(
            argument.into(),
            Completer {
                handler: erase(completer),
                state_needs: H::state_needs(),
            },
        );
    }

    /// Adds a fixed list of values for `argument`: those that start with what
    /// was typed (case-insensitively), in the given order.
    pub(crate) fn add_values<I, S>(&mut self, argument: impl Into<String>, values: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let values: std::sync::Arc<[String]> = values.into_iter().map(Into::into).collect();
        self.add(argument, move |request: CompletionRequest| {
            let typed = request.value.to_lowercase();
            let matching: Vec<String> = values
                .iter()
                .filter(|v| v.to_lowercase().starts_with(&typed))
                .cloned()
                .collect();
            std::future::ready(Ok::<_, ToolError>(matching))
        });
    }

    /// Each completer's guarded path, with the guards and layers of `owner`
    /// (the prompt or template whose arguments it completes).
    ///
    /// # Errors
    /// The [`BuildError`] of a completer whose extractors need a state the
    /// server was not given, or of guards that cannot work.
    pub(crate) fn assemble(
        &self,
        owner: &str,
        guards: &Guards,
        layers: &[BoxLayer],
        visible_when: &[VisibleFn],
        assembly: &Assembly,
    ) -> Result<HashMap<String, Callable>, BuildError> {
        self.by_argument
            .iter()
            .map(|(argument, completer)| {
                let callable = assembly.callable(Parts {
                    presentation: None,
                    gate: None,
                    name: owner,
                    handler: handler_service(completer.handler.clone()),
                    validator: None,
                    output: None,
                    guards: guards.clone(),
                    layers: &[layers],
                    state_needs: &completer.state_needs,
                    retry_safe: true,
                    labels: ActionLabels::new(owner, Some(argument)),
                    visible_when: visible_when.to_vec(),
                })?;
                Ok((argument.clone(), callable))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_a_hundred_values_are_cut_and_counted() {
        let done = Completed::of((0..250).map(|i| i.to_string()).collect());
        assert_eq!(done.values.len(), 100);
        assert_eq!((done.total, done.has_more), (250, true));
        let few = Completed::of(vec![String::from("a")]);
        assert_eq!((few.total, few.has_more), (1, false));
    }
}
