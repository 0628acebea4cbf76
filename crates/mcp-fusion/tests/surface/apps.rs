//! MCP Apps (SEP-1865) on the wire: a `ui://` view served with
//! `UiResource` and a tool linked to it, read by rmcp's client (MCP
//! 2025-11-25, `initialize`) and by a raw 2026-07-28 client
//! (`server/discover`, no session): the `io.modelcontextprotocol/ui`
//! extension in the capabilities, the tool's `_meta.ui`, the view's entry
//! in `resources/list` and its contents in `resources/read` (MIME type
//! `text/html;profile=mcp-app`, `_meta.ui`), and the text result a host
//! without Apps reads. And the build errors of apps.

use mcp_fusion::capability::{UiCsp, UiLink, UiPermissions, UiResource, UiVisibility};
use mcp_fusion::model::ReadResourceRequestParams;
use mcp_fusion::{Action, BuildError, FusionServer, Group, Json, NoArgs, ToolError};
use serde_json::{Value, json};

use crate::connection::{connect, raw_pipe, to_json};

const HTML: &str = "<!DOCTYPE html><html><body><main id=\"app\"></main></body></html>";

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
    amount_cents: u64,
}

async fn show(_: NoArgs) -> Result<Json<Invoice>, ToolError> {
    Ok(Json(Invoice {
        id: "inv_1".into(),
        amount_cents: 1200,
    }))
}

async fn refresh(_: NoArgs) -> Result<&'static str, ToolError> {
    Ok("refreshed")
}

fn view() -> UiResource {
    UiResource::new("ui://billing/invoice", "invoice_view", HTML)
        .title("Invoice")
        .description("One invoice, rendered.")
        .prefers_border(true)
}

fn server() -> FusionServer {
    FusionServer::builder("apps", "1.0.0")
        .ui_resource(view())
        .ui_resource(
            UiResource::new("ui://billing/chart", "chart_view", HTML)
                .csp(
                    UiCsp::new()
                        .connect_domain("https://api.example.com")
                        .resource_domain("https://*.example.com")
                        .frame_domain("https://www.youtube.com")
                        .base_uri_domain("https://cdn.example.com"),
                )
                .permissions(UiPermissions::new().camera().clipboard_write())
                .domain("a904794854a047f6.claudemcpcontent.com")
                .prefers_border(false),
        )
        .tool(
            Action::new("show_invoice", show)
                .read_only()
                .ui(UiLink::new("ui://billing/invoice")),
        )
        .tool(
            Action::new("refresh_invoice", refresh)
                .ui(UiLink::new("ui://billing/invoice").visibility([UiVisibility::App])),
        )
        .build()
        .expect("a valid definition")
}

/// The `_meta.ui` of the invoice view: the restrictive CSP, every list
/// declared empty.
fn invoice_ui() -> Value {
    json!({"ui": {
        "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
        "prefersBorder": true
    }})
}

fn chart_ui() -> Value {
    json!({"ui": {
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.example.com"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": ["https://cdn.example.com"]
        },
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "domain": "a904794854a047f6.claudemcpcontent.com",
        "prefersBorder": false
    }})
}

fn listed_views() -> Value {
    json!([
        {
            "uri": "ui://billing/invoice", "name": "invoice_view", "title": "Invoice",
            "description": "One invoice, rendered.", "mimeType": "text/html;profile=mcp-app",
            "_meta": invoice_ui()
        },
        {
            "uri": "ui://billing/chart", "name": "chart_view",
            "mimeType": "text/html;profile=mcp-app", "_meta": chart_ui()
        }
    ])
}

fn read_view() -> Value {
    json!([{
        "uri": "ui://billing/invoice", "mimeType": "text/html;profile=mcp-app",
        "text": HTML, "_meta": invoice_ui()
    }])
}

const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The `_meta.ui` of each tool, by name.
fn links(tools: &Value) -> Value {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["_meta"]["ui"].clone(),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

fn expected_links() -> Value {
    json!({
        "show_invoice": {"resourceUri": "ui://billing/invoice", "visibility": ["model", "app"]},
        "refresh_invoice": {"resourceUri": "ui://billing/invoice", "visibility": ["app"]}
    })
}

#[tokio::test]
async fn an_app_is_declared_listed_and_read_over_2025_11_25() {
    let server = server();
    let connected = connect(&server).await;
    assert_eq!(
        connected.server_capabilities(),
        json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {},
            "extensions": {UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}
        })
    );
    let tools = to_json(&connected.client.list_all_tools().await.unwrap());
    assert_eq!(links(&tools), expected_links());
    let resources = to_json(&connected.client.list_all_resources().await.unwrap());
    assert_eq!(resources, listed_views());
    let read = connected
        .client
        .read_resource(ReadResourceRequestParams::new("ui://billing/invoice"))
        .await
        .unwrap();
    assert_eq!(to_json(&read)["contents"], read_view());
    // A host without Apps reads the text; a view reads structuredContent.
    let called = connected
        .client
        .call_tool(mcp_fusion::model::CallToolRequestParams::new(
            "show_invoice",
        ))
        .await
        .unwrap();
    assert_eq!(
        to_json(&called),
        json!({
            "content": [{"type": "text", "text": "{\"id\":\"inv_1\",\"amount_cents\":1200}"}],
            "structuredContent": {"id": "inv_1", "amount_cents": 1200},
            "isError": false
        })
    );
    connected.close().await;
}

/// The `_meta` of a 2026-07-28 request.
fn modern() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}
        },
        "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1.0.0"}
    })
}

#[tokio::test]
async fn an_app_is_declared_listed_and_read_over_2026_07_28() {
    let server = server();
    let mut raw = raw_pipe(&server);
    let (_, discovered) = raw
        .request(1, "server/discover", json!({"_meta": modern()}))
        .await;
    assert_eq!(
        discovered["result"]["capabilities"]["extensions"],
        json!({UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}),
        "{discovered}"
    );
    let (_, tools) = raw
        .request(2, "tools/list", json!({"_meta": modern()}))
        .await;
    assert_eq!(links(&tools["result"]["tools"]), expected_links());
    let (_, resources) = raw
        .request(3, "resources/list", json!({"_meta": modern()}))
        .await;
    assert_eq!(resources["result"]["resources"], listed_views());
    let (_, read) = raw
        .request(
            4,
            "resources/read",
            json!({"uri": "ui://billing/invoice", "_meta": modern()}),
        )
        .await;
    assert_eq!(read["result"]["contents"], read_view(), "{read}");
}

#[tokio::test]
async fn a_server_without_views_declares_no_apps_extension_until_one_is_added() {
    let server = FusionServer::builder("plain", "1.0.0")
        .tool(Action::new("refresh", refresh))
        .build()
        .unwrap();
    let connected = connect(&server).await;
    assert_eq!(connected.server_capabilities().get("extensions"), None);
    connected.close().await;
    server.add_resource(view().into()).await.unwrap();
    let connected = connect(&server).await;
    assert_eq!(
        connected.server_capabilities()["extensions"],
        json!({UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}})
    );
    let resources = to_json(&connected.client.list_all_resources().await.unwrap());
    assert_eq!(resources, json!([listed_views()[0]]));
    connected.close().await;
}

fn build_error(builder: mcp_fusion::ServerBuilder) -> String {
    builder.build().unwrap_err().to_string()
}

#[test]
fn only_ui_uris_serve_or_link_apps() {
    let builder = || FusionServer::builder("apps", "1.0.0");
    assert_eq!(
        build_error(builder().ui_resource(UiResource::new("https://example.com/app", "app", HTML))),
        "MCP App https://example.com/app: an app's view is a resource whose URI starts with ui:// (SEP-1865, \"UI Resource Format\"), e.g. ui://billing/invoice"
    );
    assert_eq!(
        build_error(builder().ui_resource(UiResource::new("ui://", "app", HTML))),
        "MCP App ui://: an app's view is a resource whose URI starts with ui:// (SEP-1865, \"UI Resource Format\"), e.g. ui://billing/invoice"
    );
    assert_eq!(
        build_error(
            builder()
                .ui_resource(view())
                .tool(Action::new("r", refresh).ui(UiLink::new("file:///app.html")))
        ),
        "MCP App file:///app.html: an app's view is a resource whose URI starts with ui:// (SEP-1865, \"UI Resource Format\"), e.g. ui://billing/invoice"
    );
    assert_eq!(
        build_error(
            builder().tool(Action::new("r", refresh).ui(UiLink::new("ui://billing/missing")))
        ),
        "MCP App ui://billing/missing: tool \"r\" links to it, and the server serves no view there: add it with ServerBuilder::ui_resource"
    );
    assert_eq!(
        build_error(
            builder().ui_resource(view()).group(
                Group::new("billing")
                    .action(Action::new("r", refresh).ui(UiLink::new("ui://billing/invoice")))
            )
        ),
        "MCP App ui://billing/invoice: billing.r is an action of a group, listed as the group's one tool: link the group (Group::ui)"
    );
    assert_eq!(
        builder()
            .ui_resource(view())
            .ui_resource(view())
            .build()
            .unwrap_err(),
        BuildError::Duplicate {
            what: "resource",
            name: "ui://billing/invoice".into()
        }
    );
}

#[test]
fn a_csp_entry_is_one_origin() {
    let with = |source: &str| {
        FusionServer::builder("apps", "1.0.0").ui_resource(
            UiResource::new("ui://billing/invoice", "invoice", HTML)
                .csp(UiCsp::new().connect_domain(source)),
        )
    };
    let every = "allows every origin (of a scheme): name the origins, e.g. https://api.example.com";
    let one =
        "holds whitespace, ';', ',' or a quote: give one origin per entry, no keyword or directive";
    for (source, why) in [
        ("*", every),
        ("https:", every),
        ("'unsafe-inline'", one),
        ("a; script-src *", one),
        ("", "is empty"),
    ] {
        assert_eq!(
            build_error(with(source)),
            format!("MCP App ui://billing/invoice: CSP entry \"{source}\" {why}")
        );
    }
    with("https://*.example.com").build().unwrap();
}

#[test]
fn an_app_link_cannot_be_set_as_plain_meta() {
    assert_eq!(
        build_error(FusionServer::builder("apps", "1.0.0").tool(
            Action::new("r", refresh).meta("ui", json!({"resourceUri": "https://evil.example/"}))
        )),
        "r: the _meta key \"ui\" cannot be set: an MCP App's link is set with `ui(UiLink)`, which checks its ui:// URI"
    );
}

#[tokio::test]
async fn a_linked_group_lists_its_link() {
    let server = FusionServer::builder("apps", "1.0.0")
        .ui_resource(view())
        .group(
            Group::new("billing")
                .action(Action::new("show", show))
                .action(Action::new("refresh", refresh))
                .ui(UiLink::new("ui://billing/invoice")),
        )
        .build()
        .unwrap();
    let connected = connect(&server).await;
    let tools = to_json(&connected.client.list_all_tools().await.unwrap());
    assert_eq!(
        tools[0]["_meta"]["ui"],
        json!({"resourceUri": "ui://billing/invoice", "visibility": ["model", "app"]})
    );
    connected.close().await;
}
