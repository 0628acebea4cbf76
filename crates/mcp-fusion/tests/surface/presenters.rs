//! Presenters (wire contract §9.1) through rmcp's client over an in-process
//! pipe: declared fields only, redaction, the agent limit and its summary,
//! rules, suggested next calls, embedded presenters and `_select`; the
//! build errors; and a result that no longer matches its schema.

use std::sync::LazyLock;

use mcp_fusion::present::{Presenter, Suggestion};
use mcp_fusion::{Action, BuildError, FusionServer, Group, ToolError};
use serde_json::{Value, json};

const CANARY: &str = "4111-CANARY-1111";

/// What a handler reads from its store: more than the model may see.
#[derive(serde::Serialize, Clone)]
struct Row {
    id: String,
    status: String,
    amount_cents: u64,
    card_number: String,
    internal_note: String,
    customer: CustomerRow,
}

#[derive(serde::Serialize, Clone)]
struct CustomerRow {
    name: String,
    email: String,
    cost_centre: String,
}

/// The invoice the model sees.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
    status: String,
    amount_cents: u64,
    card_number: String,
    customer: Customer,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Customer {
    name: String,
    email: String,
}

static CUSTOMER: LazyLock<Presenter<Customer>> = LazyLock::new(|| {
    Presenter::new("Customer")
        .secret("email")
        .rule("contact", |c: &Customer| {
            Some(format!("Write to {} through the CRM.", c.name))
        })
});

static INVOICE: LazyLock<Presenter<Invoice>> = LazyLock::new(|| {
    Presenter::new("Invoice")
        .secret("card_number")
        .agent_limit(2)
        .select()
        .rule_text("Amounts are in cents.")
        .rule("overdue", |i: &Invoice| {
            (i.status == "overdue").then(|| String::from("Overdue invoices cannot be voided."))
        })
        .suggest("billing.pay_invoice", |i: &Invoice| {
            (i.status != "paid")
                .then(|| Suggestion::new("It is not paid yet.").argument("id", &i.id))
        })
        .embed("customer", &CUSTOMER)
});

fn row(id: &str, status: &str) -> Row {
    Row {
        id: id.into(),
        status: status.into(),
        amount_cents: 1200,
        card_number: CANARY.into(),
        internal_note: String::from("NOTE-CANARY"),
        customer: CustomerRow {
            name: String::from("Ada"),
            email: String::from("ada@CANARY.example"),
            cost_centre: String::from("CC-CANARY"),
        },
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Get {
    id: String,
}

async fn get_invoice(args: Get) -> Result<Row, ToolError> {
    match args.id.as_str() {
        "inv_404" => Err(ToolError::not_found("No invoice inv_404.")),
        id => Ok(row(id, "overdue")),
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "limit is listed, to be named by narrowed_by")]
struct List {
    status: Option<String>,
    limit: Option<u32>,
}

async fn list_invoices(args: List) -> Result<Vec<Row>, ToolError> {
    let rows = vec![
        row("inv_1", "paid"),
        row("inv_2", "unpaid"),
        row("inv_3", "overdue"),
    ];
    Ok(rows
        .into_iter()
        .filter(|r| args.status.as_ref().is_none_or(|s| *s == r.status))
        .collect())
}

async fn pay_invoice(_args: Get) -> Result<&'static str, ToolError> {
    Ok("paid")
}

fn group() -> Group {
    Group::new("billing")
        .action(
            Action::new("get_invoice", get_invoice)
                .returns(&INVOICE)
                .task_support(mcp_fusion::TaskSupport::Optional),
        )
        .action(
            Action::new("list_invoices", list_invoices)
                .narrowed_by(["status", "limit"])
                .returns_many(&INVOICE),
        )
        .action(Action::new("pay_invoice", pay_invoice))
}

fn server() -> FusionServer {
    FusionServer::builder("presented", "1.0.0")
        .group(group())
        .build()
        .unwrap()
}

fn texts(result: &mcp_fusion::model::CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|c| c.as_text().expect("a text block").text.clone())
        .collect()
}

/// Everything the client received, as one string.
fn all(result: &mcp_fusion::model::CallToolResult) -> String {
    serde_json::to_string(result).unwrap()
}

#[tokio::test]
async fn one_value_keeps_its_declared_fields_redacts_secrets_and_guides() {
    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let result = client
        .call("billing", json!({"action": "get_invoice", "id": "inv_7"}))
        .await
        .unwrap();
    let value = json!({
        "id": "inv_7", "status": "overdue", "amount_cents": 1200, "card_number": "[redacted]",
        "customer": {"name": "Ada", "email": "[redacted]"}
    });
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, Some(value.clone()));
    assert_eq!(
        texts(&result),
        [
            value.to_string(),
            String::from(
                "<domain_rules>\n- Amounts are in cents.\n- Overdue invoices cannot be voided.\n- Write to Ada through the CRM.\n</domain_rules>\n<next_actions>\n- Call billing with {\"action\":\"pay_invoice\",\"id\":\"inv_7\"}: It is not paid yet.\n</next_actions>"
            ),
        ]
    );
    let everything = all(&result);
    assert!(!everything.contains("CANARY"), "{everything}");
}

#[tokio::test]
async fn a_list_over_the_limit_is_cut_with_a_summary_naming_how_to_narrow_it() {
    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let result = client
        .call("billing", json!({"action": "list_invoices"}))
        .await
        .unwrap();
    let items = result.structured_content.clone().unwrap();
    assert_eq!(items["items"].as_array().unwrap().len(), 2);
    assert_eq!(items["items"][1]["id"], "inv_2");
    let texts = texts(&result);
    assert_eq!(texts[0], items.to_string());
    assert_eq!(
        texts[1],
        "<result_limit shown=\"2\" total=\"3\">Showing 2 of 3 results. To see the others, call billing.list_invoices again narrowed by status, limit.</result_limit>\n<domain_rules>\n- Amounts are in cents.\n- Write to Ada through the CRM.\n</domain_rules>"
    );
    assert!(!all(&result).contains("CANARY"));
}

#[tokio::test]
async fn the_items_of_a_list_suggest_nothing_but_a_list_of_one_does() {
    // Unpaid inv_2 is shown in the list of all three: no call is offered
    // for it (wire contract §9.1). Narrowed to overdue, the list holds one
    // invoice, and its suggestion is offered.
    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let all_three = client
        .call("billing", json!({"action": "list_invoices"}))
        .await
        .unwrap();
    assert!(!texts(&all_three)[1].contains("next_actions"));
    let one = client
        .call(
            "billing",
            json!({"action": "list_invoices", "status": "overdue"}),
        )
        .await
        .unwrap();
    assert_eq!(
        texts(&one)[1],
        "<domain_rules>\n- Amounts are in cents.\n- Overdue invoices cannot be voided.\n- Write to Ada through the CRM.\n</domain_rules>\n<next_actions>\n- Call billing with {\"action\":\"pay_invoice\",\"id\":\"inv_3\"}: It is not paid yet.\n</next_actions>"
    );
}

#[tokio::test]
async fn select_picks_top_level_fields_while_rules_see_the_whole_value() {
    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let billing = tools.iter().find(|t| t.name == "billing").unwrap();
    let schema = serde_json::to_value(&billing.input_schema).unwrap();
    assert!(
        schema.to_string().contains(
            r#""_select":{"description":"Only these top-level fields of each result (default: all). Used by: get_invoice, list_invoices.","type":"array","items":{"type":"string","enum":["id","status","amount_cents","card_number","customer"]},"uniqueItems":true}"#
        ),
        "{schema}"
    );
    let result = client
        .call(
            "billing",
            json!({"action": "get_invoice", "id": "inv_7", "_select": ["id"]}),
        )
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"id": "inv_7"})));
    assert!(texts(&result)[1].contains("- Overdue invoices cannot be voided."));
    let wrong = client
        .call(
            "billing",
            json!({"action": "get_invoice", "id": "inv_7", "_select": ["internal_note"]}),
        )
        .await
        .unwrap();
    assert_eq!(wrong.is_error, Some(true));
}

#[tokio::test]
async fn an_error_passes_the_presenter_untouched() {
    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let result = client
        .call("billing", json!({"action": "get_invoice", "id": "inv_404"}))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(texts(&result).len(), 1);
    assert!(texts(&result)[0].starts_with("<tool_error code=\"NOT_FOUND\""));
}

#[tokio::test]
async fn a_value_that_is_not_the_presenters_type_is_a_masked_internal_error() {
    async fn wrong(_args: Get) -> Result<Value, ToolError> {
        Ok(json!({"id": "inv_1", "card_number": CANARY}))
    }
    let server = FusionServer::builder("presented", "1.0.0")
        .group(group().action(Action::new("wrong", wrong).returns(&INVOICE)))
        .build()
        .unwrap();
    let result = server
        .call("billing", json!({"action": "wrong", "id": "x"}))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(texts(&result)[0].contains("code=\"INTERNAL_ERROR\""));
    assert!(!all(&result).contains("CANARY"));
}

fn build_error(group: Group) -> String {
    match FusionServer::builder("presented", "1.0.0")
        .group(group)
        .build()
    {
        Err(BuildError::BadSchema { reason, .. }) => reason,
        other => panic!("{other:?}"),
    }
}

#[test]
fn building_checks_suggestions_narrowed_by_and_secrets() {
    let orphan = Presenter::<Invoice>::new("Invoice").suggest("billing.refund", |_: &Invoice| None);
    assert_eq!(
        build_error(
            Group::new("billing").action(Action::new("get_invoice", get_invoice).returns(&orphan))
        ),
        "the presenter Invoice suggests \"billing.refund\", which the server does not have"
    );
    assert_eq!(
        build_error(
            Group::new("billing")
                .action(Action::new("list_invoices", list_invoices).narrowed_by(["page"]))
        ),
        "the narrowed_by argument \"page\" is not a field of the input"
    );
    let secret = Presenter::<Invoice>::new("Invoice").secret("internal_note");
    assert_eq!(
        build_error(
            Group::new("billing").action(Action::new("get_invoice", get_invoice).returns(&secret))
        ),
        "the secret field \"internal_note\" of the presenter Invoice is not a string field of its type"
    );
}

/// The same result as a task's (MCP 2026-07-28 over Streamable HTTP, the
/// tasks extension): the task's result is the presented one.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_result_is_presented_as_a_call_result_is() {
    use crate::connection::HttpServed;
    use crate::stateless::{Messages, post};

    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    });
    let server = server();
    let expected = server
        .call("billing", json!({"action": "get_invoice", "id": "inv_7"}))
        .await
        .unwrap();
    let served = HttpServed::start(&server).await;
    let arguments = json!({"action": "get_invoice", "id": "inv_7"});
    let params = json!({"name": "billing", "arguments": arguments, "_meta": meta});
    let created = post(
        &served.url,
        1,
        "tools/call",
        params,
        &[("mcp-name", "billing")],
    )
    .await;
    let created = Messages::of(created).next().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut read = Value::Null;
    for id in 2..200 {
        let params = json!({"taskId": task_id, "_meta": meta});
        let got = post(
            &served.url,
            id,
            "tasks/get",
            params,
            &[("mcp-name", &task_id)],
        )
        .await;
        read = Messages::of(got).next().await;
        if read["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let result = &read["result"]["result"];
    assert_eq!(result["content"], json!(expected.content), "{read}");
    assert_eq!(
        result["structuredContent"],
        json!(expected.structured_content),
        "{read}"
    );
    assert!(!read.to_string().contains("CANARY"));
}

#[tokio::test]
async fn a_huge_or_odd_select_is_refused_promptly_and_briefly() {
    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let odd = [
        json!(vec!["bogus"; 90_000]),
        json!(vec!["id"; 90_000]),
        json!((0..90_000).map(|i| format!("f{i}")).collect::<Vec<_>>()),
        json!([1, null, {"a": 1}]),
        json!("id"),
    ];
    for select in odd {
        let started = std::time::Instant::now();
        let result = client
            .call(
                "billing",
                json!({"action": "get_invoice", "id": "inv_7", "_select": select}),
            )
            .await
            .unwrap();
        let size = all(&result).len();
        println!(
            "{:?} {size} {}",
            started.elapsed(),
            texts(&result)[0].lines().count()
        );
        assert_eq!(result.is_error, Some(true));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert!(size < 40_000, "{size}");
    }
    let empty = client
        .call(
            "billing",
            json!({"action": "get_invoice", "id": "inv_7", "_select": []}),
        )
        .await
        .unwrap();
    assert_eq!(empty.structured_content, Some(json!({})));
}

/// An invoice presenter whose rule and suggestion put the secret card
/// number in what they say.
static CARELESS: LazyLock<Presenter<Invoice>> = LazyLock::new(|| {
    Presenter::new("CarelessInvoice")
        .secret("card_number")
        .rule("card", |i: &Invoice| {
            Some(format!("Charged to card {}.", i.card_number))
        })
        .suggest("billing.pay_invoice", |i: &Invoice| {
            Some(Suggestion::new("Pay it.").argument("id", &i.id))
        })
        .suggest("billing.pay_invoice", |i: &Invoice| {
            Some(Suggestion::new("Pay with the card on file.").argument("id", &i.card_number))
        })
});

#[tokio::test]
async fn a_rule_or_suggestion_never_sends_a_secret_it_read() {
    let server = FusionServer::builder("presented", "1.0.0")
        .group(
            Group::new("billing")
                .action(Action::new("get_invoice", get_invoice).returns(&CARELESS))
                .action(Action::new("pay_invoice", pay_invoice)),
        )
        .build()
        .unwrap();
    let result = server
        .call("billing", json!({"action": "get_invoice", "id": "inv_1"}))
        .await
        .unwrap();
    assert!(!all(&result).contains(CANARY), "{}", all(&result));
    assert_eq!(
        texts(&result)[1],
        "<domain_rules>\n\
         - Charged to card [redacted].\n\
         </domain_rules>\n\
         <next_actions>\n\
         - Call billing with {\"action\":\"pay_invoice\",\"id\":\"inv_1\"}: Pay it.\n\
         </next_actions>"
    );
}
