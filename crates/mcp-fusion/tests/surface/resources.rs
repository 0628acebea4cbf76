//! `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe` through rmcp's client
//! over an in-process pipe, and `FusionServer::notify_resource_updated`
//! reaching exactly the subscribed connections.

// resources/subscribe is MCP 2025-11-25; rmcp marks it deprecated.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_fusion::error::VALIDATION_RECOVERY;
use mcp_fusion::handler::ResourceData;
use mcp_fusion::model::{
    ReadResourceRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use mcp_fusion::{Action, CallContext, FusionServer, Resource, ResourceTemplate, State, ToolError};
use serde_json::{Value, json};

use crate::connection::{Connected, answer, connect, error_json, from_json, rpc_error, to_json};
use crate::support::internal_envelope;

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// How many times `test://counter` was read (a state).
#[derive(Clone, Default)]
struct Reads(Arc<AtomicUsize>);

async fn counter(State(reads): State<Reads>, ctx: CallContext) -> Result<ResourceData, ToolError> {
    let n = reads.0.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(ResourceData::Text(format!("read {n} of {}", ctx.name())))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Item {
    id: String,
}

async fn item(args: Item) -> Result<String, ToolError> {
    Ok(format!("Data for ID: {}", args.id))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct File {
    path: String,
}

async fn file(args: File) -> Result<String, ToolError> {
    Ok(format!("file {}", args.path))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Paid,
    Void,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ByStatus {
    status: Status,
}

async fn by_status(args: ByStatus) -> Result<String, ToolError> {
    Ok(match args.status {
        Status::Paid => String::from("2 paid invoices"),
        Status::Void => String::from("0 void invoices"),
    })
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Invoice {
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    id: String,
}

async fn invoice(args: Invoice) -> Result<String, ToolError> {
    if args.id == "inv_404" {
        return Err(ToolError::not_found("There is no invoice inv_404.")
            .suggest("List the invoices first."));
    }
    if args.id == "inv_500" {
        panic!("secret connection string in the panic text");
    }
    Ok(format!("{{\"id\":\"{}\"}}", args.id))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Page {
    n: u32,
}

async fn page(args: Page) -> Result<String, ToolError> {
    Ok(format!("page {}", args.n))
}

fn server() -> FusionServer {
    FusionServer::builder("resources", "1.0.0")
        .tool(Action::new("ping", ping))
        .state(Reads::default())
        .resource(
            Resource::text("test://readme", "readme", "Read me first.")
                .title("Read me")
                .description("The project's read-me")
                .mime_type("text/plain"),
        )
        .resource(
            Resource::blob("test://pixel", "pixel", vec![0u8, 255, 16]).mime_type("image/png"),
        )
        .resource(Resource::new("test://counter", "counter", counter))
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "item", item)
                .description("One item")
                .mime_type("text/plain"),
        )
        .resource_template(ResourceTemplate::new("test://files/{+path}", "file", file))
        .resource_template(ResourceTemplate::new(
            "test://invoices/status/{status}",
            "by_status",
            by_status,
        ))
        .resource_template(ResourceTemplate::new(
            "test://invoices/{id}",
            "invoice",
            invoice,
        ))
        .resource_template(ResourceTemplate::new("test://pages/{n}", "page", page))
        .build()
        .unwrap()
}

async fn read(connected: &Connected, uri: &str) -> Result<Value, rmcp::ErrorData> {
    let params: ReadResourceRequestParams = from_json(json!({"uri": uri}));
    answer(connected.client.read_resource(params).await)
}

async fn subscribe(connected: &Connected, uri: &str) -> Result<(), rmcp::ErrorData> {
    let params: SubscribeRequestParams = from_json(json!({"uri": uri}));
    connected
        .client
        .subscribe(params)
        .await
        .map_err(|e| rpc_error::<()>(Err(e)))
}

async fn unsubscribe(connected: &Connected, uri: &str) -> Result<(), rmcp::ErrorData> {
    let params: UnsubscribeRequestParams = from_json(json!({"uri": uri}));
    connected
        .client
        .unsubscribe(params)
        .await
        .map_err(|e| rpc_error::<()>(Err(e)))
}

/// One text content of `uri`.
fn text(uri: &str, mime_type: Option<&str>, text: &str) -> Value {
    let mut contents = json!({"uri": uri, "text": text});
    if let Some(mime_type) = mime_type {
        contents["mimeType"] = json!(mime_type);
    }
    json!({"contents": [contents]})
}

fn validation(action: &str, path: &str, message: &str) -> Value {
    json!({
        "code": -32602,
        "message": format!(
            "Fix the fields below and read the resource again.\n<validation_error action=\"{action}\">\n  <field name=\"{path}\">{message}</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>"
        ),
        "data": {
            "code": "VALIDATION_ERROR",
            "severity": "error",
            "message": format!("The arguments for {action} are not valid (1 problem)."),
            "recovery": format!("Fix the fields below and read the resource again. {VALIDATION_RECOVERY}"),
            "action": action,
            "fields": [{"path": path, "message": message}],
        }
    })
}

#[tokio::test]
async fn resources_and_templates_are_listed() {
    let connected = connect(&server()).await;
    let resources = connected.client.list_resources(None).await.unwrap();
    assert_eq!(resources.next_cursor, None);
    assert_eq!(
        to_json(&resources.resources),
        json!([
            {
                "uri": "test://readme",
                "name": "readme",
                "title": "Read me",
                "description": "The project's read-me",
                "mimeType": "text/plain"
            },
            {"uri": "test://pixel", "name": "pixel", "mimeType": "image/png"},
            {"uri": "test://counter", "name": "counter"}
        ])
    );
    let templates = connected
        .client
        .list_resource_templates(None)
        .await
        .unwrap();
    assert_eq!(
        to_json(&templates.resource_templates),
        json!([
            {
                "uriTemplate": "test://items/{id}",
                "name": "item",
                "description": "One item",
                "mimeType": "text/plain"
            },
            {"uriTemplate": "test://files/{+path}", "name": "file"},
            {"uriTemplate": "test://invoices/status/{status}", "name": "by_status"},
            {"uriTemplate": "test://invoices/{id}", "name": "invoice"},
            {"uriTemplate": "test://pages/{n}", "name": "page"}
        ])
    );
    connected.close().await;
}

#[tokio::test]
async fn a_text_resource_is_read() {
    let connected = connect(&server()).await;
    assert_eq!(
        read(&connected, "test://readme").await.unwrap(),
        text("test://readme", Some("text/plain"), "Read me first.")
    );
    // A handler with a state and the call context: the context's name is
    // the URI read.
    assert_eq!(
        read(&connected, "test://counter").await.unwrap(),
        text("test://counter", None, "read 1 of test://counter")
    );
    assert_eq!(
        read(&connected, "test://counter").await.unwrap(),
        text("test://counter", None, "read 2 of test://counter")
    );
    connected.close().await;
}

#[tokio::test]
async fn a_blob_resource_is_read_as_base64() {
    let connected = connect(&server()).await;
    assert_eq!(
        read(&connected, "test://pixel").await.unwrap(),
        json!({"contents": [{"uri": "test://pixel", "mimeType": "image/png", "blob": "AP8Q"}]})
    );
    connected.close().await;
}

#[tokio::test]
async fn a_template_is_read_with_its_variables_percent_decoded() {
    let connected = connect(&server()).await;
    assert_eq!(
        read(&connected, "test://items/42").await.unwrap(),
        text("test://items/42", Some("text/plain"), "Data for ID: 42")
    );
    // The variable is decoded; the contents keep the URI as it was asked.
    assert_eq!(
        read(&connected, "test://items/a%20b%2Fc").await.unwrap(),
        text(
            "test://items/a%20b%2Fc",
            Some("text/plain"),
            "Data for ID: a b/c"
        )
    );
    // `{+path}` spans segments.
    assert_eq!(
        read(&connected, "test://files/src/lib%2Ers").await.unwrap(),
        text("test://files/src/lib%2Ers", None, "file src/lib.rs")
    );
    // `{id}` does not span segments: no template matches.
    let error = read(&connected, "test://items/1/2").await.unwrap_err();
    assert_eq!(error.code.0, -32002);
    connected.close().await;
}

#[tokio::test]
async fn template_variables_are_validated_by_the_arguments_type() {
    let connected = connect(&server()).await;
    // An enum variable.
    assert_eq!(
        read(&connected, "test://invoices/status/paid")
            .await
            .unwrap(),
        text("test://invoices/status/paid", None, "2 paid invoices")
    );
    let error = read(&connected, "test://invoices/status/open")
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&error),
        validation(
            "test://invoices/status/open",
            "status",
            "Invalid value. You sent: 'open'. Expected one of: 'paid', 'void'.",
        )
    );
    // A `pattern`.
    let error = read(&connected, "test://invoices/INV-1").await.unwrap_err();
    assert_bad_invoice_id(&error);
    // A u32 variable: the URI's text is read as the integer the field asks
    // for; text that is not one, or a negative number, is refused.
    let page_five = read(&connected, "test://pages/5").await.unwrap();
    assert_eq!(to_json(&page_five)["contents"][0]["text"], json!("page 5"));
    let error = read(&connected, "test://pages/five").await.unwrap_err();
    assert_eq!(
        error_json(&error),
        validation(
            "test://pages/five",
            "n",
            "Wrong type. You sent: 'five'. Expected an integer.",
        )
    );
    connected.close().await;
}

#[tokio::test]
async fn handler_failures_are_json_rpc_errors() {
    let connected = connect(&server()).await;
    // NOT_FOUND from a resource handler: -32002 with the envelope.
    let error = read(&connected, "test://invoices/inv_404")
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32002,
            "message": "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>There is no invoice inv_404.</message>\n  <recovery>List the invoices first.</recovery>\n</tool_error>",
            "data": {
                "code": "NOT_FOUND",
                "severity": "error",
                "message": "There is no invoice inv_404.",
                "recovery": "List the invoices first."
            }
        })
    );
    // A panic: -32603 with the masked INTERNAL_ERROR, named after the URI.
    let error = read(&connected, "test://invoices/inv_500")
        .await
        .unwrap_err();
    assert_eq!(error.code.0, -32603);
    let data = error.data.clone().expect("the envelope's JSON twin");
    let id = data["details"]["error_id"].as_str().unwrap().to_owned();
    let (message, meta) = internal_envelope("test://invoices/inv_500", &id, None);
    assert_eq!(error.message, message);
    assert_eq!(data, meta);
    assert!(!error.message.contains("secret"));
    // Still serving.
    assert_eq!(
        read(&connected, "test://invoices/inv_7").await.unwrap(),
        text("test://invoices/inv_7", None, "{\"id\":\"inv_7\"}")
    );
    connected.close().await;
}

const VALID: &str = "Valid: test://readme, test://pixel, test://counter, test://items/{id}, test://files/{+path}, test://invoices/status/{status}, test://invoices/{id}, test://pages/{n}.";

fn valid_list() -> Value {
    json!([
        "test://readme",
        "test://pixel",
        "test://counter",
        "test://items/{id}",
        "test://files/{+path}",
        "test://invoices/status/{status}",
        "test://invoices/{id}",
        "test://pages/{n}"
    ])
}

#[tokio::test]
async fn an_unknown_uri_is_resource_not_found_listing_the_valid_ones() {
    let connected = connect(&server()).await;
    let error = read(&connected, "test://readme2").await.unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32002,
            "message": format!("There is no resource named \"test://readme2\". Did you mean \"test://readme\"? {VALID}"),
            "data": {"uri": "test://readme2", "closest": "test://readme", "valid": valid_list()}
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn an_update_reaches_the_subscribed_client_only() {
    let server = server();
    let subscribed = connect(&server).await;
    let other = connect(&server).await;
    subscribe(&subscribed, "test://readme").await.unwrap();
    // The other client subscribes to something else.
    subscribe(&other, "test://pixel").await.unwrap();

    assert_eq!(server.notify_resource_updated("test://readme").await, 1);
    let updates = subscribed
        .recorder
        .wait_for("notifications/resources/updated", 1)
        .await;
    assert_eq!(updates, [json!({"uri": "test://readme"})]);

    // A round trip on each connection, then a pause: nothing more came.
    subscribed.settle().await;
    other.settle().await;
    assert_eq!(
        subscribed.recorder.seen().len(),
        1,
        "{:?}",
        subscribed.recorder.seen()
    );
    assert_eq!(other.recorder.seen(), []);

    // Unsubscribed: nobody is told.
    unsubscribe(&subscribed, "test://readme").await.unwrap();
    assert_eq!(server.notify_resource_updated("test://readme").await, 0);
    subscribed.settle().await;
    assert_eq!(subscribed.recorder.seen().len(), 1);

    // Unsubscribing twice is harmless.
    unsubscribe(&subscribed, "test://readme").await.unwrap();

    // The other client's subscription still works.
    assert_eq!(server.notify_resource_updated("test://pixel").await, 1);
    assert_eq!(
        other
            .recorder
            .wait_for("notifications/resources/updated", 1)
            .await,
        [json!({"uri": "test://pixel"})]
    );
    subscribed.close().await;
    other.close().await;
}

#[tokio::test]
async fn a_uri_of_a_template_can_be_subscribed() {
    let server = server();
    let connected = connect(&server).await;
    subscribe(&connected, "test://items/7").await.unwrap();
    assert_eq!(server.notify_resource_updated("test://items/8").await, 0);
    assert_eq!(server.notify_resource_updated("test://items/7").await, 1);
    assert_eq!(
        connected
            .recorder
            .wait_for("notifications/resources/updated", 1)
            .await,
        [json!({"uri": "test://items/7"})]
    );
    connected.close().await;
}

/// `error` is the -32002 of `test://nothing`, naming the valid URIs.
fn assert_no_such_resource(error: &rmcp::ErrorData) {
    assert_eq!(error.code.0, -32002);
    assert_eq!(
        error.message,
        format!("There is no resource named \"test://nothing\". {VALID}")
    );
}

/// `error` is the read's `<validation_error>` of `test://invoices/INV-1`.
fn assert_bad_invoice_id(error: &rmcp::ErrorData) {
    assert_eq!(
        error_json(error),
        validation(
            "test://invoices/INV-1",
            "id",
            "Does not match the pattern. You sent: 'INV-1'. Expected a string matching the pattern '^inv_[0-9]+$'.",
        )
    );
}

#[tokio::test]
async fn subscribing_to_an_unknown_uri_is_resource_not_found() {
    let server = server();
    let connected = connect(&server).await;
    let error = subscribe(&connected, "test://nothing").await.unwrap_err();
    assert_no_such_resource(&error);
    assert_eq!(
        error.data,
        Some(json!({"uri": "test://nothing", "closest": null, "valid": valid_list()}))
    );
    assert_eq!(server.notify_resource_updated("test://nothing").await, 0);
    connected.close().await;
}

#[tokio::test]
async fn subscribing_to_a_uri_its_template_refuses_is_the_reads_validation_error() {
    let server = server();
    let connected = connect(&server).await;
    let error = subscribe(&connected, "test://invoices/INV-1")
        .await
        .unwrap_err();
    assert_bad_invoice_id(&error);
    assert_eq!(
        server
            .notify_resource_updated("test://invoices/INV-1")
            .await,
        0
    );
    subscribe(&connected, "test://invoices/inv_1")
        .await
        .unwrap();
    assert_eq!(
        server
            .notify_resource_updated("test://invoices/inv_1")
            .await,
        1
    );
    connected.close().await;
}

#[tokio::test]
async fn unsubscribing_needs_what_subscribing_needed_unless_subscribed() {
    let server = server();
    let connected = connect(&server).await;
    // Never subscribed: the errors a subscribe gets.
    let unknown = unsubscribe(&connected, "test://nothing").await.unwrap_err();
    assert_no_such_resource(&unknown);
    let refused = unsubscribe(&connected, "test://invoices/INV-1")
        .await
        .unwrap_err();
    assert_bad_invoice_id(&refused);
    // Subscribed to a resource removed since: the subscription is dropped.
    subscribe(&connected, "test://readme").await.unwrap();
    assert!(server.remove_resource("test://readme").await);
    unsubscribe(&connected, "test://readme").await.unwrap();
    let gone = unsubscribe(&connected, "test://readme").await.unwrap_err();
    assert_eq!(gone.code.0, -32002);
    connected.close().await;
}

#[tokio::test]
async fn a_closed_connection_is_no_longer_told() {
    let server = server();
    let connected = connect(&server).await;
    subscribe(&connected, "test://readme").await.unwrap();
    connected.close().await;
    assert_eq!(server.notify_resource_updated("test://readme").await, 0);
}
