//! `fusion serve --example bench` over stdio, as `benches/load/compare.sh`
//! drives it: one tool, the exact failure and success answers, and every
//! answer right under 256 calls in flight.

use std::process::Stdio;

use crate::support::*;
use futures::future::join_all;
use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

/// The `<validation_error>` of `{"id":"bad","email":"nope","amount":0}`.
const THREE_ERRORS: &str = "Fix the fields below and call get_invoice again.\n<validation_error action=\"get_invoice\">\n  <field name=\"id\">Does not match the pattern. You sent: 'bad'. Expected a string matching the pattern '^inv_[0-9]+$'.</field>\n  <field name=\"email\">Invalid email format. You sent: 'nope'. Expected a valid email address.</field>\n  <field name=\"amount\">Too small. You sent: 0. Expected an integer >= 1.</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>";

#[tokio::test]
async fn one_tool_exact_answers_and_every_answer_under_load() {
    let command = tokio::process::Command::new(FUSION).configure(|c| {
        c.args(["serve", "--example", "bench", "--stdio"]);
    });
    let (child, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("start fusion serve --example bench --stdio");
    let client = ().serve(child).await.expect("MCP handshake over stdio");

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["get_invoice"]);
    assert_eq!(
        tools[0].input_schema.get("required"),
        Some(&json!(["id", "email", "amount"]))
    );

    let session = Session {
        client,
        _http: None,
    };
    let fail = json!({"id": "bad", "email": "nope", "amount": 0});
    let calls = (0..256).map(|i| {
        let session = &session;
        let fail = fail.clone();
        async move {
            let args = if i % 2 == 0 {
                fail
            } else {
                json!({"id": format!("inv_{i}"), "email": "user@example.com", "amount": i})
            };
            (i, session.call("get_invoice", args).await)
        }
    });
    for (i, result) in join_all(calls).await {
        if i % 2 == 0 {
            assert_eq!(texts(&result), [THREE_ERRORS], "call {i}");
            assert_eq!(result.is_error, Some(true), "call {i}");
            let meta = meta_of(&result).expect("_meta twin");
            assert_eq!(meta["code"], "VALIDATION_ERROR");
            let paths: Vec<&Value> = meta["fields"]
                .as_array()
                .expect("fields")
                .iter()
                .map(|f| &f["path"])
                .collect();
            assert_eq!(paths, [&json!("id"), &json!("email"), &json!("amount")]);
        } else {
            assert_eq!(
                texts(&result),
                [format!(r#"{{"id":"inv_{i}","status":"open"}}"#)],
                "call {i}"
            );
            assert_eq!(result.is_error, Some(false), "call {i}");
        }
    }
    session.close().await;
}

/// `fusion serve --example bench-presented`: get_invoice and the presented
/// twins `benches/load/callgrind.sh` measures, and one presented answer.
#[tokio::test]
async fn bench_presented_serves_the_twins() {
    let command = tokio::process::Command::new(FUSION).configure(|c| {
        c.args(["serve", "--example", "bench-presented", "--stdio"]);
    });
    let (child, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("start fusion serve --example bench-presented --stdio");
    let client = ().serve(child).await.expect("MCP handshake over stdio");
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "get_invoice",
            "list_invoices",
            "list_invoices_plain",
            "pay_invoice",
            "show_invoice",
            "show_invoice_plain"
        ]
    );
    let session = Session {
        client,
        _http: None,
    };
    let shown = session.call("show_invoice", json!({"id": "inv_2"})).await;
    assert_eq!(
        texts(&shown),
        [
            r#"{"id":"inv_2","status":"open","amount_cents":1002,"card_number":"[redacted]"}"#,
            "<domain_rules>\n- Amounts are in cents.\n</domain_rules>\n<next_actions>\n- Call pay_invoice with {\"id\":\"inv_2\"}: It is unpaid.\n</next_actions>"
        ]
    );
    assert_eq!(
        shown.structured_content,
        Some(
            json!({"id": "inv_2", "status": "open", "amount_cents": 1002, "card_number": "[redacted]"})
        )
    );
    session.close().await;
}

#[test]
fn billing_flags_are_refused_with_the_example_named() {
    let output = std::process::Command::new(FUSION)
        .args([
            "serve",
            "--example",
            "bench",
            "--stdio",
            "--rate-limit",
            "2/min",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run fusion");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim(),
        "fusion serve: --rate-limit applies to the billing example only; leave it out with --example bench"
    );
}
