//! [`SelfHealing`]: the contract changes since the known-good lockfile,
//! computed once when the server is built and handed to every validation
//! failure of a changed action (wire contract §4.1, `docs/contracts.md`).

use std::collections::HashMap;

use super::delta::{ContractDiff, Delta};
use super::diff::diff;
use super::server::ServerContract;
use crate::error::{AwarenessDelta, ChangeSeverity, ContractAwareness};

/// How many deltas a `<contract_awareness>` shows by default.
pub const DEFAULT_MAX_DELTAS: usize = 5;

/// Settings of self-healing: `SelfHealingOptions::default()` and the setters
/// below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SelfHealingOptions {
    /// The most deltas one `<contract_awareness>` shows (default
    /// [`DEFAULT_MAX_DELTAS`]); the count and the maximum severity still
    /// cover them all. `0` turns the section off.
    pub max_deltas: usize,
    /// Whether SAFE and COSMETIC changes are shown too (default `false`:
    /// BREAKING and RISKY only).
    pub include_all_severities: bool,
}

impl Default for SelfHealingOptions {
    fn default() -> Self {
        SelfHealingOptions {
            max_deltas: DEFAULT_MAX_DELTAS,
            include_all_severities: false,
        }
    }
}

impl SelfHealingOptions {
    /// Sets [`max_deltas`](Self::max_deltas).
    pub fn max_deltas(mut self, max: usize) -> Self {
        self.max_deltas = max;
        self
    }

    /// Sets [`include_all_severities`](Self::include_all_severities).
    pub fn include_all_severities(mut self, all: bool) -> Self {
        self.include_all_severities = all;
        self
    }
}

/// The deltas between a lockfile and the running server, and, for each
/// action of the server that has some, the `<contract_awareness>` its
/// validation failures carry.
#[derive(Debug, Clone)]
pub struct SelfHealing {
    diff: ContractDiff,
    /// By (tool, action name): the ready section.
    awareness: HashMap<(String, String), ContractAwareness>,
}

impl SelfHealing {
    /// Compares `locked` (the known-good contract) with `current` and
    /// prepares the section of every action of `current`: its own deltas
    /// (exact action name match) and its tool's tool-wide ones, filtered by
    /// severity, most severe first (a stable sort: the diff's order within a
    /// severity), capped at `options.max_deltas`, with the number of all of
    /// them and their true maximum severity.
    pub fn new(
        locked: &ServerContract,
        current: &ServerContract,
        options: SelfHealingOptions,
    ) -> Self {
        let diff = diff(locked, current);
        let mut awareness = HashMap::new();
        if options.max_deltas > 0 {
            for (tool_name, tool) in &current.tools {
                for action_name in tool.actions.keys() {
                    let mut relevant: Vec<&Delta> = diff
                        .deltas
                        .iter()
                        .filter(|d| {
                            d.tool == *tool_name
                                && d.action.as_ref().is_none_or(|a| a == action_name)
                        })
                        .filter(|d| {
                            options.include_all_severities || d.severity >= ChangeSeverity::Risky
                        })
                        .collect();
                    let Some(max_severity) = relevant.iter().map(|d| d.severity).max() else {
                        continue;
                    };
                    relevant.sort_by_key(|d| std::cmp::Reverse(d.severity));
                    let dotted = if tool_name == action_name {
                        tool_name.clone()
                    } else {
                        format!("{tool_name}.{action_name}")
                    };
                    let section = ContractAwareness {
                        action: dotted,
                        changes: relevant.len(),
                        max_severity,
                        deltas: relevant
                            .iter()
                            .take(options.max_deltas)
                            .map(|d| AwarenessDelta {
                                severity: d.severity,
                                field: d.field.clone(),
                                text: d.sentence(),
                            })
                            .collect(),
                    };
                    awareness.insert((tool_name.clone(), action_name.clone()), section);
                }
            }
        }
        SelfHealing { diff, awareness }
    }

    /// Every change between the lockfile and the server, all severities.
    pub fn diff(&self) -> &ContractDiff {
        &self.diff
    }

    /// The section for validation failures of `action` of `tool` (the tool
    /// name again for an ungrouped tool); `None` when nothing relevant
    /// changed. Names match exactly: `get` never picks up `get_all`'s
    /// changes.
    pub fn awareness(&self, tool: &str, action: &str) -> Option<&ContractAwareness> {
        self.awareness.get(&(tool.to_owned(), action.to_owned()))
    }
}
