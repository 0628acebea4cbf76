//! Each thing once on a call's way: one lookup, one read of the tools, one
//! panic boundary (`guarded`), one place that makes `INTERNAL_ERROR`.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::capability::finds;
use crate::error::{ErrorCode, ToolError};
use crate::handler::CallContext;
use crate::pipeline::{Call, Next, from_fn};
use crate::server::fusion_server::registry_reads;
use crate::{Action, FusionServer, Group};

#[derive(Debug, Deserialize, JsonSchema)]
struct Invoice {
    #[allow(dead_code)]
    id: String,
}

fn billing() -> FusionServer {
    let get = Action::new(
        "get_invoice",
        |_ctx: CallContext, _args: Invoice| async move { Ok::<_, ToolError>("inv_1") },
    );
    let void = Action::new(
        "void_invoice",
        |_ctx: CallContext, _args: Invoice| async move { Ok::<_, ToolError>("voided") },
    );
    FusionServer::builder("billing", "1.0.0")
        .group(Group::new("billing").action(get).action(void))
        .build()
        .expect("the server builds")
}

/// Over the whole protocol path (the rmcp adapter, the client capabilities
/// the action requires, whether it runs as a task, routing), a
/// `tools/call` reads the tools once and looks its name up once; a second
/// call does the same again, never more.
#[cfg(feature = "client")]
#[tokio::test]
async fn a_call_reads_the_tools_once_and_looks_its_name_up_once() {
    let server = billing();
    let client = server
        .connect_in_memory(crate::ClientOptions::default())
        .await
        .expect("connects");
    let args = json!({"action": "void_invoice", "id": "inv_1"});
    // The client lists the tools before its first call: not counted.
    client
        .call("billing", args.clone())
        .await
        .expect("answered");
    for _ in 0..2 {
        let (reads, looked_up) = (registry_reads(), finds());
        let result = client
            .call("billing", args.clone())
            .await
            .expect("answered");
        assert_eq!(result.is_error, Some(false));
        assert_eq!(registry_reads() - reads, 1, "reads of the tools");
        assert_eq!(finds() - looked_up, 1, "name→action lookups");
    }
    client.close().await;
}

/// An unknown action and an unknown tool are answered from the same one
/// lookup, without looking the name up again.
#[tokio::test]
async fn a_refused_call_is_looked_up_once_too() {
    let server = billing();
    for (name, args) in [
        ("billing", json!({"action": "refund", "id": "inv_1"})),
        ("billing.refund", json!({"id": "inv_1"})),
        ("bill", Value::Null),
    ] {
        let (reads, looked_up) = (registry_reads(), finds());
        let _ = server.call(name, args).await;
        assert_eq!(registry_reads() - reads, 1, "reads of the tools for {name}");
        assert_eq!(finds() - looked_up, 1, "lookups for {name}");
    }
}

/// A handler's panic unwinds through the middleware around it (nothing
/// catches it before the call path's one boundary), and a handler's
/// unmarked error reaches the middleware unmasked; the boundary makes one
/// `INTERNAL_ERROR` of each.
#[tokio::test]
async fn panics_and_unmarked_errors_become_internal_error_at_one_boundary() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    let watch = from_fn(move |call: Call, next: Next| {
        let log = Arc::clone(&log);
        async move {
            match AssertUnwindSafe(next.run(call)).catch_unwind().await {
                Err(panic) => {
                    log.lock().unwrap().push("unwinding".into());
                    std::panic::resume_unwind(panic)
                }
                Ok(Err(err)) => {
                    let masked = if err.internal.is_some() {
                        "unmasked"
                    } else {
                        "masked"
                    };
                    log.lock().unwrap().push(format!("{} {masked}", err.code));
                    Err(err)
                }
                Ok(Ok(output)) => Ok(output),
            }
        }
    });
    let server = FusionServer::builder("crashing", "1.0.0")
        .layer(watch)
        .tool(Action::new(
            "explode",
            |_ctx: CallContext, _args: Invoice| async move {
                if true {
                    panic!("the handler exploded");
                }
                Ok::<_, ToolError>("never")
            },
        ))
        .tool(Action::new(
            "fail",
            |_ctx: CallContext, _args: Invoice| async move {
                Err::<String, _>(ToolError::internal("the disk is full"))
            },
        ))
        .build()
        .expect("the server builds");
    for tool in ["explode", "fail"] {
        let result = server
            .call(tool, json!({"id": "inv_1"}))
            .await
            .expect("a known tool");
        let meta = result.meta.as_ref().expect("an envelope's _meta");
        let envelope = &meta.0[crate::envelope::META_KEY];
        assert_eq!(envelope["code"], "INTERNAL_ERROR", "{tool}: {envelope}");
        let message = envelope["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("{tool} failed with an internal error (error id ")),
            "{message}"
        );
        assert_eq!(message.matches("error id").count(), 1, "{message}");
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "unwinding",
            &format!("{} unmasked", ErrorCode::InternalError)
        ]
    );
}
