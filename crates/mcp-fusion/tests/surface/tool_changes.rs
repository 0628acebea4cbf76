//! Tools added to and removed from a running server (`FusionServer::add_tool`,
//! `add_group`, `remove_tool`, `update_tools`), seen by rmcp's client over an
//! in-process pipe (as over stdio) and over Streamable HTTP: the server
//! advertises `tools.listChanged`, every connected client is sent
//! `notifications/tools/list_changed` and then lists exactly the new set; a
//! removed tool's call gets the unknown-tool answer; a change that fails
//! leaves the server as it was and tells nobody; a tool added at run time
//! takes the server's layers, states and its own guards like one given at
//! build. And the pieces a proxy builds on: `Action::from_tool` (listed as
//! given, arguments as sent), `SharedConcurrency`, `ServerBuilder::fallback`,
//! `before_tools_list`, `on_built`, and telling one caller its tools changed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_fusion::contract::ServerContract;
use mcp_fusion::guard::SharedConcurrency;
use mcp_fusion::model::{CallToolRequestParams, CallToolResult, JsonObject, Tool};
use mcp_fusion::{
    Action, BuildError, Call, CallContext, FusionServer, Group, Next, Prompt, RateLimit,
    ServerBuilder, State, ToolError, ToolOutput, from_fn,
};
use serde_json::{Value, json};

use crate::connection::{Connected, connect, error_json, from_json, rpc_error, to_json};
use crate::support::{meta_of, texts};

const TOOLS_CHANGED: &str = "notifications/tools/list_changed";

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

async fn pong() -> Result<&'static str, ToolError> {
    Ok("ping")
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

async fn who(ctx: CallContext) -> Result<String, ToolError> {
    Ok(ctx.caller().to_owned())
}

fn builder() -> ServerBuilder {
    FusionServer::builder("tools", "1.0.0").tool(Action::new("ping", ping))
}

async fn tool_names(connected: &Connected) -> Vec<String> {
    connected
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

async fn call(connected: &Connected, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    connected
        .client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: a tool result, got {e}"))
}

/// The unknown-tool answer to a call of `name`, as `{code, message, data}`.
async fn unknown(connected: &Connected, name: &str) -> Value {
    let outcome = connected
        .client
        .call_tool(CallToolRequestParams::new(name.to_owned()))
        .await;
    error_json(&rpc_error(outcome))
}

fn code(result: &CallToolResult) -> Value {
    meta_of(result)["code"].clone()
}

#[tokio::test]
async fn the_tools_capability_says_the_list_may_change() {
    let server = builder().build().unwrap();
    let connected = connect(&server).await;
    assert_eq!(
        connected.server_capabilities()["tools"],
        json!({"listChanged": true})
    );
    connected.close().await;
}

#[tokio::test]
async fn an_added_tool_is_announced_listed_and_called() {
    let server = builder().build().unwrap();
    let first = connect(&server).await;
    let second = connect(&server).await;
    assert_eq!(tool_names(&first).await, ["ping"]);

    server
        .add_tool(Action::new("get", by_id).description("Gets one item."))
        .await
        .unwrap();
    for connected in [&first, &second] {
        assert_eq!(
            connected.recorder.wait_for(TOOLS_CHANGED, 1).await,
            [Value::Null]
        );
        assert_eq!(tool_names(connected).await, ["ping", "get"]);
    }
    // Listed as a tool given at build lists it.
    let at_build = builder()
        .tool(Action::new("get", by_id).description("Gets one item."))
        .build()
        .unwrap();
    assert_eq!(server.tools(), at_build.tools());
    assert_eq!(server.listings(), at_build.listings());
    assert_eq!(
        ServerContract::of_server(&server),
        ServerContract::of_server(&at_build)
    );
    let got = call(&second, "get", json!({"id": "7"})).await;
    assert_eq!(texts(&got), ["item 7"]);
    // Validated against its schema like any tool.
    let invalid = call(&second, "get", json!({})).await;
    assert_eq!(invalid.is_error, Some(true));
    assert_eq!(code(&invalid), json!("VALIDATION_ERROR"));
    first.close().await;
    second.close().await;
}

#[tokio::test]
async fn an_added_group_is_announced_and_routed() {
    let server = builder().build().unwrap();
    let connected = connect(&server).await;
    server
        .add_group(
            Group::new("items")
                .action(Action::new("get", by_id))
                .action(Action::new("count", pong)),
        )
        .await
        .unwrap();
    connected.recorder.wait_for(TOOLS_CHANGED, 1).await;
    assert_eq!(tool_names(&connected).await, ["ping", "items"]);
    let got = call(&connected, "items", json!({"action": "get", "id": "3"})).await;
    assert_eq!(texts(&got), ["item 3"]);
    connected.close().await;
}

#[tokio::test]
async fn a_removed_tool_is_announced_and_its_call_is_unknown() {
    let server = builder()
        .tool(Action::new("get", by_id))
        .tool(Action::new("pong", pong))
        .build()
        .unwrap();
    let connected = connect(&server).await;
    assert!(server.remove_tool("get").await);
    connected.recorder.wait_for(TOOLS_CHANGED, 1).await;
    assert_eq!(tool_names(&connected).await, ["ping", "pong"]);
    assert_eq!(
        unknown(&connected, "get").await,
        json!({
            "code": -32602,
            "message": "Unknown tool \"get\". Valid tools: ping, pong.",
            "data": {"tool": "get", "valid_tools": ["ping", "pong"]}
        })
    );
    // Nothing to remove: nothing changes, nobody is told.
    assert!(!server.remove_tool("get").await);
    connected.settle().await;
    assert_eq!(connected.recorder.seen_of(TOOLS_CHANGED).len(), 1);
    connected.close().await;

    // The same as a tool result, when the server answers unknown tools so.
    let server = builder()
        .tool(Action::new("get", by_id))
        .unknown_tool_as_result(true)
        .build()
        .unwrap();
    assert!(server.remove_tool("get").await);
    let result = server.call("get", json!({})).await.unwrap();
    assert_eq!(code(&result), json!("UNKNOWN_TOOL"));
    assert_eq!(meta_of(&result)["available_actions"], json!(["ping"]));
}

#[tokio::test]
async fn an_addition_that_fails_changes_nothing_and_tells_nobody() {
    let server = builder().build().unwrap();
    let connected = connect(&server).await;
    let before = server.tools();

    let duplicate = server.add_tool(Action::new("ping", pong)).await;
    assert_eq!(
        duplicate,
        Err(BuildError::DuplicateTool(String::from("ping")))
    );
    let missing = server.add_tool(Action::new("needs", needs_state)).await;
    assert!(
        matches!(&missing, Err(BuildError::MissingState { action, .. }) if action == "needs"),
        "{missing:?}"
    );
    // The error `build` gives for the same definition.
    assert_eq!(
        missing,
        builder()
            .tool(Action::new("needs", needs_state))
            .build()
            .map(|_| ())
    );
    let bad_guard = server
        .add_tool(Action::new("busy", pong).concurrency(0, 0))
        .await;
    assert!(
        matches!(bad_guard, Err(BuildError::BadGuard { .. })),
        "{bad_guard:?}"
    );
    let empty = server.add_group(Group::new("nothing")).await;
    assert_eq!(empty, Err(BuildError::EmptyGroup(String::from("nothing"))));
    let invalid = server.add_tool(Action::new("no spaces", pong)).await;
    assert!(
        matches!(invalid, Err(BuildError::InvalidName { .. })),
        "{invalid:?}"
    );
    // A batch whose second addition fails: its first is not kept either.
    let batch = server
        .update_tools(|tools| {
            tools.add_tool(Action::new("pong", pong))?;
            assert!(tools.contains("pong"));
            tools.add_tool(Action::new("ping", pong))?;
            Ok(())
        })
        .await;
    assert_eq!(batch, Err(BuildError::DuplicateTool(String::from("ping"))));

    assert_eq!(server.tools(), before);
    connected.settle().await;
    assert_eq!(
        connected.recorder.seen_of(TOOLS_CHANGED),
        Vec::<Value>::new()
    );
    assert_eq!(tool_names(&connected).await, ["ping"]);
    connected.close().await;
}

#[tokio::test]
async fn a_batch_of_changes_is_announced_once() {
    let server = builder().tool(Action::new("old", pong)).build().unwrap();
    let connected = connect(&server).await;
    let moved = server
        .update_tools(|tools| {
            assert!(tools.remove_tool("old"));
            tools.add_tool(Action::new("new", pong))?;
            tools.add_tool(Action::new("get", by_id))?;
            assert!(tools.move_to_end("ping"));
            Ok(tools.names().map(str::to_owned).collect::<Vec<_>>())
        })
        .await
        .unwrap();
    assert_eq!(moved, ["new", "get", "ping"]);
    connected.recorder.wait_for(TOOLS_CHANGED, 1).await;
    assert_eq!(tool_names(&connected).await, ["new", "get", "ping"]);
    connected.settle().await;
    assert_eq!(connected.recorder.seen_of(TOOLS_CHANGED).len(), 1);
    connected.close().await;
}

/// A server layer that records the name of every call it sees, a state, a
/// rate limit on the tool: the same for a tool given at build and one added
/// later.
#[tokio::test]
async fn a_tool_added_at_run_time_takes_the_layers_states_and_guards() {
    #[derive(Clone)]
    struct Prefix(&'static str);

    async fn greet(State(prefix): State<Prefix>, args: Id) -> Result<String, ToolError> {
        Ok(format!("{} {}", prefix.0, args.id))
    }

    let seen = Arc::new(Mutex::new(Vec::new()));
    let server_with = |tool: Option<Action>| {
        let seen = Arc::clone(&seen);
        let layer = from_fn(move |call: Call, next: Next| {
            seen.lock().unwrap().push(call.ctx.name().to_owned());
            next.run(call)
        });
        let mut builder = builder().state(Prefix("hello")).layer(layer);
        if let Some(tool) = tool {
            builder = builder.tool(tool);
        }
        builder.build().unwrap()
    };
    let greeter = || Action::new("greet", greet).rate_limit(RateLimit::per_minute(1));

    let added = server_with(None);
    added.add_tool(greeter()).await.unwrap();
    let at_build = server_with(Some(greeter()));
    let mut answers = Vec::new();
    for server in [&added, &at_build] {
        let first = server.call("greet", json!({"id": "ada"})).await.unwrap();
        assert_eq!(texts(&first), ["hello ada"]);
        let second = server.call("greet", json!({"id": "ada"})).await.unwrap();
        assert_eq!(code(&second), json!("RATE_LIMITED"));
        answers.push(texts(&second));
    }
    assert_eq!(answers[0], answers[1]);
    // The layer saw the first call of each (the second was refused before it).
    assert_eq!(*seen.lock().unwrap(), ["greet", "greet"]);
}

#[tokio::test]
async fn a_client_told_there_are_no_tools_is_not_told_they_changed() {
    let server = FusionServer::builder("prompts", "1.0.0")
        .prompt(Prompt::new("hello", pong))
        .build()
        .unwrap();
    let before = connect(&server).await;
    assert_eq!(before.server_capabilities().get("tools"), None);
    server.add_tool(Action::new("ping", ping)).await.unwrap();
    before.settle().await;
    assert_eq!(before.recorder.seen_of(TOOLS_CHANGED), Vec::<Value>::new());
    let after = connect(&server).await;
    assert_eq!(
        after.server_capabilities()["tools"],
        json!({"listChanged": true})
    );
    assert_eq!(tool_names(&after).await, ["ping"]);
    before.close().await;
    after.close().await;
}

#[tokio::test]
async fn callers_are_told_when_what_they_are_shown_changes() {
    let open = Arc::new(AtomicBool::new(false));
    let shown = Arc::clone(&open);
    let server = builder()
        .tool(Action::new("who", who))
        .tool(Action::new("secret", pong).visible_when(move |_| shown.load(Ordering::SeqCst)))
        .build()
        .unwrap();
    let first = connect(&server).await;
    let second = connect(&server).await;
    assert_eq!(tool_names(&first).await, ["ping", "who"]);
    let caller = texts(&call(&first, "who", json!({})).await)[0].clone();
    assert!(caller.starts_with("connection:"), "{caller}");

    open.store(true, Ordering::SeqCst);
    assert_eq!(server.notify_tool_list_changed_for(&caller).await, 1);
    first.recorder.wait_for(TOOLS_CHANGED, 1).await;
    assert_eq!(tool_names(&first).await, ["ping", "who", "secret"]);
    second.settle().await;
    assert_eq!(second.recorder.seen_of(TOOLS_CHANGED), Vec::<Value>::new());

    assert_eq!(server.notify_tool_list_changed().await, 2);
    second.recorder.wait_for(TOOLS_CHANGED, 1).await;
    assert_eq!(tool_names(&second).await, ["ping", "who", "secret"]);
    assert_eq!(server.notify_tool_list_changed_for("connection:0").await, 0);
    first.close().await;
    second.close().await;
}

/// What a proxy lists: another server's tool, exactly as that server lists
/// it; its calls get the arguments as sent, whatever its schema says.
#[tokio::test]
async fn a_tool_from_another_server_is_listed_as_given_and_forwarded_as_sent() {
    let mut listed: Tool = from_json(json!({
        "name": "crm.find",
        "title": "Find a contact",
        "description": "Finds a contact by email.",
        "inputSchema": {
            "type": "object",
            "properties": {"email": {"type": "string", "format": "email"}},
            "required": ["email"]
        },
        "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        "annotations": {"readOnlyHint": true, "openWorldHint": true},
        "_meta": {"vendor/x": 1}
    }));
    async fn forward(ctx: CallContext, args: JsonObject) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "{} {}",
            ctx.name(),
            Value::Object(args)
        )))
    }
    let server = builder().build().unwrap();
    let connected = connect(&server).await;
    server
        .add_tool(Action::from_tool(listed.clone(), forward))
        .await
        .unwrap();
    connected.recorder.wait_for(TOOLS_CHANGED, 1).await;
    let tools = connected.client.list_all_tools().await.unwrap();
    assert_eq!(to_json(&tools[1]), to_json(&listed));
    // Not validated here: the other server does.
    let sent = call(&connected, "crm.find", json!({"mail": 5})).await;
    assert_eq!(texts(&sent), [r#"crm.find {"mail":5}"#]);
    assert_eq!(sent.is_error, Some(false));
    // The contract reads it as any server's tools/list.
    assert_eq!(
        ServerContract::of_server(&server),
        ServerContract::from_tools(&server.tools()).unwrap()
    );

    // Another mcp-fusion server's tool keeps its actions in the contract.
    let upstream = FusionServer::builder("up", "1.0.0")
        .group(
            Group::new("items")
                .action(Action::new("get", by_id).read_only())
                .action(Action::new("count", pong).rate_limit(RateLimit::per_minute(5))),
        )
        .build()
        .unwrap();
    listed = upstream.tools().remove(0);
    listed.name = "up.items".into();
    server
        .add_tool(Action::from_tool(listed, forward))
        .await
        .unwrap();
    let contract = ServerContract::of_server(&server);
    assert_eq!(
        contract,
        ServerContract::from_tools(&server.tools()).unwrap()
    );
    assert_eq!(contract.tools["up.items"].actions.len(), 2);
    connected.close().await;
}

#[tokio::test]
async fn tools_sharing_a_concurrency_limit_share_its_slots() {
    let release = Arc::new(tokio::sync::Notify::new());
    let started = Arc::new(tokio::sync::Notify::new());
    let (wait, tell) = (Arc::clone(&release), Arc::clone(&started));
    let slow = move || {
        let (wait, tell) = (Arc::clone(&wait), Arc::clone(&tell));
        async move {
            tell.notify_one();
            wait.notified().await;
            Ok::<_, ToolError>("slow done")
        }
    };
    let shared = SharedConcurrency::new(1, 0).shared_with("the other bulk tools");
    let server = FusionServer::builder("bulk", "1.0.0")
        .tool(Action::new("export", slow).concurrency_shared(&shared))
        .build()
        .unwrap();
    server
        .add_tool(Action::new("import", pong).concurrency_shared(&shared))
        .await
        .unwrap();
    let running = tokio::spawn({
        let server = server.clone();
        async move { server.call("export", json!({})).await.unwrap() }
    });
    started.notified().await;
    let shed = server.call("import", json!({})).await.unwrap();
    assert_eq!(code(&shed), json!("SERVER_BUSY"));
    assert_eq!(
        meta_of(&shed)["message"],
        json!(
            "import is at capacity: it shares its slots with the other bulk tools; its only slot is taken and it keeps no queue."
        )
    );
    let stats = server.concurrency_stats("import").unwrap();
    assert_eq!((stats.active, stats.shed), (1, 1));
    assert_eq!(shared.stats(), stats);
    release.notify_one();
    assert_eq!(texts(&running.await.unwrap()), ["slow done"]);
    assert_eq!(
        texts(&server.call("import", json!({})).await.unwrap()),
        ["ping"]
    );
}

/// A fallback answers the names it claims that no tool has, named as
/// called; the others get the unknown-tool answer.
#[tokio::test]
async fn a_fallback_answers_the_names_it_claims() {
    async fn later(ctx: CallContext, args: JsonObject) -> Result<ToolOutput, ToolError> {
        Err(ToolError::not_found(format!(
            "{} is not here yet ({} arguments).",
            ctx.name(),
            args.len()
        )))
    }
    let server = FusionServer::builder("proxy", "1.0.0")
        .group(Group::new("items").action(Action::new("get", by_id)))
        .fallback(
            |name| name.starts_with("remote."),
            Action::raw("remote", later).rate_limit(RateLimit::per_minute(1)),
        )
        .build()
        .unwrap();
    let connected = connect(&server).await;
    assert_eq!(tool_names(&connected).await, ["items"]);
    let answered = call(&connected, "remote.find", json!({"q": 1})).await;
    assert_eq!(
        meta_of(&answered)["message"],
        json!("remote.find is not here yet (1 arguments).")
    );
    // Its guards name the tool called too, each name its own budget.
    let limited = call(&connected, "remote.find", json!({})).await;
    assert_eq!(
        meta_of(&limited)["message"],
        json!("Too many calls to remote.find: the limit is 1 per minute.")
    );
    let other = call(&connected, "remote.other", json!({})).await;
    assert_eq!(code(&other), json!("NOT_FOUND"));
    // Not claimed, or under one of the server's own tools: unknown.
    assert_eq!(unknown(&connected, "local").await["code"], json!(-32602));
    let own = unknown(&connected, "items.get").await;
    assert!(
        own["message"].as_str().unwrap().starts_with(
            "Unknown tool \"items.get\": the action items.get is called through the tool \"items\""
        ),
        "{own}"
    );
    // Once the tool exists, it answers.
    server
        .add_tool(Action::new("remote.find", pong))
        .await
        .unwrap();
    assert_eq!(
        texts(&call(&connected, "remote.find", json!({})).await),
        ["ping"]
    );
    connected.close().await;

    // A fallback alone is a server: it advertises tools.
    let alone = FusionServer::builder("proxy", "1.0.0")
        .fallback(|_| true, Action::raw("remote", later))
        .build()
        .unwrap();
    let connected = connect(&alone).await;
    assert_eq!(
        connected.server_capabilities()["tools"],
        json!({"listChanged": true})
    );
    assert_eq!(tool_names(&connected).await, Vec::<String>::new());
    connected.close().await;
}

#[tokio::test]
async fn hooks_run_when_built_and_before_each_tools_list() {
    let listed = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&listed);
    let built = Arc::new(Mutex::new(None));
    let keep = Arc::clone(&built);
    let server = builder()
        .before_tools_list(move |ctx: CallContext| {
            let counted = Arc::clone(&counted);
            async move {
                assert!(ctx.caller().starts_with("connection:"));
                counted.fetch_add(1, Ordering::SeqCst);
            }
        })
        .on_built(move |server| {
            *keep.lock().unwrap() = Some(server.downgrade());
        })
        .build()
        .unwrap();
    let weak = built.lock().unwrap().take().expect("on_built ran");
    // The hook's server is this one: a tool added through it is listed.
    weak.upgrade()
        .unwrap()
        .add_tool(Action::new("pong", pong))
        .await
        .unwrap();
    let connected = connect(&server).await;
    assert_eq!(tool_names(&connected).await, ["ping", "pong"]);
    assert_eq!(listed.load(Ordering::SeqCst), 1);
    connected.close().await;
    drop(server);
    assert!(weak.upgrade().is_none(), "the weak handle does not keep it");
}

#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_changes_reach_each_http_session() {
    let server = builder().build().unwrap();
    let served = crate::connection::HttpServed::start(&server).await;
    let first = served.connect_with(Default::default()).await;
    let second = served.connect_with(Default::default()).await;
    assert_eq!(
        first.server_capabilities()["tools"],
        json!({"listChanged": true})
    );

    server.add_tool(Action::new("get", by_id)).await.unwrap();
    for connected in [&first, &second] {
        connected.recorder.wait_for(TOOLS_CHANGED, 1).await;
        assert_eq!(tool_names(connected).await, ["ping", "get"]);
    }
    assert_eq!(
        texts(&call(&first, "get", json!({"id": "1"})).await),
        ["item 1"]
    );

    assert!(server.remove_tool("get").await);
    for connected in [&first, &second] {
        connected.recorder.wait_for(TOOLS_CHANGED, 2).await;
        assert_eq!(tool_names(connected).await, ["ping"]);
    }
    assert_eq!(
        unknown(&second, "get").await["message"],
        json!("Unknown tool \"get\". Valid tools: ping.")
    );

    first.client.cancel().await.unwrap();
    second.client.cancel().await.unwrap();
    served.stop().await;
}
