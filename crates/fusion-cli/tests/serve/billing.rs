//! The main job end to end: `fusion serve` (the billing example on a real
//! SQLite file) driven by rmcp's client over stdio and over Streamable HTTP.
//! Every billing action's success and failure path, with the exact text the
//! model reads, `isError` and `_meta["mcp-fusion/error"]` (wire contract
//! §1–§6).
//!
//! Each test runs against a fresh database file of its own, so tests are
//! independent and may run in parallel. Every server process started here is
//! killed when its test ends.

use crate::support::*;
use rmcp::ServiceExt;
use rmcp::model::{CallToolResult, ErrorCode};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Assertions

/// The stale-reads notice of the billing mutation `action`, the first block
/// of its success (wire contract §9.3).
fn stale_reads(action: &str) -> String {
    format!(
        "<stale_reads cause=\"billing.{action}\" domains=\"invoices.*\">This call changed invoices.*: results read before it are stale. Repeat your earlier calls of billing.list_invoices, billing.get_invoice (with the same arguments) before relying on what they returned.</stale_reads>"
    )
}

/// A success: `isError` false, no `_meta` envelope, and the first text block
/// (after a mutation's stale-reads notice) is the compact JSON of the
/// returned value, which is returned.
#[track_caller]
fn success_json(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "isError: {result:?}");
    let texts = texts(result);
    let data = match texts.first() {
        Some(first) if first.starts_with("<stale_reads") => {
            let known = ["create_invoice", "pay_invoice", "void_invoice"];
            assert!(
                known.iter().any(|action| *first == stale_reads(action)),
                "{first}"
            );
            &texts[1]
        }
        _ => &texts[0],
    };
    let value: Value =
        serde_json::from_str(data).unwrap_or_else(|e| panic!("not JSON ({e}): {data}"));
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        *data,
        "compact JSON text"
    );
    value
}

/// Checks that `created_at` is a UTC timestamp and replaces it with
/// `"<created>"`, so that whole invoices can be compared.
#[track_caller]
fn stamp(mut value: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(created) = map.get_mut("created_at") {
                    let text = created.as_str().unwrap_or_default();
                    let shape: String = text
                        .chars()
                        .map(|c| if c.is_ascii_digit() { '0' } else { c })
                        .collect();
                    assert_eq!(shape, "0000-00-00T00:00:00Z", "created_at {text:?}");
                    *created = json!("<created>");
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// The seeded invoice `inv_{n}` as the tools return it (`created_at` stamped).
fn seeded(n: usize) -> Value {
    const SEED: [(&str, u64, &str, &str); 12] = [
        ("ada@example.com", 120_000, "EUR", "paid"),
        ("grace@example.com", 45_050, "USD", "open"),
        ("linus@example.com", 9_900, "USD", "draft"),
        ("margaret@example.com", 310_000, "GBP", "overdue"),
        ("alan@example.com", 2_500, "EUR", "void"),
        ("barbara@example.com", 78_000, "USD", "open"),
        ("edsger@example.com", 15_000, "EUR", "paid"),
        ("donald@example.com", 64_000, "USD", "open"),
        ("frances@example.com", 5_000, "GBP", "draft"),
        ("ken@example.com", 99_999, "USD", "overdue"),
        ("radia@example.com", 18_250, "EUR", "open"),
        ("tim@example.com", 30_000, "USD", "paid"),
    ];
    let (email, amount, currency, status) = SEED[n - 1];
    with_status(
        json!({
            "id": format!("inv_{n}"),
            "customer_email": email,
            "amount_cents": amount,
            "currency": currency,
            "status": status,
            "items": [{"description": "Consulting", "quantity": 1, "unit_price_cents": amount}],
            "due_date": null,
            "created_at": "<created>"
        }),
        status,
    )
}

/// `invoice` as `billing.get_invoice` and `billing.list_invoices` show it:
/// their presenter adds the card number, redacted when there is one
/// (`card` false: an invoice created without one, `null`).
fn presented(mut invoice: Value, card: bool) -> Value {
    invoice["card_number"] = if card {
        json!("[redacted]")
    } else {
        Value::Null
    };
    invoice
}

/// The seeded invoice `inv_{n}` as the presented actions show it.
fn shown(n: usize) -> Value {
    presented(seeded(n), true)
}

fn with_status(mut invoice: Value, status: &str) -> Value {
    invoice["status"] = json!(status);
    invoice
}

fn not_found(id: &str) -> (String, Value) {
    (
        format!(
            "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>No invoice with that ID</message>\n  <recovery>List invoices first, then retry with a real ID</recovery>\n  <available_actions>\n    <action>billing.list_invoices</action>\n  </available_actions>\n  <details>\n    <detail key=\"requestedId\">{id}</detail>\n  </details>\n</tool_error>"
        ),
        json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice with that ID",
            "recovery": "List invoices first, then retry with a real ID",
            "available_actions": ["billing.list_invoices"],
            "details": {"requestedId": id}
        }),
    )
}

// ---------------------------------------------------------------------------
// Scenarios, each run over both transports

async fn list_invoices(t: Transport) {
    let db = TempDb::new("list");
    let s = Session::start(t, &db).await;

    let all = s.billing(json!({"action": "list_invoices"})).await;
    // The presenter shows 10 of the 12 and says so after the data.
    assert!(
        texts(&all)[1].starts_with("<result_limit shown=\"10\" total=\"12\">"),
        "{:?}",
        texts(&all)
    );
    let all = stamp(success_json(&all));
    assert_eq!(
        all,
        json!({"invoices": (1..=10).map(shown).collect::<Vec<_>>(), "next_cursor": "after_10"}),
        "the first ten seeded invoices, the cursor after the last one shown"
    );
    let rest = stamp(success_json(
        &s.billing(json!({"action": "list_invoices", "cursor": "after_10"}))
            .await,
    ));
    assert_eq!(
        rest,
        json!({"invoices": (11..=12).map(shown).collect::<Vec<_>>()}),
        "the next page starts right after what the model was shown"
    );

    let page = s
        .billing(json!({"action": "list_invoices", "status": "paid", "limit": 2}))
        .await;
    // Every billing action is typed (`Json<T>`): the same JSON as
    // structuredContent.
    assert_eq!(page.structured_content, Some(success_json(&page)));
    assert_eq!(
        stamp(success_json(&page)),
        json!({"invoices": [shown(1), shown(7)], "next_cursor": "after_7"})
    );
    let rest = s
        .billing(
            json!({"action": "list_invoices", "status": "paid", "limit": 2, "cursor": "after_7"}),
        )
        .await;
    assert_eq!(stamp(success_json(&rest)), json!({"invoices": [shown(12)]}));

    let overdue = s
        .billing(json!({"action": "list_invoices", "status": "overdue"}))
        .await;
    assert_eq!(
        stamp(success_json(&overdue)),
        json!({"invoices": [shown(4), shown(10)]})
    );

    let bad = s
        .billing(json!({"action": "list_invoices", "cursor": "page-2"}))
        .await;
    assert_failure(
        &bad,
        "<tool_error code=\"INVALID_CURSOR\" severity=\"error\">\n  <message>The cursor 'page-2' is not one this server gave out.</message>\n  <recovery>Call billing.list_invoices without a cursor to start from the first page.</recovery>\n  <available_actions>\n    <action>billing.list_invoices</action>\n  </available_actions>\n</tool_error>",
        &json!({
            "code": "INVALID_CURSOR",
            "severity": "error",
            "message": "The cursor 'page-2' is not one this server gave out.",
            "recovery": "Call billing.list_invoices without a cursor to start from the first page.",
            "available_actions": ["billing.list_invoices"]
        }),
        true,
    );

    let limits = s
        .billing(json!({"action": "list_invoices", "limit": 0, "status": "Paid"}))
        .await;
    assert_invalid(
        &limits,
        "list_invoices",
        &[
            (
                "status",
                "Invalid value. You sent: 'Paid'. Did you mean 'paid'?",
            ),
            (
                "limit",
                "Too small. You sent: 0. Expected an integer >= 1 and <= 100.",
            ),
        ],
    );
    s.close().await;
}

async fn get_invoice(t: Transport) {
    let db = TempDb::new("get");
    let s = Session::start(t, &db).await;

    let found = s
        .billing(json!({"action": "get_invoice", "id": "inv_2"}))
        .await;
    let value = success_json(&found);
    assert_eq!(
        texts(&found).len(),
        2,
        "the data, then the presenter's guidance"
    );
    assert_eq!(found.meta, None);
    assert_eq!(
        found.structured_content.as_ref(),
        Some(&value),
        "get_invoice declares an output schema"
    );
    assert_eq!(stamp(value), shown(2));

    let missing = s
        .billing(json!({"action": "get_invoice", "id": "inv_9999"}))
        .await;
    let (text, meta) = not_found("inv_9999");
    assert_failure(&missing, &text, &meta, true);

    let malformed = s
        .billing(json!({"action": "get_invoice", "id": "INV-2"}))
        .await;
    assert_invalid(
        &malformed,
        "get_invoice",
        &[(
            "id",
            "Does not match the pattern. You sent: 'INV-2'. Expected a string matching the pattern '^inv_[0-9]+$'.",
        )],
    );

    let absent = s.billing(json!({"action": "get_invoice"})).await;
    assert_invalid(
        &absent,
        "get_invoice",
        &[(
            "id",
            "Missing required field. You sent: (missing). Expected a string matching the pattern '^inv_[0-9]+$'.",
        )],
    );
    s.close().await;
}

async fn create_invoice(t: Transport) {
    let db = TempDb::new("create");
    let s = Session::start(t, &db).await;

    let created = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "new@example.com",
            "amount_cents": 2_400,
            "currency": "GBP",
            "items": [
                {"description": "Audit", "quantity": 2, "unit_price_cents": 1_000},
                {"description": "Travel", "quantity": 1, "unit_price_cents": 400}
            ],
            "due_date": "2027-01-31"
        }))
        .await;
    assert_eq!(created.structured_content, Some(success_json(&created)));
    let invoice = json!({
        "id": "inv_13",
        "customer_email": "new@example.com",
        "amount_cents": 2_400,
        "currency": "GBP",
        "status": "open",
        "items": [
            {"description": "Audit", "quantity": 2, "unit_price_cents": 1_000},
            {"description": "Travel", "quantity": 1, "unit_price_cents": 400}
        ],
        "due_date": "2027-01-31",
        "created_at": "<created>"
    });
    assert_eq!(stamp(success_json(&created)), invoice);
    let read = s
        .billing(json!({"action": "get_invoice", "id": "inv_13"}))
        .await;
    assert_eq!(stamp(success_json(&read)), presented(invoice, false));

    let bad_email = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "not-an-email",
            "amount_cents": 100,
            "currency": "USD",
            "items": [{"description": "x", "quantity": 1, "unit_price_cents": 100}]
        }))
        .await;
    assert_invalid(
        &bad_email,
        "create_invoice",
        &[(
            "customer_email",
            "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
        )],
    );

    let zero = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "a@example.com",
            "amount_cents": 0,
            "currency": "USD",
            "items": [{"description": "x", "quantity": 1, "unit_price_cents": 0}]
        }))
        .await;
    assert_invalid(
        &zero,
        "create_invoice",
        &[(
            "amount_cents",
            "Too small. You sent: 0. Expected an integer >= 1 and <= 100000000000.",
        )],
    );

    let currency = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "a@example.com",
            "amount_cents": 5,
            "currency": "usd",
            "items": [{"description": "x", "quantity": 1, "unit_price_cents": 5}]
        }))
        .await;
    assert_invalid_after(
        &currency,
        "Replace \"currency\": \"usd\" with \"currency\": \"USD\", keep your other arguments, and call billing again.",
        "create_invoice",
        &[(
            "currency",
            "Invalid value. You sent: 'usd'. Did you mean 'USD'?",
        )],
    );

    let empty = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "a@example.com",
            "amount_cents": 5,
            "currency": "EUR",
            "items": []
        }))
        .await;
    assert_invalid(
        &empty,
        "create_invoice",
        &[(
            "items",
            "Too few items. You sent: array(0). Expected at least 1 item.",
        )],
    );

    let nested = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "a@example.com",
            "amount_cents": 5,
            "currency": "EUR",
            "items": [
                {"description": "ok", "quantity": 1, "unit_price_cents": 5},
                {"description": "", "quantity": 0, "unit_price_cents": 5, "sku": "A-1"}
            ]
        }))
        .await;
    assert_invalid(
        &nested,
        "create_invoice",
        &[
            (
                "items.1.description",
                "Too short. You sent: ''. Expected at least 1 character.",
            ),
            (
                "items.1.quantity",
                "Too small. You sent: 0. Expected an integer >= 1 and <= 10000.",
            ),
            (
                "items.1.sku",
                "Unrecognized field \"sku\". You sent: 'A-1'. Known fields: \"description\", \"quantity\", \"unit_price_cents\". Check for typos.",
            ),
        ],
    );

    // Nothing invalid was stored.
    let health = s.call("billing_health", json!({})).await;
    assert_eq!(texts(&health), ["{\"status\":\"ok\",\"invoices\":13}"]);
    s.close().await;
}

async fn pay_invoice(t: Transport) {
    let db = TempDb::new("pay");
    let s = Session::start(t, &db).await;

    let paid = s
        .billing(json!({"action": "pay_invoice", "id": "inv_2"}))
        .await;
    assert_eq!(stamp(success_json(&paid)), with_status(seeded(2), "paid"));
    assert_eq!(texts(&paid)[0], stale_reads("pay_invoice"));

    let again = s
        .billing(json!({"action": "pay_invoice", "id": "inv_2"}))
        .await;
    assert_failure(
        &again,
        "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Invoice inv_2 is already paid.</message>\n  <recovery>Do not pay it again. Call billing.get_invoice to show the user its current state.</recovery>\n  <available_actions>\n    <action>billing.get_invoice</action>\n  </available_actions>\n  <details>\n    <detail key=\"currentStatus\">paid</detail>\n  </details>\n</tool_error>",
        &json!({
            "code": "CONFLICT",
            "severity": "error",
            "message": "Invoice inv_2 is already paid.",
            "recovery": "Do not pay it again. Call billing.get_invoice to show the user its current state.",
            "available_actions": ["billing.get_invoice"],
            "details": {"currentStatus": "paid"}
        }),
        true,
    );

    let void = s
        .billing(json!({"action": "pay_invoice", "id": "inv_5"}))
        .await;
    assert_failure(
        &void,
        "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Invoice inv_5 is void and cannot be paid.</message>\n  <recovery>Do not retry: tell the user the invoice is void. If the customer still owes money, create a new invoice with billing.create_invoice.</recovery>\n  <available_actions>\n    <action>billing.create_invoice</action>\n  </available_actions>\n  <details>\n    <detail key=\"currentStatus\">void</detail>\n  </details>\n</tool_error>",
        &json!({
            "code": "CONFLICT",
            "severity": "error",
            "message": "Invoice inv_5 is void and cannot be paid.",
            "recovery": "Do not retry: tell the user the invoice is void. If the customer still owes money, create a new invoice with billing.create_invoice.",
            "available_actions": ["billing.create_invoice"],
            "details": {"currentStatus": "void"}
        }),
        true,
    );

    let missing = s
        .billing(json!({"action": "pay_invoice", "id": "inv_404"}))
        .await;
    let (text, meta) = not_found("inv_404");
    assert_failure(&missing, &text, &meta, true);
    s.close().await;
}

async fn void_invoice(t: Transport) {
    let db = TempDb::new("void");
    let s = Session::start(t, &db).await;

    let voided = s
        .billing(json!({"action": "void_invoice", "id": "inv_3", "reason": "Sent twice"}))
        .await;
    assert_eq!(stamp(success_json(&voided)), with_status(seeded(3), "void"));

    let paid = s
        .billing(json!({"action": "void_invoice", "id": "inv_1"}))
        .await;
    assert_failure(
        &paid,
        "<tool_error code=\"CONFLICT\" severity=\"critical\">\n  <message>Invoice inv_1 is paid: voiding it would need a refund, which this server cannot do.</message>\n  <recovery>Do not retry. Tell the user the invoice is paid and that a refund must be made by a person.</recovery>\n  <details>\n    <detail key=\"currentStatus\">paid</detail>\n  </details>\n</tool_error>",
        &json!({
            "code": "CONFLICT",
            "severity": "critical",
            "message": "Invoice inv_1 is paid: voiding it would need a refund, which this server cannot do.",
            "recovery": "Do not retry. Tell the user the invoice is paid and that a refund must be made by a person.",
            "details": {"currentStatus": "paid"}
        }),
        true,
    );
    // The refusal changed nothing.
    let still = s
        .billing(json!({"action": "get_invoice", "id": "inv_1"}))
        .await;
    assert_eq!(stamp(success_json(&still)), shown(1));

    let long_reason = "x".repeat(501);
    let too_long = s
        .billing(json!({"action": "void_invoice", "id": "inv_2", "reason": long_reason}))
        .await;
    assert_invalid(
        &too_long,
        "void_invoice",
        &[(
            "reason",
            &format!(
                "Too long. You sent: '{}...'. Expected at most 500 characters.",
                "x".repeat(47)
            ),
        )],
    );
    s.close().await;
}

async fn generate_report(t: Transport) {
    let db = TempDb::new("report");
    let s = Session::start(t, &db).await;

    let report = s
        .billing(json!({"action": "generate_report", "period": "month"}))
        .await;
    let value = success_json(&report);
    assert_eq!(report.structured_content.as_ref(), Some(&value));
    assert_eq!(
        value,
        json!({"period": "month", "totals": [
            {"currency": "EUR", "invoices": 4, "billed_cents": 155_750, "paid_cents": 135_000, "outstanding_cents": 18_250},
            {"currency": "GBP", "invoices": 2, "billed_cents": 315_000, "paid_cents": 0, "outstanding_cents": 310_000},
            {"currency": "USD", "invoices": 6, "billed_cents": 326_949, "paid_cents": 30_000, "outstanding_cents": 287_049}
        ]})
    );

    let gbp = s
        .billing(json!({"action": "generate_report", "period": "day", "currency": "GBP"}))
        .await;
    assert_eq!(
        success_json(&gbp),
        json!({"period": "day", "totals": [
            {"currency": "GBP", "invoices": 2, "billed_cents": 315_000, "paid_cents": 0, "outstanding_cents": 310_000}
        ]})
    );

    let bad = s
        .billing(json!({"action": "generate_report", "period": "quarter"}))
        .await;
    assert_invalid(
        &bad,
        "generate_report",
        &[(
            "period",
            "Invalid value. You sent: 'quarter'. Expected one of: 'day', 'week', 'month'.",
        )],
    );
    s.close().await;
}

async fn legacy_and_health(t: Transport) {
    let db = TempDb::new("legacy");
    let s = Session::start(t, &db).await;

    let legacy = s
        .billing(json!({"action": "get_invoice_legacy", "id": "inv_4"}))
        .await;
    let texts = texts(&legacy);
    assert_eq!(
        texts.len(),
        3,
        "output, the presenter's guidance, then the warning: {texts:?}"
    );
    assert_eq!(legacy.is_error, Some(false));
    let value: Value = serde_json::from_str(&texts[0]).expect("JSON output");
    assert_eq!(legacy.structured_content.as_ref(), Some(&value));
    assert_eq!(stamp(value), shown(4));
    assert_eq!(
        texts[2],
        "<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>billing.get_invoice_legacy is deprecated and will be removed; use billing.get_invoice instead.</message>\n  <recovery>The call succeeded: its result is above. Next time call billing.get_invoice.</recovery>\n  <available_actions>\n    <action>billing.get_invoice</action>\n  </available_actions>\n</tool_error>"
    );
    assert_eq!(
        meta_of(&legacy),
        Some(json!({
            "code": "DEPRECATED",
            "severity": "warning",
            "message": "billing.get_invoice_legacy is deprecated and will be removed; use billing.get_invoice instead.",
            "recovery": "The call succeeded: its result is above. Next time call billing.get_invoice.",
            "available_actions": ["billing.get_invoice"]
        }))
    );

    let legacy_missing = s
        .billing(json!({"action": "get_invoice_legacy", "id": "inv_77"}))
        .await;
    let (text, meta) = not_found("inv_77");
    assert_failure(&legacy_missing, &text, &meta, true);

    let health = s.call("billing_health", json!({})).await;
    assert_eq!(texts_of(&health), ["{\"status\":\"ok\",\"invoices\":12}"]);
    assert_eq!(
        health.structured_content,
        Some(json!({"status": "ok", "invoices": 12}))
    );
    assert_eq!(health.is_error, Some(false));
    assert_eq!(health.meta, None);

    let extra = s.call("billing_health", json!({"verbose": true})).await;
    let text = "Fix the fields below and call billing_health again.\n<validation_error action=\"billing_health\">\n  <field name=\"verbose\">Unrecognized field \"verbose\". You sent: true. This object accepts no fields; remove it.</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>";
    assert_failure(
        &extra,
        text,
        &json!({
            "code": "VALIDATION_ERROR",
            "severity": "error",
            "message": "The arguments for billing_health are not valid (1 problem).",
            "recovery": validation_meta_recovery("billing_health"),
            "action": "billing_health",
            "fields": [{"path": "verbose", "message": "Unrecognized field \"verbose\". You sent: true. This object accepts no fields; remove it."}]
        }),
        true,
    );
    s.close().await;
}

fn texts_of(result: &CallToolResult) -> Vec<String> {
    texts(result)
}

async fn unknown_tool(t: Transport) {
    let db = TempDb::new("unknown");
    let s = Session::start(t, &db).await;
    let err = s
        .try_call("billing.get_invoice", json!({"id": "inv_1"}))
        .await
        .expect_err("an unknown tool is a protocol error");
    let ServiceError::McpError(data) = err else {
        panic!("a JSON-RPC error, got {err:?}")
    };
    assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(data.code.0, -32602);
    assert_eq!(
        data.message,
        "Unknown tool \"billing.get_invoice\": the action billing.get_invoice is called through the tool \"billing\" with \"action\": \"get_invoice\" in its arguments. Valid tools: billing, billing_health."
    );
    assert_eq!(
        data.data,
        Some(json!({
            "tool": "billing.get_invoice",
            "valid_tools": ["billing", "billing_health"],
            "closest": "billing"
        }))
    );
    // The session goes on.
    let health = s.call("billing_health", json!({})).await;
    assert_eq!(health.is_error, Some(false));
    s.close().await;
}

async fn tools_list(t: Transport) {
    let db = TempDb::new("tools");
    let s = Session::start(t, &db).await;
    let tools = s.client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["billing", "billing_health"]);
    let billing = &tools[0];
    let action = &billing.input_schema["properties"]["action"];
    assert_eq!(action["type"], "string");
    let actions: Vec<&str> = action["enum"]
        .as_array()
        .expect("an enum of actions")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let expected = [
        "list_invoices",
        "get_invoice",
        "create_invoice",
        "pay_invoice",
        "void_invoice",
        "get_invoice_legacy",
        "generate_report",
    ];
    assert_eq!(actions, expected);
    let description = billing.description.as_deref().unwrap_or_default();
    for name in expected {
        assert!(
            description.contains(&format!("\n- {name}: ")),
            "{name} in {description}"
        );
    }
    assert_eq!(billing.input_schema["required"], json!(["action"]));
    let annotations = billing.annotations.as_ref().expect("annotations");
    assert_eq!(
        annotations.destructive_hint,
        Some(true),
        "void_invoice is destructive"
    );
    s.close().await;
}

macro_rules! both_transports {
    ($($scenario:ident => $stdio:ident, $http:ident;)*) => {$(
        #[tokio::test]
        async fn $stdio() {
            $scenario(Transport::Stdio).await;
        }

        #[tokio::test]
        async fn $http() {
            $scenario(Transport::Http).await;
        }
    )*};
}

both_transports! {
    list_invoices => list_invoices_over_stdio, list_invoices_over_http;
    get_invoice => get_invoice_over_stdio, get_invoice_over_http;
    create_invoice => create_invoice_over_stdio, create_invoice_over_http;
    pay_invoice => pay_invoice_over_stdio, pay_invoice_over_http;
    void_invoice => void_invoice_over_stdio, void_invoice_over_http;
    generate_report => generate_report_over_stdio, generate_report_over_http;
    legacy_and_health => legacy_and_health_over_stdio, legacy_and_health_over_http;
    unknown_tool => unknown_tool_over_stdio, unknown_tool_over_http;
    tools_list => tools_list_over_stdio, tools_list_over_http;
}

// ---------------------------------------------------------------------------
// A real file

#[tokio::test]
async fn a_second_start_on_the_same_file_keeps_the_data() {
    let db = TempDb::new("restart");

    let first = HttpServer::start(&db.0);
    assert!(
        first
            .banner
            .iter()
            .any(|l| l.contains(&format!("database: {} (created and seeded)", db.path()))),
        "{:?}",
        first.banner
    );
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(first.url.as_str()))
            .await
            .expect("MCP handshake over HTTP");
    let s = Session {
        client,
        _http: Some(first),
    };
    let created = s
        .billing(json!({
            "action": "create_invoice",
            "customer_email": "kept@example.com",
            "amount_cents": 700,
            "currency": "EUR",
            "items": [{"description": "Kept", "quantity": 7, "unit_price_cents": 100}]
        }))
        .await;
    assert_eq!(success_json(&created)["id"], "inv_13");
    let paid = s
        .billing(json!({"action": "pay_invoice", "id": "inv_13"}))
        .await;
    assert_eq!(success_json(&paid)["status"], "paid");
    s.close().await; // kills the first server

    // Second start, over the other transport, on the same file.
    let s = Session::start(Transport::Stdio, &db).await;
    let read = s
        .billing(json!({"action": "get_invoice", "id": "inv_13"}))
        .await;
    assert_eq!(
        stamp(success_json(&read)),
        json!({
            "id": "inv_13",
            "customer_email": "kept@example.com",
            "amount_cents": 700,
            "currency": "EUR",
            "status": "paid",
            "items": [{"description": "Kept", "quantity": 7, "unit_price_cents": 100}],
            "due_date": null,
            "created_at": "<created>",
            "card_number": null
        })
    );
    let health = s.call("billing_health", json!({})).await;
    assert_eq!(texts(&health), ["{\"status\":\"ok\",\"invoices\":13}"]);
    s.close().await;

    // And the third start says it opened the file rather than seeding it.
    let third = HttpServer::start(&db.0);
    assert!(
        third
            .banner
            .iter()
            .any(|l| l.contains(&format!("database: {} (opened)", db.path()))),
        "{:?}",
        third.banner
    );
}
