//! Pagination of the four lists (`ServerBuilder::page_size`,
//! `ServerBuilder::signing_key`), read by rmcp's client over an in-process
//! pipe and over Streamable HTTP: pages of the size set, `nextCursor` on
//! every page but the last, the same order and the same cursors each time,
//! nothing skipped or repeated when the list changes between two pages,
//! cursors read by another server with the same key and refused (-32602,
//! with the exact message) when forged, from another list or another key;
//! pages cut from what the caller may see; and `FusionClient::list_tools`
//! reading every page.

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::{Action, BuildError, FusionServer, Prompt, Resource, ResourceTemplate, ToolError};
use rmcp::model::{ErrorData, PaginatedRequestParams};
use serde_json::{Value, json};

use crate::connection::{Connected, HttpServed, connect, error_json, rpc_error};

const KEY: &str = "a-signing-key-of-thirty-two-bytes-or-more";

async fn done() -> Result<&'static str, ToolError> {
    Ok("done")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

async fn prompt_text() -> Result<String, ToolError> {
    Ok(String::from("Say hello."))
}

async fn item(vars: Id) -> Result<String, ToolError> {
    Ok(format!("item {}", vars.id))
}

/// A server with `tools` tools `tool_00`, `tool_01`, … and three prompts,
/// resources and templates.
fn server(tools: usize, page_size: Option<usize>, key: &str) -> FusionServer {
    let mut builder = FusionServer::builder("pages", "1.0.0").signing_key(key);
    if let Some(size) = page_size {
        builder = builder.page_size(size);
    }
    for n in 0..tools {
        builder = builder.tool(Action::new(format!("tool_{n:02}"), done));
    }
    for n in 0..3 {
        builder = builder
            .prompt(Prompt::new(format!("prompt_{n}"), prompt_text))
            .resource(Resource::text(
                format!("pages://resource/{n}"),
                format!("resource_{n}"),
                "text",
            ))
            .resource_template(ResourceTemplate::new(
                format!("pages://template{n}/{{id}}"),
                format!("template_{n}"),
                item,
            ));
    }
    builder.build().unwrap()
}

fn params(cursor: Option<&str>) -> Option<PaginatedRequestParams> {
    Some(PaginatedRequestParams::default().with_cursor(cursor.map(str::to_owned)))
}

/// One page of `tools/list`: the names and the `nextCursor`.
async fn tools_page(
    connected: &Connected,
    cursor: Option<&str>,
) -> Result<(Vec<String>, Option<String>), ErrorData> {
    let page = connected
        .client
        .list_tools(params(cursor))
        .await
        .map_err(|e| rpc_error::<()>(Err(e)))?;
    let names = page.tools.iter().map(|t| t.name.to_string()).collect();
    Ok((names, page.next_cursor))
}

/// Every page of `tools/list`, following the cursors: each page's names and
/// the cursors given.
async fn tool_pages(connected: &Connected) -> (Vec<Vec<String>>, Vec<String>) {
    let (mut pages, mut cursors) = (Vec::new(), Vec::new());
    let mut cursor = None;
    loop {
        let (names, next) = tools_page(connected, cursor.as_deref()).await.unwrap();
        pages.push(names);
        match next {
            Some(next) => {
                cursors.push(next.clone());
                cursor = Some(next);
            }
            None => return (pages, cursors),
        }
    }
}

fn names(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|n| format!("{prefix}{n:02}")).collect()
}

#[tokio::test]
async fn tools_list_is_cut_into_pages_of_the_size_set_in_a_stable_order() {
    let connected = connect(&server(7, Some(3), KEY)).await;
    let (pages, cursors) = tool_pages(&connected).await;
    assert_eq!(
        pages,
        vec![
            names("tool_", 0..3),
            names("tool_", 3..6),
            names("tool_", 6..7)
        ]
    );
    assert_eq!(cursors.len(), 2);
    // The same listing again: the same pages and the same cursors.
    assert_eq!(tool_pages(&connected).await, (pages, cursors));
}

#[tokio::test]
async fn the_default_page_size_is_one_hundred() {
    let connected = connect(&server(150, None, KEY)).await;
    let (pages, _) = tool_pages(&connected).await;
    assert_eq!(
        pages,
        vec![names("tool_", 0..100), names("tool_", 100..150)]
    );
    // A list of exactly 100 tools: one page, no nextCursor.
    let connected = connect(&server(100, None, KEY)).await;
    let (first, next) = tools_page(&connected, None).await.unwrap();
    assert_eq!((first.len(), next), (100, None));
}

#[tokio::test]
async fn page_size_zero_sends_every_list_whole() {
    let connected = connect(&server(150, Some(0), KEY)).await;
    let (names, next) = tools_page(&connected, None).await.unwrap();
    assert_eq!((names.len(), next), (150, None));
}

#[tokio::test]
async fn tools_changed_between_pages_are_neither_skipped_nor_repeated() {
    let server = server(6, Some(2), KEY);
    let connected = connect(&server).await;
    let (first, cursor) = tools_page(&connected, None).await.unwrap();
    assert_eq!(first, names("tool_", 0..2));
    let cursor = cursor.expect("a second page");
    // Between the pages: the first page's last tool and the next page's
    // first one are removed, one of the first page is moved to the end,
    // and a tool is added.
    assert!(server.remove_tool("tool_01").await);
    assert!(server.remove_tool("tool_02").await);
    server
        .update_tools(|tools| Ok(tools.move_to_end("tool_00")))
        .await
        .unwrap();
    server
        .add_tool(Action::new("tool_new", done))
        .await
        .unwrap();
    let (second, cursor) = tools_page(&connected, Some(&cursor)).await.unwrap();
    assert_eq!(second, ["tool_03", "tool_04"]);
    let (third, cursor) = tools_page(&connected, cursor.as_deref()).await.unwrap();
    assert_eq!(third, ["tool_05", "tool_00"]);
    let (fourth, cursor) = tools_page(&connected, cursor.as_deref()).await.unwrap();
    assert_eq!((fourth, cursor), (vec![String::from("tool_new")], None));
}

#[tokio::test]
async fn a_prompt_removed_between_pages_moves_no_other_across_the_cursor() {
    let server = server(1, Some(2), KEY);
    let connected = connect(&server).await;
    let client = &connected.client;
    let first = client.list_prompts(params(None)).await.unwrap();
    let cursor = first.next_cursor.expect("a second page of prompts");
    // A count would now point past `prompt_2`; the place of `prompt_1` does not.
    assert!(server.remove_prompt("prompt_0").await);
    server
        .add_prompt(Prompt::new("prompt_3", prompt_text))
        .await
        .unwrap();
    let second = client.list_prompts(params(Some(&cursor))).await.unwrap();
    let names: Vec<String> = second.prompts.iter().map(|p| p.name.clone()).collect();
    assert_eq!(
        (names, second.next_cursor),
        (
            vec![String::from("prompt_2"), String::from("prompt_3")],
            None
        )
    );
}

#[tokio::test]
async fn prompts_resources_and_templates_are_paged_too() {
    let connected = connect(&server(1, Some(2), KEY)).await;
    let client = &connected.client;

    let first = client.list_prompts(params(None)).await.unwrap();
    let cursor = first.next_cursor.clone().expect("a second page of prompts");
    let second = client.list_prompts(params(Some(&cursor))).await.unwrap();
    let prompt_names = |page: &rmcp::model::ListPromptsResult| {
        page.prompts
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(prompt_names(&first), ["prompt_0", "prompt_1"]);
    assert_eq!(
        (prompt_names(&second), second.next_cursor),
        (vec![String::from("prompt_2")], None)
    );

    let first = client.list_resources(params(None)).await.unwrap();
    let cursor = first
        .next_cursor
        .clone()
        .expect("a second page of resources");
    let second = client.list_resources(params(Some(&cursor))).await.unwrap();
    let uris = |page: &rmcp::model::ListResourcesResult| {
        page.resources
            .iter()
            .map(|r| r.uri.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(uris(&first), ["pages://resource/0", "pages://resource/1"]);
    assert_eq!(
        (uris(&second), second.next_cursor),
        (vec![String::from("pages://resource/2")], None)
    );

    let first = client.list_resource_templates(params(None)).await.unwrap();
    let cursor = first
        .next_cursor
        .clone()
        .expect("a second page of templates");
    let second = client
        .list_resource_templates(params(Some(&cursor)))
        .await
        .unwrap();
    let templates = |page: &rmcp::model::ListResourceTemplatesResult| {
        page.resource_templates
            .iter()
            .map(|t| t.uri_template.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        templates(&first),
        ["pages://template0/{id}", "pages://template1/{id}"]
    );
    assert_eq!(
        (templates(&second), second.next_cursor),
        (vec![String::from("pages://template2/{id}")], None)
    );
}

/// The -32602 answer to `cursor` sent to `method`, as JSON.
fn refused(cursor: &str, method: &str, cursor_of: Option<&str>) -> Value {
    let why = match cursor_of {
        Some(other) => format!("is the nextCursor of a {other} page, not of {method}"),
        None => String::from(
            "is not a nextCursor this server gave (a cursor is valid only as this server sent it)",
        ),
    };
    json!({
        "code": -32602,
        "message": format!("Invalid cursor \"{cursor}\" for {method}: it {why}. List from the start: call {method} with no cursor, then pass each page's nextCursor as it is."),
        "data": {"cursor": cursor, "method": method, "cursorOf": cursor_of},
    })
}

#[tokio::test]
async fn a_cursor_of_another_list_is_refused_with_invalid_params() {
    let connected = connect(&server(5, Some(2), KEY)).await;
    let prompts = connected.client.list_prompts(params(None)).await.unwrap();
    let cursor = prompts.next_cursor.expect("a second page of prompts");
    let error = tools_page(&connected, Some(&cursor)).await.unwrap_err();
    assert_eq!(
        error_json(&error),
        refused(&cursor, "tools/list", Some("prompts/list"))
    );
    // And the other way round: a tools/list cursor sent to resources/list.
    let (_, tools_cursor) = tools_page(&connected, None).await.unwrap();
    let tools_cursor = tools_cursor.unwrap();
    let error = rpc_error(
        connected
            .client
            .list_resources(params(Some(&tools_cursor)))
            .await,
    );
    assert_eq!(
        error_json(&error),
        refused(&tools_cursor, "resources/list", Some("tools/list"))
    );
}

#[tokio::test]
async fn a_forged_cursor_or_one_of_another_key_is_refused_with_invalid_params() {
    let connected = connect(&server(5, Some(2), KEY)).await;
    let error = tools_page(&connected, Some("2")).await.unwrap_err();
    assert_eq!(error_json(&error), refused("2", "tools/list", None));

    let elsewhere = connect(&server(
        5,
        Some(2),
        "another-key-of-thirty-two-bytes-or-more",
    ))
    .await;
    let (_, foreign) = tools_page(&elsewhere, None).await.unwrap();
    let foreign = foreign.unwrap();
    let error = tools_page(&connected, Some(&foreign)).await.unwrap_err();
    assert_eq!(error_json(&error), refused(&foreign, "tools/list", None));
}

#[tokio::test]
async fn a_replica_with_the_same_key_reads_the_cursor_of_another() {
    let one = connect(&server(5, Some(2), KEY)).await;
    let other = connect(&server(5, Some(2), KEY)).await;
    let (first, cursor) = tools_page(&one, None).await.unwrap();
    let (second, cursor) = tools_page(&other, cursor.as_deref()).await.unwrap();
    let (third, cursor) = tools_page(&one, cursor.as_deref()).await.unwrap();
    assert_eq!(
        [first, second, third].concat(),
        names("tool_", 0..5),
        "every tool once, in order"
    );
    assert_eq!(cursor, None);
}

#[test]
fn a_signing_key_shorter_than_32_bytes_is_a_build_error() {
    let error = FusionServer::builder("pages", "1.0.0")
        .tool(Action::new("ping", done))
        .signing_key("short")
        .build()
        .unwrap_err();
    assert_eq!(error, BuildError::SigningKeyTooShort { length: 5 });
    assert_eq!(
        error.to_string(),
        "the signing key has 5 bytes; give at least 32 (e.g. `openssl rand -base64 48`), the same on every replica"
    );
}

/// Ten tools, the odd ones needing `pages:read`, served over HTTP to
/// anonymous callers too, in pages of 2.
fn scoped_server() -> FusionServer {
    let mut builder = FusionServer::builder("scoped", "1.0.0")
        .auth(StaticTokens::new().token("reader-token", "reader", ["pages:read"]))
        .allow_anonymous(true)
        .page_size(2)
        .signing_key(KEY);
    for n in 0..10 {
        let action = Action::new(format!("tool_{n:02}"), done);
        builder = builder.tool(if n % 2 == 1 {
            action.requires_scopes(["pages:read"])
        } else {
            action
        });
    }
    builder.build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_are_cut_from_what_the_caller_may_see() {
    let served = HttpServed::start(&scoped_server()).await;
    let anonymous = served.connect_with(Default::default()).await;
    let reader = served.connect_as("reader-token").await;

    let (pages, _) = tool_pages(&anonymous).await;
    let even: Vec<String> = (0..10).step_by(2).map(|n| format!("tool_{n:02}")).collect();
    assert_eq!(
        pages,
        vec![
            even[0..2].to_vec(),
            even[2..4].to_vec(),
            even[4..5].to_vec()
        ]
    );

    let (pages, cursors) = tool_pages(&reader).await;
    assert_eq!(pages.len(), 5);
    assert_eq!(pages.concat(), names("tool_", 0..10));

    // A cursor of the reader's listing, sent by the anonymous caller, names
    // a place in the list (after `tool_01`, after `tool_07`): the anonymous
    // caller gets what it may see after it, and no hidden tool.
    let (page, next) = tools_page(&anonymous, Some(&cursors[0])).await.unwrap();
    assert_eq!(page, even[1..3].to_vec());
    assert!(next.is_some());
    let (page, next) = tools_page(&anonymous, Some(&cursors[3])).await.unwrap();
    assert_eq!((page, next), (vec![String::from("tool_08")], None));
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fusion_client_lists_every_page() {
    let served = HttpServed::start(&server(7, Some(3), KEY)).await;
    let client = mcp_fusion::FusionClient::connect(
        &mcp_fusion::client::Target::http(served.url.clone()),
        mcp_fusion::client::ClientOptions::default(),
    )
    .await
    .unwrap();
    let tools = client.list_tools().await.unwrap();
    let listed: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(listed, names("tool_", 0..7));
    client.close().await;
    served.stop().await;
}
