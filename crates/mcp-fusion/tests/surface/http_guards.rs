//! Guards and auth on prompts and resource templates over Streamable HTTP
//! (`serve_http_on` on 127.0.0.1 and rmcp's HTTP client): a template's rate
//! limit, concurrency limit and time limit answer JSON-RPC errors whose
//! message is the envelope text and whose `data` is its JSON twin, as a
//! prompt and a template that need a scope answer `FORBIDDEN` to a token
//! without it and `AUTH_REQUIRED` to an anonymous caller (who is not shown
//! them, and may not subscribe to them); the principal of the bearer token
//! reaches their handlers.

// Resource subscriptions are MCP 2025-11-25; rmcp marks them deprecated.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::{
    CallContext, FusionServer, Prompt, RateLimit, Resource, ResourceTemplate, State, ToolError,
};
use rmcp::model::ErrorData;
use serde_json::{Value, json};
use tokio::sync::{Notify, Semaphore};

use crate::connection::{
    ClientSetup, Connected, HttpServed, answer, error_json, from_json, rpc_error,
};

/// A template's variable.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

/// -32603, the code of a guard's refusal of a prompt or resource (neither
/// `NOT_FOUND` nor a problem with the arguments).
const INTERNAL: i32 = -32603;

/// Reads `uri` (its JSON-RPC error, or its result as JSON).
async fn read(connected: &Connected, uri: &str) -> Result<Value, ErrorData> {
    answer(
        connected
            .client
            .read_resource(from_json(json!({ "uri": uri })))
            .await,
    )
}

/// The text of a successful read of `uri`.
async fn read_text(connected: &Connected, uri: &str) -> String {
    let result = read(connected, uri)
        .await
        .unwrap_or_else(|e| panic!("{uri} was not read: {e:?}"));
    result["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
        .to_owned()
}

/// Asserts that `error` is -32603 with `text` as its message and `data` as
/// its data.
#[track_caller]
fn assert_envelope_error(error: &ErrorData, text: &str, data: Value) {
    assert_eq!(
        error_json(error),
        json!({"code": INTERNAL, "message": text, "data": data})
    );
}

// ---------------------------------------------------------------------------
// Guards of a resource template

/// Lets the test hold a read of `held://{id}` inside its handler.
#[derive(Clone)]
struct Gate {
    /// Told when a read has started.
    started: Arc<Notify>,
    /// A read returns once it takes a permit.
    release: Arc<Semaphore>,
}

async fn limited(vars: Id) -> Result<String, ToolError> {
    Ok(format!("limited {}", vars.id))
}

async fn held(State(gate): State<Gate>, vars: Id) -> Result<String, ToolError> {
    gate.started.notify_one();
    let _permit = gate.release.acquire().await;
    Ok(format!("held {}", vars.id))
}

async fn slow(vars: Id) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(30)).await;
    Ok(format!("slow {}", vars.id))
}

fn guarded_server(gate: Gate) -> FusionServer {
    FusionServer::builder("guarded", "1.0.0")
        .state(gate)
        .resource_template(
            ResourceTemplate::new("limited://{id}", "limited", limited)
                .rate_limit(RateLimit::per_minute(1)),
        )
        .resource_template(ResourceTemplate::new("held://{id}", "held", held).concurrency(1, 0))
        .resource_template(
            ResourceTemplate::new("slow://{id}", "slow", slow).timeout(Duration::from_millis(200)),
        )
        .build()
        .unwrap()
}

fn gate() -> Gate {
    Gate {
        started: Arc::new(Notify::new()),
        release: Arc::new(Semaphore::new(0)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_over_its_rate_limit_is_rate_limited_whatever_uri_is_read() {
    let served = HttpServed::start(&guarded_server(gate())).await;
    let connected = served.connect_with(ClientSetup::default()).await;
    assert_eq!(read_text(&connected, "limited://a").await, "limited a");

    // The budget is the template's: another URI of it does not get a new one.
    for uri in ["limited://a", "limited://b"] {
        let error = read(&connected, uri).await.unwrap_err();
        let data = error.data.clone().expect("the envelope's JSON twin");
        let wait = data["retry_after_seconds"].as_u64().expect("retry_after");
        // One read a minute, and the first one just passed.
        assert!((55..=60).contains(&wait), "retry after {wait} s");
        let message = format!("Too many calls to {uri}: the limit is 1 per minute.");
        let step =
            format!("Read {uri} again: this refusal is about timing, not about the request.");
        let recovery = format!("Wait {wait} seconds, then read {uri} again.");
        assert_envelope_error(
            &error,
            &format!(
                "{step}\n<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"limit\">1 per minute</detail>\n  </details>\n  <retry_after>{wait} seconds</retry_after>\n</tool_error>"
            ),
            json!({
                "code": "RATE_LIMITED",
                "severity": "error",
                "message": message,
                "next_step": step,
                "recovery": recovery,
                "details": {"limit": "1 per minute"},
                "retry_after_seconds": wait,
            }),
        );
    }
    connected.client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_read_while_the_first_holds_the_only_slot_is_server_busy() {
    let gate = gate();
    let served = HttpServed::start(&guarded_server(gate.clone())).await;
    let first = served.connect_with(ClientSetup::default()).await;
    let second = served.connect_with(ClientSetup::default()).await;
    let started = gate.started.notified();
    let running = tokio::spawn(async move {
        let text = read_text(&first, "held://1").await;
        first.client.cancel().await.unwrap();
        text
    });
    tokio::time::timeout(crate::connection::WAIT, started)
        .await
        .expect("the first read starts");

    // The slot is the template's: a read of another URI of it waits for it too.
    let error = read(&second, "held://2").await.unwrap_err();
    let data = error.data.clone().expect("the envelope's JSON twin");
    let wait = data["retry_after_seconds"].as_u64().expect("retry_after");
    // Nothing has finished yet: the wait is a guess, as long again as the
    // running read has taken (at least a second).
    assert!((1..=5).contains(&wait), "retry after {wait} s");
    let unit = if wait == 1 { "second" } else { "seconds" };
    let message = "held://2 is at capacity: its only slot is taken and it keeps no queue.";
    let recovery = format!(
        "Wait about {wait} {unit}, then read held://2 again; no call of it has finished yet, so that wait is a guess: if it is still at capacity then, wait twice as long. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel."
    );
    let step = "Read held://2 again: this refusal is about timing, not about the request.";
    assert_envelope_error(
        &error,
        &format!(
            "{step}\n<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"max_active\">1</detail>\n    <detail key=\"max_queue\">0</detail>\n  </details>\n  <retry_after>{wait} {unit}</retry_after>\n</tool_error>"
        ),
        json!({
            "code": "SERVER_BUSY",
            "severity": "error",
            "message": message,
            "next_step": step,
            "recovery": recovery,
            "details": {"max_active": "1", "max_queue": "0"},
            "retry_after_seconds": wait,
        }),
    );

    gate.release.add_permits(1);
    assert_eq!(running.await.unwrap(), "held 1");
    // The slot is free again.
    gate.release.add_permits(1);
    assert_eq!(read_text(&second, "held://3").await, "held 3");
    second.client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_past_its_time_limit_times_out() {
    let served = HttpServed::start(&guarded_server(gate())).await;
    let connected = served.connect_with(ClientSetup::default()).await;
    let started = tokio::time::Instant::now();
    let error = read(&connected, "slow://7").await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "stopped by its limit"
    );
    let message = "slow://7 took longer than its limit of 200 ms and was stopped.";
    let recovery = "Ask for less (a narrower request: fewer items, a shorter period); the same request may take as long again. If it cannot be narrowed, retry it once later or tell the user it did not finish in time.";
    assert_envelope_error(
        &error,
        &format!(
            "<tool_error code=\"TIMEOUT\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"limit_ms\">200</detail>\n  </details>\n</tool_error>"
        ),
        json!({
            "code": "TIMEOUT",
            "severity": "error",
            "message": message,
            "recovery": recovery,
            "details": {"limit_ms": "200"},
        }),
    );
    connected.client.cancel().await.unwrap();
    served.stop().await;
}

// ---------------------------------------------------------------------------
// Scopes, anonymous callers and the principal

async fn brief(ctx: CallContext) -> Result<String, ToolError> {
    let who = ctx.principal().map_or("nobody", |p| p.subject.as_str());
    Ok(format!("Write the brief for {who}."))
}

async fn note(ctx: CallContext, vars: Id) -> Result<String, ToolError> {
    let who = ctx.principal().map_or("nobody", |p| p.subject.as_str());
    Ok(format!("note {} of {who}", vars.id))
}

fn scoped_server() -> FusionServer {
    FusionServer::builder("notes", "1.0.0")
        .auth(
            StaticTokens::new()
                .token("alice-token", "alice", ["notes:read"])
                .token("bob-token", "bob", Vec::<String>::new()),
        )
        .allow_anonymous(true)
        .prompt(Prompt::new("brief", brief).requires_scopes(["notes:read"]))
        .resource(Resource::text("notes://readme", "readme", "Open to all."))
        .resource_template(
            ResourceTemplate::new("notes://{id}", "note", note)
                .requires_scopes(["notes:read"])
                .complete_values("id", ["42", "43"]),
        )
        .build()
        .unwrap()
}

/// The names of what `connected` is shown: prompts, resources, templates.
async fn shown(connected: &Connected) -> (Vec<String>, Vec<String>, Vec<String>) {
    let client = &connected.client;
    let prompts = client.list_prompts(None).await.unwrap().prompts;
    let resources = client.list_resources(None).await.unwrap().resources;
    let templates = client.list_resource_templates(None).await.unwrap();
    (
        prompts.into_iter().map(|p| p.name).collect(),
        resources.into_iter().map(|r| r.uri.clone()).collect(),
        templates
            .resource_templates
            .into_iter()
            .map(|t| t.uri_template.clone())
            .collect(),
    )
}

/// Completes `argument` of the template `uri_template` from `typed` (its
/// JSON-RPC error when refused).
async fn complete(
    connected: &Connected,
    uri_template: &str,
    argument: &str,
    typed: &str,
) -> Result<Value, ErrorData> {
    let params = json!({
        "ref": {"type": "ref/resource", "uri": uri_template},
        "argument": {"name": argument, "value": typed},
    });
    answer(connected.client.complete(from_json(params)).await)
        .map(|done| serde_json::to_value(done).unwrap())
}

/// Subscribes to `uri` (its JSON-RPC error when refused).
async fn subscribe(connected: &Connected, uri: &str) -> Result<(), ErrorData> {
    answer(
        connected
            .client
            .subscribe(from_json(json!({ "uri": uri })))
            .await,
    )
    .map(|_| ())
}

/// The first message text of prompt `name`'s answer.
async fn prompt_text(connected: &Connected, name: &str) -> Result<String, ErrorData> {
    let result = answer(
        connected
            .client
            .get_prompt(from_json(json!({ "name": name })))
            .await,
    )?;
    Ok(result["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
        .to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_principal_reaches_a_prompt_and_a_template_over_http() {
    let served = HttpServed::start(&scoped_server()).await;
    let alice = served.connect_as("alice-token").await;
    assert_eq!(
        shown(&alice).await,
        (
            vec![String::from("brief")],
            vec![String::from("notes://readme")],
            vec![String::from("notes://{id}")]
        )
    );
    assert_eq!(
        prompt_text(&alice, "brief").await.unwrap(),
        "Write the brief for alice."
    );
    assert_eq!(read_text(&alice, "notes://42").await, "note 42 of alice");
    subscribe(&alice, "notes://42").await.unwrap();
    alice.client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_without_the_scope_is_forbidden_naming_it() {
    let served = HttpServed::start(&scoped_server()).await;
    let bob = served.connect_as("bob-token").await;
    // Shown: using them says which scope is missing.
    assert_eq!(
        shown(&bob).await,
        (
            vec![String::from("brief")],
            vec![String::from("notes://readme")],
            vec![String::from("notes://{id}")]
        )
    );
    for (name, error) in [
        ("brief", prompt_text(&bob, "brief").await.unwrap_err()),
        ("notes://42", read(&bob, "notes://42").await.unwrap_err()),
        // Updates of what bob may not read do not reach him either.
        (
            "notes://42",
            subscribe(&bob, "notes://42").await.unwrap_err(),
        ),
    ] {
        let message =
            format!("{name} needs the scope \"notes:read\", which these credentials do not have.");
        let recovery = "Do not retry: the same credentials will be refused again. Tell the user the token lacks the scope \"notes:read\" and ask for one that has it.";
        assert_envelope_error(
            &error,
            &format!(
                "<tool_error code=\"FORBIDDEN\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"missing_scopes\">notes:read</detail>\n  </details>\n</tool_error>"
            ),
            json!({
                "code": "FORBIDDEN",
                "severity": "error",
                "message": message,
                "recovery": recovery,
                "details": {"missing_scopes": "notes:read"},
            }),
        );
    }
    assert_eq!(read_text(&bob, "notes://readme").await, "Open to all.");
    subscribe(&bob, "notes://readme").await.unwrap();
    bob.client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymous_caller_sees_only_what_is_open_and_is_told_to_authenticate() {
    let served = HttpServed::start(&scoped_server()).await;
    let anonymous = served.connect_with(ClientSetup::default()).await;
    assert_eq!(
        shown(&anonymous).await,
        (Vec::new(), vec![String::from("notes://readme")], Vec::new())
    );
    let recovery = "Ask the user to configure a bearer token for this server (HTTP Authorization header), then call again.";
    for (name, error) in [
        ("brief", prompt_text(&anonymous, "brief").await.unwrap_err()),
        (
            "notes://42",
            read(&anonymous, "notes://42").await.unwrap_err(),
        ),
        (
            "notes://42",
            subscribe(&anonymous, "notes://42").await.unwrap_err(),
        ),
        // A completion, of an argument with a completer and of one without:
        // neither says anything of a template the caller may not use.
        (
            "notes://{id}",
            complete(&anonymous, "notes://{id}", "id", "4")
                .await
                .unwrap_err(),
        ),
        (
            "notes://{id}",
            complete(&anonymous, "notes://{id}", "other", "")
                .await
                .unwrap_err(),
        ),
    ] {
        let message = format!("{name} needs credentials, and the call carried none.");
        assert_envelope_error(
            &error,
            &format!(
                "<tool_error code=\"AUTH_REQUIRED\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n</tool_error>"
            ),
            json!({
                "code": "AUTH_REQUIRED",
                "severity": "error",
                "message": message,
                "recovery": recovery,
            }),
        );
    }
    subscribe(&anonymous, "notes://readme").await.unwrap();
    // An unknown URI names only what the caller is shown.
    let unknown = rpc_error(
        anonymous
            .client
            .read_resource(from_json(json!({"uri": "notes:/readme"})))
            .await,
    );
    assert_eq!(
        error_json(&unknown),
        json!({
            "code": -32002,
            "message": "There is no resource named \"notes:/readme\". Did you mean \"notes://readme\"? Valid: notes://readme.",
            "data": {"uri": "notes:/readme", "closest": "notes://readme", "valid": ["notes://readme"]},
        })
    );
    anonymous.client.cancel().await.unwrap();
    served.stop().await;
}
