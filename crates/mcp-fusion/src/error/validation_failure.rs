//! [`ValidationFailure`]: every way the arguments missed the action's schema (wire contract §4).

use super::contract_awareness::ContractAwareness;

/// One `<field>` line of a `<validation_error>` envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field path joined with dots, array indices as numbers (`items.2.price`);
    /// `(root)` for the whole input (§4).
    pub path: String,
    /// What is wrong, `You sent: X.`, then what is expected, e.g.
    /// `Invalid email format. You sent: 'x'. Expected a valid email address (e.g. user@example.com).`
    pub message: String,
}

impl FieldError {
    /// A field line for `path` saying `message`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// A validation failure: the arguments of `action` did not match its JSON Schema.
///
/// Rendered by [`crate::envelope`] as `<validation_error action="…">` with one
/// `<field>` per entry and the fixed recovery line [`VALIDATION_RECOVERY`];
/// `isError` is true and the `_meta` code is `VALIDATION_ERROR` (§4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationFailure {
    /// The dotted action name (`billing.get_invoice`), or the tool name for an
    /// ungrouped tool.
    pub action: String,
    /// Every problem found, in the order the model should read them.
    pub fields: Vec<FieldError>,
    /// With self-healing on, the contract changes of the action since the
    /// known-good lockfile (§4.1), rendered as `<contract_awareness>` just
    /// before `</validation_error>`; `None` otherwise.
    pub contract_awareness: Option<ContractAwareness>,
}

/// The final line of every `<validation_error>`, exactly as §4 fixes it.
pub const VALIDATION_RECOVERY: &str =
    "Fix the fields above and call the tool again. Do not explain the error.";

impl ValidationFailure {
    /// A failure of `action` with the given field lines (and no contract
    /// awareness).
    pub fn new(action: impl Into<String>, fields: Vec<FieldError>) -> Self {
        ValidationFailure {
            action: action.into(),
            fields,
            contract_awareness: None,
        }
    }

    /// The same failure carrying `awareness` (§4.1).
    pub fn with_contract_awareness(mut self, awareness: ContractAwareness) -> Self {
        self.contract_awareness = Some(awareness);
        self
    }

    /// The one-sentence summary used as `message` in `_meta` and in `Display`:
    /// `The arguments for ACTION are not valid (N problems).` (`at least N`
    /// when counting stopped), or without `for ACTION` when the action is
    /// empty (a foreign envelope that named none).
    pub fn summary(&self) -> String {
        let n = self.problem_count();
        let problems = if n == 1 { "problem" } else { "problems" };
        let at_least = match self.fields.last() {
            Some(last) if last.path == MORE_PATH && last.message.starts_with("At least ") => {
                "at least "
            }
            _ => "",
        };
        if self.action.is_empty() {
            return format!("The arguments are not valid ({at_least}{n} {problems}).");
        }
        format!(
            "The arguments for {} are not valid ({at_least}{n} {problems}).",
            self.action
        )
    }
}

/// The path of the last field line when some problems are not listed; its
/// message starts with how many (`12 more problems are not shown. …`).
pub const MORE_PATH: &str = "(more)";

/// The `(more)` line saying that `left_out` problems are not listed.
pub(crate) fn more_line(left_out: usize) -> FieldError {
    let count = if left_out == 1 {
        String::from("1 more problem is")
    } else {
        format!("{left_out} more problems are")
    };
    more(&count)
}

/// [`more_line`] when counting stopped at `left_out`: `At least N more
/// problems are not shown. …`.
pub(crate) fn more_line_at_least(left_out: usize) -> FieldError {
    more(&format!("At least {left_out} more problems are"))
}

fn more(count: &str) -> FieldError {
    FieldError::new(
        MORE_PATH,
        format!("{count} not shown. Fix the fields above and call again to see the rest."),
    )
}

impl ValidationFailure {
    /// How many problems the arguments have: the listed lines, plus the count
    /// a final `(more)` line gives for the ones left out (at least that many
    /// when it says "At least").
    pub fn problem_count(&self) -> usize {
        match self.fields.last() {
            Some(last) if last.path == MORE_PATH => {
                let hidden = last
                    .message
                    .trim_start_matches("At least ")
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(0);
                self.fields.len() - 1 + hidden
            }
            _ => self.fields.len(),
        }
    }
}

impl std::fmt::Display for ValidationFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VALIDATION_ERROR: {}", self.summary())
    }
}

impl std::error::Error for ValidationFailure {}
