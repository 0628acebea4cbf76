//! `[upstream.transform]` in the gateway's file: the billing example's
//! tools renamed, re-described, an argument hidden and a tool filtered out,
//! through `fusion gateway` over stdio; a transform that cannot work
//! refused when the file is read, naming the entry.

use serde_json::json;

use crate::gateway::{
    Gateway, MISMATCH_RECOVERY, billing_command, code_of, config_file, direct_billing,
    handoff_envelope,
};
use crate::support::{FUSION, TempDb, assert_failure};

fn config(db: &TempDb, tools: &str) -> String {
    format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\n\n\
         [upstream.transform]\ndeny = [\"billing_health\"]\n\n{tools}",
        billing_command(db)
    )
}

const INVOICES: &str = "[upstream.transform.tools.billing]\n\
    name = \"invoice\"\n\
    description = \"Shows an invoice.\"\n\
    hide = { id = \"inv_1\" }\n";

#[tokio::test]
async fn an_upstream_is_renamed_redescribed_hidden_and_filtered() {
    let db = TempDb::new("gateway-transform");
    let gateway = Gateway::start("transform", &config(&db, INVOICES), &[]).await;
    let tools = gateway.client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["finance.invoice"]);
    assert_eq!(tools[0].description.as_deref(), Some("Shows an invoice."));
    let schema = serde_json::Value::Object((*tools[0].input_schema).clone());
    assert!(schema["properties"].get("id").is_none(), "{schema}");
    assert!(schema["properties"].get("action").is_some(), "{schema}");

    // The hidden id is sent with every call, whatever the model sends: the
    // same answer as the upstream's own tool called with it.
    let through = gateway
        .call(
            "finance.invoice",
            json!({"action": "get_invoice", "id": "inv_2"}),
        )
        .await;
    let direct = direct_billing(&db, json!({"action": "get_invoice", "id": "inv_1"})).await;
    assert_eq!(through, direct);
    assert_eq!(through.is_error, Some(false));

    // The upstream's failure names its tools as the gateway shows them.
    let failed = gateway
        .call("finance.invoice", json!({"action": "nope"}))
        .await;
    assert_eq!(failed.is_error, Some(true));
    let text = crate::support::texts(&failed).join("\n");
    assert!(
        text.contains("<message>finance.invoice has no action \"nope\".</message>"),
        "{text}"
    );
    assert!(
        text.contains("<action>finance.invoice.get_invoice</action>"),
        "{text}"
    );
    assert!(!text.contains("billing"), "{text}");

    // Neither the filtered tool nor the renamed one's own name is callable.
    for (called, tool) in [
        ("finance.billing_health", "billing_health"),
        ("finance.billing", "billing"),
    ] {
        let (text, meta) = handoff_envelope(
            "HANDOFF_NAMESPACE_MISMATCH",
            "error",
            &format!("The finance tools have no tool named \"{tool}\"."),
            MISMATCH_RECOVERY,
            &["finance.invoice"],
            None,
        );
        let answer = gateway.call(called, json!({})).await;
        assert_eq!(
            code_of(&answer).as_deref(),
            Some("HANDOFF_NAMESPACE_MISMATCH")
        );
        assert_failure(&answer, &text, &meta, true);
    }
    gateway.close().await;
}

#[test]
fn a_transform_that_cannot_work_is_refused_naming_it() {
    let db = TempDb::new("gateway-transform-bad");
    let twice = "[upstream.transform.tools.billing]\nname = \"invoice\"\n\n\
                 [upstream.transform.tools.billing_health]\nname = \"invoice\"\n";
    let file = config_file("transform-bad", &config(&db, twice));
    let out = std::process::Command::new(FUSION)
        .args(["gateway", "--stdio", "--config"])
        .arg(&file.0)
        .env("NO_COLOR", "1")
        .output()
        .expect("run fusion");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "upstream \"finance\": transform of \"billing_health\": rename to \"invoice\", which another tool is listed as"
        ),
        "{stderr}"
    );
}
