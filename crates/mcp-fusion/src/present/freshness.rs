//! [`Freshness`]: how long a read action's results stay fresh.

use serde_json::{Value, json};

/// How long the results of a read action stay fresh
/// ([`Action::freshness`](crate::Action::freshness)). Clients see it in the
/// tool's `_meta["mcp-fusion/freshness"]` (a plain tool; a group's action
/// has it as `freshness` in its entry of `_meta["mcp-fusion/actions"]`) as
/// `{"noStore": true}` or `{"maxAgeSeconds": n}`, and the model reads it as
/// one sentence at the end of the description (`docs/wire-contract.md`
/// §9.3).
///
/// ```
/// use mcp_fusion::present::Freshness;
///
/// assert_eq!(
///     Freshness::Seconds(30).sentence(),
///     "Results stay fresh for 30 seconds; read again after that."
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Freshness {
    /// A result is stale as soon as it is read: read again before relying
    /// on an earlier one (`Cache-Control: no-store`).
    NoStore,
    /// A result stays fresh for this many seconds after it is read.
    Seconds(u32),
}

impl Freshness {
    /// The sentence appended to the description: `Results are never fresh
    /// for long; read again before relying on an earlier one.` or `Results
    /// stay fresh for {n} seconds; read again after that.`
    pub fn sentence(self) -> String {
        match self {
            Freshness::NoStore => String::from(
                "Results are never fresh for long; read again before relying on an earlier one.",
            ),
            Freshness::Seconds(n) => {
                format!("Results stay fresh for {n} seconds; read again after that.")
            }
        }
    }

    /// Its `_meta` form: `{"noStore": true}` or `{"maxAgeSeconds": n}`.
    pub fn to_json(self) -> Value {
        match self {
            Freshness::NoStore => json!({"noStore": true}),
            Freshness::Seconds(n) => json!({"maxAgeSeconds": n}),
        }
    }

    /// Reads its `_meta` form; `None` for any other value.
    pub fn from_json(value: &Value) -> Option<Freshness> {
        if value.get("noStore") == Some(&Value::Bool(true)) {
            return Some(Freshness::NoStore);
        }
        let seconds = value.get("maxAgeSeconds")?.as_u64()?;
        u32::try_from(seconds).ok().map(Freshness::Seconds)
    }

    /// `description` with [`sentence`](Self::sentence) appended (after a
    /// space), or the sentence alone when there is no description.
    pub(crate) fn describe(self, description: Option<&str>) -> String {
        match description.map(str::trim_end).filter(|d| !d.is_empty()) {
            Some(text) => format!("{text} {}", self.sentence()),
            None => self.sentence(),
        }
    }
}
