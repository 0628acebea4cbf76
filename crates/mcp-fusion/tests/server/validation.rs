//! The server runtime end to end: validation through `FusionServer::call`, in
//! process, with the exact text the model reads. The inputs the issue names
//! come back as the whole `<validation_error>` envelope with `isError` and
//! `_meta` (wire contract §4), and the handler is not called; valid ones reach
//! it once.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_fusion::error::VALIDATION_RECOVERY;
use mcp_fusion::{Action, CallContext, FusionServer, ToolError};
use serde_json::{Value, json};

use crate::server::{Calls, Report, builder, call, fixture};
use crate::support::{assert_validation, texts};

/// The one field line, as the `<validation_error>` text and its `_meta`.
fn one_field(action: &str, path: &str, message: &str) -> (String, Value) {
    fields(action, &[(path, message)])
}

/// The `<validation_error>` text and `_meta` for `lines`, as §4 writes them,
/// after the default next step.
fn fields(action: &str, lines: &[(&str, &str)]) -> (String, Value) {
    let tool = action.split('.').next().unwrap();
    stepped(
        action,
        &format!("Fix the fields below and call {tool} again."),
        lines,
    )
}

/// [`fields`] after the next step `step`.
fn stepped(action: &str, step: &str, lines: &[(&str, &str)]) -> (String, Value) {
    let mut text = format!("{step}\n<validation_error action=\"{action}\">\n");
    for (path, message) in lines {
        let escaped = message.replace('&', "&amp;").replace('<', "&lt;");
        text.push_str(&format!("  <field name=\"{path}\">{escaped}</field>\n"));
    }
    text.push_str("  <recovery>Do not explain the error.</recovery>\n</validation_error>");
    let n = lines.len();
    let problems = if n == 1 { "problem" } else { "problems" };
    let meta = json!({
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": format!("The arguments for {action} are not valid ({n} {problems})."),
        "recovery": format!("{step} {VALIDATION_RECOVERY}"),
        "action": action,
        "fields": lines.iter().map(|(p, m)| json!({"path": p, "message": m})).collect::<Vec<_>>(),
    });
    (text, meta)
}

#[tokio::test]
async fn empty_input_is_one_missing_field_line_and_the_handler_is_not_called() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({})).await;
    let (text, meta) = one_field(
        "report",
        "project",
        "Missing required field. You sent: (missing). Expected a string.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn number_for_a_string_is_one_wrong_type_line() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": 42})).await;
    let (text, meta) = one_field(
        "report",
        "project",
        "Wrong type. You sent: 42. Expected a string.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn string_for_an_integer_is_one_wrong_type_line() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "report",
        json!({"project": "demo", "limit": "ten"}),
    )
    .await;
    let (text, meta) = one_field(
        "report",
        "limit",
        "Wrong type. You sent: 'ten'. Expected an integer.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn the_report_schema_is_the_one_the_issue_describes() {
    let (server, _) = fixture();
    let listing = server
        .listings()
        .into_iter()
        .find(|l| l.name == "report")
        .expect("report is listed");
    assert_eq!(listing.input_schema["required"], json!(["project"]));
    assert_eq!(
        listing.input_schema["properties"]["project"]["type"],
        "string"
    );
    assert_eq!(
        listing.input_schema["properties"]["limit"]["type"],
        "integer"
    );
    assert_eq!(listing.input_schema["properties"]["limit"]["minimum"], 0);
    assert_eq!(listing.input_schema["additionalProperties"], false);
}

#[tokio::test]
async fn valid_input_reaches_the_handler_once() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": "demo", "limit": 3})).await;
    assert_eq!(texts(&result), ["{\"project\":\"demo\",\"limit\":3}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.meta, None);
    assert_eq!(result.structured_content, None);
    assert_eq!(calls.report(), 1);
}

#[tokio::test]
async fn enum_value_in_the_wrong_case_lists_all_five_options_and_suggests_active() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "invoices",
        json!({"action": "list", "status": "Active"}),
    )
    .await;
    let (text, meta) = stepped(
        "invoices.list",
        "Replace \"status\": \"Active\" with \"status\": \"active\", keep your other arguments, and call invoices again.",
        &[(
            "status",
            "Invalid value. You sent: 'Active'. Did you mean 'active'?",
        )],
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.list.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_next_step_names_the_values_when_every_line_names_one() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "report",
        json!({"project": "demo", "limit": " 3 "}),
    )
    .await;
    let (text, meta) = stepped(
        "report",
        "Replace \"limit\": \" 3 \" with \"limit\": 3, keep your other arguments, and call report again.",
        &[("limit", "Wrong type. You sent: ' 3 '. Expected an integer.")],
    );
    assert_validation(&result, &text, &meta);

    // One line that names no value: the default step, for every line.
    let result = call(
        &server,
        "invoices",
        json!({"action": "list", "status": "Active", "limit": "many"}),
    )
    .await;
    assert!(
        texts(&result)[0].starts_with("Fix the fields below and call invoices again.\n"),
        "{:?}",
        texts(&result)
    );
    assert_eq!(calls.report(), 0);
    assert_eq!(calls.list.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn union_inside_arrays_is_one_line_at_the_tag_with_the_options() {
    let (server, _) = fixture();
    let args = json!({"orders": [
        {"id": "o1", "lines": [{"sku": "a", "pricing": {"model": "flat", "amount": 5}}]},
        {"id": "o2", "lines": [
            {"sku": "b", "pricing": {"model": "tiered", "tiers": [1, 2]}},
            {"sku": "c", "pricing": {"model": "volume", "amount": 3}}
        ]}
    ]});
    let result = call(&server, "orders", args).await;
    let (text, meta) = one_field(
        "orders",
        "orders.1.lines.1.pricing.model",
        "Invalid value. You sent: 'volume'. Expected one of: 'flat', 'tiered'.",
    );
    assert_validation(&result, &text, &meta);
}

#[tokio::test]
async fn union_branch_picked_by_its_tag_reports_only_that_branch() {
    let (server, _) = fixture();
    let args = json!({"orders": [
        {"id": "o1", "lines": []},
        {"id": "o2", "lines": [
            {"sku": "b", "pricing": {"model": "flat", "amount": 1}},
            {"sku": "c", "pricing": {"model": "tiered", "tiers": "1,2"}}
        ]}
    ]});
    let result = call(&server, "orders", args).await;
    let (text, meta) = one_field(
        "orders",
        "orders.1.lines.1.pricing.tiers",
        "Wrong type. You sent: '1,2'. Expected an array.",
    );
    assert_validation(&result, &text, &meta);
}

#[tokio::test]
async fn integer_beyond_two_to_the_53_reaches_the_handler_exactly() {
    let (server, calls) = fixture();
    let result = call(&server, "big", json!({"n": 9_007_199_254_740_993u64})).await;
    assert_eq!(texts(&result), ["{\"n\":9007199254740993}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(calls.big.load(Ordering::SeqCst), 1);
    // And parsed from JSON text, as a transport would.
    let args: Value = serde_json::from_str(r#"{"n": 9007199254740993}"#).unwrap();
    let result = call(&server, "big", args).await;
    assert_eq!(texts(&result), ["{\"n\":9007199254740993}"]);
}

#[tokio::test]
async fn whole_numbers_written_with_a_fraction_reach_integer_fields() {
    // JSON Schema counts 3.0 as an integer, so validation accepts it; the
    // handler must get it too, not an INTERNAL_ERROR from deserialization.
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": "demo", "limit": 3.0})).await;
    assert_eq!(texts(&result), ["{\"project\":\"demo\",\"limit\":3}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(calls.report(), 1);

    let result = call(&server, "big", json!({"n": 1e3})).await;
    assert_eq!(texts(&result), ["{\"n\":1000}"]);
    assert_eq!(result.is_error, Some(false));

    let nested = json!({"orders": [
        {"id": "o1", "lines": [{"sku": "a", "pricing": {"model": "tiered", "tiers": [1.0, 2]}}]}
    ]});
    let result = call(&server, "orders", nested).await;
    assert_eq!(texts(&result), ["1 orders"]);
    assert_eq!(result.is_error, Some(false));

    // A real fraction is still the model's mistake.
    let result = call(&server, "big", json!({"n": 1.5})).await;
    let (text, meta) = one_field(
        "big",
        "n",
        "Wrong type. You sent: 1.5. Expected an integer.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.big.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn null_for_an_optional_field_is_absent() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": "demo", "limit": null})).await;
    assert_eq!(texts(&result), ["{\"project\":\"demo\",\"limit\":null}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(calls.report(), 1);
}

#[tokio::test]
async fn null_for_a_required_field_is_reported_as_null_not_missing() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": null})).await;
    let (text, meta) = one_field(
        "report",
        "project",
        "Wrong type. You sent: null. Expected a string.",
    );
    assert_validation(&result, &text, &meta);
    assert!(!text.contains("(missing)"));
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn every_problem_is_reported_at_once_with_internal_errors_hidden_or_shown() {
    let calls = Arc::new(Calls::default());
    let hidden = builder(&calls).build().unwrap();
    let shown = builder(&calls)
        .expose_internal_errors(true)
        .build()
        .unwrap();
    let args = json!({"project": 42, "limit": -5, "extra": true});
    let (text, meta) = fields(
        "report",
        &[
            ("project", "Wrong type. You sent: 42. Expected a string."),
            (
                "limit",
                "Too small. You sent: -5. Expected an integer >= 0.",
            ),
            (
                "extra",
                "Unrecognized field \"extra\". You sent: true. Known fields: \"project\", \"limit\". Check for typos.",
            ),
        ],
    );
    for server in [&hidden, &shown] {
        let result = call(server, "report", args.clone()).await;
        assert_validation(&result, &text, &meta);
    }
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn unknown_keys_are_refused_unless_the_action_allows_them() {
    let echo = |_ctx: CallContext, args: Report| async move {
        Ok::<_, ToolError>(format!("{} {:?}", args.project, args.limit))
    };
    let server = FusionServer::builder("open-test", "0.0.1")
        .tool(Action::new("strict", echo))
        .tool(Action::new("open", echo).allow_unknown_fields())
        .build()
        .unwrap();
    let args = json!({"project": "demo", "limmit": 5});
    let result = call(&server, "open", args.clone()).await;
    assert_eq!(texts(&result), ["demo None"]);
    assert_eq!(result.is_error, Some(false));
    let result = call(&server, "strict", args).await;
    let (text, meta) = one_field(
        "strict",
        "limmit",
        "Unrecognized field \"limmit\". You sent: 5. Did you mean \"limit\"?",
    );
    assert_validation(&result, &text, &meta);
    let open = server
        .listings()
        .into_iter()
        .find(|l| l.name == "open")
        .unwrap();
    assert_eq!(open.input_schema.get("additionalProperties"), None);
}
