//! Reading one JSON-RPC message from a server and judging a `tools/call`
//! answer against what its [`CallPath`] expects.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::calls::{CallPath, OK_TEXT};

/// The parts of a JSON-RPC message from the server that the driver looks
/// at, borrowed from the text where possible (unknown fields are skipped).
#[derive(Debug, Deserialize)]
pub struct Incoming<'a> {
    /// The id: a number for the driver's requests; absent on notifications.
    #[serde(default)]
    pub id: Option<serde_json::Value>,
    /// Present on a notification or a request from the server.
    #[serde(default, borrow)]
    pub method: Option<Cow<'a, str>>,
    /// A successful response's result.
    #[serde(default, borrow)]
    pub result: Option<ToolResult<'a>>,
    /// An error response's error.
    #[serde(default, borrow)]
    pub error: Option<RpcError<'a>>,
}

impl Incoming<'_> {
    /// The id as a number, if it is one.
    pub fn numeric_id(&self) -> Option<u64> {
        self.id.as_ref().and_then(serde_json::Value::as_u64)
    }

    /// `true` for a notification or a request from the server (not an
    /// answer to the driver).
    pub fn is_from_server(&self) -> bool {
        self.method.is_some()
    }
}

/// The parts of a `CallToolResult` that are checked (`_meta`,
/// `structuredContent` and the rest are read past).
#[derive(Debug, Deserialize)]
pub struct ToolResult<'a> {
    /// `isError`; absent means `false`.
    #[serde(default, rename = "isError")]
    pub is_error: Option<bool>,
    /// The content blocks.
    #[serde(default, borrow)]
    pub content: Vec<Block<'a>>,
}

/// One content block; only text is looked at.
#[derive(Debug, Deserialize)]
pub struct Block<'a> {
    /// The text of a `text` block.
    #[serde(default, borrow)]
    pub text: Option<Cow<'a, str>>,
}

/// A JSON-RPC error object.
#[derive(Debug, Deserialize)]
pub struct RpcError<'a> {
    /// The JSON-RPC error code (e.g. `-32602`).
    #[serde(default)]
    pub code: i64,
    /// The error message.
    #[serde(default, borrow)]
    pub message: Cow<'a, str>,
}

/// How one answer turned out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The success the `ok` path (or a presented twin's) expects.
    Ok,
    /// The tool error the `fail` path expects.
    ToolError,
    /// A JSON-RPC error response (never expected).
    RpcError(String),
    /// Anything else: the wrong result for the path, a malformed answer, an
    /// unknown or repeated id; the text says what.
    Unexpected(String),
}

/// Judges the answer `message` to a call of `path`. The id is not looked at
/// (the caller matches ids).
pub fn classify(path: CallPath, message: &Incoming<'_>) -> Outcome {
    if let Some(error) = &message.error {
        return Outcome::RpcError(format!("JSON-RPC error {}: {}", error.code, error.message));
    }
    let Some(result) = &message.result else {
        return Outcome::Unexpected("an answer with neither result nor error".into());
    };
    let is_error = result.is_error.unwrap_or(false);
    let text = result.content.first().and_then(|b| b.text.as_deref());
    if let Some((blocks, start)) = path.expected_success() {
        return classify_twin(path, is_error, result.content.len(), text, (blocks, start));
    }
    match path {
        CallPath::Ok if is_error => Outcome::Unexpected(format!(
            "isError true on the ok path: {}",
            short(text.unwrap_or(""))
        )),
        CallPath::Ok if text == Some(OK_TEXT) && result.content.len() == 1 => Outcome::Ok,
        CallPath::Ok => Outcome::Unexpected(format!(
            "wrong success content ({} blocks, first text {:?})",
            result.content.len(),
            text.map(short)
        )),
        CallPath::Fail if !is_error => Outcome::Unexpected(format!(
            "isError false on the fail path: {}",
            short(text.unwrap_or(""))
        )),
        // The three checks failed: a stack that stops at the first, or
        // answers with a generic text, does less work and is not comparable.
        CallPath::Fail if text.is_some_and(names_every_field) => Outcome::ToolError,
        CallPath::Fail => Outcome::Unexpected(format!(
            "isError true, but the text does not name id, email and amount: {}",
            short(text.unwrap_or(""))
        )),
        _ => Outcome::Unexpected(format!("no expected answer for the {} path", path.name())),
    }
}

/// Judges the answer to a presented twin's call (`path`): a success of
/// `expected.0` blocks whose first text begins with `expected.1`.
fn classify_twin(
    path: CallPath,
    is_error: bool,
    blocks: usize,
    text: Option<&str>,
    expected: (usize, &str),
) -> Outcome {
    if is_error {
        return Outcome::Unexpected(format!(
            "isError true on the {} path: {}",
            path.name(),
            short(text.unwrap_or(""))
        ));
    }
    if blocks == expected.0 && text.is_some_and(|text| text.starts_with(expected.1)) {
        return Outcome::Ok;
    }
    Outcome::Unexpected(format!(
        "wrong success content on the {} path ({blocks} blocks, first text {:?})",
        path.name(),
        text.map(short)
    ))
}

/// Whether a failure's text names the three fields the fail path breaks.
fn names_every_field(text: &str) -> bool {
    ["id", "email", "amount"]
        .iter()
        .all(|field| text.contains(field))
}

/// At most 200 characters of `text`, for messages.
fn short(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The number of answers of each kind over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Successes the `ok` path (or a presented twin's) expects.
    pub ok: u64,
    /// Tool errors the `fail` path expects.
    pub tool_error: u64,
    /// JSON-RPC error responses.
    pub rpc_error: u64,
    /// Answers that are neither (wrong result, malformed, unknown or repeated
    /// id, HTTP error status).
    pub unexpected: u64,
    /// Calls sent and never answered (the run ended, the connection failed
    /// or no answer came within the timeout).
    pub missing: u64,
    /// The first few problems, for the error output.
    #[serde(skip)]
    pub samples: Vec<String>,
}

/// How many problem texts a [`Tally`] keeps.
const MAX_SAMPLES: usize = 5;

impl Tally {
    /// Counts one outcome.
    pub fn record(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Ok => self.ok += 1,
            Outcome::ToolError => self.tool_error += 1,
            Outcome::RpcError(text) => {
                self.rpc_error += 1;
                self.sample(text);
            }
            Outcome::Unexpected(text) => {
                self.unexpected += 1;
                self.sample(text);
            }
        }
    }

    /// Counts `count` calls that got no answer, `why`.
    pub fn missing(&mut self, count: u64, why: String) {
        if count > 0 {
            self.missing += count;
            self.sample(why);
        }
    }

    /// Keeps `text` if fewer than a few problems are kept.
    pub fn sample(&mut self, text: String) {
        if self.samples.len() < MAX_SAMPLES {
            self.samples.push(text);
        }
    }

    /// Adds `other`'s counts (and problems, while there is room).
    pub fn merge(&mut self, other: Tally) {
        self.ok += other.ok;
        self.tool_error += other.tool_error;
        self.rpc_error += other.rpc_error;
        self.unexpected += other.unexpected;
        self.missing += other.missing;
        for text in other.samples {
            self.sample(text);
        }
    }

    /// All answers counted (not the missing ones).
    pub fn answered(&self) -> u64 {
        self.ok + self.tool_error + self.rpc_error + self.unexpected
    }

    /// `true` when every call got the answer its path expects.
    pub fn passed(&self) -> bool {
        self.rpc_error == 0 && self.unexpected == 0 && self.missing == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(path: CallPath, line: &str) -> Outcome {
        let message: Incoming<'_> = serde_json::from_str(line).unwrap();
        classify(path, &message)
    }

    #[test]
    fn the_expected_answers_pass() {
        let ok = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"id\":\"inv_1\",\"status\":\"open\"}"}],"isError":false,"_meta":{"x":[1,{"y":2}]}}}"#;
        assert_eq!(judge(CallPath::Ok, ok), Outcome::Ok);
        let message: Incoming<'_> = serde_json::from_str(ok).unwrap();
        assert_eq!(message.numeric_id(), Some(7));
        // isError absent is a success too (the TypeScript SDK leaves it out).
        let absent = r#"{"result":{"content":[{"type":"text","text":"{\"id\":\"inv_1\",\"status\":\"open\"}"}]},"jsonrpc":"2.0","id":2}"#;
        assert_eq!(judge(CallPath::Ok, absent), Outcome::Ok);
        let fail = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"id, email and amount are invalid"}],"isError":true}}"#;
        assert_eq!(judge(CallPath::Fail, fail), Outcome::ToolError);
    }

    #[test]
    fn the_wrong_answers_are_unexpected() {
        let fail = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"bad"}],"isError":true}}"#;
        assert_eq!(
            judge(CallPath::Ok, fail),
            Outcome::Unexpected("isError true on the ok path: bad".into())
        );
        let wrong =
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{}"}]}}"#;
        assert_eq!(
            judge(CallPath::Ok, wrong),
            Outcome::Unexpected("wrong success content (1 blocks, first text Some(\"{}\"))".into())
        );
        assert_eq!(
            judge(CallPath::Fail, wrong),
            Outcome::Unexpected("isError false on the fail path: {}".into())
        );
        let empty = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#;
        assert_eq!(
            judge(CallPath::Fail, empty),
            Outcome::Unexpected(
                "isError true, but the text does not name id, email and amount: ".into()
            )
        );
        let first_only = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"id: bad"}],"isError":true}}"#;
        assert_eq!(
            judge(CallPath::Fail, first_only),
            Outcome::Unexpected(
                "isError true, but the text does not name id, email and amount: id: bad".into()
            )
        );
        let all = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"id, email, amount"}],"isError":true}}"#;
        assert_eq!(judge(CallPath::Fail, all), Outcome::ToolError);
        let rpc = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"a":1}}}"#;
        assert_eq!(
            judge(CallPath::Fail, rpc),
            Outcome::RpcError("JSON-RPC error -32602: Invalid params".into())
        );
    }

    #[test]
    fn a_presented_twin_needs_its_blocks_and_its_first_text() {
        let shown = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":\"inv_2\",\"status\":\"open\",\"amount_cents\":1002,\"card_number\":\"[redacted]\"}"},{"type":"text","text":"<domain_rules>…"}]}}"#;
        assert_eq!(judge(CallPath::Show, shown), Outcome::Ok);
        assert_eq!(
            judge(CallPath::ShowPlain, shown),
            Outcome::Unexpected(
                "wrong success content on the show-plain path (2 blocks, first text Some(\"{\\\"id\\\":\\\"inv_2\\\",\\\"status\\\":\\\"open\\\",\\\"amount_cents\\\":1002,\\\"card_number\\\":\\\"[redacted]\\\"}\"))".into()
            )
        );
        let error = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}"#;
        assert_eq!(
            judge(CallPath::List, error),
            Outcome::Unexpected("isError true on the list path: no".into())
        );
        assert_eq!(CallPath::ListPlain.tool(), "list_invoices_plain");
        assert_eq!(CallPath::Fail.tool(), "get_invoice");
    }

    #[test]
    fn tally_counts_and_keeps_a_few_samples() {
        let mut tally = Tally::default();
        tally.record(Outcome::Ok);
        tally.record(Outcome::ToolError);
        for n in 0..7 {
            tally.record(Outcome::Unexpected(format!("u{n}")));
        }
        tally.missing(3, "gone".into());
        assert_eq!(
            (tally.ok, tally.tool_error, tally.unexpected, tally.missing),
            (1, 1, 7, 3)
        );
        assert_eq!(tally.answered(), 9);
        assert_eq!(tally.samples, ["u0", "u1", "u2", "u3", "u4"]);
        assert!(!tally.passed());
    }
}
