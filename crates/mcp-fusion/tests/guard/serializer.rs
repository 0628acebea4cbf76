//! The mutation serializer (wire contract §10) through the whole call path:
//! one call at a time per key, other keys side by side, the exact
//! `SERVER_BUSY` beyond the queue and past the longest wait, release after
//! a panic, a destructive action serialized per action, and what
//! `tools/list` shows of it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_fusion::client::ClientOptions;
use mcp_fusion::guard::Serialized;
use mcp_fusion::{Action, BuildError, CallContext, FusionServer, Group, ToolError};
use serde_json::json;
use tokio::sync::Semaphore;

use super::guards::{code, meta, text};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pay {
    id: String,
}

/// Counts the calls running now, the most ever, and all that entered.
#[derive(Default)]
struct Counts {
    running: AtomicUsize,
    most: AtomicUsize,
    entered: AtomicUsize,
}

/// `billing.pay`, serialized as `setting`: each call waits on `gate`, and
/// an id of `"panic"` panics.
fn server(setting: Serialized, gate: Arc<Semaphore>, counts: Arc<Counts>) -> FusionServer {
    let pay = move |_ctx: CallContext, args: Pay| {
        let (gate, counts) = (Arc::clone(&gate), Arc::clone(&counts));
        async move {
            counts.entered.fetch_add(1, Ordering::SeqCst);
            let now = counts.running.fetch_add(1, Ordering::SeqCst) + 1;
            counts.most.fetch_max(now, Ordering::SeqCst);
            if args.id == "panic" {
                counts.running.fetch_sub(1, Ordering::SeqCst);
                panic!("the payment provider failed");
            }
            let permit = gate.acquire().await.map_err(ToolError::internal);
            counts.running.fetch_sub(1, Ordering::SeqCst);
            permit?.forget();
            Ok::<_, ToolError>(format!("paid {}", args.id))
        }
    };
    FusionServer::builder("t", "1")
        .group(Group::new("billing").action(Action::new("pay", pay).serialized(setting)))
        .build()
        .unwrap()
}

async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(30)).await;
}

fn spawn_pay(server: &FusionServer, id: &str) -> tokio::task::JoinHandle<String> {
    let server = server.clone();
    let args = json!({"action": "pay", "id": id});
    tokio::spawn(async move { text(&server.call("billing", args).await.unwrap()) })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_call_per_invoice_at_a_time_and_other_invoices_side_by_side() {
    let gate = Arc::new(Semaphore::new(0));
    let counts = Arc::new(Counts::default());
    let server = server(Serialized::by("id"), Arc::clone(&gate), Arc::clone(&counts));
    let first = spawn_pay(&server, "INV-1");
    settle().await;
    let second = spawn_pay(&server, "INV-1");
    settle().await;
    assert_eq!(counts.entered.load(Ordering::SeqCst), 1, "the second waits");
    let other = spawn_pay(&server, "INV-2");
    settle().await;
    assert_eq!(
        counts.entered.load(Ordering::SeqCst),
        2,
        "INV-2 runs beside"
    );
    gate.add_permits(3);
    assert_eq!(first.await.unwrap(), "paid INV-1");
    assert_eq!(second.await.unwrap(), "paid INV-1");
    assert_eq!(other.await.unwrap(), "paid INV-2");
    assert_eq!(counts.entered.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_beyond_the_queue_is_refused_with_the_exact_envelope() {
    let gate = Arc::new(Semaphore::new(0));
    let counts = Arc::new(Counts::default());
    let setting = Serialized::by("id").max_queue(1);
    let server = server(setting, Arc::clone(&gate), Arc::clone(&counts));
    let held = [spawn_pay(&server, "INV-1"), spawn_pay(&server, "INV-1")];
    settle().await;
    let third = server
        .call("billing", json!({"action": "pay", "id": "INV-1"}))
        .await
        .unwrap();
    assert_eq!(third.is_error, Some(true));
    assert_eq!(
        text(&third),
        "Call billing.pay again with the same arguments: this refusal is about timing, not about them.
<tool_error code=\"SERVER_BUSY\" severity=\"error\">
  <message>billing.pay runs one call at a time per id: one call for id \"INV-1\" is running and 1 is waiting, as many as may wait.</message>
  <recovery>Wait about 1 second, then call billing.pay again; do not send the same change twice in parallel. Calls with another id are not held up.</recovery>
  <details>
    <detail key=\"serialized_by\">id</detail>
    <detail key=\"key\">\"INV-1\"</detail>
  </details>
  <retry_after>1 second</retry_after>
</tool_error>"
    );
    assert_eq!(meta(&third)["retry_after_seconds"], 1);
    gate.add_permits(2);
    for call in held {
        assert_eq!(call.await.unwrap(), "paid INV-1");
    }
    assert_eq!(
        counts.entered.load(Ordering::SeqCst),
        2,
        "the third never ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiter_past_the_longest_wait_is_refused_and_leaves_the_queue() {
    let gate = Arc::new(Semaphore::new(0));
    let counts = Arc::new(Counts::default());
    let setting = Serialized::per_action().max_wait(Duration::from_millis(200));
    let server = server(setting, Arc::clone(&gate), Arc::clone(&counts));
    let held = spawn_pay(&server, "INV-1");
    settle().await;
    let late = server
        .call("billing", json!({"action": "pay", "id": "INV-2"}))
        .await
        .unwrap();
    assert_eq!(code(&late), "SERVER_BUSY");
    assert_eq!(
        meta(&late)["message"],
        "billing.pay runs one call at a time: this call waited for 200 ms, as long as a call may wait."
    );
    gate.add_permits(2);
    assert_eq!(held.await.unwrap(), "paid INV-1");
    assert_eq!(spawn_pay(&server, "INV-3").await.unwrap(), "paid INV-3");
    assert_eq!(counts.most.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_that_panics_releases_the_key() {
    let gate = Arc::new(Semaphore::new(5));
    let counts = Arc::new(Counts::default());
    let server = server(Serialized::per_action(), gate, Arc::clone(&counts));
    let panicked = server
        .call("billing", json!({"action": "pay", "id": "panic"}))
        .await
        .unwrap();
    assert_eq!(code(&panicked), "INTERNAL_ERROR");
    let next = tokio::time::timeout(Duration::from_secs(5), spawn_pay(&server, "INV-1"));
    assert_eq!(
        next.await.expect("the key was released").unwrap(),
        "paid INV-1"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_shows_the_serializer_and_a_destructive_action_has_one() {
    async fn answer() -> Result<&'static str, ToolError> {
        Ok("ok")
    }
    let server = FusionServer::builder("t", "1")
        .group(
            Group::new("billing")
                .action(Action::new("pay", answer).serialize_by("id"))
                .action(Action::new("void", answer).destructive())
                .action(Action::new("purge", answer).destructive().not_serialized())
                .action(Action::new("read", answer).read_only()),
        )
        .build()
        .unwrap();
    let client = server
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    client.close().await;
    let actions = tools[0].meta.as_ref().unwrap().0["mcp-fusion/actions"].clone();
    let guards: Vec<_> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].clone(), a["guards"].clone()))
        .collect();
    assert_eq!(
        guards,
        vec![
            (
                json!("pay"),
                json!({"serialize": {"key": "id", "maxQueue": 64, "maxWaitMs": 30000}})
            ),
            (
                json!("void"),
                json!({"serialize": {"key": null, "maxQueue": 64, "maxWaitMs": 30000}})
            ),
            (json!("purge"), json!({})),
            (json!("read"), json!({})),
        ]
    );
}

#[test]
fn a_zero_wait_is_refused_when_built() {
    async fn answer() -> Result<&'static str, ToolError> {
        Ok("ok")
    }
    let built = FusionServer::builder("t", "1")
        .tool(
            Action::new("pay", answer)
                .serialized(Serialized::per_action().max_wait(Duration::ZERO)),
        )
        .build();
    assert!(matches!(
        built,
        Err(BuildError::BadGuard { ref action, ref reason })
            if action == "pay" && reason == "a serializer's longest wait must be longer than zero"
    ));
}

/// A destructive tool another server lists (`Action::from_tool`, as a
/// gateway mounts it) is not serialized here: its server runs the calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_tool_another_server_lists_runs_its_calls_side_by_side() {
    use mcp_fusion::model::{JsonObject, Tool, ToolAnnotations};
    let (gate, counts) = (Arc::new(Semaphore::new(0)), Arc::new(Counts::default()));
    let (held, seen) = (Arc::clone(&gate), Arc::clone(&counts));
    let forward = move |_args: JsonObject| {
        let (gate, counts) = (Arc::clone(&held), Arc::clone(&seen));
        async move {
            counts.entered.fetch_add(1, Ordering::SeqCst);
            let _permit = gate.acquire().await.map_err(ToolError::internal)?;
            Ok::<_, ToolError>("deleted")
        }
    };
    let listed = Tool::new(
        "crm.delete",
        "Deletes a contact.",
        Arc::new(JsonObject::new()),
    )
    .annotate(ToolAnnotations::new().destructive(true));
    let server = FusionServer::builder("t", "1")
        .tool(Action::from_tool(listed, forward))
        .build()
        .unwrap();
    let calls: Vec<_> = (0..2)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(async move { server.call("crm.delete", json!({})).await })
        })
        .collect();
    let both_in = async {
        while counts.entered.load(Ordering::SeqCst) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), both_in)
        .await
        .expect("both calls run at once");
    gate.add_permits(2);
    for call in calls {
        assert_eq!(text(&call.await.unwrap().unwrap()), "deleted");
    }
}
