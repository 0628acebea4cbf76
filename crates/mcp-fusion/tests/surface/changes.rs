//! Prompts, resources and templates added to and removed from a running
//! server: every connected client is sent the `list_changed` notification
//! of what changed and then lists the new set; a change that does not happen
//! (a failed add, removing what is not there) sends nothing.

use mcp_fusion::{
    Action, BuildError, FusionServer, Prompt, Resource, ResourceTemplate, State, ToolError,
};
use serde_json::{Value, json};

use crate::connection::{Connected, connect, to_json};

const PROMPTS_CHANGED: &str = "notifications/prompts/list_changed";
const RESOURCES_CHANGED: &str = "notifications/resources/list_changed";

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

async fn hello() -> Result<&'static str, ToolError> {
    Ok("Say hello.")
}

async fn bye() -> Result<&'static str, ToolError> {
    Ok("Say goodbye.")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

async fn by_id(args: Id) -> Result<String, ToolError> {
    Ok(format!("item {}", args.id))
}

#[derive(Clone)]
struct Missing;

async fn needs_state(State(_missing): State<Missing>) -> Result<&'static str, ToolError> {
    Ok("never")
}

fn server() -> FusionServer {
    FusionServer::builder("changes", "1.0.0")
        .tool(Action::new("ping", ping))
        .prompt(Prompt::new("hello", hello))
        .resource(Resource::text("test://a", "a", "A"))
        .build()
        .unwrap()
}

async fn prompt_names(connected: &Connected) -> Vec<String> {
    connected
        .client
        .list_prompts(None)
        .await
        .unwrap()
        .prompts
        .into_iter()
        .map(|p| p.name)
        .collect()
}

async fn resource_uris(connected: &Connected) -> Vec<String> {
    connected
        .client
        .list_resources(None)
        .await
        .unwrap()
        .resources
        .into_iter()
        .map(|r| r.uri.clone())
        .collect()
}

async fn template_uris(connected: &Connected) -> Vec<String> {
    connected
        .client
        .list_resource_templates(None)
        .await
        .unwrap()
        .resource_templates
        .into_iter()
        .map(|t| t.uri_template.clone())
        .collect()
}

fn methods(connected: &Connected) -> Vec<&'static str> {
    connected.recorder.seen().iter().map(|s| s.method).collect()
}

#[tokio::test]
async fn an_added_prompt_is_announced_and_listed() {
    let server = server();
    let first = connect(&server).await;
    let second = connect(&server).await;
    assert_eq!(prompt_names(&first).await, ["hello"]);

    server
        .add_prompt(Prompt::new("bye", bye).description("Says goodbye."))
        .await
        .unwrap();
    for connected in [&first, &second] {
        assert_eq!(
            connected.recorder.wait_for(PROMPTS_CHANGED, 1).await,
            [Value::Null]
        );
    }
    // The client's cached list was dropped on the notification.
    assert_eq!(prompt_names(&first).await, ["hello", "bye"]);
    assert_eq!(prompt_names(&second).await, ["hello", "bye"]);
    let got = first
        .client
        .get_prompt(crate::connection::from_json(json!({"name": "bye"})))
        .await
        .unwrap();
    assert_eq!(
        to_json(&got),
        json!({
            "description": "Says goodbye.",
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say goodbye."}}]
        })
    );
    first.settle().await;
    assert_eq!(methods(&first), [PROMPTS_CHANGED]);
    first.close().await;
    second.close().await;
}

#[tokio::test]
async fn a_prompt_is_removed_once_and_announced_once() {
    let server = server();
    let connected = connect(&server).await;
    assert!(server.remove_prompt("hello").await);
    connected.recorder.wait_for(PROMPTS_CHANGED, 1).await;
    assert_eq!(prompt_names(&connected).await, Vec::<String>::new());

    assert!(!server.remove_prompt("hello").await);
    assert!(!server.remove_prompt("never_there").await);
    connected.settle().await;
    assert_eq!(methods(&connected), [PROMPTS_CHANGED]);
    connected.close().await;
}

#[tokio::test]
async fn resources_and_templates_added_and_removed_are_announced() {
    let server = server();
    let connected = connect(&server).await;
    assert_eq!(resource_uris(&connected).await, ["test://a"]);
    assert_eq!(template_uris(&connected).await, Vec::<String>::new());

    server
        .add_resource(Resource::text("test://b", "b", "B"))
        .await
        .unwrap();
    connected.recorder.wait_for(RESOURCES_CHANGED, 1).await;
    assert_eq!(resource_uris(&connected).await, ["test://a", "test://b"]);

    server
        .add_resource_template(ResourceTemplate::new("test://items/{id}", "item", by_id))
        .await
        .unwrap();
    connected.recorder.wait_for(RESOURCES_CHANGED, 2).await;
    assert_eq!(template_uris(&connected).await, ["test://items/{id}"]);

    assert!(server.remove_resource("test://a").await);
    connected.recorder.wait_for(RESOURCES_CHANGED, 3).await;
    assert_eq!(resource_uris(&connected).await, ["test://b"]);

    assert!(server.remove_resource_template("test://items/{id}").await);
    connected.recorder.wait_for(RESOURCES_CHANGED, 4).await;
    assert_eq!(template_uris(&connected).await, Vec::<String>::new());

    // Removing again: `false`, nothing sent.
    assert!(!server.remove_resource("test://a").await);
    assert!(!server.remove_resource_template("test://items/{id}").await);
    connected.settle().await;
    assert_eq!(methods(&connected), [RESOURCES_CHANGED; 4]);
    connected.close().await;
}

#[tokio::test]
async fn a_failed_add_returns_the_build_error_and_announces_nothing() {
    let server = server();
    let connected = connect(&server).await;

    assert_eq!(
        server.add_prompt(Prompt::new("hello", bye)).await,
        Err(BuildError::Duplicate {
            what: "prompt",
            name: String::from("hello"),
        })
    );
    assert_eq!(
        server
            .add_prompt(Prompt::new("needs_state", needs_state))
            .await,
        Err(BuildError::MissingState {
            action: String::from("needs_state"),
            state: String::from("surface::changes::Missing"),
        })
    );
    assert_eq!(
        server
            .add_resource(Resource::text("test://a", "again", "A again"))
            .await,
        Err(BuildError::Duplicate {
            what: "resource",
            name: String::from("test://a"),
        })
    );
    assert_eq!(
        server
            .add_resource_template(ResourceTemplate::new("test://{id", "broken", by_id))
            .await,
        Err(BuildError::BadUriTemplate(String::from(
            "\"test://{id\" opens a '{' it never closes"
        )))
    );
    server
        .add_resource_template(ResourceTemplate::new("test://items/{id}", "item", by_id))
        .await
        .unwrap();
    connected.recorder.wait_for(RESOURCES_CHANGED, 1).await;
    assert_eq!(
        server
            .add_resource_template(ResourceTemplate::new("test://items/{id}", "again", by_id))
            .await,
        Err(BuildError::Duplicate {
            what: "resource template",
            name: String::from("test://items/{id}"),
        })
    );

    connected.settle().await;
    assert_eq!(methods(&connected), [RESOURCES_CHANGED]);
    // The server is unchanged by the failures.
    assert_eq!(prompt_names(&connected).await, ["hello"]);
    assert_eq!(resource_uris(&connected).await, ["test://a"]);
    assert_eq!(template_uris(&connected).await, ["test://items/{id}"]);
    connected.close().await;
}

#[tokio::test]
async fn a_change_is_seen_by_the_next_read_and_by_new_connections() {
    let server = server();
    let connected = connect(&server).await;
    server
        .add_resource(Resource::text("test://late", "late", "Added late."))
        .await
        .unwrap();
    let read = connected
        .client
        .read_resource(crate::connection::from_json(json!({"uri": "test://late"})))
        .await
        .unwrap();
    assert_eq!(
        to_json(&read),
        json!({"contents": [{"uri": "test://late", "text": "Added late."}]})
    );

    // A connection opened after the change lists it, and is told of later
    // changes too.
    let later = connect(&server).await;
    assert_eq!(resource_uris(&later).await, ["test://a", "test://late"]);
    assert!(server.remove_resource("test://late").await);
    later.recorder.wait_for(RESOURCES_CHANGED, 1).await;
    connected.recorder.wait_for(RESOURCES_CHANGED, 2).await;
    connected.close().await;
    later.close().await;
}

/// A server built without prompts advertises no `prompts` capability, so a
/// prompt added at runtime is not announced to the clients connected then
/// (they were never told the server has prompts); a client connecting later
/// is given the capability.
#[tokio::test]
async fn a_runtime_prompt_is_not_announced_to_clients_told_there_are_none() {
    let server = FusionServer::builder("changes", "1.0.0")
        .tool(Action::new("ping", ping))
        .build()
        .unwrap();
    let before = connect(&server).await;
    assert_eq!(
        before.server_capabilities(),
        json!({"tools": {"listChanged": true}, "logging": {}})
    );
    server
        .add_prompt(Prompt::new("hello", hello))
        .await
        .unwrap();
    before.settle().await;
    assert_eq!(
        before.recorder.seen_of(PROMPTS_CHANGED),
        Vec::<Value>::new()
    );

    let after = connect(&server).await;
    assert_eq!(
        after.server_capabilities(),
        json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "logging": {}})
    );
    before.close().await;
    after.close().await;
}
