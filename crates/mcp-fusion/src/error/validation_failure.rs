//! [`ValidationFailure`]: every way the arguments missed the action's schema (wire contract §4).

use serde_json::Value;

use super::contract_awareness::ContractAwareness;

/// One `<field>` line of a `<validation_error>` envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field path joined with dots, array indices as numbers (`items.2.price`);
    /// `(root)` for the whole input (§4).
    pub path: String,
    /// What is wrong, `You sent: X.`, then what is expected, e.g.
    /// `Invalid email format. You sent: 'x'. Expected a valid email address.`
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
/// Rendered by [`crate::envelope`] as the next step in one plain line
/// ([`ValidationFailure::next_step`], e.g. `Fix the fields below and call
/// billing again.`), then `<validation_error action="…">` with one `<field>`
/// per entry and the fixed recovery line [`VALIDATION_RECOVERY`]; `isError`
/// is true and the `_meta` code is `VALIDATION_ERROR` (§4).
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
    /// The line written before the envelope when it is not the default
    /// `Fix the fields below and call TOOL again.`: the framework sets it
    /// when every field line names the one value to send (`Replace
    /// "status": "PAID" with "status": "paid", keep your other arguments,
    /// and call billing again.`, at most five fields, each value's JSON at
    /// most 100 characters);
    /// [`envelope::parse`](crate::envelope::parse)
    /// reads back a line that differs from the default. One line, at most
    /// 2 000 characters, once normalized (§4).
    pub next_step: Option<String>,
}

/// The `<recovery>` line of every `<validation_error>`, exactly as §4 fixes
/// it: the instruction the seed gives, against the model's reflex of
/// apologising to the user instead of calling again. What to fix and which
/// tool to call comes first, before the envelope ([`ValidationFailure::next_step`]).
pub const VALIDATION_RECOVERY: &str = "Do not explain the error.";

impl ValidationFailure {
    /// A failure of `action` with the given field lines (and no contract
    /// awareness).
    pub fn new(action: impl Into<String>, fields: Vec<FieldError>) -> Self {
        ValidationFailure {
            action: action.into(),
            fields,
            contract_awareness: None,
            next_step: None,
        }
    }

    /// The same failure carrying `awareness` (§4.1).
    pub fn with_contract_awareness(mut self, awareness: ContractAwareness) -> Self {
        self.contract_awareness = Some(awareness);
        self
    }

    /// The line written before the envelope (§4): the one set in
    /// [`next_step`](Self::next_step), else the default `Fix the fields
    /// below and call TOOL again.`, TOOL being the action's tool (the part before the
    /// first dot), or `the tool` when the action is empty (a foreign envelope
    /// that named none, or one longer than the 128 characters a tool name may
    /// have, MCP 2025-11-25 "Tool names"); for a resource template's variables (an action that
    /// is a URI, with `://`), `Fix the fields below and read the resource
    /// again.` A real model reads an instruction at the top and
    /// acts on it; the same words at the end it relays to the user
    /// (`docs/actionability.md`).
    pub fn next_step(&self) -> String {
        if let Some(line) = &self.next_step {
            return line.clone();
        }
        self.default_next_step()
    }

    /// The next step of a failure that names no value to send:
    /// `Fix the fields below and call TOOL again.` (see
    /// [`next_step`](Self::next_step)).
    pub fn default_next_step(&self) -> String {
        if self.action.contains("://") {
            return String::from("Fix the fields below and read the resource again.");
        }
        match self.action.split('.').next() {
            // One line whatever the name holds.
            Some(tool) if !tool.trim().is_empty() && tool.chars().count() <= MAX_TOOL_NAME => {
                let tool = crate::text::one_line(tool);
                format!("Fix the fields below and call {tool} again.")
            }
            _ => String::from("Fix the fields below and call the tool again."),
        }
    }

    /// The next step that names, for each field of `fixes` (its dotted
    /// path, the value sent, the value to send), both values:
    /// `Replace "status": "PAID" with "status": "paid", keep your other
    /// arguments, and call billing again.` (two: `Replace "a": "1" with
    /// "a": 1 and "b": "x" with "b": "y", …`). A real model sent the fix
    /// after a line naming the value sent beside the one to send more often
    /// than after one naming only the value to send, or pointing to the
    /// lines below (`actionability/model/FINDINGS.md`). `None` when there
    /// is no field or more than [`MAX_SETTINGS`], when a value's JSON is
    /// longer than [`MAX_SETTING_CHARS`], for a resource (`action` is a URI)
    /// and for an action whose tool name is blank or longer than 128
    /// characters.
    pub(crate) fn replacing(action: &str, fixes: &[(&str, &Value, &Value)]) -> Option<String> {
        let tool = action.split('.').next()?;
        if action.contains("://")
            || tool.trim().is_empty()
            || tool.chars().count() > MAX_TOOL_NAME
            || fixes.is_empty()
            || fixes.len() > MAX_SETTINGS
        {
            return None;
        }
        // A value is named only as it is written: no character the
        // envelope would escape (`<`, `>`, `&`) or the line would change
        // (line ends, U+2028).
        let json = |value: &Value| {
            let text = crate::json::compact(value);
            let exact = !text.contains(['<', '>', '&'])
                && matches!(crate::text::one_line(&text), std::borrow::Cow::Borrowed(_));
            (exact && text.chars().count() <= MAX_SETTING_CHARS).then_some(text)
        };
        let mut replacements = Vec::with_capacity(fixes.len());
        for (path, sent, to) in fixes {
            let (sent, to) = (json(sent)?, json(to)?);
            replacements.push(format!("\"{path}\": {sent} with \"{path}\": {to}"));
        }
        let last = replacements.pop()?;
        let all = if replacements.is_empty() {
            last
        } else {
            format!("{} and {last}", replacements.join(", "))
        };
        let line = format!("Replace {all}, keep your other arguments, and call {tool} again.");
        Some(crate::text::one_line(&line).into_owned())
    }

    /// The whole instruction, as `_meta` and the client's typed error carry
    /// it in `recovery`: [`next_step`](Self::next_step), then
    /// [`VALIDATION_RECOVERY`].
    pub fn recovery(&self) -> String {
        format!("{} {VALIDATION_RECOVERY}", self.next_step())
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

/// The most fields [`ValidationFailure::replacing`] names.
pub(crate) const MAX_SETTINGS: usize = 5;

/// The longest value [`ValidationFailure::replacing`] names, in characters
/// of its JSON text.
pub(crate) const MAX_SETTING_CHARS: usize = 100;

/// The longest tool name [`ValidationFailure::next_step`] repeats, in
/// characters (MCP 2025-11-25, "Tool names": 1 to 128 characters).
const MAX_TOOL_NAME: usize = 128;

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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_replacement_names_each_value_sent_and_to_send_and_the_tool() {
        let (caps, paid, one, three, yes) = (
            json!("PAID"),
            json!("paid"),
            json!("3"),
            json!(3),
            json!("true"),
        );
        assert_eq!(
            ValidationFailure::replacing("billing.list_invoices", &[("status", &caps, &paid)])
                .as_deref(),
            Some(
                r#"Replace "status": "PAID" with "status": "paid", keep your other arguments, and call billing again."#
            )
        );
        assert_eq!(
            ValidationFailure::replacing(
                "report",
                &[
                    ("a", &caps, &paid),
                    ("b", &one, &three),
                    ("c.0", &yes, &json!(true))
                ]
            )
            .as_deref(),
            Some(
                r#"Replace "a": "PAID" with "a": "paid", "b": "3" with "b": 3 and "c.0": "true" with "c.0": true, keep your other arguments, and call report again."#
            )
        );
    }

    #[test]
    fn no_replacement_where_it_would_not_be_one_short_line() {
        let (caps, paid) = (json!("PAID"), json!("paid"));
        let long = json!("x".repeat(MAX_SETTING_CHARS));
        let six = vec![("a", &caps, &paid); MAX_SETTINGS + 1];
        assert_eq!(ValidationFailure::replacing("billing", &[]), None);
        assert_eq!(ValidationFailure::replacing("billing", &six), None);
        assert_eq!(
            ValidationFailure::replacing("billing", &[("a", &caps, &long)]),
            None
        );
        assert_eq!(
            ValidationFailure::replacing("billing", &[("a", &long, &paid)]),
            None
        );
        assert_eq!(
            ValidationFailure::replacing("test://x/{id}", &[("id", &caps, &paid)]),
            None
        );
        assert_eq!(
            ValidationFailure::replacing(" .a", &[("a", &caps, &paid)]),
            None
        );
        let five = vec![("a", &caps, &paid); MAX_SETTINGS];
        assert!(ValidationFailure::replacing("billing", &five).is_some());
        let line = ValidationFailure::replacing("bill\ning", &[("a\r\nb", &json!("x\ny"), &paid)])
            .unwrap();
        assert_eq!(line.lines().count(), 1, "{line}");
        for sent in ["<b>", "a & b", "a\u{2028}b"] {
            assert_eq!(
                ValidationFailure::replacing("billing", &[("a", &json!(sent), &paid)]),
                None,
                "{sent:?} would not be shown as sent"
            );
        }
    }
}
