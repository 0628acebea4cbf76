//! The state gate and the mutation serializer across replicas, through a
//! `RedisGuardStore` on a real `redis-server` (wire contract §10): a move
//! made on one server is seen by the next call on another; a key held on
//! one waits on the other; a lock whose holder stopped renewing it frees
//! itself after its lease.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_fusion::guard::{RedisGuardStore, Serialized, StateMachine};
use mcp_fusion::{Action, CallContext, FusionServer, Group, ToolError};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::redis_server::Redis;

fn store(redis: &Redis) -> RedisGuardStore {
    RedisGuardStore::new(&redis.url())
        .unwrap()
        .prefix("fleet:")
        .lease(Duration::from_millis(600))
}

fn code(result: &rmcp::model::CallToolResult) -> String {
    let meta = result
        .meta
        .as_ref()
        .and_then(|m| m.0.get("mcp-fusion/error"));
    meta.map_or(String::from("OK"), |m| {
        m["code"].as_str().unwrap().to_owned()
    })
}

async fn done() -> Result<&'static str, ToolError> {
    Ok("done")
}

fn shop(store: RedisGuardStore) -> FusionServer {
    let cart = StateMachine::new("cart")
        .initial("empty")
        .transition("add_item", "empty", "filled")
        .transition("checkout", "filled", "paid");
    FusionServer::builder("shop", "1")
        .tool(Action::new("add_item", done))
        .tool(Action::new("checkout", done))
        .state_machine(cart)
        .guard_store(store)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_on_one_replica_is_seen_on_the_other() {
    let redis = Redis::start();
    let (a, b) = (shop(store(&redis)), shop(store(&redis)));
    // The in-process caller is one session on both.
    assert_eq!(
        code(&b.call("checkout", json!({})).await.unwrap()),
        "FORBIDDEN"
    );
    assert_eq!(code(&a.call("add_item", json!({})).await.unwrap()), "OK");
    assert_eq!(code(&b.call("checkout", json!({})).await.unwrap()), "OK");
    // And back: B's move is A's state.
    assert_eq!(
        code(&a.call("checkout", json!({})).await.unwrap()),
        "FORBIDDEN"
    );
    assert_eq!(
        code(&a.call("add_item", json!({})).await.unwrap()),
        "FORBIDDEN"
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pay {
    id: String,
}

/// `billing.pay` serialized by `id` across `store`, waiting on `gate`.
fn billing(
    store: RedisGuardStore,
    gate: Arc<Semaphore>,
    entered: Arc<AtomicUsize>,
) -> FusionServer {
    let pay = move |_ctx: CallContext, args: Pay| {
        let (gate, entered) = (Arc::clone(&gate), Arc::clone(&entered));
        async move {
            entered.fetch_add(1, Ordering::SeqCst);
            gate.acquire().await.map_err(ToolError::internal)?.forget();
            Ok::<_, ToolError>(format!("paid {}", args.id))
        }
    };
    let setting = Serialized::by("id").max_wait(Duration::from_secs(5));
    FusionServer::builder("t", "1")
        .group(Group::new("billing").action(Action::new("pay", pay).serialized(setting)))
        .guard_store(store)
        .build()
        .unwrap()
}

fn pay(server: &FusionServer, id: &str) -> tokio::task::JoinHandle<Value> {
    let server = server.clone();
    let args = json!({"action": "pay", "id": id});
    tokio::spawn(async move {
        let result = server.call("billing", args).await.unwrap();
        json!(result.content[0].as_text().unwrap().text)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_held_on_one_replica_waits_on_the_other() {
    let redis = Redis::start();
    let gate = Arc::new(Semaphore::new(0));
    let entered = Arc::new(AtomicUsize::new(0));
    let a = billing(store(&redis), Arc::clone(&gate), Arc::clone(&entered));
    let b = billing(store(&redis), Arc::clone(&gate), Arc::clone(&entered));
    let first = pay(&a, "INV-1");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let second = pay(&b, "INV-1");
    // Longer than a lease: the holder renews it.
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(entered.load(Ordering::SeqCst), 1, "B waits for A's holder");
    let other = pay(&b, "INV-2");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(entered.load(Ordering::SeqCst), 2, "another invoice runs");
    gate.add_permits(3);
    assert_eq!(first.await.unwrap(), "paid INV-1");
    assert_eq!(second.await.unwrap(), "paid INV-1");
    assert_eq!(other.await.unwrap(), "paid INV-2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_holders_lock_frees_itself_after_its_lease() {
    let redis = Redis::start();
    let gate = Arc::new(Semaphore::new(5));
    let entered = Arc::new(AtomicUsize::new(0));
    let server = billing(store(&redis), gate, Arc::clone(&entered));
    // A replica that took the lock and died: nobody renews it.
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("SET")
        .arg("fleet:lock:billing.pay:\"INV-1\"")
        .arg("dead-replica")
        .arg("PX")
        .arg(600)
        .query_async(&mut conn)
        .await
        .unwrap();
    let started = Instant::now();
    assert_eq!(pay(&server, "INV-1").await.unwrap(), "paid INV-1");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(450), "waited {waited:?}");
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
    // Released: the key is gone.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let left: Option<String> = redis::cmd("GET")
        .arg("fleet:lock:billing.pay:\"INV-1\"")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(left, None);
}

/// A server whose Redis does not answer: a port nothing listens on, and an
/// address that never answers (a blackhole in TEST-NET-1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_dead_calls_go_on_with_this_process_view_promptly() {
    for url in ["redis://127.0.0.1:1", "redis://192.0.2.1:6379"] {
        let dead = RedisGuardStore::new(url).unwrap();
        let server = shop(dead.clone());
        let started = Instant::now();
        assert_eq!(
            code(&server.call("checkout", json!({})).await.unwrap()),
            "FORBIDDEN"
        );
        assert_eq!(
            code(&server.call("add_item", json!({})).await.unwrap()),
            "OK"
        );
        assert_eq!(
            code(&server.call("checkout", json!({})).await.unwrap()),
            "OK",
            "the move is kept in this process"
        );
        let gate = Arc::new(Semaphore::new(10));
        let entered = Arc::new(AtomicUsize::new(0));
        let billing = billing(dead, gate, entered);
        assert_eq!(pay(&billing, "INV-1").await.unwrap(), "paid INV-1");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{url}: {:?}",
            started.elapsed()
        );
    }
}

/// `add_item` that takes 300 ms.
async fn slow() -> Result<&'static str, ToolError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok("done")
}

fn slow_shop(store: RedisGuardStore) -> FusionServer {
    let cart = StateMachine::new("cart")
        .initial("empty")
        .transition("add_item", "empty", "filled")
        .transition("add_item", "filled", "filled")
        .transition("checkout", "filled", "paid");
    FusionServer::builder("shop", "1")
        .tool(Action::new("add_item", slow))
        .tool(Action::new("checkout", done))
        .state_machine(cart)
        .guard_store(store)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_that_ends_last_on_another_replica_never_moves_the_session_back() {
    let redis = Redis::start();
    let (a, b) = (slow_shop(store(&redis)), slow_shop(store(&redis)));
    assert_eq!(code(&a.call("add_item", json!({})).await.unwrap()), "OK");
    // A slow add_item (filled -> filled) on A; while it runs, B checks out
    // (filled -> paid). A ends last: it must not put the cart back.
    let slow = {
        let a = a.clone();
        tokio::spawn(async move { a.call("add_item", json!({})).await.unwrap() })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(code(&b.call("checkout", json!({})).await.unwrap()), "OK");
    assert_eq!(code(&slow.await.unwrap()), "OK");
    for replica in [&a, &b] {
        assert_eq!(
            code(&replica.call("checkout", json!({})).await.unwrap()),
            "FORBIDDEN",
            "paid once"
        );
    }
}
