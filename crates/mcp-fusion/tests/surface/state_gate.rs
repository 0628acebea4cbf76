//! The state gate (wire contract §10), seen by rmcp's client over an
//! in-process pipe: `tools/list` shows only the tools the session's state
//! allows, a successful call moves the session and sends it (and no other
//! session) `notifications/tools/list_changed`, a call not allowed now gets
//! the exact `FORBIDDEN`, a failed call never moves; and the machines a
//! build refuses.

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_fusion::guard::StateMachine;
use mcp_fusion::model::{CallToolRequestParams, CallToolResult};
use mcp_fusion::{Action, BuildError, FusionServer, Group, ToolError};
use serde_json::{Value, json};

use crate::connection::{Connected, connect};
use crate::support::{meta_of, texts};

const TOOLS_CHANGED: &str = "notifications/tools/list_changed";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Item {
    item: String,
}

async fn add_item(args: Item) -> Result<String, ToolError> {
    if args.item == "broken" {
        return Err(ToolError::not_found("No such item: broken."));
    }
    if args.item == "slow" {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    Ok(format!("added {}", args.item))
}

async fn done() -> Result<&'static str, ToolError> {
    Ok("done")
}

fn cart() -> StateMachine {
    StateMachine::new("cart")
        .initial("empty")
        .transition("add_item", "empty", "filled")
        .transition("add_item", "filled", "filled")
        .transition("checkout", "filled", "checked_out")
        .transition("pay", "checked_out", "paid")
        .allow("view", ["empty", "filled", "checked_out", "paid"])
}

fn server() -> FusionServer {
    FusionServer::builder("shop", "1.0.0")
        .tool(Action::new("add_item", add_item))
        .tool(Action::new("checkout", done))
        .tool(Action::new("pay", done))
        .tool(Action::new("view", done).read_only())
        .tool(Action::new("help", done).read_only())
        .state_machine(cart())
        .build()
        .unwrap()
}

async fn tool_names(connected: &Connected) -> Vec<String> {
    let tools = connected.client.list_all_tools().await.unwrap();
    tools.into_iter().map(|t| t.name.into_owned()).collect()
}

async fn call(connected: &Connected, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    connected
        .client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_list_follows_the_session_state_and_a_move_tells_only_that_session() {
    let server = server();
    let first = connect(&server).await;
    let second = connect(&server).await;
    assert_eq!(tool_names(&first).await, ["add_item", "view", "help"]);

    let added = call(&first, "add_item", json!({"item": "tea"})).await;
    assert_eq!(texts(&added), ["added tea"]);
    first.recorder.wait_for(TOOLS_CHANGED, 1).await;
    assert_eq!(
        tool_names(&first).await,
        ["add_item", "checkout", "view", "help"]
    );
    // The other session is still empty, and was told nothing.
    second.settle().await;
    assert_eq!(second.recorder.seen_of(TOOLS_CHANGED), Vec::<Value>::new());
    assert_eq!(tool_names(&second).await, ["add_item", "view", "help"]);

    // A call that stays in its state moves nothing and tells nothing.
    call(&first, "add_item", json!({"item": "milk"})).await;
    first.settle().await;
    assert_eq!(first.recorder.seen_of(TOOLS_CHANGED).len(), 1);

    assert_eq!(texts(&call(&first, "checkout", json!({})).await), ["done"]);
    first.recorder.wait_for(TOOLS_CHANGED, 2).await;
    assert_eq!(tool_names(&first).await, ["pay", "view", "help"]);
    first.close().await;
    second.close().await;
}

#[tokio::test]
async fn a_call_not_allowed_now_is_refused_with_the_state_and_the_tools_allowed() {
    let server = server();
    let connected = connect(&server).await;
    let refused = call(&connected, "checkout", json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        texts(&refused),
        ["<tool_error code=\"FORBIDDEN\" severity=\"error\">
  <message>checkout is not allowed now: the cart is \"empty\", and checkout needs it to be \"filled\".</message>
  <recovery>Do not retry it yet. Call one of available_actions: they are allowed while the cart is \"empty\".</recovery>
  <available_actions>
    <action>add_item</action>
    <action>view</action>
  </available_actions>
  <details>
    <detail key=\"state_machine\">cart</detail>
    <detail key=\"current_state\">empty</detail>
    <detail key=\"blocked_tool\">checkout</detail>
    <detail key=\"allowed_in\">filled</detail>
  </details>
</tool_error>"]
    );
    let meta = meta_of(&refused);
    assert_eq!(meta["code"], "FORBIDDEN");
    assert_eq!(
        meta["details"],
        json!({"state_machine": "cart", "current_state": "empty", "blocked_tool": "checkout", "allowed_in": "filled"})
    );
    connected.close().await;
}

#[tokio::test]
async fn a_failed_call_never_moves_the_session() {
    let server = server();
    let connected = connect(&server).await;
    let failed = call(&connected, "add_item", json!({"item": "broken"})).await;
    assert_eq!(meta_of(&failed)["code"], "NOT_FOUND");
    let invalid = call(&connected, "add_item", json!({})).await;
    assert_eq!(invalid.is_error, Some(true));
    connected.settle().await;
    assert_eq!(
        connected.recorder.seen_of(TOOLS_CHANGED),
        Vec::<Value>::new()
    );
    assert_eq!(tool_names(&connected).await, ["add_item", "view", "help"]);
    let refused = call(&connected, "checkout", json!({})).await;
    assert_eq!(meta_of(&refused)["details"]["current_state"], "empty");
    connected.close().await;
}

#[tokio::test]
async fn a_group_lists_only_the_actions_allowed_now() {
    let machine = StateMachine::new("cart")
        .initial("empty")
        .transition("cart.add_item", "empty", "filled")
        .transition("cart.checkout", "filled", "paid");
    let server = FusionServer::builder("shop", "1.0.0")
        .group(
            Group::new("cart")
                .action(Action::new("add_item", add_item))
                .action(Action::new("checkout", done)),
        )
        .state_machine(machine)
        .build()
        .unwrap();
    let actions = |tools: &[mcp_fusion::model::Tool]| {
        tools[0].input_schema["properties"]["action"]["enum"].clone()
    };
    let connected = connect(&server).await;
    let before = connected.client.list_all_tools().await.unwrap();
    assert_eq!(actions(&before), json!(["add_item"]));
    call(
        &connected,
        "cart",
        json!({"action": "add_item", "item": "tea"}),
    )
    .await;
    connected.recorder.wait_for(TOOLS_CHANGED, 1).await;
    let after = connected.client.list_all_tools().await.unwrap();
    assert_eq!(actions(&after), json!(["checkout"]));
    let guards: Vec<Value> = after[0].meta.as_ref().unwrap().0["mcp-fusion/actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["guards"].clone())
        .collect();
    assert_eq!(
        guards,
        [
            json!({"stateGate": {"machine": "cart", "allowedIn": ["filled"], "transitions": {"filled": "paid"}}})
        ]
    );
    connected.close().await;
}

#[tokio::test]
async fn the_in_process_caller_is_one_session() {
    let server = server();
    let refused = server.call("pay", json!({})).await.unwrap();
    assert_eq!(meta_of(&refused)["code"], "FORBIDDEN");
    server
        .call("add_item", json!({"item": "tea"}))
        .await
        .unwrap();
    server.call("checkout", json!({})).await.unwrap();
    let paid = server.call("pay", json!({})).await.unwrap();
    assert_eq!(texts(&paid), ["done"]);
}

#[test]
fn machines_that_cannot_work_are_refused_when_built() {
    let build = |machine: StateMachine| {
        FusionServer::builder("shop", "1.0.0")
            .tool(Action::new("checkout", done))
            .state_machine(machine)
            .build()
            .err()
            .map(|e| e.to_string())
    };
    assert_eq!(
        build(StateMachine::new("cart").transition("checkout", "a", "b")),
        Some("state machine \"cart\": it has no initial state (StateMachine::initial)".into())
    );
    assert_eq!(
        build(StateMachine::new("cart").initial("a").allow("checkout", ["nowhere"])),
        Some("state machine \"cart\": checkout is allowed in \"nowhere\", a state no transition reaches or leaves".into())
    );
    assert_eq!(
        build(
            StateMachine::new("cart")
                .initial("a")
                .transition("refund", "a", "b")
        ),
        Some("state machine \"cart\": it names refund, which the server does not have".into())
    );
    assert_eq!(
        build(
            StateMachine::new("cart")
                .initial("a")
                .transition("checkout", "a", "b")
                .transition("checkout", "a", "c")
        ),
        Some("state machine \"cart\": checkout has two transitions from \"a\"".into())
    );
    assert!(matches!(
        FusionServer::builder("shop", "1.0.0")
            .tool(Action::new("checkout", done))
            .state_machine(
                StateMachine::new("x")
                    .initial("a")
                    .transition("nope", "a", "a")
            )
            .build(),
        Err(BuildError::BadStateMachine { .. })
    ));
}

#[tokio::test]
async fn two_calls_at_once_in_one_session_never_move_it_back() {
    let server = server();
    let session = connect(&server).await;
    call(&session, "add_item", json!({"item": "tea"})).await;
    // A slow add_item (filled -> filled) and, while it runs, a checkout
    // (filled -> checked_out): the add_item, ending last, must not put the
    // cart back to "filled" (which would allow a second checkout).
    let slow = call(&session, "add_item", json!({"item": "slow"}));
    let checkout = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        call(&session, "checkout", json!({})).await
    };
    let (added, checked_out) = tokio::join!(slow, checkout);
    assert_eq!(texts(&added), ["added slow"]);
    assert_eq!(texts(&checked_out), ["done"]);
    let again = call(&session, "checkout", json!({})).await;
    assert_eq!(again.is_error, Some(true), "{:?}", texts(&again));
    assert_eq!(texts(&call(&session, "pay", json!({})).await), ["done"]);
}

#[tokio::test]
async fn a_contract_read_from_the_list_holds_the_actions_the_gate_hides_now() {
    // In state "empty" the model reads add_item, view and help; the result's
    // _meta["mcp-fusion/gated"] lists checkout and pay, hidden whole, so a
    // lockfile records all five (docs/contracts.md).
    let connected = connect(&server()).await;
    let page = connected.client.list_tools(None).await.unwrap();
    let listed: Vec<&str> = page.tools.iter().map(|t| &*t.name).collect();
    assert_eq!(listed, ["add_item", "view", "help"]);
    let gated: Vec<&str> = page.meta.as_ref().unwrap().0["mcp-fusion/gated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(gated, ["checkout", "pay"]);
    connected.close().await;

    let client = server()
        .connect_in_memory(Default::default())
        .await
        .unwrap();
    let tools = client.contract_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["add_item", "view", "help", "checkout", "pay"]);
    let contract = mcp_fusion::contract::ServerContract::from_tools(&tools).unwrap();
    assert_eq!(contract.action_count(), 5);
    assert_eq!(client.list_tools().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_group_in_part_gated_is_listed_whole_apart_and_nothing_when_the_gate_hides_nothing() {
    let machine = StateMachine::new("cart")
        .initial("empty")
        .transition("cart.add_item", "empty", "filled")
        .transition("cart.checkout", "filled", "paid");
    let build = |machine: Option<StateMachine>| {
        let group = Group::new("cart")
            .action(Action::new("add_item", add_item))
            .action(Action::new("checkout", done));
        let builder = FusionServer::builder("shop", "1.0.0").group(group);
        match machine {
            Some(machine) => builder.state_machine(machine).build().unwrap(),
            None => builder.build().unwrap(),
        }
    };
    let connected = connect(&build(Some(machine))).await;
    let page = connected.client.list_tools(None).await.unwrap();
    let whole = &page.meta.as_ref().unwrap().0["mcp-fusion/gated"][0];
    assert_eq!(
        whole["inputSchema"]["properties"]["action"]["enum"],
        json!(["add_item", "checkout"])
    );
    assert_eq!(
        page.tools[0].input_schema["properties"]["action"]["enum"],
        json!(["add_item"])
    );
    connected.close().await;
    let ungated = connect(&build(None)).await;
    assert_eq!(ungated.client.list_tools(None).await.unwrap().meta, None);
    ungated.close().await;
}

/// Calls of `note` running now, and the most seen at once.
static NOTES: (AtomicUsize, AtomicUsize) = (AtomicUsize::new(0), AtomicUsize::new(0));

async fn note(args: Item) -> Result<String, ToolError> {
    let running = NOTES.0.fetch_add(1, Ordering::SeqCst) + 1;
    NOTES.1.fetch_max(running, Ordering::SeqCst);
    let done = add_item(args).await;
    NOTES.0.fetch_sub(1, Ordering::SeqCst);
    done
}

#[tokio::test]
async fn an_action_that_only_loops_back_runs_beside_others_and_never_moves_the_session() {
    // note: filled -> filled only. Two slow notes run side by side (as an
    // allowed action would), and one ending after a checkout does not put
    // the cart back to "filled".
    let machine = StateMachine::new("cart")
        .initial("empty")
        .transition("add_item", "empty", "filled")
        .transition("note", "filled", "filled")
        .transition("checkout", "filled", "checked_out")
        .allow("pay", ["checked_out"]);
    let server = FusionServer::builder("shop", "1.0.0")
        .tool(Action::new("add_item", add_item))
        .tool(Action::new("note", note))
        .tool(Action::new("checkout", done))
        .tool(Action::new("pay", done))
        .state_machine(machine)
        .build()
        .unwrap();
    let session = connect(&server).await;
    call(&session, "add_item", json!({"item": "tea"})).await;
    let (a, b) = tokio::join!(
        call(&session, "note", json!({"item": "slow"})),
        call(&session, "note", json!({"item": "slow"}))
    );
    assert_eq!([texts(&a), texts(&b)], [["added slow"], ["added slow"]]);
    assert_eq!(
        NOTES.1.load(Ordering::SeqCst),
        2,
        "the two notes ran at once"
    );
    let slow = call(&session, "note", json!({"item": "slow"}));
    let checkout = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        call(&session, "checkout", json!({})).await
    };
    let (noted, checked_out) = tokio::join!(slow, checkout);
    assert_eq!(texts(&noted), ["added slow"]);
    assert_eq!(texts(&checked_out), ["done"]);
    assert_eq!(texts(&call(&session, "pay", json!({})).await), ["done"]);
}
