//! [`ContractAwareness`]: the contract changes a validation failure carries
//! when the server runs with self-healing (wire contract §4.1,
//! `docs/contracts.md`). Plain data; [`crate::envelope`] renders it and
//! [`crate::contract`] computes it.

use std::fmt;
use std::str::FromStr;

/// How much a contract change can hurt a caller that learned the old
/// contract, from least to most: `COSMETIC < SAFE < RISKY < BREAKING`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeSeverity {
    /// Text only (a description); calls are unaffected.
    Cosmetic,
    /// Every call that worked still works (something was added or loosened).
    Safe,
    /// Calls may behave differently or fail (a bound tightened, a field
    /// renamed, a pattern changed).
    Risky,
    /// Calls that worked will fail (an action or a required field removed, a
    /// type changed, an enum value removed).
    Breaking,
}

impl ChangeSeverity {
    /// Every severity, most severe first.
    pub const ALL: [ChangeSeverity; 4] = [
        ChangeSeverity::Breaking,
        ChangeSeverity::Risky,
        ChangeSeverity::Safe,
        ChangeSeverity::Cosmetic,
    ];

    /// The wire name: `BREAKING`, `RISKY`, `SAFE` or `COSMETIC`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeSeverity::Cosmetic => "COSMETIC",
            ChangeSeverity::Safe => "SAFE",
            ChangeSeverity::Risky => "RISKY",
            ChangeSeverity::Breaking => "BREAKING",
        }
    }
}

impl fmt::Display for ChangeSeverity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no [`ChangeSeverity`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown change severity {0:?}: expected BREAKING, RISKY, SAFE or COSMETIC")]
pub struct UnknownChangeSeverity(pub String);

impl FromStr for ChangeSeverity {
    type Err = UnknownChangeSeverity;

    /// Reads the wire name, exactly as [`ChangeSeverity::as_str`] writes it.
    ///
    /// # Errors
    /// [`UnknownChangeSeverity`] for any other string.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ChangeSeverity::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or_else(|| UnknownChangeSeverity(s.to_owned()))
    }
}

/// One `<delta>` line of a `<contract_awareness>` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwarenessDelta {
    /// How much the change can hurt.
    pub severity: ChangeSeverity,
    /// What changed: an input field path (`period`, `address.city`,
    /// `lines[].amount`), or a marker in parentheses for a part of the
    /// contract that is not an input field (`(action)`, `(readOnlyHint)`,
    /// `(output).total`, …; `docs/contracts.md` lists them).
    pub field: String,
    /// One line for the model: what changed, then `Before: X.` and `Now: Y.`
    /// when there are values, e.g. `Field "period" was renamed to
    /// "time_range". Before: enum day|week. Now: enum day|week|month.`
    pub text: String,
}

/// The `<contract_awareness>` section of a `<validation_error>` (§4.1): the
/// changes between the known-good lockfile and the running server that
/// concern the failing action or its whole tool, most severe first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractAwareness {
    /// The dotted action whose contract changed (`reports.summary`), or the
    /// tool name for an ungrouped tool.
    pub action: String,
    /// How many changes concern the action (before the cap), at least
    /// `deltas.len()`.
    pub changes: usize,
    /// The most severe of all `changes`, not only of the ones shown.
    pub max_severity: ChangeSeverity,
    /// The changes shown, most severe first, at most the configured cap
    /// (5 by default).
    pub deltas: Vec<AwarenessDelta>,
}
