//! Self-healing (wire contract §4.1, `docs/contracts.md`) over a real MCP
//! client: each server is connected in memory
//! (`FusionServer::connect_in_memory`) to a `FusionClient` (rmcp's client)
//! and called over the whole protocol. The lockfile is the contract of an
//! older version of the same server.

use std::time::Duration;

use mcp_fusion::client::{ClientOptions, FusionClient};
use mcp_fusion::contract::{Lockfile, ServerContract};
use mcp_fusion::envelope::{ParsedEnvelope, parse};
use mcp_fusion::error::ChangeSeverity;
use mcp_fusion::model::CallToolResult;
use mcp_fusion::{Action, CallContext, FusionServer, Group, ServerBuilder, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

// ---- The reports server, version 1 (the lockfile) and version 2 (running).

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum PeriodV1 {
    Day,
    Week,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SummaryV1 {
    period: PeriodV1,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum TimeRange {
    Day,
    Week,
    Month,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SummaryV2 {
    time_range: TimeRange,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct GetArgs {
    id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct GetAllV1 {
    limit: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct GetAllV2 {
    limit: String,
}

async fn ok<A>(_ctx: CallContext, _args: A) -> Result<&'static str, ToolError> {
    Ok("done")
}

fn reports_v1() -> ServerBuilder {
    FusionServer::builder("reports", "1.0.0").group(
        Group::new("reports")
            .description("Reports.")
            .action(Action::new("summary", ok::<SummaryV1>).read_only())
            .action(Action::new("get", ok::<GetArgs>).read_only())
            .action(Action::new("get_all", ok::<GetAllV1>).read_only()),
    )
}

fn reports_v2() -> ServerBuilder {
    FusionServer::builder("reports", "2.0.0").group(
        Group::new("reports")
            .description("Reports, version 2.")
            .action(Action::new("summary", ok::<SummaryV2>).read_only())
            .action(Action::new("get", ok::<GetArgs>).read_only())
            .action(Action::new("get_all", ok::<GetAllV2>).read_only()),
    )
}

/// The lockfile of `builder`'s server, through its text (as a file would be).
fn lockfile_of(builder: ServerBuilder) -> Lockfile {
    let server = builder.build().expect("valid server");
    let text = Lockfile::new(ServerContract::of_server(&server), None).render();
    Lockfile::parse(&text).expect("a lockfile reads back")
}

// ---- Serving in memory and calling with the real client.

struct Served {
    client: FusionClient,
}

/// `server` connected to a `FusionClient` in memory: the whole MCP path, as
/// over stdio.
async fn serve(server: FusionServer) -> Served {
    let client = server
        .connect_in_memory(ClientOptions::default().call_timeout(Duration::from_secs(20)))
        .await
        .expect("connect in memory");
    Served { client }
}

impl Served {
    async fn call(&self, name: &str, args: Value) -> CallToolResult {
        self.client.call(name, args).await.expect("a tool result")
    }

    async fn close(self) {
        self.client.close().await;
    }
}

fn text_of(result: &CallToolResult) -> String {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone()
}

fn meta_of(result: &CallToolResult) -> Value {
    result.meta.as_ref().expect("_meta").0["mcp-fusion/error"].clone()
}

// ---- The example.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renamed_field_is_named_in_the_validation_error() {
    let server = reports_v2()
        .self_healing(lockfile_of(reports_v1()))
        .build()
        .unwrap();
    let served = serve(server).await;

    let result = served
        .call("reports.summary", json!({"period": "day"}))
        .await;
    assert_eq!(result.is_error, Some(true));
    let text = text_of(&result);
    assert_eq!(
        text,
        "Fix the fields below and call reports again.\n<validation_error action=\"reports.summary\">\n  \
         <field name=\"time_range\">Missing required field. You sent: (missing). Expected one of: 'day', 'week', 'month'.</field>\n  \
         <field name=\"period\">Unrecognized field \"period\". You sent: 'day'. Did you mean \"time_range\"?</field>\n  \
         <recovery>Do not explain the error.</recovery>\n  \
         <contract_awareness action=\"reports.summary\" changes=\"1\" max_severity=\"RISKY\">\n    \
         <delta severity=\"RISKY\" field=\"period\">Field \"period\" was renamed to \"time_range\". Before: enum day|week. Now: enum day|week|month.</delta>\n  \
         </contract_awareness>\n\
         </validation_error>"
    );
    // The same section in _meta, and the client's parser reads it back.
    assert_eq!(
        meta_of(&result)["contract_awareness"],
        json!({
            "action": "reports.summary",
            "changes": 1,
            "max_severity": "RISKY",
            "deltas": [{
                "severity": "RISKY",
                "field": "period",
                "text": "Field \"period\" was renamed to \"time_range\". Before: enum day|week. Now: enum day|week|month.",
            }],
        })
    );
    let Ok(ParsedEnvelope::Validation(parsed)) = parse(&text) else {
        panic!("a validation envelope: {text}");
    };
    let awareness = parsed.contract_awareness.expect("the section reads back");
    assert_eq!(awareness.max_severity, ChangeSeverity::Risky);
    assert_eq!(awareness.deltas[0].field, "period");
    crate::support::check_envelope(&text).unwrap();

    // A valid call of the changed action gets no contract text at all.
    let result = served
        .call("reports.summary", json!({"time_range": "month"}))
        .await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text_of(&result), "done");
    assert!(result.meta.is_none() || !meta_of(&result).is_object());

    served.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_changed_at_run_time_is_described_as_it_is_now() {
    let server = reports_v1()
        .self_healing(lockfile_of(reports_v1()))
        .build()
        .unwrap();
    assert!(server.self_healing().unwrap().diff().deltas.is_empty());
    // v2 replaces v1 while the server runs.
    server
        .update_tools(|tools| {
            tools.remove_tool("reports");
            tools.add_group(
                Group::new("reports")
                    .description("Reports, version 2.")
                    .action(Action::new("summary", ok::<SummaryV2>).read_only())
                    .action(Action::new("get", ok::<GetArgs>).read_only())
                    .action(Action::new("get_all", ok::<GetAllV2>).read_only()),
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let served = serve(server.clone()).await;
    let text = text_of(
        &served
            .call("reports.summary", json!({"period": "day"}))
            .await,
    );
    assert!(
        text.contains(
            "<delta severity=\"RISKY\" field=\"period\">Field \"period\" was renamed to \"time_range\"."
        ),
        "{text}"
    );
    assert_eq!(
        server.self_healing().unwrap().diff(),
        reports_v2()
            .self_healing(lockfile_of(reports_v1()))
            .build()
            .unwrap()
            .self_healing()
            .unwrap()
            .diff(),
        "the same deltas as a server built with v2"
    );
    served.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_self_healing_nothing_is_added() {
    let served = serve(reports_v2().build().unwrap()).await;
    let text = text_of(
        &served
            .call("reports.summary", json!({"period": "day"}))
            .await,
    );
    assert!(text.starts_with("Fix the fields below and call reports again.\n<validation_error action=\"reports.summary\">"));
    assert!(!text.contains("contract_awareness"), "{text}");
    served.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_match_exactly_get_is_not_get_all() {
    let server = reports_v2()
        .self_healing(lockfile_of(reports_v1()))
        .build()
        .unwrap();
    let served = serve(server).await;

    // `get` did not change: its failure has no section, though `get_all` did.
    let text = text_of(&served.call("reports.get", json!({"id": 7})).await);
    assert!(
        text.starts_with("Fix the fields below and call reports again.\n<validation_error action=\"reports.get\">"),
        "{text}"
    );
    assert!(!text.contains("contract_awareness"), "{text}");

    // `get_all` changed the type of `limit`.
    let text = text_of(&served.call("reports.get_all", json!({"limit": 10})).await);
    assert!(
        text.ends_with(
            "  <contract_awareness action=\"reports.get_all\" changes=\"1\" max_severity=\"BREAKING\">\n    \
             <delta severity=\"BREAKING\" field=\"limit\">Field \"limit\" changed type from integer to string. Before: integer. Now: string.</delta>\n  \
             </contract_awareness>\n</validation_error>"
        ),
        "{text}"
    );
    // A handler result and other envelopes are never touched.
    let result = served
        .call("reports.get_all", json!({"limit": "ten"}))
        .await;
    assert_eq!(text_of(&result), "done");
    served.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_wide_changes_come_with_every_action_when_all_severities_are_asked() {
    let server = reports_v2()
        .self_healing(lockfile_of(reports_v1()))
        .self_healing_all_severities(true)
        .build()
        .unwrap();
    let served = serve(server).await;
    // `get` itself did not change; its tool's description did (COSMETIC).
    let text = text_of(&served.call("reports.get", json!({})).await);
    let section = &text[text.find("  <contract_awareness").expect("a section")..];
    assert!(
        section.starts_with(
            "  <contract_awareness action=\"reports.get\" changes=\"1\" max_severity=\"COSMETIC\">\n    \
             <delta severity=\"COSMETIC\" field=\"(description)\">The description of tool \"reports\" changed. Before: Reports."
        ),
        "{section}"
    );
    assert!(
        !section.contains("field=\"limit\""),
        "get_all's change leaked: {section}"
    );
    served.close().await;
}

// ---- Cap and true maximum severity.

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WideV1 {
    a: String,
    #[schemars(length(max = 10))]
    b: String,
    #[schemars(length(max = 10))]
    c: String,
    #[schemars(length(max = 10))]
    d: String,
    #[schemars(length(max = 10))]
    e: String,
    #[schemars(length(max = 10))]
    f: String,
    #[schemars(length(max = 10))]
    g: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WideV2 {
    a: u32,
    #[schemars(length(max = 5))]
    b: String,
    #[schemars(length(max = 5))]
    c: String,
    #[schemars(length(max = 5))]
    d: String,
    #[schemars(length(max = 5))]
    e: String,
    #[schemars(length(max = 5))]
    f: String,
    #[schemars(length(max = 5))]
    g: String,
}

fn wide(v2: bool) -> ServerBuilder {
    let action = if v2 {
        Action::new("wide", ok::<WideV2>)
    } else {
        Action::new("wide", ok::<WideV1>)
    };
    FusionServer::builder("wide", "1").tool(action)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capped_at_five_by_default_with_the_true_count_and_maximum() {
    let server = wide(true)
        .self_healing(lockfile_of(wide(false)))
        .build()
        .unwrap();
    let served = serve(server).await;
    let text = text_of(&served.call("wide", json!({})).await);
    let section = &text[text.find("  <contract_awareness").expect("a section")..];
    let lines: Vec<&str> = section.lines().collect();
    assert_eq!(
        lines[0],
        "  <contract_awareness action=\"wide\" changes=\"7\" shown=\"5\" max_severity=\"BREAKING\">"
    );
    assert_eq!(
        lines[1],
        "    <delta severity=\"BREAKING\" field=\"a\">Field \"a\" changed type from string to integer. Before: string. Now: integer.</delta>"
    );
    assert_eq!(
        lines[2],
        "    <delta severity=\"RISKY\" field=\"b\">Field \"b\": maxLength lowered; fewer values are accepted. Before: 10. Now: 5.</delta>"
    );
    assert_eq!(lines.iter().filter(|l| l.contains("<delta ")).count(), 5);
    assert!(!section.contains("field=\"f\""), "{section}");
    served.close().await;

    // The cap is a setting; the count and the maximum do not change with it.
    let server = wide(true)
        .self_healing(lockfile_of(wide(false)))
        .self_healing_max_deltas(1)
        .build()
        .unwrap();
    let response = server.call("wide", json!({})).await.unwrap();
    let meta = meta_of(&response)["contract_awareness"].clone();
    assert_eq!(meta["changes"], 7);
    assert_eq!(meta["max_severity"], "BREAKING");
    assert_eq!(meta["deltas"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn most_severe_first_and_the_true_maximum_over_tool_wide_changes() {
    // The diff lists tool-wide changes first (here a COSMETIC one); the
    // section must still start with the BREAKING change and say BREAKING.
    let server = reports_v2()
        .self_healing(lockfile_of(reports_v1()))
        .self_healing_all_severities(true)
        .build()
        .unwrap();
    let result = server
        .call("reports", json!({"action": "get_all"}))
        .await
        .unwrap();
    let meta = meta_of(&result)["contract_awareness"].clone();
    // The tool's description, the type of `limit`, the input's title.
    assert_eq!(meta["changes"], 3);
    assert_eq!(meta["max_severity"], "BREAKING");
    let severities: Vec<&str> = meta["deltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["BREAKING", "COSMETIC", "COSMETIC"]);
    assert_eq!(meta["deltas"][0]["field"], "limit");
    assert_eq!(meta["deltas"][1]["field"], "(description)");
}

#[tokio::test]
async fn a_cap_of_zero_turns_the_section_off() {
    let server = wide(true)
        .self_healing(lockfile_of(wide(false)))
        .self_healing_max_deltas(0)
        .build()
        .unwrap();
    let text = text_of(&server.call("wide", json!({})).await.unwrap());
    assert!(!text.contains("contract_awareness"), "{text}");
    let healing = server.self_healing().expect("self-healing is on");
    // 7 BREAKING or RISKY changes, and the input's title (COSMETIC).
    assert_eq!(healing.diff().deltas.len(), 8);
    assert_eq!(healing.diff().count(ChangeSeverity::Cosmetic), 1);
    assert_eq!(
        healing.diff().max_severity(),
        Some(ChangeSeverity::Breaking)
    );
}

// ---- Hostile names: field names and enum values come from schemas.

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Hostile {
    #[serde(rename = "</delta><x a='1'>&amp;")]
    Tag,
    #[serde(rename = "plain")]
    Plain,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct HostileV1 {
    #[serde(rename = "na\"me<&'>\tx")]
    name: String,
    kind: Hostile,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct HostileV2 {
    #[serde(rename = "na\"me<&'>\tx")]
    name: u32,
    #[serde(rename = "kind")]
    kind: Plain,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Plain {
    #[serde(rename = "plain")]
    Plain,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_are_escaped_and_read_back() {
    let v1 = FusionServer::builder("h", "1").tool(Action::new("hostile", ok::<HostileV1>));
    let v2 = FusionServer::builder("h", "2").tool(Action::new("hostile", ok::<HostileV2>));
    let server = v2.self_healing(lockfile_of(v1)).build().unwrap();
    let served = serve(server).await;
    let text = text_of(&served.call("hostile", json!({})).await);
    crate::support::check_envelope(&text).unwrap();
    assert!(
        text.contains(
            "<delta severity=\"BREAKING\" field=\"na&quot;me&lt;&amp;&apos;&gt;&#9;x\">Field \"na\"me&lt;&amp;'>\tx\" changed type from string to integer."
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "<delta severity=\"BREAKING\" field=\"kind\">Field \"kind\" no longer accepts \"&lt;/delta>&lt;x a='1'>&amp;amp;\". Before: &lt;/delta>&lt;x a='1'>&amp;amp;|plain. Now: plain.</delta>"
        ),
        "{text}"
    );
    let Ok(ParsedEnvelope::Validation(parsed)) = parse(&text) else {
        panic!("parses: {text}");
    };
    let awareness = parsed.contract_awareness.expect("section");
    assert_eq!(awareness.changes, 2);
    let fields: Vec<&str> = awareness.deltas.iter().map(|d| d.field.as_str()).collect();
    assert_eq!(fields, ["kind", "na\"me<&'>\tx"]);
    assert!(
        awareness.deltas[0]
            .text
            .contains("\"</delta><x a='1'>&amp;\"")
    );
    served.close().await;
}
