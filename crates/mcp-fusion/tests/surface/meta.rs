//! `_meta` set by a server's code, read by rmcp's client over an in-process
//! pipe: on a plain tool, a group (its actions' entries under the group's),
//! a resource, a resource template, a prompt and a handler's result (merged
//! under the library's own entries); `capabilities.extensions` declared
//! with `ServerBuilder::extension`; and the build errors of reserved keys
//! and unusable extension identifiers.

use mcp_fusion::model::{CallToolRequestParams, JsonObject};
use mcp_fusion::{
    Action, FusionServer, Group, NoArgs, Prompt, Resource, ResourceTemplate, ServerBuilder,
    ToolError, ToolOutput,
};
use serde_json::{Value, json};

use crate::connection::{connect, to_json};

async fn ping(_: NoArgs) -> Result<&'static str, ToolError> {
    Ok("pong")
}

async fn hello() -> Result<&'static str, ToolError> {
    Ok("Say hello.")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

async fn by_id(args: Id) -> Result<String, ToolError> {
    Ok(args.id)
}

async fn stamped(_: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text("done")
        .with_meta("com.example/at", "2026-12-05T14:00:00Z")
        .with_meta(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        )
        .with_meta("mcp-fusion/error", "mine")
        .with_warning(ToolError::deprecated_action("stamped", "stamp")))
}

fn builder() -> ServerBuilder {
    FusionServer::builder("meta", "1.0.0")
}

fn server() -> FusionServer {
    builder()
        .tool(
            Action::new("ping", ping)
                .meta("com.example/owner", "billing-team")
                .meta(
                    "io.modelcontextprotocol/skills",
                    json!({"note": "a known extension's key"}),
                ),
        )
        .group(
            Group::new("billing")
                .action(Action::new("get", ping).meta("com.example/owner", "action"))
                .action(Action::new("list", ping).meta("com.example/tier", 2))
                .meta("com.example/owner", "group"),
        )
        .tool(Action::new("stamped", stamped))
        .resource(
            Resource::text("docs://readme", "readme", "Read me.").meta("com.example/lang", "en"),
        )
        .resource_template(
            ResourceTemplate::new("docs://items/{id}", "item", by_id)
                .meta("com.example/kind", "item"),
        )
        .prompt(Prompt::new("hello", hello).meta("com.example/audience", "staff"))
        .build()
        .expect("a valid definition")
}

/// The `_meta` of each tool with the library's `mcp-fusion/actions` and
/// `mcp-fusion/discriminator` entries checked present and left out.
fn own_meta(tools: &Value) -> Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            let mut meta = tool["_meta"].as_object().unwrap().clone();
            assert!(meta.remove("mcp-fusion/actions").is_some(), "{tool}");
            meta.remove("mcp-fusion/discriminator");
            (
                tool["name"].as_str().unwrap().to_owned(),
                Value::Object(meta),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[tokio::test]
async fn listings_carry_the_meta_their_code_set() {
    let server = server();
    let connected = connect(&server).await;
    let tools = to_json(&connected.client.list_all_tools().await.unwrap());
    assert_eq!(
        own_meta(&tools),
        json!({
            "ping": {"com.example/owner": "billing-team", "io.modelcontextprotocol/skills": {"note": "a known extension's key"}},
            "billing": {"com.example/owner": "group", "com.example/tier": 2},
            "stamped": {}
        })
    );
    assert_eq!(tools[1]["_meta"]["mcp-fusion/discriminator"], "action");
    let resources = to_json(&connected.client.list_all_resources().await.unwrap());
    assert_eq!(
        resources,
        json!([{"uri": "docs://readme", "name": "readme", "_meta": {"com.example/lang": "en"}}])
    );
    let templates = to_json(
        &connected
            .client
            .list_all_resource_templates()
            .await
            .unwrap(),
    );
    assert_eq!(
        templates,
        json!([{"uriTemplate": "docs://items/{id}", "name": "item", "_meta": {"com.example/kind": "item"}}])
    );
    let prompts = to_json(&connected.client.list_all_prompts().await.unwrap());
    assert_eq!(
        prompts,
        json!([{"name": "hello", "_meta": {"com.example/audience": "staff"}}])
    );
    connected.close().await;
}

#[tokio::test]
async fn a_results_meta_is_merged_under_the_librarys() {
    let server = server();
    let connected = connect(&server).await;
    let called = connected
        .client
        .call_tool(CallToolRequestParams::new("stamped"))
        .await
        .unwrap();
    assert_eq!(
        to_json(&called)["_meta"],
        json!({
            "com.example/at": "2026-12-05T14:00:00Z",
            "mcp-fusion/error": {
                "code": "DEPRECATED",
                "severity": "warning",
                "message": "stamped is deprecated and will be removed; use stamp instead.",
                "recovery": "The call succeeded: its result is above. Next time call stamp.",
                "available_actions": ["stamp"]
            }
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn declared_extensions_are_in_the_capabilities() {
    let mut settings = JsonObject::new();
    settings.insert("level".into(), json!(2));
    let server = builder()
        .tool(Action::new("ping", ping))
        .extension("com.example/audit", settings)
        .extension("com.example/empty", JsonObject::new())
        .build()
        .unwrap();
    let connected = connect(&server).await;
    assert_eq!(
        connected.server_capabilities(),
        json!({
            "tools": {"listChanged": true},
            "logging": {},
            "extensions": {"com.example/audit": {"level": 2}, "com.example/empty": {}}
        })
    );
    connected.close().await;
}

fn build_error(builder: ServerBuilder) -> String {
    builder.build().unwrap_err().to_string()
}

#[test]
fn reserved_meta_keys_fail_the_build() {
    let protocol = "a prefix with a `modelcontextprotocol` or `mcp` label is reserved for the protocol (MCP basic/index, `_meta`); use a prefix of your own, e.g. `com.example/`";
    assert_eq!(
        build_error(
            builder()
                .tool(Action::new("ping", ping).meta("io.modelcontextprotocol/related-task", 1))
        ),
        format!(
            "ping: the _meta key \"io.modelcontextprotocol/related-task\" cannot be set: {protocol}"
        )
    );
    assert_eq!(
        build_error(builder().tool(Action::new("ping", ping).meta("traceparent", "x"))),
        "ping: the _meta key \"traceparent\" cannot be set: trace context (SEP-414) is written by the telemetry layer"
    );
    assert_eq!(
        build_error(
            builder().group(
                Group::new("billing")
                    .action(Action::new("get", ping))
                    .meta("mcp-fusion/actions", 1)
            )
        ),
        "billing: the _meta key \"mcp-fusion/actions\" cannot be set: the library writes its own keys under `mcp-fusion/`"
    );
    assert_eq!(
        build_error(
            builder()
                .group(Group::new("billing").action(Action::new("get", ping).meta("baggage", 1)))
        ),
        "billing.get: the _meta key \"baggage\" cannot be set: trace context (SEP-414) is written by the telemetry layer"
    );
    assert_eq!(
        build_error(builder().resource(Resource::text("docs://a", "a", "A").meta("tracestate", 1))),
        "docs://a: the _meta key \"tracestate\" cannot be set: trace context (SEP-414) is written by the telemetry layer"
    );
    assert_eq!(
        build_error(builder().resource_template(
            ResourceTemplate::new("docs://items/{id}", "item", by_id).meta("", 1)
        )),
        "docs://items/{id}: the _meta key \"\" cannot be set: a `_meta` key is not empty"
    );
    assert_eq!(
        build_error(
            builder().prompt(Prompt::new("hello", hello).meta("modelcontextprotocol.io/x", 1))
        ),
        format!("hello: the _meta key \"modelcontextprotocol.io/x\" cannot be set: {protocol}")
    );
}

#[test]
fn unusable_extensions_fail_the_build() {
    let with = |id: &str| {
        builder()
            .tool(Action::new("ping", ping))
            .extension(id, JsonObject::new())
    };
    let shape = "an extension identifier is a vendor prefix, a slash and a name (SEP-1724), e.g. com.example/audit";
    for id in ["audit", "/audit", "com.example/", "com example/audit"] {
        assert_eq!(
            build_error(with(id)),
            format!("extension \"{id}\": {shape}")
        );
    }
    for id in [
        "io.modelcontextprotocol/tasks",
        "io.modelcontextprotocol/ui",
    ] {
        assert_eq!(
            build_error(with(id)),
            format!(
                "extension \"{id}\": mcp-fusion declares it itself when it is used (a task-capable action; a UiResource)"
            )
        );
    }
}
