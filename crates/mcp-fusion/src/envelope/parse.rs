//! Reading an envelope back from text, with `quick-xml` (wire contract §2, §4, §8).
//!
//! [`parse`] is the inverse of [`render`](super::render) and
//! [`render_validation`](super::render_validation): for every failure `e`,
//! `parse(&render(&e)) == Ok(ParsedEnvelope::Tool(normalize(&e)))`, and the
//! same holds for validation failures with
//! [`normalize_validation`](super::normalize_validation).
//!
//! # What is read
//!
//! The text may hold anything before and after the envelope: a warning
//! envelope follows the normal output of a tool (§3), and prose or other XML may
//! come first. Only the envelope element itself has to be well-formed XML.
//!
//! Inside the root, reading is scoped: `<message>`, `<recovery>`,
//! `<available_actions>`, `<details>` and `<retry_after>` count only as direct
//! children of `<tool_error>`; `<action>` only directly inside that
//! `<available_actions>`, `<detail>` only directly inside that `<details>`, and
//! `<field>` and `<contract_awareness>` only directly inside
//! `<validation_error>`, and `<delta>` only directly inside that
//! `<contract_awareness>` (§4.1). Anything else (unknown elements and
//! attributes, comments, processing instructions) is skipped, for forward
//! compatibility.
//!
//! # Values
//!
//! Every value comes back unescaped: entity and character references are
//! resolved, CDATA sections are taken verbatim, and the text of elements nested
//! inside a value element is part of the value (`<message>a <b>b</b></message>`
//! reads `a b`). Element text keeps its whitespace; line ends are normalised to
//! LF as XML 1.0 requires. Attribute values are normalised as XML 1.0 requires
//! (a literal tab, CR or LF becomes a space; `&#9;`, `&#10;`, `&#13;` stay).
//!
//! # What is kept from a malformed envelope
//!
//! An envelope from a foreign or newer server may get one part wrong. The rule
//! is: keep every well-formed part, drop the bad one. The whole envelope fails
//! ([`ParseError`]) only when its XML structure cannot be read (a tag that is
//! not closed or closed by the wrong name, a `<` inside text, the text ends
//! inside it) or when a `<tool_error>` has no `code` attribute, the one part
//! without which the failure means nothing. In detail:
//!
//! - a `severity` other than `error`, `critical` or `warning` (or none) reads as
//!   [`Severity::Error`], the contract's default, so that a failure written by a
//!   newer or foreign server is still treated as a failure;
//! - a missing `<message>` reads as an empty message, and a present but empty
//!   one is returned as it is (the renderer and the client put the code's
//!   default sentence in its place); a present but empty `code` is returned as
//!   it is;
//! - `<retry_after>` is read by [`retry_after_from_text`]: `N seconds`,
//!   `N second` or a bare `N`, where `N` is a plain non-negative decimal number;
//!   it is rounded up to whole seconds and clamped to 1..=86 400, and `0` is no
//!   delay (`None`). Any other value (`-1`, `NaN`, `30abc`, `30 minutes`) is
//!   dropped whole and the rest of the envelope is kept;
//! - a `<detail>` without a `key`, or a `<field>` without a `name`, is dropped
//!   with its text; a `<validation_error>` without an `action` reads with an
//!   empty action;
//! - a repeated `<message>` or `<recovery>`: the first one counts; a repeated
//!   `<retry_after>`: the first readable one counts; repeated
//!   `<available_actions>` lists are concatenated; a repeated detail key takes
//!   the later value in the first key's place (as [`ToolError::detail`] does);
//!   a repeated attribute: the first one counts;
//! - an attribute that cannot be read (no quotes, an unknown entity in its
//!   value) is left out, as if absent;
//! - in a value, a bare `&` that starts no reference is the character `&`; an
//!   entity XML does not predefine (`&nbsp;`) is kept as written; a character
//!   reference to a character XML forbids (`&#0;`) becomes U+FFFD, as the
//!   renderer writes it;
//! - unknown elements are skipped with their text and attributes, wherever
//!   they are;
//! - the line just before a failing `<tool_error>` is its
//!   [`next_step`](ToolError::next_step) when it is not blank and holds no
//!   `<` (§2.1); before a warning it is the result, not read;
//! - `<validation_error>`'s `<recovery>` is not returned: it is always
//!   [`VALIDATION_RECOVERY`](crate::error::VALIDATION_RECOVERY); the line
//!   before the envelope, read by the same rule, is its
//!   [`next_step`](ValidationFailure::next_step) when it differs from the
//!   default one of its action (`Fix the fields below and call TOOL again.`);
//! - `<contract_awareness>` counts only with an `action`, a whole-number
//!   `changes` and a known `max_severity`, and a `<delta>` only with a known
//!   `severity` and a `field`: a section or a delta without them (a foreign
//!   or newer server's) is skipped like an unknown element, so that it never
//!   hides the field lines; `shown` is not read (it is the number of
//!   `<delta>`s); only the first section counts.

use std::borrow::Cow;
use std::time::Duration;

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;
use serde_json::Value;

use super::meta::{to_meta, validation_to_meta};
use super::render::{render, render_validation};
use crate::error::{
    AwarenessDelta, ChangeSeverity, ContractAwareness, ErrorCode, FieldError, Severity, ToolError,
    ValidationFailure, retry_after_from_text,
};

/// The root element name of a tool failure envelope (§2).
const TOOL_ERROR: &str = "tool_error";
/// The root element name of a validation failure envelope (§4).
const VALIDATION_ERROR: &str = "validation_error";
/// How many mentions of a start tag [`parse`] tries before it gives up, so that a
/// text full of unclosed mentions costs linear, not quadratic, time.
const MAX_CANDIDATES: usize = 16;

/// An envelope found in a text by [`parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedEnvelope {
    /// A `<tool_error>` (§2), every section unescaped.
    Tool(ToolError),
    /// A `<validation_error>` (§4): the action and its field lines.
    Validation(ValidationFailure),
}

impl ParsedEnvelope {
    /// The code: the `<tool_error>`'s, or [`ErrorCode::ValidationError`] for a
    /// validation failure (§4).
    pub fn code(&self) -> ErrorCode {
        match self {
            ParsedEnvelope::Tool(err) => err.code.clone(),
            ParsedEnvelope::Validation(_) => ErrorCode::ValidationError,
        }
    }

    /// The severity: the `<tool_error>`'s, or [`Severity::Error`] for a
    /// validation failure (§4).
    pub fn severity(&self) -> Severity {
        match self {
            ParsedEnvelope::Tool(err) => err.severity,
            ParsedEnvelope::Validation(_) => Severity::Error,
        }
    }

    /// Whether a result carrying this envelope has `isError: true` (§3): false
    /// only for a warning.
    pub fn is_error(&self) -> bool {
        self.severity().is_error()
    }

    /// The message: the `<tool_error>`'s `<message>`, or for a validation failure
    /// the one-sentence summary that `_meta` carries
    /// ([`ValidationFailure::summary`]).
    pub fn message(&self) -> Cow<'_, str> {
        match self {
            ParsedEnvelope::Tool(err) => Cow::Borrowed(&err.message),
            ParsedEnvelope::Validation(failure) => Cow::Owned(failure.summary()),
        }
    }

    /// The `_meta["mcp-fusion/error"]` JSON of this envelope (§1), exactly as
    /// [`to_meta`](super::to_meta) or [`validation_to_meta`](super::validation_to_meta)
    /// write it (so normalized: an envelope from a foreign server with values
    /// over the limits comes out cut).
    pub fn to_meta(&self) -> Value {
        match self {
            ParsedEnvelope::Tool(err) => to_meta(err),
            ParsedEnvelope::Validation(failure) => validation_to_meta(failure),
        }
    }

    /// The canonical XML of this envelope, as [`render`](super::render) or
    /// [`render_validation`](super::render_validation) write it.
    pub fn render(&self) -> String {
        match self {
            ParsedEnvelope::Tool(err) => render(err),
            ParsedEnvelope::Validation(failure) => render_validation(failure),
        }
    }
}

/// Why [`parse`] returned no envelope. Never a panic: every input gives either
/// an envelope or one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The text holds no `<tool_error` or `<validation_error` start tag.
    #[error("no <tool_error> or <validation_error> element in the text")]
    NotFound,
    /// An envelope starts but its XML structure cannot be read (a tag closed
    /// by the wrong name, a `<` inside text, a broken tag), or a `<tool_error>`
    /// has no readable `code` attribute. Every other flaw drops only the part
    /// it is in (see the module documentation).
    #[error("malformed <{element}> envelope at byte {offset}: {reason}")]
    Malformed {
        /// The root element: `tool_error` or `validation_error`.
        element: String,
        /// Byte offset in the parsed text where the problem was found.
        offset: usize,
        /// What is wrong, in one line.
        reason: String,
    },
    /// An envelope starts but the text ends before its closing tag.
    #[error("unclosed <{element}> envelope: the text ends before </{element}>")]
    Unclosed {
        /// The root element: `tool_error` or `validation_error`.
        element: String,
    },
}

/// Finds the envelope in `text` and reads it back (wire contract §2, §4, §8).
///
/// The envelope is the first `<tool_error>` or `<validation_error>` element that
/// reads as a complete envelope; text before and after it is ignored and need
/// not be XML. Only the first 16 mentions of a start tag are
/// tried. If the text mentions one of the start tags but no mention tried
/// opens a complete envelope, the error of the first mention is returned (so
/// that a truncated envelope is reported as [`ParseError::Unclosed`]). See the
/// module documentation for what is read and the decisions taken where the
/// contract is silent.
///
/// # Errors
///
/// - [`ParseError::NotFound`]: neither start tag occurs in `text`;
/// - [`ParseError::Malformed`]: the envelope's XML structure cannot be read,
///   or a `<tool_error>` has no `code`;
/// - [`ParseError::Unclosed`]: `text` ends inside the envelope.
///
/// ```
/// use mcp_fusion::envelope::{ParsedEnvelope, parse};
///
/// let text = "Done.\n<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  \
///             <message>Use v2 &amp; stop using v1</message>\n</tool_error>";
/// let ParsedEnvelope::Tool(err) = parse(text).unwrap() else { panic!() };
/// assert_eq!(err.message, "Use v2 & stop using v1");
/// assert!(!err.is_error());
/// ```
pub fn parse(text: &str) -> Result<ParsedEnvelope, ParseError> {
    let mut first_error = None;
    for (start, root) in candidates(text).take(MAX_CANDIDATES) {
        match parse_at(text, start, root) {
            Ok(ParsedEnvelope::Tool(mut err)) => {
                if err.severity.is_error() {
                    err.next_step = line_before(&text[..start]);
                }
                return Ok(ParsedEnvelope::Tool(err));
            }
            Ok(ParsedEnvelope::Validation(mut failure)) => {
                failure.next_step =
                    line_before(&text[..start]).filter(|line| *line != failure.default_next_step());
                return Ok(ParsedEnvelope::Validation(failure));
            }
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    Err(first_error.unwrap_or(ParseError::NotFound))
}

/// The next step (§2.1) in `before`, the text before a failing
/// `<tool_error>`: its last line when that line ends just before the envelope,
/// is not blank and holds no `<` (the renderer escapes it, so a line with
/// markup is something else), unescaped (`&amp;`, `&lt;` and the other
/// predefined entities; a line with a reference that does not resolve is kept
/// as written). `None` otherwise.
fn line_before(before: &str) -> Option<String> {
    let rest = before.strip_suffix('\n')?;
    let line = rest.rsplit('\n').next().unwrap_or(rest);
    if line.trim().is_empty() || line.contains('<') {
        return None;
    }
    let unescaped = quick_xml::escape::unescape(line).map_or(Cow::Borrowed(line), |u| u);
    Some(unescaped.into_owned())
}

/// Whether `text`, leading whitespace aside, opens with a `<tool_error>` start
/// tag: a content block that is an envelope (a warning attached to a result,
/// wire contract §3), not one that quotes an envelope further on. Read by the
/// client.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn opens_tool_error(text: &str) -> bool {
    candidates(text.trim_start())
        .next()
        .is_some_and(|(start, root)| start == 0 && root == TOOL_ERROR)
}

/// Every byte offset where `<tool_error` or `<validation_error` starts a tag
/// (the name is followed by whitespace, `>` or `/`), in text order.
fn candidates(text: &str) -> impl Iterator<Item = (usize, &'static str)> + '_ {
    text.match_indices('<').filter_map(move |(i, _)| {
        let rest = &text[i + 1..];
        [TOOL_ERROR, VALIDATION_ERROR].into_iter().find_map(|root| {
            let after = rest.strip_prefix(root)?;
            match after.chars().next() {
                Some(' ' | '\t' | '\n' | '\r' | '>' | '/') => Some((i, root)),
                _ => None,
            }
        })
    })
}

/// What an open element collects into, decided from its name and its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    /// The envelope root.
    Root,
    /// `<message>` of a `<tool_error>`.
    Message,
    /// `<recovery>` of a `<tool_error>`.
    Recovery,
    /// `<available_actions>` of a `<tool_error>`.
    Actions,
    /// `<action>` inside `<available_actions>`.
    Action,
    /// `<details>` of a `<tool_error>`.
    Details,
    /// `<detail key="…">` inside `<details>`.
    Detail(String),
    /// `<retry_after>` of a `<tool_error>`.
    RetryAfter,
    /// `<field name="…">` of a `<validation_error>`.
    Field(String),
    /// `<contract_awareness>` of a `<validation_error>` (§4.1).
    Awareness,
    /// `<delta severity="…" field="…">` inside `<contract_awareness>`.
    Delta(ChangeSeverity, String),
    /// Anything else: skipped, but its text counts if a value element encloses it.
    Ignored,
}

impl Slot {
    /// Whether the text inside this element is a value.
    fn collects(&self) -> bool {
        matches!(
            self,
            Slot::Message
                | Slot::Recovery
                | Slot::Action
                | Slot::Detail(_)
                | Slot::RetryAfter
                | Slot::Field(_)
                | Slot::Delta(..)
        )
    }
}

/// The fields read so far from one envelope.
#[derive(Default)]
struct Collected {
    code: Option<String>,
    severity: Option<String>,
    action: Option<String>,
    message: Option<String>,
    recovery: Option<String>,
    available_actions: Vec<String>,
    details: Vec<(String, String)>,
    /// The first readable `<retry_after>`, in whole seconds.
    retry_after: Option<u64>,
    fields: Vec<FieldError>,
    /// `<contract_awareness>`'s `action`, `changes` and `max_severity`.
    awareness: Option<(String, usize, ChangeSeverity)>,
    awareness_deltas: Vec<AwarenessDelta>,
}

/// Reads the envelope whose start tag begins at byte `start` of `text`.
fn parse_at(text: &str, start: usize, root: &'static str) -> Result<ParsedEnvelope, ParseError> {
    let mut reader = Reader::from_str(&text[start..]);
    // A bare `&` that starts no reference (`Tom & Jerry`, a common slip of a
    // hand-written envelope) is read as the character `&`.
    reader.config_mut().allow_dangling_amp = true;
    let malformed = |offset: u64, reason: String| ParseError::Malformed {
        element: root.to_owned(),
        offset: start + usize::try_from(offset).unwrap_or(usize::MAX - start),
        reason,
    };

    let mut stack: Vec<Slot> = Vec::new();
    // Whether an open element is a value element. Value elements never nest
    // (they open only under the root, `<available_actions>` or `<details>`),
    // so one flag is enough.
    let mut collecting = false;
    let mut value = String::new();
    let mut got = Collected::default();

    loop {
        let event = reader
            .read_event()
            .map_err(|e| malformed(reader.error_position(), e.to_string()))?;
        let at = reader.buffer_position();
        match event {
            Event::Start(tag) | Event::Empty(tag)
                if stack.is_empty() && tag.name().as_ref() != root =>
            {
                return Err(malformed(at, format!("expected <{root}>")));
            }
            Event::Start(tag) => {
                let slot = open(root, stack.last(), &tag, &mut got);
                if slot.collects() {
                    value.clear();
                    collecting = true;
                }
                stack.push(slot);
            }
            Event::Empty(tag) => {
                let slot = open(root, stack.last(), &tag, &mut got);
                if slot == Slot::Root {
                    break;
                }
                if slot.collects() {
                    close(slot, String::new(), &mut got);
                }
            }
            Event::End(_) => {
                let slot = stack.pop().unwrap_or(Slot::Root);
                if slot == Slot::Root {
                    break;
                }
                if slot.collects() {
                    collecting = false;
                    close(slot, std::mem::take(&mut value), &mut got);
                }
            }
            Event::Text(t) if collecting => value.push_str(&t.xml10_content()),
            Event::CData(t) if collecting => value.push_str(&t.xml10_content()),
            // Outside a value a reference is dropped, like the text around it.
            Event::GeneralRef(r) if collecting => push_reference(&mut value, &r),
            Event::Eof => {
                return Err(ParseError::Unclosed {
                    element: root.to_owned(),
                });
            }
            _ => {}
        }
    }

    let end = reader.buffer_position();
    finish(root, got).map_err(|reason| malformed(end, reason))
}

/// Decides the slot of an element opening under `parent`, and reads the root's
/// attributes into `got`. An element that lacks an attribute it needs is
/// [`Slot::Ignored`]: dropped, with its text.
fn open(root: &str, parent: Option<&Slot>, tag: &BytesStart<'_>, got: &mut Collected) -> Slot {
    let name = tag.name();
    let name = name.as_ref();
    let tool = root == TOOL_ERROR;
    match (parent, name) {
        (None, _) => {
            for (key, value) in attributes(tag) {
                let field = match key.as_str() {
                    "code" if tool => &mut got.code,
                    "severity" if tool => &mut got.severity,
                    "action" if !tool => &mut got.action,
                    _ => continue,
                };
                field.get_or_insert(value);
            }
            Slot::Root
        }
        (Some(Slot::Root), "message") if tool => Slot::Message,
        (Some(Slot::Root), "recovery") if tool => Slot::Recovery,
        (Some(Slot::Root), "available_actions") if tool => Slot::Actions,
        (Some(Slot::Root), "details") if tool => Slot::Details,
        (Some(Slot::Root), "retry_after") if tool => Slot::RetryAfter,
        (Some(Slot::Actions), "action") => Slot::Action,
        (Some(Slot::Details), "detail") => {
            attribute(tag, "key").map_or(Slot::Ignored, Slot::Detail)
        }
        (Some(Slot::Root), "field") if !tool => {
            attribute(tag, "name").map_or(Slot::Ignored, Slot::Field)
        }
        (Some(Slot::Root), "contract_awareness") if !tool && got.awareness.is_none() => {
            match awareness_attributes(tag) {
                Some(section) => {
                    got.awareness = Some(section);
                    Slot::Awareness
                }
                None => Slot::Ignored,
            }
        }
        (Some(Slot::Awareness), "delta") => match delta_attributes(tag) {
            Some((severity, field)) => Slot::Delta(severity, field),
            None => Slot::Ignored,
        },
        _ => Slot::Ignored,
    }
}

/// Stores the value of a closed value element.
fn close(slot: Slot, value: String, got: &mut Collected) {
    match slot {
        Slot::Message => {
            got.message.get_or_insert(value);
        }
        Slot::Recovery => {
            got.recovery.get_or_insert(value);
        }
        Slot::RetryAfter => {
            if got.retry_after.is_none() {
                got.retry_after = retry_after_from_text(&value);
            }
        }
        Slot::Action => got.available_actions.push(value),
        // Repeated keys are merged (the later value wins) when the envelope is
        // complete, in one pass.
        Slot::Detail(key) => got.details.push((key, value)),
        Slot::Field(path) => got.fields.push(FieldError::new(path, value)),
        Slot::Delta(severity, field) => got.awareness_deltas.push(AwarenessDelta {
            severity,
            field,
            text: value,
        }),
        Slot::Root | Slot::Actions | Slot::Details | Slot::Awareness | Slot::Ignored => {}
    }
}

/// Builds the envelope from what was read.
fn finish(root: &str, got: Collected) -> Result<ParsedEnvelope, String> {
    if root == VALIDATION_ERROR {
        let mut failure = ValidationFailure::new(got.action.unwrap_or_default(), got.fields);
        failure.contract_awareness =
            got.awareness
                .map(|(action, changes, max_severity)| ContractAwareness {
                    action,
                    changes,
                    max_severity,
                    deltas: got.awareness_deltas,
                });
        return Ok(ParsedEnvelope::Validation(failure));
    }
    let code = got.code.ok_or("<tool_error> has no code attribute")?;
    let severity = got
        .severity
        .and_then(|s| s.parse::<Severity>().ok())
        .unwrap_or_default();
    let mut details = Vec::with_capacity(got.details.len());
    crate::error::merge_details(&mut details, got.details);
    Ok(ParsedEnvelope::Tool(ToolError {
        code: ErrorCode::from(code),
        severity,
        message: got.message.unwrap_or_default(),
        next_step: None,
        recovery: got.recovery,
        available_actions: got.available_actions,
        details,
        retry_after: got.retry_after.map(Duration::from_secs),
        internal: None,
    }))
}

/// The readable attributes of `tag`, unescaped and normalised (XML 1.0), in
/// order. An attribute that cannot be read (no quotes, no `=`, an unknown
/// entity or a bad character reference in its value) is left out; a repeated
/// one is kept each time (readers take the first).
fn attributes(tag: &BytesStart<'_>) -> Vec<(String, String)> {
    let mut attributes = tag.attributes();
    attributes.with_checks(false);
    attributes
        .filter_map(Result::ok)
        .filter_map(|attr| {
            let value = attr.normalized_value(XmlVersion::Implicit1_0).ok()?;
            Some((attr.key.as_ref().to_owned(), value.into_owned()))
        })
        .collect()
}

/// The first readable value of attribute `key` of `tag`.
fn attribute(tag: &BytesStart<'_>, key: &str) -> Option<String> {
    attributes(tag)
        .into_iter()
        .find_map(|(k, v)| (k == key).then_some(v))
}

/// `<contract_awareness>`'s `action`, `changes` and `max_severity` (§4.1);
/// `None` when one is missing or unreadable (the section is then skipped).
fn awareness_attributes(tag: &BytesStart<'_>) -> Option<(String, usize, ChangeSeverity)> {
    let action = attribute(tag, "action")?;
    let changes = attribute(tag, "changes")?.parse::<usize>().ok()?;
    let max_severity = attribute(tag, "max_severity")?
        .parse::<ChangeSeverity>()
        .ok()?;
    Some((action, changes, max_severity))
}

/// A `<delta>`'s `severity` and `field`; `None` when one is missing or
/// unreadable (the delta is then skipped).
fn delta_attributes(tag: &BytesStart<'_>) -> Option<(ChangeSeverity, String)> {
    let severity = attribute(tag, "severity")?.parse::<ChangeSeverity>().ok()?;
    Some((severity, attribute(tag, "field")?))
}

/// Appends what an entity or character reference inside a value stands for:
/// a predefined entity (`&amp;`) or a character reference (`&#10;`) its
/// character; a character reference to no character XML allows (`&#0;`,
/// `&#xD800;`) U+FFFD, as the renderer writes a forbidden character; any other
/// entity (`&nbsp;`, never declared in an envelope) is kept as written.
fn push_reference(value: &mut String, reference: &BytesRef<'_>) {
    match reference.resolve_char_ref() {
        Ok(Some(c)) => value.push(c),
        Err(_) => value.push('\u{fffd}'),
        Ok(None) => {
            let name: &str = reference;
            match resolve_predefined_entity(name) {
                Some(resolved) => value.push_str(resolved),
                None => {
                    value.push('&');
                    value.push_str(name);
                    value.push(';');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_need_a_tag_boundary() {
        let found: Vec<_> =
            candidates("<tool_errors> <tool_error> <validation_error\n <tool_error/>").collect();
        assert_eq!(
            found,
            [(14, TOOL_ERROR), (27, VALIDATION_ERROR), (46, TOOL_ERROR)]
        );
    }

    #[test]
    fn a_block_opens_with_a_tool_error_or_quotes_one() {
        assert!(opens_tool_error(
            "\n<tool_error code=\"DEPRECATED\" severity=\"warning\">"
        ));
        assert!(!opens_tool_error("Done. <tool_error code=\"DEPRECATED\">"));
        assert!(!opens_tool_error("<tool_errors>"));
    }
}
