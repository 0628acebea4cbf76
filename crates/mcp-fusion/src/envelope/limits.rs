//! The substitutions and cuts applied before anything is written (wire contract §2).
//!
//! [`normalize`] returns the failure exactly as the envelope will carry it, so
//! that `parse(render(e)) == normalize(e)` holds for every input:
//!
//! - characters XML 1.0 forbids (C0 controls other than tab, LF and CR, U+FFFE,
//!   U+FFFF) become U+FFFD;
//! - in element text (message, recovery, action names, detail values, field
//!   lines), CR LF and lone CR become LF (an XML parser does the same on
//!   reading, so the value reads back unchanged);
//! - message, recovery and detail values longer than [`MAX_TEXT_CHARS`]
//!   characters, and code, action names and detail keys longer than
//!   [`MAX_NAME_CHARS`], are cut at a character boundary and end with `…`;
//! - an empty or whitespace-only message takes the code's default sentence,
//!   an empty recovery is dropped;
//! - the next step (§2.1) is one line: control characters (line ends
//!   included) and line separators become spaces; it is cut like a recovery, and dropped when
//!   blank or on a warning;
//! - `retry_after` becomes whole seconds, rounded up, clamped to 1..=86 400;
//! - a `<contract_awareness>` section (§4.1) gets what room the field lines
//!   leave, its last deltas dropped first;
//! - if the envelope would reach [`MAX_ENVELOPE_BYTES`], details are dropped
//!   from the end, then actions, then the recovery and the message are cut.

use std::borrow::Cow;
use std::time::Duration;

use super::escape;
use crate::error::{
    AwarenessDelta, ContractAwareness, FieldError, ToolError, ValidationFailure, envelope_secs,
};
use crate::text::{cut_chars, one_line};

/// The longest message, recovery, detail value or field line, in characters (§2).
pub const MAX_TEXT_CHARS: usize = 2_000;
/// The longest code, action name, detail key or field path, in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// The largest envelope, in bytes (16 KiB, §2); every rendering is smaller.
pub const MAX_ENVELOPE_BYTES: usize = 16 * 1024;

/// Bytes the fixed parts of a `<tool_error>` take at most (tags, severity,
/// indentation, `<retry_after>86400 seconds</retry_after>`), with headroom.
const TOOL_ERROR_FRAME_BYTES: usize = 256;
/// Bytes one `<action>` line adds besides its text.
const ACTION_FRAME_BYTES: usize = 23;
/// Bytes one `<detail key="">` line adds besides its key and value.
const DETAIL_FRAME_BYTES: usize = 30;
/// Bytes one `<field name="">` line adds besides its path and message.
const FIELD_FRAME_BYTES: usize = 26;
/// Bytes the fixed parts of a `<contract_awareness>` section take at most
/// (tags, indentation, the `changes`, `shown` and `max_severity` attributes),
/// with headroom.
const AWARENESS_FRAME_BYTES: usize = 160;
/// Bytes one `<delta severity="BREAKING" field="">` line adds besides its
/// field and text.
const DELTA_FRAME_BYTES: usize = 56;

/// Whether [`sanitize`] changes `s`: a C0 control other than tab and LF
/// (CR too in element text), or U+FFFE / U+FFFF (UTF-8 `EF BF BE`/`EF BF BF`).
fn needs_sanitizing(s: &str, text: bool) -> bool {
    let bytes = s.as_bytes();
    // Most texts hold neither a control character nor the lead byte of
    // U+FFFE / U+FFFF: a branch-free pass over the bytes says so.
    if !bytes
        .iter()
        .fold(false, |seen, &b| seen | (b < 0x20) | (b == 0xEF))
    {
        return false;
    }
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b'\t' | b'\n' => false,
        b'\r' => text,
        0..=0x1f => true,
        0xEF => bytes.get(i + 1) == Some(&0xBF) && matches!(bytes.get(i + 2), Some(0xBE | 0xBF)),
        _ => false,
    })
}

/// Replaces characters XML 1.0 forbids with U+FFFD; in element text
/// (`text == true`) also turns CR LF and lone CR into LF. Borrows `s` when
/// nothing changes (the usual case).
pub fn sanitize(s: &str, text: bool) -> Cow<'_, str> {
    if !needs_sanitizing(s, text) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if text => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\t' | '\n' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` sanitized and cut to `max_chars` characters: one allocation, the copy.
fn clean(s: &str, text: bool, max_chars: usize) -> String {
    match sanitize(s, text) {
        Cow::Borrowed(s) => cut_chars(s, max_chars, "…").into_owned(),
        Cow::Owned(owned) => match cut_chars(&owned, max_chars, "…") {
            Cow::Borrowed(_) => owned,
            Cow::Owned(cut) => cut,
        },
    }
}

/// Cuts `s` so that its escaped form (element text when `text`, else attribute)
/// takes at most `max_bytes`; a cut value ends with `…`.
fn cut_escaped_bytes(s: &str, max_bytes: usize, text: bool) -> String {
    let size = |c: &str| {
        if text {
            escape::text_len(c)
        } else {
            escape::attr_len(c)
        }
    };
    if size(s) <= max_bytes {
        return s.to_owned();
    }
    let budget = max_bytes.saturating_sub('…'.len_utf8());
    let mut used = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let mut buf = [0u8; 4];
        let n = size(c.encode_utf8(&mut buf));
        // `]]>` costs more once escaped; count `>` as escaped to stay safe.
        let n = if text && c == '>' { 4 } else { n };
        if used + n > budget {
            break;
        }
        used += n;
        end = i + c.len_utf8();
    }
    if end == 0 {
        return String::new();
    }
    format!("{}…", &s[..end])
}

fn text_value(s: &str) -> String {
    clean(s, true, MAX_TEXT_CHARS)
}

/// Whether `line` is a next step [`next_step_value`] returns as it is: one
/// clean, non-blank line of at most [`MAX_TEXT_CHARS`] bytes.
fn is_normal_line(line: &str) -> bool {
    line.len() <= MAX_TEXT_CHARS
        && matches!(one_line(line), Cow::Borrowed(_))
        && !needs_sanitizing(line, true)
        && !line.trim().is_empty()
}

/// The next step as its line before the envelope carries it (§2.1): put on
/// one line ([`one_line`]), forbidden characters U+FFFD, cut at
/// [`MAX_TEXT_CHARS`] characters. `None` when it is blank, and on a warning,
/// whose first line is the result itself.
fn next_step_value(err: &ToolError) -> Option<String> {
    if !err.severity.is_error() {
        return None;
    }
    let line = one_line(err.next_step.as_deref()?);
    Some(text_value(&line)).filter(|l| !l.trim().is_empty())
}

/// Bytes the next step's line takes before the envelope (its line end included).
fn next_step_len(next_step: Option<&str>) -> usize {
    next_step.map_or(0, |l| escape::text_len(l) + 1)
}

/// A name written as an attribute value (code, detail key, field path,
/// validation action).
fn name_value(s: &str) -> String {
    clean(s, false, MAX_NAME_CHARS)
}

/// A name written as element text (`<action>`): cut like a name, but CR is
/// normalised like any element text.
fn action_value(s: &str) -> String {
    clean(s, true, MAX_NAME_CHARS)
}

/// Whether `err` already is what [`normalize`] returns for it, as far as the
/// envelope and its `_meta` twin show (checked in bytes, conservatively: a
/// `false` only means normalizing is needed to know). The usual failure —
/// short, clean texts, a few distinct details — is rendered as it is.
pub(crate) fn is_normal(err: &ToolError) -> bool {
    let text = |s: &str| s.len() <= MAX_TEXT_CHARS && !needs_sanitizing(s, true);
    let name = |s: &str, text: bool| s.len() <= MAX_NAME_CHARS && !needs_sanitizing(s, text);
    let code = err.code.as_str();
    let clean = name(code, false)
        && err
            .next_step
            .as_deref()
            .is_none_or(|l| err.severity.is_error() && is_normal_line(l))
        && text(&err.message)
        && !err.message.trim().is_empty()
        && err
            .recovery
            .as_deref()
            .is_none_or(|r| text(r) && !r.trim().is_empty())
        && err.available_actions.iter().all(|a| name(a, true))
        && err.details.len() <= 16
        && err.details.iter().enumerate().all(|(i, (k, v))| {
            name(k, false) && text(v) && err.details[..i].iter().all(|(other, _)| other != k)
        });
    if !clean {
        return false;
    }
    let lists: usize = err
        .available_actions
        .iter()
        .map(|a| ACTION_FRAME_BYTES + escape::text_len(a))
        .sum::<usize>()
        + err
            .details
            .iter()
            .map(|(k, v)| DETAIL_FRAME_BYTES + escape::attr_len(k) + escape::text_len(v))
            .sum::<usize>();
    let texts =
        escape::text_len(&err.message) + err.recovery.as_deref().map_or(0, escape::text_len);
    texts + lists + next_step_len(err.next_step.as_deref())
        <= MAX_ENVELOPE_BYTES - 1 - TOOL_ERROR_FRAME_BYTES - escape::attr_len(code)
}

/// Whether [`normalize_validation`] returns `failure` as it is: no text to
/// substitute or cut, room for every field line, and no
/// `<contract_awareness>` section (whose cuts are left to it).
pub(crate) fn is_normal_validation(failure: &ValidationFailure) -> bool {
    let name = |s: &str| s.len() <= MAX_NAME_CHARS && !needs_sanitizing(s, false);
    let text = |s: &str| s.len() <= MAX_TEXT_CHARS && !needs_sanitizing(s, true);
    let next_step = failure.next_step.as_deref();
    if failure.contract_awareness.is_some()
        || !next_step.is_none_or(is_normal_line)
        || !name(&failure.action)
        || !failure
            .fields
            .iter()
            .all(|f| name(&f.path) && text(&f.message))
    {
        return false;
    }
    let total: usize = failure
        .fields
        .iter()
        .map(|f| FIELD_FRAME_BYTES + escape::attr_len(&f.path) + escape::text_len(&f.message))
        .sum();
    total
        <= MAX_ENVELOPE_BYTES
            - 1
            - TOOL_ERROR_FRAME_BYTES
            - escape::attr_len(&failure.action)
            - next_step_len(next_step)
}

/// The failure exactly as its envelope carries it: every substitution and cut of
/// this module applied (see the module docs). Rendering a normalized failure
/// writes the same bytes as rendering the original.
pub fn normalize(err: &ToolError) -> ToolError {
    let code = crate::ErrorCode::from(name_value(err.code.as_str()));
    let mut message = text_value(&err.message);
    if message.trim().is_empty() {
        message = code.default_message().to_owned();
    }
    let mut recovery = err
        .recovery
        .as_deref()
        .map(text_value)
        .filter(|r| !r.trim().is_empty());
    let mut available_actions: Vec<String> = err
        .available_actions
        .iter()
        .map(|a| action_value(a))
        .collect();
    let mut details: Vec<(String, String)> = Vec::with_capacity(err.details.len());
    crate::error::merge_details(
        &mut details,
        err.details
            .iter()
            .map(|(key, value)| (name_value(key), text_value(value))),
    );
    let retry_after = envelope_secs(err.retry_after).map(Duration::from_secs);
    let next_step = next_step_value(err);

    let budget = MAX_ENVELOPE_BYTES
        - 1
        - TOOL_ERROR_FRAME_BYTES
        - escape::attr_len(code.as_str())
        - next_step_len(next_step.as_deref());
    // Sizes are computed once and kept up to date, so that trimming stays
    // linear however many actions and details there are.
    let action_len = |x: &String| ACTION_FRAME_BYTES + escape::text_len(x);
    let detail_len =
        |(k, v): &(String, String)| DETAIL_FRAME_BYTES + escape::attr_len(k) + escape::text_len(v);
    let mut lists: usize = available_actions.iter().map(action_len).sum::<usize>()
        + details.iter().map(detail_len).sum::<usize>();
    let texts = escape::text_len(&message) + recovery.as_deref().map_or(0, escape::text_len);
    while texts + lists > budget {
        if let Some(detail) = details.pop() {
            lists -= detail_len(&detail);
            continue;
        }
        if let Some(action) = available_actions.pop() {
            lists -= action_len(&action);
            continue;
        }
        // Only the message and the recovery are left: the message keeps at least
        // half of the room, the recovery takes what remains.
        let recovery_len = recovery.as_deref().map_or(0, escape::text_len);
        let message_room = (budget / 2).max(budget.saturating_sub(recovery_len));
        message = cut_escaped_bytes(&message, message_room, true);
        let left = budget.saturating_sub(escape::text_len(&message));
        recovery = recovery
            .map(|r| cut_escaped_bytes(&r, left, true))
            .filter(|r| !r.is_empty());
        break;
    }

    ToolError {
        code,
        severity: err.severity,
        message,
        next_step,
        recovery,
        available_actions,
        details,
        retry_after,
        internal: None,
    }
}

/// The validation failure exactly as its envelope carries it: action name and
/// paths cut to [`MAX_NAME_CHARS`], field lines to [`MAX_TEXT_CHARS`], and, if the
/// envelope would reach [`MAX_ENVELOPE_BYTES`], the last lines replaced by one
/// `(more)` line saying how many were left out.
///
/// A `<contract_awareness>` section (§4.1) gets the same cuts and only the
/// room the field lines leave: its last deltas are dropped first, and the
/// whole section when the field lines alone fill the envelope (or when it has
/// no delta).
pub fn normalize_validation(failure: &ValidationFailure) -> ValidationFailure {
    let action = name_value(&failure.action);
    let fields: Vec<FieldError> = failure
        .fields
        .iter()
        .map(|f| FieldError::new(name_value(&f.path), text_value(&f.message)))
        .collect();
    let next_step = failure
        .next_step
        .as_deref()
        .map(|line| text_value(&one_line(line)))
        .filter(|line| !line.trim().is_empty());
    let budget = MAX_ENVELOPE_BYTES
        - 1
        - TOOL_ERROR_FRAME_BYTES
        - escape::attr_len(&action)
        - next_step_len(next_step.as_deref());
    let line = |f: &FieldError| {
        FIELD_FRAME_BYTES + escape::attr_len(&f.path) + escape::text_len(&f.message)
    };
    let total: usize = fields.iter().map(line).sum();
    if total <= budget {
        let awareness = failure
            .contract_awareness
            .as_ref()
            .and_then(|a| normalize_awareness(a, budget - total));
        let mut normalized = ValidationFailure::new(action, fields);
        normalized.contract_awareness = awareness;
        // The default line is written whether set or not: left unset.
        normalized.next_step = next_step.filter(|line| *line != normalized.default_next_step());
        return normalized;
    }
    let reserve = 200;
    let mut kept = Vec::new();
    let mut used = 0;
    for f in &fields {
        if used + line(f) > budget - reserve {
            break;
        }
        used += line(f);
        kept.push(f.clone());
    }
    // The lines cut here, plus those an earlier `(more)` line already
    // counted. A next step that named the values of every line would now
    // name some the envelope does not show: the default one is written.
    let left_out = failure.problem_count() - kept.len();
    kept.push(crate::error::more_line(left_out));
    ValidationFailure::new(action, kept)
}

/// The `<contract_awareness>` section as the envelope carries it, within
/// `room` bytes: names cut to [`MAX_NAME_CHARS`], delta lines to
/// [`MAX_TEXT_CHARS`], then deltas dropped from the end (the least severe)
/// until the section fits; `None` when no delta is left. `changes` and
/// `max_severity` keep counting every change (so `shown` tells how many are
/// written), and are raised if they were below what the deltas say.
fn normalize_awareness(awareness: &ContractAwareness, room: usize) -> Option<ContractAwareness> {
    let action = name_value(&awareness.action);
    let mut deltas: Vec<AwarenessDelta> = awareness
        .deltas
        .iter()
        .map(|d| AwarenessDelta {
            severity: d.severity,
            field: name_value(&d.field),
            text: text_value(&d.text),
        })
        .collect();
    let delta_len = |d: &AwarenessDelta| {
        DELTA_FRAME_BYTES + escape::attr_len(&d.field) + escape::text_len(&d.text)
    };
    let frame = AWARENESS_FRAME_BYTES + escape::attr_len(&action);
    let mut size = frame + deltas.iter().map(delta_len).sum::<usize>();
    while size > room {
        let dropped = deltas.pop()?;
        size -= delta_len(&dropped);
    }
    let max_in_deltas = deltas.iter().map(|d| d.severity).max()?;
    Some(ContractAwareness {
        action,
        changes: awareness.changes.max(deltas.len()),
        max_severity: awareness.max_severity.max(max_in_deltas),
        deltas,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure called normal is what normalizing it returns; each kind of
    /// change makes it not normal.
    #[test]
    fn a_normal_validation_failure_normalizes_to_itself() {
        let field = |path: &str, message: &str| FieldError::new(path, message);
        let normal = ValidationFailure::new(
            "billing.get_invoice",
            vec![
                field("id", "Does not match <the> pattern & more.\nSecond line."),
                field("items.2.price", "Too small: ]]> and \"quoted\"."),
            ],
        );
        assert!(is_normal_validation(&normal));
        assert_eq!(normalize_validation(&normal), normal);
        let changed = [
            ValidationFailure::new("a", vec![field("id", "bell \u{7}")]),
            ValidationFailure::new("a", vec![field("id", "crlf\r\n")]),
            ValidationFailure::new("a", vec![field(&"p".repeat(201), "long path")]),
            ValidationFailure::new("a", vec![field("id", &"m".repeat(2_001))]),
            ValidationFailure::new("a", vec![field("id", &"m".repeat(1_900)); 10]),
        ];
        for failure in changed {
            assert!(!is_normal_validation(&failure), "{failure:?}");
            assert_ne!(normalize_validation(&failure), failure);
        }
    }

    #[test]
    fn sanitize_replaces_forbidden_characters() {
        assert_eq!(
            sanitize("a\u{0}b\u{1b}c\td\ne", true),
            "a\u{fffd}b\u{fffd}c\td\ne"
        );
        assert_eq!(sanitize("a\r\nb\rc", true), "a\nb\nc");
        assert_eq!(sanitize("a\r\nb", false), "a\r\nb");
        assert_eq!(sanitize("\u{fffe}\u{ffff}", false), "\u{fffd}\u{fffd}");
        // Nothing to change: borrowed, even with U+FFFD and U+EFBF-like bytes.
        for clean in ["plain é漢 \u{fffd} \u{efbf}\u{fffc}", "a\tb\nc", ""] {
            assert!(
                matches!(sanitize(clean, true), Cow::Borrowed(_)),
                "{clean:?}"
            );
        }
        // In every position of a 20-byte text.
        for at in 0..20 {
            let mut text = "x".repeat(20);
            text.replace_range(at..=at, "\u{7}");
            let expected = text.replace('\u{7}', "\u{fffd}");
            assert_eq!(sanitize(&text, false), expected, "{at}");
            let mut text = "y".repeat(20);
            text.insert(at, '\u{ffff}');
            let expected = text.replace('\u{ffff}', "\u{fffd}");
            assert_eq!(sanitize(&text, true), expected, "{at}");
            assert!(matches!(sanitize(&"z".repeat(at), true), Cow::Borrowed(_)));
        }
        assert!(matches!(sanitize("a\rb", false), Cow::Borrowed(_)));
        assert_eq!(sanitize("a\rb", true), "a\nb");
        assert_eq!(sanitize("x\u{ffff}", true), "x\u{fffd}");
    }
}
