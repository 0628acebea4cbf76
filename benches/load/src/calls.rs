//! The messages the driver sends, prebuilt, and what a run is (warm-up,
//! measured part, deadline).

use std::time::Duration;

use serde::Serialize;

/// The MCP protocol version the driver asks for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The text of the one content block of a successful `get_invoice` call with
/// id `inv_1` (the only success the driver sends).
pub const OK_TEXT: &str = r#"{"id":"inv_1","status":"open"}"#;

/// The id of the `initialize` request; tool calls are numbered from 1.
pub const INITIALIZE_ID: u64 = 0;

/// The tool called unless `--tool` names another (e.g. `bench.get_invoice`
/// through a gateway that mounts the bench server under `bench`).
pub const DEFAULT_TOOL: &str = "get_invoice";

/// The id of the `tools/list` request sent after the handshake with
/// `--list-tools` (a string: tool calls have numbers).
pub const TOOLS_LIST_ID: &str = "tools";

/// The `tools/list` request (id [`TOOLS_LIST_ID`]), one JSON object, no
/// newline.
pub const TOOLS_LIST_REQUEST: &str = r#"{"jsonrpc":"2.0","id":"tools","method":"tools/list"}"#;

/// `notifications/initialized`, one JSON object, no newline.
pub const INITIALIZED_NOTIFICATION: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Which call the driver repeats (`--path`): one of `get_invoice` (every
/// stack serves it), or one of the presented twins that `fusion serve
/// --example bench-presented` serves beside it (`bench_example::presented`):
/// the same value with and without a presenter, whose difference in
/// instructions is what the presenter costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CallPath {
    /// `{"id":"bad","email":"nope","amount":0}`: three failed checks; the
    /// expected answer is a tool result with `isError: true` whose text
    /// names the three fields (`id`, `email`, `amount`).
    Fail,
    /// `{"id":"inv_1","email":"user@example.com","amount":5}`: the expected
    /// answer has `isError` false or absent and the text [`OK_TEXT`].
    Ok,
    /// `show_invoice {"id":"inv_2"}`: one invoice presented (a field left
    /// out, one redacted, a rule, a suggestion): 2 blocks, the data first.
    Show,
    /// `show_invoice_plain {"id":"inv_2"}`: the same invoice, no presenter:
    /// 1 block, every field.
    ShowPlain,
    /// `list_invoices {}`: 100 invoices presented, cut to 10: 2 blocks.
    List,
    /// `list_invoices_plain {}`: the same 100 invoices, no presenter.
    ListPlain,
}

impl CallPath {
    /// The `arguments` object of the call, as JSON.
    pub fn arguments(self) -> &'static str {
        match self {
            CallPath::Fail => r#"{"id":"bad","email":"nope","amount":0}"#,
            CallPath::Ok => r#"{"id":"inv_1","email":"user@example.com","amount":5}"#,
            CallPath::Show | CallPath::ShowPlain => r#"{"id":"inv_2"}"#,
            CallPath::List | CallPath::ListPlain => "{}",
        }
    }

    /// The name `--path` takes (`fail`, `ok`, `show`, `show-plain`, `list`,
    /// `list-plain`).
    pub fn name(self) -> &'static str {
        match self {
            CallPath::Fail => "fail",
            CallPath::Ok => "ok",
            CallPath::Show => "show",
            CallPath::ShowPlain => "show-plain",
            CallPath::List => "list",
            CallPath::ListPlain => "list-plain",
        }
    }

    /// The tool the path calls unless `--tool` names another:
    /// [`DEFAULT_TOOL`] for `fail` and `ok`, else its presented twin.
    pub fn tool(self) -> &'static str {
        match self {
            CallPath::Fail | CallPath::Ok => DEFAULT_TOOL,
            CallPath::Show => "show_invoice",
            CallPath::ShowPlain => "show_invoice_plain",
            CallPath::List => "list_invoices",
            CallPath::ListPlain => "list_invoices_plain",
        }
    }

    /// What a success of a presented twin's path holds: its number of
    /// content blocks and how its first text begins (the whole text for
    /// one invoice). `None` for `fail` and `ok`.
    pub fn expected_success(self) -> Option<(usize, &'static str)> {
        match self {
            CallPath::Fail | CallPath::Ok => None,
            CallPath::Show => Some((
                2,
                r#"{"id":"inv_2","status":"open","amount_cents":1002,"card_number":"[redacted]"}"#,
            )),
            CallPath::ShowPlain => Some((
                1,
                r#"{"id":"inv_2","status":"open","amount_cents":1002,"card_number":"4111 1111 1111 1111","internal_note":"Disputed a late fee once."}"#,
            )),
            CallPath::List => Some((
                2,
                r#"{"items":[{"id":"inv_1","status":"paid","amount_cents":1001,"card_number":"[redacted]"},"#,
            )),
            CallPath::ListPlain => Some((
                1,
                r#"[{"id":"inv_1","status":"paid","amount_cents":1001,"card_number":"4111 1111 1111 1111","internal_note":"Disputed a late fee once."},"#,
            )),
        }
    }
}

/// The `initialize` request (id [`INITIALIZE_ID`]), one JSON object, no
/// newline.
pub fn initialize_request() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{INITIALIZE_ID},"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-fusion-load","version":"{}"}}}}}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

/// A `tools/call` request of `get_invoice` (or the tool it is mounted as),
/// prebuilt: only the id changes from one call to the next.
#[derive(Clone, Debug)]
pub struct CallTemplate {
    /// The bytes before the id.
    prefix: Vec<u8>,
    /// The bytes after the id (no newline).
    suffix: Vec<u8>,
}

impl CallTemplate {
    /// The template of `path`'s call of the tool named `tool` (escaped as a
    /// JSON string).
    pub fn new(path: CallPath, tool: &str) -> Self {
        let name = serde_json::Value::from(tool).to_string();
        CallTemplate {
            prefix: br#"{"jsonrpc":"2.0","id":"#.to_vec(),
            suffix: format!(
                r#","method":"tools/call","params":{{"name":{name},"arguments":{}}}}}"#,
                path.arguments()
            )
            .into_bytes(),
        }
    }

    /// Appends the request with id `id` (one JSON object, no newline) to
    /// `out`.
    pub fn write(&self, id: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.prefix);
        push_decimal(id, out);
        out.extend_from_slice(&self.suffix);
    }
}

/// Appends `n` in decimal ASCII to `out`.
fn push_decimal(mut n: u64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        // `n % 10` is below 10: the cast cannot truncate.
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// How long the measured part of a run lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Measure for this long (after the warm-up).
    For(Duration),
    /// Measure until this many calls have been answered (after the warm-up).
    Calls(u64),
}

/// The shape of one run.
#[derive(Clone, Copy, Debug)]
pub struct RunPlan {
    /// Calls made, checked and not measured before the measured part starts.
    pub warmup: Duration,
    /// The measured part.
    pub measure: Measure,
    /// The longest wait for any one answer (and for the handshake); past it
    /// the calls in flight count as missing and the run ends.
    pub timeout: Duration,
    /// The longest the whole run may take, from the server's start (or the
    /// first connection) to the last answer; past it the calls in flight
    /// count as missing and the run ends.
    pub deadline: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_template_patches_only_the_id() {
        let template = CallTemplate::new(CallPath::Fail, DEFAULT_TOOL);
        let mut out = Vec::new();
        template.write(1_234_567, &mut out);
        out.push(b'\n');
        template.write(0, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            concat!(
                r#"{"jsonrpc":"2.0","id":1234567,"method":"tools/call","params":{"name":"get_invoice","arguments":{"id":"bad","email":"nope","amount":0}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"get_invoice","arguments":{"id":"bad","email":"nope","amount":0}}}"#,
            )
        );
        let mut max = Vec::new();
        push_decimal(u64::MAX, &mut max);
        assert_eq!(max, b"18446744073709551615");
    }

    #[test]
    fn call_template_names_the_tool_given() {
        let mut out = Vec::new();
        CallTemplate::new(CallPath::Ok, "bench.get_\"x").write(3, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bench.get_\"x","arguments":{"id":"inv_1","email":"user@example.com","amount":5}}}"#
        );
        let list: serde_json::Value = serde_json::from_str(TOOLS_LIST_REQUEST).unwrap();
        assert_eq!(list["id"], TOOLS_LIST_ID);
    }

    #[test]
    fn initialize_is_json() {
        let value: serde_json::Value = serde_json::from_str(&initialize_request()).unwrap();
        assert_eq!(value["params"]["protocolVersion"], PROTOCOL_VERSION);
        assert_eq!(value["id"], 0);
    }
}
