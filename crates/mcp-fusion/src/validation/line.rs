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
        Self::compose(segs, keyword, problem, expected, 40, |message| {
            sent_into(message, value);
        })
    }

    pub(crate) fn new(
        segs: Vec<Seg>,
        keyword: &'static str,
        problem: &str,
        sent: &str,
        expected: &str,
    ) -> Self {
        Self::compose(
            segs,
            keyword,
            problem,
            expected,
            sent.len() + 14,
            |message| {
                message.push_str(sent);
            },
        )
    }

    /// `{problem}. You sent: {sent}. {expected}`, `sent` writing its clause;
    /// `extra` is the capacity reserved besides `problem` and `expected`.
    fn compose(
        segs: Vec<Seg>,
        keyword: &'static str,
        problem: &str,
        expected: &str,
        extra: usize,
        sent: impl FnOnce(&mut String),
    ) -> Self {
        let mut message = String::with_capacity(problem.len() + expected.len() + extra);
        message.push_str(problem);
        message.push_str(". You sent: ");
        sent(&mut message);
        message.push_str(". ");
        message.push_str(expected);
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

/// `Expected one of: 'a', 'b'.` / `Expected exactly 'a'.`, then the
/// suggestion (`described`: see [`did_you_mean`]); with the option it names.
pub(crate) fn expected_pinned(
    value: &Value,
    options: &[&Value],
    described: &[(&str, &str)],
) -> (String, Option<Value>) {
    let mut out = pinned_expected(options);
    let suggestion = did_you_mean(value, options, described);
    out.push_str(&suggestion.text);
    (out, suggestion.option)
}
