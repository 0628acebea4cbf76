//! The server runtime end to end: middleware through `FusionServer::call`, in
//! process, with the exact text the model reads. Server, group and action
//! layers run in order; a layer's early `ToolError` reaches the wire intact,
//! while its other errors and panics are the masked `INTERNAL_ERROR` (wire
//! contract §6).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_fusion::{
    Action, BoxError, Call, CallContext, FusionServer, Group, Next, ToolError, from_fn,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::server::call;
use crate::support::{assert_error, error_id_of, internal_envelope, texts};

fn guarded_server(log: Arc<Mutex<Vec<String>>>, expose: bool) -> (FusionServer, Arc<AtomicUsize>) {
    let handled = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&handled);
    let step = |log: &Arc<Mutex<Vec<String>>>, name: &'static str| {
        let log = Arc::clone(log);
        from_fn(move |call: Call, next: Next| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push(format!("{name} before"));
                let out = next.run(call).await;
                log.lock().unwrap().push(format!("{name} after"));
                out
            }
        })
    };
    let guard = from_fn(|call: Call, next: Next| async move {
        match call.args.get("token").and_then(Value::as_str) {
            Some("s3cret") => next.run(call).await.map_err(BoxError::from),
            Some("io") => Err(BoxError::from(std::io::Error::other(
                "token store unreachable: redis://10.0.0.5",
            ))),
            _ => Err(ToolError::unauthorized("The token is not valid.")
                .suggest("Ask the user for a new token, then call jobs.run again with it.")
                .actions(["auth.login"])
                .detail("tool", call.ctx.name())
                .into()),
        }
    });
    let bomb = from_fn(|call: Call, next: Next| {
        if call.args.get("boom") == Some(&Value::Bool(true)) {
            panic!("middleware exploded with token s3cret");
        }
        next.run(call)
    });
    let jobs = Group::new("jobs").layer(step(&log, "group")).action(
        Action::new("run", move |_ctx: CallContext, _args: JobArgs| {
            seen.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, ToolError>("ran") }
        })
        .layer(step(&log, "action")),
    );
    let server = FusionServer::builder("middleware-test", "0.0.1")
        .layer(step(&log, "server 1"))
        .layer(step(&log, "server 2"))
        .layer(bomb)
        .layer(guard)
        .group(jobs)
        .expose_internal_errors(expose)
        .build()
        .unwrap();
    (server, handled)
}

#[derive(Debug, Deserialize, JsonSchema)]
struct JobArgs {
    #[allow(dead_code)]
    token: String,
    #[serde(default)]
    #[allow(dead_code)]
    boom: bool,
}

#[tokio::test]
async fn middleware_runs_in_the_order_it_was_added_server_then_group_then_action() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (server, handled) = guarded_server(Arc::clone(&log), false);
    let result = call(&server, "jobs", json!({"action": "run", "token": "s3cret"})).await;
    assert_eq!(texts(&result), ["ran"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(handled.load(Ordering::SeqCst), 1);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "server 1 before",
            "server 2 before",
            "group before",
            "action before",
            "action after",
            "group after",
            "server 2 after",
            "server 1 after",
        ]
    );
}

#[tokio::test]
async fn middleware_returning_a_tool_error_early_reaches_the_wire_intact() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (server, handled) = guarded_server(Arc::clone(&log), false);
    let result = call(&server, "jobs", json!({"action": "run", "token": "wrong"})).await;
    assert_error(
        &result,
        "<tool_error code=\"UNAUTHORIZED\" severity=\"error\">\n  <message>The token is not valid.</message>\n  <recovery>Ask the user for a new token, then call jobs.run again with it.</recovery>\n  <available_actions>\n    <action>auth.login</action>\n  </available_actions>\n  <details>\n    <detail key=\"tool\">jobs.run</detail>\n  </details>\n</tool_error>",
        &json!({
            "code": "UNAUTHORIZED",
            "severity": "error",
            "message": "The token is not valid.",
            "recovery": "Ask the user for a new token, then call jobs.run again with it.",
            "available_actions": ["auth.login"],
            "details": {"tool": "jobs.run"}
        }),
    );
    assert_eq!(handled.load(Ordering::SeqCst), 0);
    // The outer layers saw the early return come back through them.
    assert_eq!(
        *log.lock().unwrap(),
        [
            "server 1 before",
            "server 2 before",
            "server 2 after",
            "server 1 after"
        ]
    );
}

#[tokio::test]
async fn middleware_returning_another_error_is_an_internal_error() {
    let (server, handled) = guarded_server(Arc::new(Mutex::new(Vec::new())), false);
    let result = call(&server, "jobs", json!({"action": "run", "token": "io"})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("jobs.run", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("redis"));
    assert_eq!(handled.load(Ordering::SeqCst), 0);

    let (server, _) = guarded_server(Arc::new(Mutex::new(Vec::new())), true);
    let result = call(&server, "jobs", json!({"action": "run", "token": "io"})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope(
        "jobs.run",
        &id,
        Some("token store unreachable: redis://10.0.0.5"),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn middleware_that_panics_is_an_internal_error_and_the_server_keeps_serving() {
    let (server, handled) = guarded_server(Arc::new(Mutex::new(Vec::new())), false);
    let result = call(
        &server,
        "jobs",
        json!({"action": "run", "token": "s3cret", "boom": true}),
    )
    .await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("jobs.run", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("exploded"));
    assert_eq!(handled.load(Ordering::SeqCst), 0);

    let next = call(&server, "jobs", json!({"action": "run", "token": "s3cret"})).await;
    assert_eq!(texts(&next), ["ran"]);
    assert_eq!(next.is_error, Some(false));
    assert_eq!(handled.load(Ordering::SeqCst), 1);
}
