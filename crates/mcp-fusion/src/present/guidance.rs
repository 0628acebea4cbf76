//! [`Guidance`]: what a presenter tells the model beside the data — the
//! collection limit's summary, the domain rules, the suggested next calls —
//! and its one text block (wire contract §9.1).

use serde_json::{Map, Value};

use super::suggestion::Suggestion;

/// The elements of the guidance block, in their order (wire contract
/// §9.1): the collection limit's summary, the domain rules, the suggested
/// next calls.
const LIMIT_TAG: &str = "result_limit";
const RULES_TAG: &str = "domain_rules";
const ACTIONS_TAG: &str = "next_actions";

/// Whether `text` (a content block's) is a presenter's guidance block: it
/// starts with one of its elements (`<result_limit `, `<domain_rules>`,
/// `<next_actions>`). For a client that shows the data apart from the
/// guidance (`fusion call` prints it on stderr).
pub fn is_guidance(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('<') else {
        return false;
    };
    [LIMIT_TAG, RULES_TAG, ACTIONS_TAG].iter().any(|tag| {
        rest.strip_prefix(tag)
            .is_some_and(|after| after.starts_with('>') || after.starts_with(' '))
    })
}

/// Whether `text` (a content block's) is a notice the server adds to a
/// result for the model: the stale-reads notice (`<stale_reads `, wire
/// contract §9.3, first) or the egress notice (`<egress_notice>`, §9.2,
/// last). For a client that shows the data apart from what is written for
/// the model (`fusion call` prints them on stderr with the guidance).
pub fn is_notice(text: &str) -> bool {
    let opens = |tag: &str, after: char| {
        text.strip_prefix('<')
            .and_then(|rest| rest.strip_prefix(tag))
            .is_some_and(|rest| rest.starts_with(after))
    };
    opens(super::state_sync::NOTICE_TAG, ' ') || opens(super::egress::NOTICE_TAG, '>')
}

/// The most suggested calls one result shows (the first ones, in the
/// order the values and the presenter's suggestions give them).
pub const MAX_SUGGESTIONS: usize = 5;

/// What a list's agent limit cut: it held `total` values, `shown` of them
/// were sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Cut {
    /// How many values were sent.
    pub shown: usize,
    /// How many the handler returned.
    pub total: usize,
}

/// A suggested call: the action it names (dotted, `billing.pay_invoice`,
/// or a plain tool) and the suggestion.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Suggested {
    /// The action, as the presenter named it.
    pub action: String,
    /// Its arguments and reason.
    pub suggestion: Suggestion,
}

/// What a presenter computed beside the data of one result: the limit's
/// cut, the rules (deduplicated, in order) and the suggested calls
/// (deduplicated, at most [`MAX_SUGGESTIONS`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Guidance {
    /// What the agent limit cut, when it cut.
    pub cut: Option<Cut>,
    /// The domain rules, each once.
    pub rules: Vec<String>,
    /// The suggested next calls, each once.
    pub suggestions: Vec<Suggested>,
}

impl Guidance {
    /// Adds `rule` unless it is there already.
    pub(crate) fn add_rule(&mut self, rule: String) {
        if !rule.trim().is_empty() && !self.rules.contains(&rule) {
            self.rules.push(rule);
        }
    }

    /// Adds a call of `action` unless the same call is there already.
    pub(crate) fn add_suggestion(&mut self, action: &str, suggestion: Suggestion) {
        let same =
            |s: &Suggested| s.action == action && s.suggestion.arguments == suggestion.arguments;
        if self.suggestions.len() < MAX_SUGGESTIONS && !self.suggestions.iter().any(same) {
            self.suggestions.push(Suggested {
                action: action.to_owned(),
                suggestion,
            });
        }
    }

    /// Whether it has nothing to say.
    pub fn is_empty(&self) -> bool {
        self.cut.is_none() && self.rules.is_empty() && self.suggestions.is_empty()
    }
}

/// How to call an action: the tool's name, and for a group's action the
/// discriminator's name and the action's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallTarget {
    pub tool: String,
    pub discriminator: Option<(String, String)>,
}

/// What the limit's summary names: the action (dotted) to call again and
/// the arguments that narrow it.
pub(crate) struct Narrowing<'a> {
    pub action: &'a str,
    pub narrowed_by: &'a [String],
}

/// The guidance block (§9.1): `<result_limit>`, `<domain_rules>`,
/// `<next_actions>`, each only when it has something, one per line group;
/// `target` resolves a suggestion's action (`None`: dropped, with a
/// warning in the log). `None` when nothing is left to say.
pub(crate) fn render(
    guidance: &Guidance,
    narrowing: &Narrowing<'_>,
    target: &dyn Fn(&str) -> Option<CallTarget>,
) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(cut) = guidance.cut {
        parts.push(limit_summary(cut, narrowing));
    }
    if !guidance.rules.is_empty() {
        let lines: Vec<String> = guidance
            .rules
            .iter()
            .map(|r| format!("- {}", text(r)))
            .collect();
        parts.push(format!(
            "<domain_rules>\n{}\n</domain_rules>",
            lines.join("\n")
        ));
    }
    let calls: Vec<String> = guidance
        .suggestions
        .iter()
        .filter_map(|s| match target(&s.action) {
            Some(call) => Some(call_line(&call, &s.suggestion)),
            None => {
                tracing::warn!(action = %s.action, "a presenter suggested an action the server does not have; dropped");
                None
            }
        })
        .collect();
    if !calls.is_empty() {
        parts.push(format!(
            "<next_actions>\n{}\n</next_actions>",
            calls.join("\n")
        ));
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// `<result_limit shown="N" total="M">…</result_limit>`.
fn limit_summary(cut: Cut, narrowing: &Narrowing<'_>) -> String {
    let Cut { shown, total } = cut;
    let how = match narrowing.narrowed_by {
        [] => format!(
            "To see the others, call {} again with narrower arguments.",
            narrowing.action
        ),
        names => format!(
            "To see the others, call {} again narrowed by {}.",
            narrowing.action,
            names.join(", ")
        ),
    };
    format!(
        "<{LIMIT_TAG} shown=\"{shown}\" total=\"{total}\">Showing {shown} of {total} results. {}</{LIMIT_TAG}>",
        text(&how)
    )
}

/// `- Call TOOL with {ARGUMENTS}: REASON`, the group's discriminator first
/// in the arguments.
fn call_line(call: &CallTarget, suggestion: &Suggestion) -> String {
    let mut arguments = Map::new();
    if let Some((field, key)) = &call.discriminator {
        arguments.insert(field.clone(), Value::String(key.clone()));
    }
    for (name, value) in &suggestion.arguments {
        arguments.insert(name.clone(), value.clone());
    }
    let json = escaped_json(&Value::Object(arguments).to_string());
    format!(
        "- Call {} with {json}: {}",
        text(&call.tool),
        text(&suggestion.reason)
    )
}

/// Whether `c` ends a line or is a control character: `\n`, `\r`, NUL,
/// ESC, DEL, the C1 controls (U+0085 is a line end) and the Unicode line
/// and paragraph separators (U+2028, U+2029), which a reader may take for
/// a new line (a forged list item) or a terminal for a command.
fn breaks_lines(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Element text: `&` and `<` escaped, line ends and control characters as
/// spaces (one item per line).
pub(super) fn text(raw: &str) -> String {
    raw.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace(breaks_lines, " ")
}

/// Compact JSON `json` with `<`, `&`, and the line ends and control
/// characters serde_json writes raw (DEL, the C1 controls, U+2028,
/// U+2029), written as `\uXXXX` escapes: the same JSON, no markup, one
/// line. They can only be inside its strings.
fn escaped_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c == '<' || c == '&' || breaks_lines(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_without_narrowing_arguments_and_with_markup_in_its_texts() {
        let mut guidance = Guidance {
            cut: Some(Cut { shown: 1, total: 4 }),
            ..Guidance::default()
        };
        guidance.add_rule(String::from(
            "Totals < 0 mean credit & refunds.\nAsk first.",
        ));
        guidance.add_rule(String::from(
            "Totals < 0 mean credit & refunds.\nAsk first.",
        ));
        guidance.add_suggestion(
            "notes.add",
            Suggestion::new("Note <this>.").argument("text", "a<b&c"),
        );
        guidance.add_suggestion("gone", Suggestion::new("Never shown."));
        let narrowing = Narrowing {
            action: "notes.list",
            narrowed_by: &[],
        };
        let target = |action: &str| {
            (action == "notes.add").then(|| CallTarget {
                tool: String::from("notes"),
                discriminator: Some((String::from("op"), String::from("add"))),
            })
        };
        assert_eq!(
            render(&guidance, &narrowing, &target).as_deref(),
            Some(
                "<result_limit shown=\"1\" total=\"4\">Showing 1 of 4 results. To see the others, call notes.list again with narrower arguments.</result_limit>\n<domain_rules>\n- Totals &lt; 0 mean credit &amp; refunds. Ask first.\n</domain_rules>\n<next_actions>\n- Call notes with {\"op\":\"add\",\"text\":\"a\\u003cb\\u0026c\"}: Note &lt;this>.\n</next_actions>"
            )
        );
        assert_eq!(render(&Guidance::default(), &narrowing, &target), None);
        assert!(is_guidance("<domain_rules>\n- x\n</domain_rules>"));
        assert!(is_guidance(
            "<result_limit shown=\"1\" total=\"2\">…</result_limit>"
        ));
        assert!(!is_guidance("<tool_error code=\"X\">"));
        assert!(!is_guidance("<domain_rulesx>"));
    }
}
