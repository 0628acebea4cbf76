//! [`Severity`]: how bad a failure is, and whether it sets `isError` (wire contract §3).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The `severity` attribute of `<tool_error>` (wire contract §3).
///
/// | severity | `isError` | meaning for the model |
/// |---|---|---|
/// | `error` (default) | true | the action failed; recover and try again |
/// | `critical` | true | the action failed; do not retry blindly, escalate |
/// | `warning` | false | the action succeeded; follow the guidance |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The action failed; the model should recover and call again.
    #[default]
    Error,
    /// The action failed; the model must not retry blindly.
    Critical,
    /// The action succeeded; the envelope rides after the normal content.
    Warning,
}

impl Severity {
    /// All severities, in the order of wire contract §3's table.
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Critical, Severity::Warning];

    /// The value of `isError` for a result of this severity: `true` for `error` and
    /// `critical`, `false` for `warning` (§3).
    pub fn is_error(self) -> bool {
        !matches!(self, Severity::Warning)
    }

    /// The name written on the wire: `error`, `critical` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Critical => "critical",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Returned by `"…".parse::<Severity>()` for a name other than `error`,
/// `critical` or `warning` (the match is exact and case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown severity \"{0}\": expected one of error, critical, warning")]
pub struct UnknownSeverity(pub String);

impl FromStr for Severity {
    type Err = UnknownSeverity;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Severity::ALL
            .into_iter()
            .find(|severity| severity.as_str() == s)
            .ok_or_else(|| UnknownSeverity(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_error_follows_section_3() {
        assert!(Severity::Error.is_error());
        assert!(Severity::Critical.is_error());
        assert!(!Severity::Warning.is_error());
        assert_eq!(Severity::default(), Severity::Error);
    }

    #[test]
    fn parses_exact_names_only() {
        assert_eq!("critical".parse::<Severity>(), Ok(Severity::Critical));
        assert_eq!(
            "Error".parse::<Severity>().unwrap_err().to_string(),
            "unknown severity \"Error\": expected one of error, critical, warning"
        );
    }
}
