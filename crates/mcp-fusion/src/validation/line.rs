//! What every phrasing file of the validator shares: the [`Ctx`] it reads,
//! the [`Line`] it writes, and the expectation of pinned values.

use serde_json::Value;

use super::expect::{did_you_mean, pinned_expected};
use super::path::Seg;
use super::plan::Plan;
use super::sent::sent_into;

/// What the phrasing reads besides the error: the action's schema and the
/// arguments as validated.
pub(crate) struct Ctx<'a> {
    /// The whole schema as compiled (the root `$ref`s resolve against).
    pub root: &'a Value,
    /// The whole schema as the user gave it (without the integer ranges
    /// added for compiling): which bounds the user wrote.
    pub given: &'a Value,
    /// The whole arguments object.
    pub instance: &'a Value,
    /// The phrasing resolved when the validator was built: looked up first,
    /// the schema walked for what it does not hold.
    pub plan: &'a Plan,
}

/// A field line before ordering.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// Where, as instance segments.
    pub segs: Vec<Seg>,
    /// The JSON Schema keyword the line is about.
    pub keyword: &'static str,
    /// `{problem}. You sent: {sent}. {expected}`.
    pub message: String,
    /// The one value the line names as the fix, with the value sent: the
    /// option a `Did you mean` names, the number or boolean a string spells
    /// where one is expected. The next step of the failure names them when
    /// every line has one (`ValidationFailure::next_step`).
    pub fix: Option<Fix>,
}

/// A value sent and the one to send instead.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fix {
    pub sent: Value,
    pub to: Value,
}

impl Line {
    /// A line about the value `value` (`None`: absent), its `You sent:`
    /// clause written straight into the message.
    pub(crate) fn about(
        segs: Vec<Seg>,
        keyword: &'static str,
        problem: &str,
        value: Option<&Value>,
        expected: &str,
    ) -> Self {
        let message = compose(problem, expected, 40, |message| sent_into(message, value));
        Line::of(segs, keyword, message)
    }

    pub(crate) fn new(
        segs: Vec<Seg>,
        keyword: &'static str,
        problem: &str,
        sent: &str,
        expected: &str,
    ) -> Self {
        let message = compose(problem, expected, sent.len() + 14, |message| {
            message.push_str(sent);
        });
        Line::of(segs, keyword, message)
    }

    /// The line at `segs` about `keyword` saying `message`, naming no fix.
    fn of(segs: Vec<Seg>, keyword: &'static str, message: String) -> Self {
        Line {
            segs,
            keyword,
            message,
            fix: None,
        }
    }

    /// The line naming `fix` as the value to send instead of `sent`.
    pub(crate) fn fixing(mut self, sent: &Value, fix: Option<Value>) -> Self {
        self.fix = fix.map(|to| Fix {
            sent: sent.clone(),
            to,
        });
        self
    }
}

/// `{problem}. You sent: {sent}. {expected}`, `sent` writing its clause;
/// `extra` is the capacity reserved besides `problem` and `expected`.
fn compose(problem: &str, expected: &str, extra: usize, sent: impl FnOnce(&mut String)) -> String {
    let mut message = String::with_capacity(problem.len() + expected.len() + extra);
    message.push_str(problem);
    message.push_str(". You sent: ");
    sent(&mut message);
    message.push_str(". ");
    message.push_str(expected);
    message
}

/// `Expected one of: 'a', 'b'.` / `Expected exactly 'a'.` with a guess from
/// a description after it, or `Did you mean 'b'?` alone for a near option
/// (`described`: see [`did_you_mean`]; [`Suggestion::after`]); with the
/// option it names.
pub(crate) fn expected_pinned(
    value: &Value,
    options: &[&Value],
    described: &[(&str, &str)],
) -> (String, Option<Value>) {
    let suggestion = did_you_mean(value, options, described);
    let expected = suggestion
        .after(|| pinned_expected(options).into())
        .into_owned();
    (expected, suggestion.option)
}
