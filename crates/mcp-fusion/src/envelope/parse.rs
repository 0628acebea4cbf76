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
//! Decisions where the contract is silent:
//!
//! - a `severity` other than `error`, `critical` or `warning` (or none) reads as
//!   [`Severity::Error`], the contract's default, so that a failure written by a
//!   newer or foreign server is still treated as a failure;
//! - a missing `code` attribute or `<message>` element is
//!   [`ParseError::Malformed`] (both are mandatory, §2); a present but empty
//!   message is returned as it is;
//! - `<retry_after>` must read `N second` or `N seconds` (`N` a whole number,
//!   surrounding whitespace allowed), else the envelope is malformed; `0` reads
//!   as no delay (`None`); a value is not clamped on reading;
//! - a repeated `<message>`, `<recovery>` or `<retry_after>`: the first one
//!   counts; repeated `<available_actions>` lists are concatenated; a repeated
//!   detail key takes the later value in the first key's place (as
//!   [`ToolError::detail`] does);
//! - `<validation_error>`'s `<recovery>` is not returned: it is always
//!   [`VALIDATION_RECOVERY`](crate::VALIDATION_RECOVERY);
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
    ValidationFailure,
};

/// The root element name of a tool failure envelope (§2).
const TOOL_ERROR: &str = "tool_error";
/// The root element name of a validation failure envelope (§4).
const VALIDATION_ERROR: &str = "validation_error";
/// How many mentions of a start tag [`parse`] tries before it gives up, so that a
/// text full of unclosed mentions costs linear, not quadratic, time.
pub const MAX_CANDIDATES: usize = 16;

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
pub enum ParseError {
    /// The text holds no `<tool_error` or `<validation_error` start tag.
    #[error("no <tool_error> or <validation_error> element in the text")]
    NotFound,
    /// An envelope starts but is not well-formed XML, or lacks a mandatory part
    /// (the `code` attribute, `<message>`, a `<detail>`'s `key`, a `<field>`'s
    /// `name`, the validation `action`), or has an unreadable `<retry_after>`.
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
/// not be XML. Only the first [`MAX_CANDIDATES`] mentions of a start tag are
/// tried. If the text mentions one of the start tags but no mention tried
/// opens a complete envelope, the error of the first mention is returned (so
/// that a truncated envelope is reported as [`ParseError::Unclosed`]). See the
/// module documentation for what is read and the decisions taken where the
/// contract is silent.
///
/// # Errors
///
/// - [`ParseError::NotFound`]: neither start tag occurs in `text`;
/// - [`ParseError::Malformed`]: the envelope is not well-formed XML, or lacks a
///   mandatory part;
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
            Ok(envelope) => return Ok(envelope),
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    Err(first_error.unwrap_or(ParseError::NotFound))
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
    retry_after: Option<String>,
    fields: Vec<FieldError>,
    /// `<contract_awareness>`'s `action`, `changes` and `max_severity`.
    awareness: Option<(String, usize, ChangeSeverity)>,
    awareness_deltas: Vec<AwarenessDelta>,
}

/// Reads the envelope whose start tag begins at byte `start` of `text`.
fn parse_at(text: &str, start: usize, root: &'static str) -> Result<ParsedEnvelope, ParseError> {
    let mut reader = Reader::from_str(&text[start..]);
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
                let slot = open(root, stack.last(), &tag, &mut got)
                    .map_err(|reason| malformed(at, reason))?;
                if slot.collects() {
                    value.clear();
                    collecting = true;
                }
                stack.push(slot);
            }
            Event::Empty(tag) => {
                let slot = open(root, stack.last(), &tag, &mut got)
                    .map_err(|reason| malformed(at, reason))?;
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
            Event::GeneralRef(r) if collecting => {
                value.push(resolve_reference(&r).map_err(|reason| malformed(at, reason))?);
            }
            Event::GeneralRef(r) => {
                // Outside a value the reference is dropped, but it must still be valid.
                resolve_reference(&r).map_err(|reason| malformed(at, reason))?;
            }
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
/// attributes into `got`.
fn open(
    root: &str,
    parent: Option<&Slot>,
    tag: &BytesStart<'_>,
    got: &mut Collected,
) -> Result<Slot, String> {
    let name = tag.name();
    let name = name.as_ref();
    let tool = root == TOOL_ERROR;
    let slot = match (parent, name) {
        (None, _) => {
            for (key, value) in attributes(tag)? {
                match key.as_str() {
                    "code" if tool => got.code = Some(value),
                    "severity" if tool => got.severity = Some(value),
                    "action" if !tool => got.action = Some(value),
                    _ => {}
                }
            }
            return Ok(Slot::Root);
        }
        (Some(Slot::Root), "message") if tool => Slot::Message,
        (Some(Slot::Root), "recovery") if tool => Slot::Recovery,
        (Some(Slot::Root), "available_actions") if tool => Slot::Actions,
        (Some(Slot::Root), "details") if tool => Slot::Details,
        (Some(Slot::Root), "retry_after") if tool => Slot::RetryAfter,
        (Some(Slot::Actions), "action") => Slot::Action,
        (Some(Slot::Details), "detail") => {
            Slot::Detail(required_attribute(tag, "key", "<detail>")?)
        }
        (Some(Slot::Root), "field") if !tool => {
            Slot::Field(required_attribute(tag, "name", "<field>")?)
        }
        (Some(Slot::Root), "contract_awareness") if !tool && got.awareness.is_none() => {
            match awareness_attributes(tag)? {
                Some(section) => {
                    got.awareness = Some(section);
                    Slot::Awareness
                }
                None => Slot::Ignored,
            }
        }
        (Some(Slot::Awareness), "delta") => match delta_attributes(tag)? {
            Some((severity, field)) => Slot::Delta(severity, field),
            None => Slot::Ignored,
        },
        _ => {
            // Skipped, but its attributes must still be well-formed.
            attributes(tag)?;
            Slot::Ignored
        }
    };
    Ok(slot)
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
            got.retry_after.get_or_insert(value);
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
        let action = got
            .action
            .ok_or("<validation_error> has no action attribute")?;
        let mut failure = ValidationFailure::new(action, got.fields);
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
    let message = got.message.ok_or("<tool_error> has no <message>")?;
    let severity = got
        .severity
        .and_then(|s| s.parse::<Severity>().ok())
        .unwrap_or_default();
    let retry_after = got
        .retry_after
        .as_deref()
        .map(parse_retry_after)
        .transpose()?
        .flatten();
    Ok(ParsedEnvelope::Tool(ToolError {
        code: ErrorCode::from(code),
        severity,
        message,
        recovery: got.recovery,
        available_actions: got.available_actions,
        details: {
            let mut details = Vec::with_capacity(got.details.len());
            crate::error::merge_details(&mut details, got.details);
            details
        },
        retry_after,
    }))
}

/// Reads `N second` / `N seconds` (§2); `0` is no delay.
fn parse_retry_after(text: &str) -> Result<Option<Duration>, String> {
    let bad = || format!("<retry_after> reads {text:?}, expected \"N seconds\"");
    let (number, unit) = text.trim().split_once(' ').ok_or_else(bad)?;
    if !matches!(unit.trim_start(), "second" | "seconds")
        || number.is_empty()
        || !number.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let secs: u64 = number.parse().map_err(|_| bad())?;
    Ok((secs > 0).then(|| Duration::from_secs(secs)))
}

/// The attributes of `tag`, unescaped and normalised (XML 1.0).
fn attributes(tag: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    tag.attributes()
        .map(|attr| {
            let attr = attr.map_err(|e| e.to_string())?;
            let value = attr
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| e.to_string())?;
            Ok((attr.key.as_ref().to_owned(), value.into_owned()))
        })
        .collect()
}

/// `<contract_awareness>`'s `action`, `changes` and `max_severity` (§4.1);
/// `None` when one is missing or unreadable (the section is then skipped).
/// `Err` only for attributes that are not well-formed XML.
fn awareness_attributes(
    tag: &BytesStart<'_>,
) -> Result<Option<(String, usize, ChangeSeverity)>, String> {
    let attributes = attributes(tag)?;
    let get = |key: &str| {
        attributes
            .iter()
            .find_map(|(k, v)| (k == key).then_some(v.as_str()))
    };
    let section = (|| {
        let action = get("action")?.to_owned();
        let changes = get("changes")?.parse::<usize>().ok()?;
        let max_severity = get("max_severity")?.parse::<ChangeSeverity>().ok()?;
        Some((action, changes, max_severity))
    })();
    Ok(section)
}

/// A `<delta>`'s `severity` and `field`; `None` when one is missing or
/// unreadable (the delta is then skipped).
fn delta_attributes(tag: &BytesStart<'_>) -> Result<Option<(ChangeSeverity, String)>, String> {
    let attributes = attributes(tag)?;
    let get = |key: &str| {
        attributes
            .iter()
            .find_map(|(k, v)| (k == key).then_some(v.clone()))
    };
    Ok(get("severity")
        .and_then(|s| s.parse::<ChangeSeverity>().ok())
        .zip(get("field")))
}

/// The value of attribute `key` of `tag`, which `what` must have.
fn required_attribute(tag: &BytesStart<'_>, key: &str, what: &str) -> Result<String, String> {
    attributes(tag)?
        .into_iter()
        .find_map(|(k, v)| (k == key).then_some(v))
        .ok_or_else(|| format!("{what} has no {key} attribute"))
}

/// The character an entity or character reference stands for.
fn resolve_reference(reference: &BytesRef<'_>) -> Result<char, String> {
    if let Some(c) = reference.resolve_char_ref().map_err(|e| e.to_string())? {
        return Ok(c);
    }
    let name: &str = reference;
    resolve_predefined_entity(name)
        .and_then(|s| s.chars().next())
        .ok_or_else(|| format!("unknown entity &{name};"))
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
    fn retry_after_syntax() {
        assert_eq!(
            parse_retry_after(" 30 seconds\n"),
            Ok(Some(Duration::from_secs(30)))
        );
        assert_eq!(
            parse_retry_after("1 second"),
            Ok(Some(Duration::from_secs(1)))
        );
        assert_eq!(parse_retry_after("0 seconds"), Ok(None));
        assert!(parse_retry_after("30").is_err());
        assert!(parse_retry_after("-1 seconds").is_err());
        assert!(parse_retry_after("1.5 seconds").is_err());
        assert!(parse_retry_after("30 minutes").is_err());
        assert!(parse_retry_after("99999999999999999999999 seconds").is_err());
    }
}
