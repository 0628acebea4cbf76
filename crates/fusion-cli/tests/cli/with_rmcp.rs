//! `fusion call` against `examples/with-rmcp`, a plain rmcp `#[tool_router]`
//! server that answers with mcp-fusion's `ToolError` and
//! `router_contract::Parameters`: the phrased validation error and the `NOT_FOUND`
//! envelope, read from `_meta` (`"source": "meta"` in `--json`), and the
//! same answer as `fusion serve --example bench`, the same tool on
//! mcp-fusion's own server.
//!
//! The server is the `with-rmcp` binary beside `fusion` in the target
//! directory: `cargo build --workspace` (scripts/test) or `cargo build -p
//! with-rmcp` builds it.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::run::{FUSION, Run, fusion_with};

/// The `with-rmcp` binary, built beside `fusion`.
fn with_rmcp() -> String {
    let path =
        PathBuf::from(FUSION).with_file_name(format!("with-rmcp{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} does not exist: run `cargo build -p with-rmcp`",
        path.display()
    );
    path.display().to_string()
}

/// `fusion call [--json] --cmd with-rmcp TOOL ARGS`.
fn call(json: bool, tool: &str, args: &str) -> Run {
    let server = with_rmcp();
    let mut command = vec!["call"];
    if json {
        command.push("--json");
    }
    command.extend(["--color", "never", "--cmd", &server, tool, args]);
    fusion_with(&command, &[], b"")
}

/// `fusion call --cmd with-rmcp TOOL ARGS` is a tool error (exit 1):
/// `text` on stdout, and with `--json` exactly `json`.
fn assert_tool_error(tool: &str, args: &str, text: &str, json: Value) {
    let run = call(false, tool, args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, text);

    let run = call(true, tool, args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let output: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(output, json);
}

const INVALID: &str = r#"{"id": "nope", "email": "not-an-email", "amount": 0, "amout": 5}"#;

#[test]
fn invalid_arguments_are_the_phrased_validation_error() {
    assert_tool_error(
        "get_invoice",
        INVALID,
        "tool error VALIDATION_ERROR (severity: error)\n  action:            get_invoice\n  message:           The arguments for get_invoice are not valid (4 problems).\n  recovery:          Fix the fields below and call get_invoice again. Do not explain the error.\n  fields:\n    id: Does not match the pattern. You sent: 'nope'. Expected a string matching the pattern '^inv_[0-9]+$'.\n    email: Invalid email format. You sent: 'not-an-email'. Expected a valid email address.\n    amount: Too small. You sent: 0. Expected an integer >= 1.\n    amout: Unrecognized field \"amout\". You sent: 5. Known fields: \"id\", \"email\", \"amount\". Check for typos.\n",
        json!({"error": {
            "kind": "tool",
            "code": "VALIDATION_ERROR",
            "severity": "error",
            "message": "The arguments for get_invoice are not valid (4 problems).",
            "recovery": "Fix the fields below and call get_invoice again. Do not explain the error.",
            "action": "get_invoice",
            "fields": [
                {"path": "id", "message": "Does not match the pattern. You sent: 'nope'. Expected a string matching the pattern '^inv_[0-9]+$'."},
                {"path": "email", "message": "Invalid email format. You sent: 'not-an-email'. Expected a valid email address."},
                {"path": "amount", "message": "Too small. You sent: 0. Expected an integer >= 1."},
                {"path": "amout", "message": "Unrecognized field \"amout\". You sent: 5. Known fields: \"id\", \"email\", \"amount\". Check for typos."}
            ],
            "source": "meta"
        }}),
    );
}

#[cfg(feature = "example")]
#[test]
fn the_validation_error_is_the_one_fusion_serve_answers() {
    let ours = call(true, "get_invoice", INVALID);
    let bench = format!("'{FUSION}' serve --stdio --example bench");
    let theirs = fusion_with(
        &["call", "--json", "--cmd", &bench, "get_invoice", INVALID],
        &[],
        b"",
    );
    assert_eq!(ours.code, 1, "{}", ours.stderr);
    assert_eq!(theirs.code, 1, "{}", theirs.stderr);
    assert_eq!(ours.stdout, theirs.stdout);
}

#[test]
fn a_missing_invoice_is_not_found_naming_the_list_tool() {
    let args = r#"{"id": "inv_9", "email": "a@example.com", "amount": 5}"#;
    assert_tool_error(
        "get_invoice",
        args,
        "tool error NOT_FOUND (severity: error)\n  message:           No invoice with that ID\n  recovery:          List invoices first, then retry with a real ID\n  available actions: list_invoices\n  details:           requestedId = inv_9\n",
        json!({"error": {
            "kind": "tool",
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice with that ID",
            "recovery": "List invoices first, then retry with a real ID",
            "available_actions": ["list_invoices"],
            "details": {"requestedId": "inv_9"},
            "source": "meta"
        }}),
    );

    let run = call(false, "list_invoices", "{}");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "[\n  \"inv_1\",\n  \"inv_2\"\n]\n");
}
