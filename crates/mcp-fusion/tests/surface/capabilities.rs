//! What a server advertises at `initialize`, read by rmcp's client over an
//! in-process pipe: tools and logging for a tools-only server; prompts,
//! resources and completions only when something of theirs is registered.
//! And the build errors of prompts, resources and templates.

use mcp_fusion::{
    Action, BuildError, FusionServer, Prompt, Resource, ResourceTemplate, ServerBuilder, State,
    ToolError,
};
use serde_json::json;

use crate::connection::connect;

async fn ping() -> Result<&'static str, ToolError> {
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
    Ok(format!("item {}", args.id))
}

fn builder() -> ServerBuilder {
    FusionServer::builder("caps", "1.0.0")
}

fn with_tool() -> ServerBuilder {
    builder().tool(Action::new("ping", ping))
}

async fn capabilities_of(server: FusionServer) -> serde_json::Value {
    let connected = connect(&server).await;
    assert_eq!(connected.protocol_version(), "2025-11-25");
    let capabilities = connected.server_capabilities();
    connected.close().await;
    capabilities
}

#[tokio::test]
async fn a_tools_only_server_advertises_tools_and_logging_only() {
    let server = with_tool().build().unwrap();
    assert_eq!(
        capabilities_of(server).await,
        json!({"tools": {"listChanged": true}, "logging": {}})
    );
}

#[tokio::test]
async fn a_prompt_adds_prompts_with_list_changed() {
    let server = with_tool()
        .prompt(Prompt::new("hello", hello))
        .build()
        .unwrap();
    assert_eq!(
        capabilities_of(server).await,
        json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "logging": {}})
    );
}

#[tokio::test]
async fn a_resource_adds_resources_with_subscribe_and_list_changed() {
    let server = with_tool()
        .resource(Resource::text("test://a", "a", "A"))
        .build()
        .unwrap();
    assert_eq!(
        capabilities_of(server).await,
        json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {}
        })
    );
}

#[tokio::test]
async fn a_template_alone_adds_resources_too() {
    let server = with_tool()
        .resource_template(ResourceTemplate::new("test://items/{id}", "item", by_id))
        .build()
        .unwrap();
    assert_eq!(
        capabilities_of(server).await,
        json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {}
        })
    );
}

#[tokio::test]
async fn completions_are_advertised_only_with_a_completer() {
    // A prompt and a template without completers: no `completions`.
    let without = with_tool()
        .prompt(Prompt::new("by_id", by_id))
        .resource_template(ResourceTemplate::new("test://items/{id}", "item", by_id))
        .build()
        .unwrap();
    assert_eq!(
        capabilities_of(without).await,
        json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {}
        })
    );

    // A prompt argument with a completer.
    let prompt = with_tool()
        .prompt(Prompt::new("by_id", by_id).complete_values("id", ["a", "b"]))
        .build()
        .unwrap();
    assert_eq!(
        capabilities_of(prompt).await,
        json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "completions": {},
            "logging": {}
        })
    );

    // A template variable with a completer.
    let template = with_tool()
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "item", by_id).complete(
                "id",
                |_request: mcp_fusion::CompletionRequest| async {
                    Ok::<_, ToolError>(vec![String::from("1")])
                },
            ),
        )
        .build()
        .unwrap();
    assert_eq!(
        capabilities_of(template).await,
        json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "completions": {},
            "logging": {}
        })
    );
}

#[tokio::test]
async fn a_server_with_only_a_prompt_builds_and_advertises_no_tools() {
    let server = builder()
        .prompt(Prompt::new("hello", hello))
        .build()
        .expect("a prompt is enough to serve");
    assert!(server.listings().is_empty());
    assert_eq!(
        capabilities_of(server).await,
        json!({"prompts": {"listChanged": true}, "logging": {}})
    );
}

#[test]
fn a_server_with_nothing_does_not_build() {
    let err = builder().build().unwrap_err();
    assert_eq!(err, BuildError::NoTools);
    assert_eq!(
        err.to_string(),
        "the server has nothing to serve: add a tool, a group, a prompt or a resource before building"
    );
}

#[test]
fn two_prompts_with_one_name_do_not_build() {
    let err = with_tool()
        .prompt(Prompt::new("hello", hello))
        .prompt(Prompt::new("hello", by_id))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::Duplicate {
            what: "prompt",
            name: String::from("hello"),
        }
    );
    assert_eq!(err.to_string(), "two prompts are named \"hello\"");
}

#[test]
fn two_resources_with_one_uri_do_not_build() {
    let err = with_tool()
        .resource(Resource::text("test://a", "a", "A"))
        .resource(Resource::text("test://a", "b", "B"))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::Duplicate {
            what: "resource",
            name: String::from("test://a"),
        }
    );
    assert_eq!(err.to_string(), "two resources are named \"test://a\"");
}

#[test]
fn an_unclosed_template_does_not_build() {
    let err = with_tool()
        .resource_template(ResourceTemplate::new("test://{id", "broken", by_id))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::BadUriTemplate(String::from("\"test://{id\" opens a '{' it never closes"))
    );
    assert_eq!(
        err.to_string(),
        "unusable resource template \"test://{id\" opens a '{' it never closes"
    );
}

#[derive(Clone)]
struct Greeting(String);

async fn greet(State(greeting): State<Greeting>) -> Result<String, ToolError> {
    Ok(greeting.0)
}

#[test]
fn a_prompt_taking_a_state_the_server_lacks_does_not_build() {
    let err = with_tool()
        .prompt(Prompt::new("greet", greet))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::MissingState {
            action: String::from("greet"),
            state: String::from("surface::capabilities::Greeting"),
        }
    );
    assert_eq!(
        err.to_string(),
        "greet: the handler takes State<surface::capabilities::Greeting>, but the server has no such state: add it with ServerBuilder::state"
    );
    // With the state, it builds.
    with_tool()
        .state(Greeting(String::from("hi")))
        .prompt(Prompt::new("greet", greet))
        .build()
        .expect("the state is given");
}

#[test]
fn a_resource_taking_a_state_the_server_lacks_does_not_build() {
    let err = with_tool()
        .resource(Resource::new("test://greeting", "greeting", greet))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::MissingState {
            action: String::from("test://greeting"),
            state: String::from("surface::capabilities::Greeting"),
        }
    );
}
