//! `FusionClient` reading the surface besides tools of an mcp-fusion server
//! served over Streamable HTTP on a loopback port, on both revisions:
//! resources and templates (MCP 2025-11-25 server/resources), prompts
//! (server/prompts) and completion (server/utilities/completion). The server
//! sends one item per page, so every list is read across pages.

use std::collections::HashMap;
use std::net::SocketAddr;

use mcp_fusion::client::{
    ClientOptions, FusionClient, FusionClientError, ProtocolRevision, Target,
};
use mcp_fusion::model::{Reference, ResourceContents, Role};
use mcp_fusion::{CompletionRequest, FusionServer, Prompt, Resource, ResourceTemplate, ToolError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RecordVars {
    /// The record's id.
    id: String,
}

async fn record(vars: RecordVars) -> Result<String, ToolError> {
    Ok(format!("record {}", vars.id))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
    /// The greeting's tone.
    tone: Option<String>,
}

async fn greet(args: GreetArgs) -> Result<String, ToolError> {
    Ok(format!(
        "Greet {} ({})",
        args.name,
        args.tone.as_deref().unwrap_or("plain")
    ))
}

/// Completes `tone` with what the context's `name` is, to show the context
/// arrived.
async fn tones(request: CompletionRequest) -> Result<Vec<String>, ToolError> {
    let name = request.arguments.get("name").cloned().unwrap_or_default();
    Ok(vec![
        format!("{}-warm-for-{name}", request.value),
        format!("{}-dry-for-{name}", request.value),
    ])
}

/// A server with two resources, a template and two prompts, one item per
/// page; its `/mcp` URL and what stops it.
async fn server() -> (String, CancellationToken) {
    let server = FusionServer::builder("surface", "1.0.0")
        .page_size(1)
        .resource(
            Resource::text("test://notes", "Notes", "first line")
                .description("Plain notes")
                .mime_type("text/plain"),
        )
        .resource(Resource::blob("test://logo", "Logo", vec![1, 2, 3]).mime_type("image/png"))
        .resource_template(
            ResourceTemplate::new("test://records/{id}", "Record", record)
                .complete_values("id", ["100", "101", "200"]),
        )
        .prompt(
            Prompt::new("greet", greet)
                .description("A greeting")
                .complete_values("name", ["Ada", "Alan", "Grace"])
                .complete("tone", tones),
        )
        .prompt(Prompt::new("plain", greet))
        .build()
        .expect("the server");
    let stop = CancellationToken::new();
    let router = server
        .http_router(&mcp_fusion::transport::HttpOptions::default(), stop.clone())
        .expect("the router");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("its address");
    let stopped = stop.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move { stopped.cancelled().await })
        .await
    });
    (format!("http://{addr}/mcp"), stop)
}

/// A client connected to the server at `url` with `options`.
async fn connect(url: &str, options: ClientOptions) -> FusionClient {
    FusionClient::connect(&Target::http(url), options)
        .await
        .expect("connected")
}

/// Both revisions' options.
fn revisions() -> [ClientOptions; 2] {
    [
        ClientOptions::default(),
        ClientOptions::default().protocol(ProtocolRevision::V2026_07_28),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_templates_are_listed_across_pages_and_read() {
    let (url, stop) = server().await;
    for options in revisions() {
        let revision = options.protocol;
        let client = connect(&url, options).await;

        let resources = client.list_resources().await.expect("resources/list");
        let listed: Vec<_> = resources
            .iter()
            .map(|r| {
                (
                    r.uri.as_str(),
                    r.name.as_str(),
                    r.mime_type.as_deref(),
                    r.description.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "test://notes",
                    "Notes",
                    Some("text/plain"),
                    Some("Plain notes")
                ),
                ("test://logo", "Logo", Some("image/png"), None),
            ],
            "{revision:?}"
        );

        let templates = client
            .list_resource_templates()
            .await
            .expect("resources/templates/list");
        let listed: Vec<_> = templates
            .iter()
            .map(|t| (t.uri_template.as_str(), t.name.as_str()))
            .collect();
        assert_eq!(listed, [("test://records/{id}", "Record")], "{revision:?}");

        let notes = client.read_resource("test://notes").await.expect("read");
        assert_eq!(
            serde_json::to_value(&notes.contents).unwrap(),
            json!([{"uri": "test://notes", "mimeType": "text/plain", "text": "first line"}]),
            "{revision:?}"
        );
        let logo = client.read_resource("test://logo").await.expect("read");
        match &logo.contents[..] {
            [ResourceContents::BlobResourceContents { blob, uri, .. }] => {
                assert_eq!((uri.as_str(), blob.as_str()), ("test://logo", "AQID"));
            }
            other => panic!("one blob, got {other:?}"),
        }
        let record = client
            .read_resource("test://records/7")
            .await
            .expect("read");
        match &record.contents[..] {
            [ResourceContents::TextResourceContents { text, .. }] => {
                assert_eq!(text, "record 7");
            }
            other => panic!("one text, got {other:?}"),
        }
        client.close().await;
    }
    stop.cancel();
}

/// 2025-11-25 answers `-32002` ("Resource not found"), 2026-07-28
/// `-32602` (server/resources "Error Handling", SEP-2164); both name the URI
/// in `data.uri`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_resource_is_the_servers_error_naming_the_uri() {
    let (url, stop) = server().await;
    for (options, expected) in revisions().into_iter().zip([-32002, -32602]) {
        let client = connect(&url, options).await;
        let error = client.read_resource("test://nothing").await.unwrap_err();
        let FusionClientError::JsonRpc { code, data, .. } = &error else {
            panic!("a JSON-RPC error, got {error:?}");
        };
        assert_eq!(*code, expected);
        assert_eq!(data.as_ref().unwrap()["uri"], "test://nothing");
        client.close().await;
    }
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_are_listed_across_pages_and_got() {
    let (url, stop) = server().await;
    for options in revisions() {
        let revision = options.protocol;
        let client = connect(&url, options).await;
        let prompts = client.list_prompts().await.expect("prompts/list");
        let listed: Vec<_> = prompts
            .iter()
            .map(|p| {
                let arguments: Vec<_> = p
                    .arguments
                    .iter()
                    .flatten()
                    .map(|a| (a.name.clone(), a.required))
                    .collect();
                (p.name.clone(), p.description.clone(), arguments)
            })
            .collect();
        let arguments = vec![
            (String::from("name"), Some(true)),
            (String::from("tone"), Some(false)),
        ];
        assert_eq!(
            listed,
            [
                (
                    String::from("greet"),
                    Some(String::from("A greeting")),
                    arguments.clone()
                ),
                (String::from("plain"), None, arguments),
            ],
            "{revision:?}"
        );

        let got = client
            .get_prompt("greet", json!({"name": "Ada", "tone": "warm"}))
            .await
            .expect("prompts/get");
        assert_eq!(got.messages.len(), 1);
        assert_eq!(got.messages[0].role, Role::User);
        assert_eq!(
            got.messages[0].content.as_text().map(|t| t.text.as_str()),
            Some("Greet Ada (warm)")
        );
        client.close().await;
    }
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_prompt_is_32602_and_arguments_must_be_an_object() {
    let (url, stop) = server().await;
    let client = connect(&url, ClientOptions::default()).await;
    let error = client.get_prompt("nope", Value::Null).await.unwrap_err();
    let FusionClientError::JsonRpc { code, .. } = &error else {
        panic!("a JSON-RPC error, got {error:?}");
    };
    assert_eq!(*code, -32602);
    let error = client.get_prompt("greet", json!([1])).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid arguments: prompt arguments must be a JSON object, got an array"
    );
    client.close().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_answers_for_a_prompt_and_a_template_with_context() {
    let (url, stop) = server().await;
    for options in revisions() {
        let revision = options.protocol;
        let client = connect(&url, options).await;
        let names = client
            .complete(Reference::for_prompt("greet"), "name", "a", HashMap::new())
            .await
            .expect("completion/complete");
        assert_eq!(names.values, ["Ada", "Alan"], "{revision:?}");

        let context = HashMap::from([(String::from("name"), String::from("Ada"))]);
        let tones = client
            .complete(Reference::for_prompt("greet"), "tone", "x", context)
            .await
            .expect("completion/complete");
        assert_eq!(tones.values, ["x-warm-for-Ada", "x-dry-for-Ada"]);

        let ids = client
            .complete(
                Reference::for_resource("test://records/{id}"),
                "id",
                "10",
                HashMap::new(),
            )
            .await
            .expect("completion/complete");
        assert_eq!(ids.values, ["100", "101"]);
        client.close().await;
    }
    stop.cancel();
}
