//! `fusion envelope render|parse`: the command-line face of
//! [`mcp_fusion::envelope`] (wire contract §1, §2, §4).
//!
//! Exit codes: 0 success; 1 no envelope found (`parse`) or stdout could not be
//! written; 2 bad input (one line on stderr naming the field and what was
//! expected). Nothing here panics on any input.

use std::fmt;
use std::io::{self, Read, Write};
use std::process::ExitCode;

use clap::Subcommand;
use mcp_fusion::{Severity, ToolError, envelope};
use serde_json::{Map, Value};

/// The members `fusion envelope render` accepts, in the order of the `_meta` JSON.
const KEYS: [&str; 8] = [
    "code",
    "severity",
    "message",
    "next_step",
    "recovery",
    "available_actions",
    "details",
    "retry_after_seconds",
];

/// What `render` expects of each member (used in error lines and `--help`).
fn expected(key: &str) -> &'static str {
    match key {
        "code" => "a non-empty string (a canonical code such as NOT_FOUND, or a custom code)",
        "severity" => "one of \"error\", \"critical\", \"warning\"",
        "message" | "next_step" | "recovery" => "a string",
        "available_actions" => "an array of strings",
        "details" => {
            "an object of string, number or boolean values, or an array of [key, value] pairs"
        }
        "retry_after_seconds" => "a number of seconds >= 0",
        _ => "nothing (unknown key)",
    }
}

const RENDER_ABOUT: &str = "Read one JSON object on stdin and print its <tool_error> envelope";

const RENDER_LONG_ABOUT: &str = "\
Read one JSON object on stdin and print its <tool_error> envelope (wire contract §2),
or with --meta its _meta[\"mcp-fusion/error\"] JSON twin (§1), followed by one newline.

Input (one JSON object; members other than these are rejected):
  code                 string, required: NOT_FOUND, RATE_LIMITED, ... or any custom code
  severity             \"error\" (default), \"critical\" or \"warning\"
  message              string, required; an empty one becomes the code's default sentence
  next_step            string: the plain line before the envelope (§2.1); empty means none
  recovery             string; empty means none
  available_actions    array of strings (dotted action names)
  details              object (member order is kept) or array of [key, value] pairs;
                       values are strings, numbers or booleans
  retry_after_seconds  number >= 0; rounded up to whole seconds, at most 86400;
                       0 means none
A null optional member counts as absent.

Example:
  echo '{\"code\":\"NOT_FOUND\",\"message\":\"No invoice with that ID\"}' | fusion envelope render

Exit codes:
  0  the envelope was printed
  1  stdout could not be written
  2  bad input: stdin is not one JSON object of the shape above, a member has the
     wrong type or value, a required member is missing, or a member is unknown;
     one line on stderr names the member and what was expected";

const PARSE_ABOUT: &str = "Read text on stdin and print the envelope it holds as JSON";

const PARSE_LONG_ABOUT: &str = "\
Read text on stdin, find the first <tool_error> or <validation_error> envelope in it
(anything may come before and after it), and print it as the _meta[\"mcp-fusion/error\"]
JSON (wire contract §1), followed by one newline: the same shape `fusion envelope render`
reads; a validation failure adds \"action\" and \"fields\": [{\"path\", \"message\"}].

Exit codes:
  0  an envelope was found and printed
  1  no envelope: none in the text, or it is malformed or unclosed (the reason is one
     line on stderr); or stdout could not be written
  2  stdin is not UTF-8 text";

/// The `fusion envelope` subcommands.
#[derive(Debug, Subcommand)]
pub enum EnvelopeCommand {
    /// Read one JSON object on stdin and print its envelope.
    #[command(about = RENDER_ABOUT, long_about = RENDER_LONG_ABOUT)]
    Render {
        /// Print the `_meta["mcp-fusion/error"]` JSON instead of the XML.
        #[arg(long)]
        meta: bool,
    },
    /// Read text on stdin and print the envelope it holds as JSON.
    #[command(about = PARSE_ABOUT, long_about = PARSE_LONG_ABOUT)]
    Parse,
}

/// Runs one `fusion envelope` subcommand: reads stdin, writes stdout, and
/// returns the exit code documented in the module docs (0, 1 or 2).
pub fn run(cmd: EnvelopeCommand) -> ExitCode {
    let outcome = match cmd {
        EnvelopeCommand::Render { meta } => read_stdin().and_then(|input| render(&input, meta)),
        EnvelopeCommand::Parse => read_stdin().and_then(|input| parse(&input)),
    };
    let (code, output) = match outcome {
        Ok(output) => (0, output),
        Err(failure) => {
            let mut stderr = io::stderr().lock();
            let _ = writeln!(stderr, "error: {failure}");
            return ExitCode::from(failure.exit_code());
        }
    };
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{output}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::from(code),
        Err(err) => {
            let _ = writeln!(io::stderr().lock(), "error: cannot write to stdout: {err}");
            ExitCode::from(1)
        }
    }
}

/// Why a subcommand printed nothing on stdout.
#[derive(Debug)]
enum Failure {
    /// Bad input (exit 2): one line naming the field and what was expected.
    Input(String),
    /// No envelope in the text (exit 1).
    NoEnvelope(envelope::ParseError),
}

impl Failure {
    fn exit_code(&self) -> u8 {
        match self {
            Failure::Input(_) => 2,
            Failure::NoEnvelope(_) => 1,
        }
    }

    /// `FIELD: expected WHAT, got GOT`.
    fn field(field: impl fmt::Display, what: &str, got: impl fmt::Display) -> Self {
        Failure::Input(format!("{field}: expected {what}, got {got}"))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Input(line) => f.write_str(line),
            Failure::NoEnvelope(err) => write!(f, "{err}"),
        }
    }
}

fn read_stdin() -> Result<String, Failure> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|err| Failure::Input(format!("stdin: cannot read it: {err}")))?;
    String::from_utf8(bytes).map_err(|err| {
        Failure::Input(format!(
            "stdin: expected UTF-8 text, got an invalid byte at offset {}",
            err.utf8_error().valid_up_to()
        ))
    })
}

/// `fusion envelope render`: the XML (or `_meta` JSON) of the object in `input`.
fn render(input: &str, meta: bool) -> Result<String, Failure> {
    let err = tool_error_from_json(input)?;
    Ok(if meta {
        pretty(&envelope::to_meta(&err))
    } else {
        envelope::render(&err)
    })
}

/// `fusion envelope parse`: the `_meta` JSON of the envelope found in `input`.
fn parse(input: &str) -> Result<String, Failure> {
    envelope::parse(input)
        .map(|parsed| pretty(&parsed.to_meta()))
        .map_err(Failure::NoEnvelope)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Builds the failure described by the JSON object in `input` (see `--help`).
fn tool_error_from_json(input: &str) -> Result<ToolError, Failure> {
    if input.trim().is_empty() {
        return Err(Failure::field(
            "input",
            "one JSON object on stdin",
            "nothing",
        ));
    }
    let value: Value = serde_json::from_str(input).map_err(|err| json_syntax(input, &err))?;
    let Value::Object(object) = value else {
        return Err(Failure::field("input", "one JSON object", describe(&value)));
    };
    if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(Failure::Input(format!(
            "unknown key {}: expected only {}",
            quote(key),
            KEYS.join(", ")
        )));
    }

    let code = required_string(&object, "code")?;
    if code.trim().is_empty() {
        return Err(Failure::field("code", expected("code"), "an empty string"));
    }
    let message = required_string(&object, "message")?;
    let mut err = ToolError::new(code, message);

    if let Some(value) = optional(&object, "severity") {
        let severity = value
            .as_str()
            .and_then(|s| s.parse::<Severity>().ok())
            .ok_or_else(|| Failure::field("severity", expected("severity"), describe(value)))?;
        err = err.severity(severity);
    }
    if let Some(next_step) = optional_string(&object, "next_step")? {
        err = err.next_step(next_step);
    }
    if let Some(recovery) = optional_string(&object, "recovery")? {
        err = err.suggest(recovery);
    }
    if let Some(value) = optional(&object, "available_actions") {
        err = err.actions(actions(value)?);
    }
    if let Some(value) = optional(&object, "details") {
        err = err.details(details(value)?);
    }
    if let Some(value) = optional(&object, "retry_after_seconds") {
        let secs = value
            .as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| {
                Failure::field(
                    "retry_after_seconds",
                    expected("retry_after_seconds"),
                    describe(value),
                )
            })?;
        err = err.retry_after(secs);
    }
    Ok(err)
}

/// The member `key`, `None` when it is absent or `null`.
fn optional<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// An optional string member (null counts as absent).
fn optional_string<'a>(
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, Failure> {
    optional(object, key)
        .map(|value| {
            value
                .as_str()
                .ok_or_else(|| Failure::field(key, expected(key), describe(value)))
        })
        .transpose()
}

fn required_string(object: &Map<String, Value>, key: &str) -> Result<String, Failure> {
    match object.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(Failure::field(key, expected(key), describe(other))),
        None => Err(Failure::field(
            key,
            expected(key),
            "nothing (the member is required)",
        )),
    }
}

fn actions(value: &Value) -> Result<Vec<String>, Failure> {
    let what = expected("available_actions");
    let items = value
        .as_array()
        .ok_or_else(|| Failure::field("available_actions", what, describe(value)))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().map(str::to_owned).ok_or_else(|| {
                Failure::field(
                    format!("available_actions[{i}]"),
                    "a string",
                    describe(item),
                )
            })
        })
        .collect()
}

fn details(value: &Value) -> Result<Vec<(String, String)>, Failure> {
    let scalar = "a string, number or boolean";
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, v)| {
                detail_value(v).map(|v| (key.clone(), v)).ok_or_else(|| {
                    Failure::field(format!("details[{}]", quote(key)), scalar, describe(v))
                })
            })
            .collect(),
        Value::Array(pairs) => pairs
            .iter()
            .enumerate()
            .map(|(i, pair)| match pair.as_array().map(Vec::as_slice) {
                Some([Value::String(key), v]) => detail_value(v)
                    .map(|v| (key.clone(), v))
                    .ok_or_else(|| Failure::field(format!("details[{i}][1]"), scalar, describe(v))),
                _ => Err(Failure::field(
                    format!("details[{i}]"),
                    "a [key, value] pair with a string key",
                    describe(pair),
                )),
            })
            .collect(),
        other => Err(Failure::field(
            "details",
            expected("details"),
            describe(other),
        )),
    }
}

/// A detail value as the builder stores it: strings verbatim, numbers and
/// booleans with `to_string`.
fn detail_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A short description of a JSON value for an error line (never multi-line).
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("the string {}…", quote(&head))
        }
        Value::String(s) => format!("the string {}", quote(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// `s` as a JSON string literal: quoted, with newlines and quotes escaped.
fn quote(s: &str) -> String {
    Value::from(s).to_string()
}

/// The one-line reason for input that is not JSON. When the error sits in the
/// value of a member (`"retry_after_seconds": NaN`), the line names the member.
fn json_syntax(input: &str, err: &serde_json::Error) -> Failure {
    let reason = err.to_string();
    if err.classify() == serde_json::error::Category::Data {
        return Failure::field("input", "one JSON object", format!("bad JSON ({reason})"));
    }
    let offset = byte_offset(input, err.line(), err.column());
    let token = input[offset..]
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '+' || c == '.'))
        .next()
        .unwrap_or("");
    match member_before(&input[..offset]) {
        Some(key) if KEYS.contains(&key.as_str()) => {
            let got = if token.is_empty() {
                format!("invalid JSON ({reason})")
            } else {
                format!("{token}, which is not valid JSON ({reason})")
            };
            Failure::field(&key, expected(&key), got)
        }
        _ => Failure::field(
            "input",
            "one JSON object",
            format!("invalid JSON ({reason})"),
        ),
    }
}

/// The byte offset of serde_json's 1-based line and column (the column counts
/// bytes; it points at the offending byte, or just after it).
fn byte_offset(input: &str, line: usize, column: usize) -> usize {
    let line_start: usize = input
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut offset = (line_start + column.saturating_sub(1)).min(input.len());
    while !input.is_char_boundary(offset) {
        offset -= 1;
    }
    // Step back to the start of the offending token.
    let bytes = input.as_bytes();
    while offset > 0 && (bytes[offset - 1].is_ascii_alphanumeric() || bytes[offset - 1] == b'-') {
        offset -= 1;
    }
    offset
}

/// The member name just before `before` if it ends with `"key":` (whitespace
/// allowed), i.e. when the next token is that member's value.
fn member_before(before: &str) -> Option<String> {
    let before = before.trim_end().strip_suffix(':')?.trim_end();
    let body = before.strip_suffix('"')?;
    let bytes = body.as_bytes();
    let mut i = body.len();
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                return serde_json::from_str(&before[i..]).ok();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_before_finds_the_key() {
        assert_eq!(
            member_before("{\"a\":1, \"retry_after_seconds\" : "),
            Some("retry_after_seconds".into())
        );
        assert_eq!(member_before("{\"a\\\"b\":"), Some("a\"b".into()));
        assert_eq!(member_before("{\"a\": [1, "), None);
        assert_eq!(member_before(""), None);
    }

    #[test]
    fn offsets_point_at_the_token() {
        let input = "{\"code\":\"X\",\n \"retry_after_seconds\": NaN}";
        let err = serde_json::from_str::<Value>(input).unwrap_err();
        let offset = byte_offset(input, err.line(), err.column());
        assert_eq!(&input[offset..], "NaN}");
    }
}
