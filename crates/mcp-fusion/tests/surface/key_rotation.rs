//! Rotating the signing key of a fleet (`SigningKeys`): two replicas behind
//! one endpoint, one a step of the rotation ahead of the other, each open
//! the `requestState`s and cursors the other signed; once the old key is
//! dropped, what it signed is refused with `-32602`.

use mcp_fusion::server::SigningKeys;
use mcp_fusion::{Action, FusionServer, ToolError};
use serde_json::{Value, json};

use crate::connection::HttpServed;
use crate::input_required::{accept, greet, post, refused_state, state_of, text_of};

const OLD: &str = "the-old-key-of-at-least-thirty-two-bytes";
const NEW: &str = "the-new-key-of-at-least-thirty-two-bytes";

async fn listed() -> Result<&'static str, ToolError> {
    Ok("listed")
}

/// A server with `greet` (one elicitation) and five more tools, in pages of
/// two, signing with `keys`.
fn replica(keys: SigningKeys) -> FusionServer {
    let mut builder = FusionServer::builder("rotating", "1.0.0")
        .tool(Action::new("greet", greet))
        .page_size(2)
        .signing_keys(keys);
    for i in 0..5 {
        builder = builder.tool(Action::new(format!("tool_{i}"), listed));
    }
    builder.build().unwrap()
}

/// Step 2: signs with the old key, accepts the new one.
fn step_two() -> SigningKeys {
    SigningKeys::new("k1", OLD).accept("k2", NEW)
}

/// Step 3: signs with the new key, accepts the old one.
fn step_three() -> SigningKeys {
    SigningKeys::new("k2", NEW).accept("k1", OLD)
}

/// The `requestState` `url` answers a first call of `greet` with.
async fn state_from(url: &str) -> String {
    let first = post(
        url,
        "tools/call",
        json!({"name": "greet", "arguments": {"greeting": "Hi"}}),
    )
    .await;
    state_of(&first)
}

/// `url`'s answer to `greet` completed with `state`.
async fn completed_at(url: &str, state: &str) -> Value {
    post(
        url,
        "tools/call",
        json!({
            "name": "greet",
            "arguments": {"greeting": "Hi"},
            "requestState": state,
            "inputResponses": {"input-1": accept(json!({"name": "Ada"}))}
        }),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_a_step_apart_open_each_others_request_states() {
    let behind = HttpServed::start(&replica(step_two())).await;
    let ahead = HttpServed::start(&replica(step_three())).await;
    let old_only = HttpServed::start(&replica(SigningKeys::new("k1", OLD))).await;
    let by_old = state_from(&behind.url).await;
    let by_new = state_from(&ahead.url).await;
    assert!(by_old.starts_with("rs2.azE."), "named k1: {by_old}");
    assert!(by_new.starts_with("rs2.azI."), "named k2: {by_new}");
    assert_eq!(
        text_of(&completed_at(&ahead.url, &by_old).await),
        "Hi, Ada!"
    );
    assert_eq!(
        text_of(&completed_at(&behind.url, &by_new).await),
        "Hi, Ada!"
    );
    // Why step 2 comes first: a replica that never got the new key
    // refuses what it signs.
    assert_eq!(
        completed_at(&old_only.url, &by_new).await["error"],
        refused_state()
    );
    assert_eq!(
        text_of(&completed_at(&old_only.url, &by_old).await),
        "Hi, Ada!"
    );
    for served in [behind, ahead, old_only] {
        served.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_the_old_key_is_dropped_what_it_signed_is_refused() {
    let behind = HttpServed::start(&replica(step_two())).await;
    let retired = HttpServed::start(&replica(SigningKeys::new("k2", NEW))).await;
    let by_old = state_from(&behind.url).await;
    assert_eq!(
        completed_at(&retired.url, &by_old).await["error"],
        refused_state()
    );
    let by_new = state_from(&retired.url).await;
    assert_eq!(
        text_of(&completed_at(&behind.url, &by_new).await),
        "Hi, Ada!"
    );
    let page = post(&behind.url, "tools/list", json!({})).await;
    let cursor = page["result"]["nextCursor"].as_str().unwrap().to_owned();
    let refused = post(&retired.url, "tools/list", json!({"cursor": cursor})).await;
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(
        refused["error"]["data"],
        json!({"cursor": cursor, "method": "tools/list", "cursorOf": null})
    );
    behind.stop().await;
    retired.stop().await;
}

/// The names on `url`'s page of `tools/list` at `cursor`, and its
/// `nextCursor`.
async fn page_at(url: &str, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
    let params = cursor.map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
    let page = post(url, "tools/list", params).await;
    let names = page["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {page}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    let next = page["result"]["nextCursor"].as_str().map(str::to_owned);
    (names, next)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_pages_across_replicas_a_step_apart() {
    let behind = HttpServed::start(&replica(step_two())).await;
    let ahead = HttpServed::start(&replica(step_three())).await;
    let (first, cursor) = page_at(&ahead.url, None).await;
    let (second, cursor) = page_at(&behind.url, cursor.as_deref()).await;
    let (third, cursor) = page_at(&ahead.url, cursor.as_deref()).await;
    assert_eq!(
        [first, second, third].concat(),
        ["greet", "tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]
    );
    assert_eq!(cursor, None);
    behind.stop().await;
    ahead.stop().await;
}

#[test]
fn a_key_id_that_cannot_be_used_is_a_build_error() {
    let error = FusionServer::builder("rotating", "1.0.0")
        .tool(Action::new("tool_0", listed))
        .signing_keys(SigningKeys::new("k1", OLD).accept("k1", NEW))
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "signing key id \"k1\": it is given twice"
    );
}
