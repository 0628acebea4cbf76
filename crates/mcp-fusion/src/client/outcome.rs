//! Reading a `CallToolResult`: [`check_result`] splits it into a [`Success`]
//! (with its warnings) or a [`ToolFailure`] (wire contract §1, §3, §8).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use super::error::{FailureSource, FusionClientError, ToolFailure, UNKNOWN_CODE};
use crate::envelope::{self, META_KEY, ParsedEnvelope};
use crate::error::{
    ErrorCode, FieldError, Severity, ToolError, envelope_secs, retry_after_from_secs,
    retry_after_from_text,
};
use crate::json::value_text;

/// The message of a failure whose result has no text, no `structuredContent`
/// and no `_meta` envelope.
pub(crate) const EMPTY_ERROR_MESSAGE: &str =
    "The server reported an error (isError: true) but sent no content to explain it.";

/// A tool call that succeeded (`isError` absent or false).
///
/// The server may have attached warnings (§3): a `<tool_error
/// severity="warning">` envelope after the normal output. They are not errors;
/// they are exposed in [`warnings`](Self::warnings) and left out of
/// [`text`](Self::text).
#[derive(Debug, Clone, PartialEq)]
pub struct Success {
    /// The result exactly as the server sent it.
    pub result: CallToolResult,
    /// The warnings attached to the result, in order: one per `<tool_error>`
    /// text block, or, when there is none, the `_meta["mcp-fusion/error"]`
    /// envelope.
    pub warnings: Vec<ToolError>,
    /// Indices in `result.content` of the blocks that hold a warning envelope.
    warning_blocks: Vec<usize>,
}

impl Success {
    /// The output text: the text blocks that are not warning envelopes, joined
    /// with `\n`. Empty when the tool returned no text.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .result
            .content
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.warning_blocks.contains(i))
            .filter_map(|(_, block)| block.as_text().map(|t| t.text.as_str()))
            .collect();
        texts.join("\n")
    }

    /// The `structuredContent`, if the server sent one.
    pub fn structured(&self) -> Option<&Value> {
        self.result.structured_content.as_ref()
    }

    /// The output as one JSON value: the `structuredContent` when present, else
    /// the [`text`](Self::text) parsed as JSON when it is JSON, else the text
    /// as a JSON string.
    pub fn value(&self) -> Value {
        if let Some(structured) = self.structured() {
            return structured.clone();
        }
        let text = self.text();
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }

    /// Whether the result's content block at `index` is a warning envelope.
    pub fn is_warning_block(&self, index: usize) -> bool {
        self.warning_blocks.contains(&index)
    }

    /// The result as the server sent it.
    pub fn into_result(self) -> CallToolResult {
        self.result
    }
}

/// Splits a tool result (wire contract §8), as
/// [`FusionClient::call_checked`](super::FusionClient::call_checked) does:
/// for a result you already have, from [`FusionClient::call`](super::FusionClient::call),
/// from a server called in process (`FusionServer::call`) or from another
/// MCP client.
///
/// - `isError: true` → `Err(FusionClientError::Tool)`, read from
///   `_meta["mcp-fusion/error"]` when it holds an object with a string `code`
///   ([`FailureSource::Meta`]), else from the envelope in the text blocks
///   (only text blocks, joined with `\n`; [`FailureSource::Envelope`]), else
///   code `UNKNOWN` with the whole text as message ([`FailureSource::Text`]),
///   else, with no text, code `UNKNOWN` with the `structuredContent` as
///   compact JSON or a sentence saying that the server sent nothing to
///   explain the error ([`FailureSource::Empty`]).
/// - anything else → `Ok(Success)`, with its warnings.
///
/// Never panics, whatever the result holds; the only error variant returned
/// is [`FusionClientError::Tool`].
pub fn check_result(result: CallToolResult) -> Result<Success, FusionClientError> {
    if result.is_error == Some(true) {
        Err(read_failure(result).into())
    } else {
        Ok(read_success(result))
    }
}

/// Reads a foreign `retry_after_seconds` value (`_meta`, §1) as whole seconds,
/// by the same rule as the envelope's `<retry_after>` (§2).
///
/// A JSON number goes through [`retry_after_from_secs`] (rounded up, at most
/// 86 400; zero, negative: `None`); a string through [`retry_after_from_text`]
/// (a plain non-negative number, optionally followed by `seconds`: `"30"`,
/// `"1.5 seconds"`; anything else, such as `"-3"`, `"NaN"` or `"30abc"`, is
/// `None` whole). Any other JSON value is `None`. The result is `None` or in
/// `1..=86_400`.
pub(crate) fn sanitize_retry_after(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => retry_after_from_secs(n.as_f64()?),
        Value::String(s) => retry_after_from_text(s),
        _ => None,
    }
}

fn read_success(result: CallToolResult) -> Success {
    let mut warnings = Vec::new();
    let mut warning_blocks = Vec::new();
    for (index, block) in result.content.iter().enumerate() {
        let Some(text) = block.as_text().map(|t| t.text.as_str()) else {
            continue;
        };
        if !envelope::opens_tool_error(text) {
            continue;
        }
        if let Ok(ParsedEnvelope::Tool(warning)) = envelope::parse(text) {
            warnings.push(warning);
            warning_blocks.push(index);
        }
    }
    if warnings.is_empty()
        && let Some(meta) = meta_envelope(&result)
    {
        let message = meta.message.clone().unwrap_or_default();
        warnings.push(meta.into_tool_error(message));
    }
    Success {
        result,
        warnings,
        warning_blocks,
    }
}

fn read_failure(raw: CallToolResult) -> ToolFailure {
    let text = joined_text(&raw.content);
    if let Some(meta) = meta_envelope(&raw) {
        return meta.into_failure(&text, raw);
    }
    if !text.trim().is_empty() {
        if let Ok(parsed) = envelope::parse(&text) {
            return from_envelope(parsed, raw);
        }
        return unknown(text, FailureSource::Text, raw);
    }
    let message = match &raw.structured_content {
        Some(value) if !value.is_null() => value.to_string(),
        _ => EMPTY_ERROR_MESSAGE.to_owned(),
    };
    unknown(message, FailureSource::Empty, raw)
}

/// The text blocks only (never images, resources…), joined with `\n`.
fn joined_text(content: &[ContentBlock]) -> String {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
        .collect();
    texts.join("\n")
}

fn unknown(message: String, source: FailureSource, raw: CallToolResult) -> ToolFailure {
    ToolFailure {
        code: ErrorCode::Custom(UNKNOWN_CODE.to_owned()),
        severity: Severity::Error,
        message,
        next_step: None,
        recovery: None,
        available_actions: Vec::new(),
        details: Vec::new(),
        retry_after: None,
        action: None,
        fields: Vec::new(),
        source,
        raw,
    }
}

fn from_envelope(parsed: ParsedEnvelope, raw: CallToolResult) -> ToolFailure {
    match parsed {
        ParsedEnvelope::Tool(err) => ToolFailure {
            message: non_empty_or(err.message, err.code.default_message()),
            retry_after: envelope_secs(err.retry_after),
            code: err.code,
            severity: err.severity,
            next_step: err.next_step.filter(|r| !r.trim().is_empty()),
            recovery: err.recovery.filter(|r| !r.trim().is_empty()),
            available_actions: err.available_actions,
            details: err.details,
            action: None,
            fields: Vec::new(),
            source: FailureSource::Envelope,
            raw,
        },
        ParsedEnvelope::Validation(failure) => ToolFailure {
            code: ErrorCode::ValidationError,
            severity: Severity::Error,
            message: failure.summary(),
            next_step: None,
            recovery: Some(failure.recovery()),
            available_actions: Vec::new(),
            details: Vec::new(),
            retry_after: None,
            action: Some(failure.action),
            fields: failure.fields,
            source: FailureSource::Envelope,
            raw,
        },
    }
}

fn non_empty_or(message: String, fallback: &str) -> String {
    if message.trim().is_empty() {
        fallback.to_owned()
    } else {
        message
    }
}

/// `_meta["mcp-fusion/error"]`, read leniently: any member of the wrong type
/// is ignored; the object counts only if it has a non-empty string `code`.
struct MetaEnvelope {
    code: ErrorCode,
    severity: Severity,
    message: Option<String>,
    next_step: Option<String>,
    recovery: Option<String>,
    available_actions: Vec<String>,
    details: Vec<(String, String)>,
    retry_after: Option<u64>,
    action: Option<String>,
    fields: Vec<FieldError>,
}

fn meta_envelope(result: &CallToolResult) -> Option<MetaEnvelope> {
    let meta = result.meta.as_ref()?.0.get(META_KEY)?.as_object()?;
    let code = non_empty_str(meta.get("code"))?;
    Some(MetaEnvelope {
        code: ErrorCode::from(code),
        severity: non_empty_str(meta.get("severity"))
            .and_then(|s| s.parse().ok())
            .unwrap_or_default(),
        message: non_empty_str(meta.get("message")).map(str::to_owned),
        next_step: non_empty_str(meta.get("next_step")).map(str::to_owned),
        recovery: non_empty_str(meta.get("recovery")).map(str::to_owned),
        available_actions: string_list(meta.get("available_actions")),
        details: details(meta.get("details")),
        retry_after: meta
            .get("retry_after_seconds")
            .and_then(sanitize_retry_after),
        action: non_empty_str(meta.get("action")).map(str::to_owned),
        fields: fields(meta.get("fields")),
    })
}

impl MetaEnvelope {
    fn into_failure(self, text: &str, raw: CallToolResult) -> ToolFailure {
        let message = match self.message {
            Some(message) => message,
            None if !text.trim().is_empty() => text.to_owned(),
            None => self.code.default_message().to_owned(),
        };
        ToolFailure {
            code: self.code,
            severity: self.severity,
            message,
            next_step: self.next_step,
            recovery: self.recovery,
            available_actions: self.available_actions,
            details: self.details,
            retry_after: self.retry_after,
            action: self.action,
            fields: self.fields,
            source: FailureSource::Meta,
            raw,
        }
    }

    fn into_tool_error(self, message: String) -> ToolError {
        let mut err = ToolError::new(self.code, message)
            .severity(self.severity)
            .actions(self.available_actions)
            .retry_after(self.retry_after.unwrap_or(0));
        err.next_step = self.next_step;
        err.recovery = self.recovery;
        err.details = self.details;
        err
    }
}

fn non_empty_str(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn details(value: Option<&Value>) -> Vec<(String, String)> {
    match value {
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v)))
            .collect(),
        _ => Vec::new(),
    }
}

fn fields(value: Option<&Value>) -> Vec<FieldError> {
    let Some(Value::Array(items)) = value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(Value::as_object)
        .map(|field: &Map<String, Value>| {
            let path = non_empty_str(field.get("path"))
                .or_else(|| non_empty_str(field.get("name")))
                .unwrap_or("(root)");
            let message = field.get("message").map(value_text).unwrap_or_default();
            FieldError::new(path, message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).expect("a valid CallToolResult")
    }

    fn failure(value: Value) -> ToolFailure {
        match check_result(result(value)) {
            Err(FusionClientError::Tool(failure)) => *failure,
            other => panic!("expected a tool failure, got {other:?}"),
        }
    }

    #[test]
    fn retry_after_is_sanitized() {
        let cases = [
            (json!(30), Some(30)),
            (json!(0), None),
            (json!(0.0), None),
            (json!(1.2), Some(2)),
            (json!(0.01), Some(1)),
            (json!(-5), None),
            (json!(-0.5), None),
            (json!(1e300), Some(86_400)),
            (json!(u64::MAX), Some(86_400)),
            (json!(i64::MIN), None),
            (json!("12 seconds"), Some(12)),
            (json!("12"), Some(12)),
            (json!("1.5"), Some(2)),
            (json!(" 7 second "), Some(7)),
            (json!("99999999999999999999"), Some(86_400)),
            (json!("0"), None),
            (json!("NaN"), None),
            (json!("inf"), None),
            (json!("soon"), None),
            (json!("thirty"), None),
            (json!("-3"), None),
            (json!("-1 seconds"), None),
            (json!("30abc"), None),
            (json!("1e3"), None),
            (json!("1e3x"), None),
            (json!("12.5.1"), None),
            (json!(null), None),
            (json!(true), None),
            (json!([5]), None),
            (json!({"secs": 5}), None),
            (Value::from(f64::NAN), None),
        ];
        for (value, expected) in cases {
            assert_eq!(sanitize_retry_after(&value), expected, "{value}");
        }
    }

    #[test]
    fn meta_with_odd_member_types_is_read_leniently() {
        let f = failure(json!({
            "isError": true,
            "content": [{"type": "text", "text": "Plain words"}],
            "_meta": {"mcp-fusion/error": {
                "code": "X_Y", "severity": "fatal", "available_actions": ["a.b", 3, ""],
                "details": {"n": 3, "ok": true, "s": "v"}, "retry_after_seconds": "abc",
                "fields": "nope"
            }}
        }));
        assert_eq!(f.code, ErrorCode::Custom("X_Y".into()));
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(f.message, "Plain words");
        assert_eq!(f.available_actions, ["a.b"]);
        assert_eq!(
            f.details,
            [
                ("n".to_owned(), "3".to_owned()),
                ("ok".to_owned(), "true".to_owned()),
                ("s".to_owned(), "v".to_owned())
            ]
        );
        assert_eq!(f.retry_after, None);
        assert_eq!(f.source, FailureSource::Meta);
    }

    #[test]
    fn meta_without_a_code_is_ignored() {
        let f = failure(json!({
            "isError": true,
            "content": [{"type": "text", "text": "boom"}],
            "_meta": {"mcp-fusion/error": {"message": "m"}, "other": 1}
        }));
        assert_eq!(f.code.as_str(), UNKNOWN_CODE);
        assert_eq!(f.message, "boom");
        assert_eq!(f.source, FailureSource::Text);
    }

    #[test]
    fn structured_content_only_becomes_the_message() {
        let f = failure(json!({
            "isError": true,
            "content": [],
            "structuredContent": {"error": "quota exceeded"}
        }));
        assert_eq!(f.message, r#"{"error":"quota exceeded"}"#);
        assert_eq!(f.source, FailureSource::Empty);
    }
}
