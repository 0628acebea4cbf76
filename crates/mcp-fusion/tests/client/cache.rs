//! `FusionClient`'s response cache (SEP-2549) against a server of the same
//! process, counting on the server's side what reaches it: a read within
//! its `ttlMs` is answered from the cache and one after it is not; private
//! results stay in their partition and public ones are shared; on
//! 2025-11-25 nothing is cached. In Redis (a real `redis-server`), two
//! clients as two replicas share the results, a list change one of them
//! is told drops the list for all, and an answer sent before a change and
//! received after it is never kept.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_fusion::capability::{CacheHint, CacheableMethod};
use mcp_fusion::client::{ClientOptions, FusionClient, ProtocolRevision, ResponseCache};
use mcp_fusion::handler::ResourceData;
use mcp_fusion::model::ServerNotification;
use mcp_fusion::{Action, CallContext, FusionServer, Resource, State, ToolError};

/// How many times each resource was read, and `tools/list` answered.
#[derive(Clone, Default)]
struct Counts {
    reads: Arc<AtomicUsize>,
    lists: Arc<AtomicUsize>,
}

async fn counted(
    State(counts): State<Counts>,
    ctx: CallContext,
) -> Result<ResourceData, ToolError> {
    let n = counts.reads.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(ResourceData::Text(format!("read {n} ({})", ctx.name())))
}

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// A server whose `test://public` is fresh for `public` and `test://mine`
/// private for a minute, and whose `tools/list` is public for a minute;
/// every read and `tools/list` counted in `counts`.
fn server(counts: &Counts, public: Duration) -> FusionServer {
    let lists = Arc::clone(&counts.lists);
    FusionServer::builder("cached", "1.0.0")
        .state(counts.clone())
        .tool(Action::new("ping", ping))
        .cache_hint(
            CacheableMethod::ToolsList,
            CacheHint::public(Duration::from_secs(60)),
        )
        .before_tools_list(move |_| {
            lists.fetch_add(1, Ordering::SeqCst);
            async {}
        })
        .resource(
            Resource::new("test://public", "public", counted).cache_hint(CacheHint::public(public)),
        )
        .resource(
            Resource::new("test://mine", "mine", counted)
                .cache_hint(CacheHint::private(Duration::from_secs(60))),
        )
        .build()
        .unwrap()
}

fn options(cache: ResponseCache) -> ClientOptions {
    ClientOptions::default()
        .protocol(ProtocolRevision::V2026_07_28)
        .response_cache(cache)
}

async fn read(client: &FusionClient, uri: &str) -> (String, Option<u64>) {
    let result = client.read_resource(uri).await.expect("resources/read");
    let text = match &result.contents[0] {
        mcp_fusion::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    };
    (text, result.ttl_ms)
}

#[tokio::test]
async fn a_read_within_its_ttl_does_not_reach_the_server_and_one_after_it_does() {
    let counts = Counts::default();
    let server = server(&counts, Duration::from_millis(1_500));
    let client = server
        .connect_in_memory(options(ResponseCache::memory()))
        .await
        .unwrap();
    let (first, ttl) = read(&client, "test://public").await;
    assert_eq!(first, "read 1 (test://public)");
    assert_eq!(ttl, Some(1_500));
    let (again, left) = read(&client, "test://public").await;
    assert_eq!(again, "read 1 (test://public)");
    assert_eq!(counts.reads.load(Ordering::SeqCst), 1);
    // Served from the cache, its ttlMs is the time left.
    assert!(left.is_some_and(|ms| ms <= 1_500), "{left:?}");
    tokio::time::sleep(Duration::from_millis(1_600)).await;
    let (after, _) = read(&client, "test://public").await;
    assert_eq!(after, "read 2 (test://public)");
    assert_eq!(counts.reads.load(Ordering::SeqCst), 2);
    client.close().await;
}

#[tokio::test]
async fn private_results_stay_in_their_partition_and_public_ones_are_shared() {
    let counts = Counts::default();
    let server = server(&counts, Duration::from_secs(60));
    let cache = ResponseCache::memory().partition("alice");
    let client = server.connect_in_memory(options(cache)).await.unwrap();
    assert_eq!(read(&client, "test://mine").await.0, "read 1 (test://mine)");
    assert_eq!(
        read(&client, "test://public").await.0,
        "read 2 (test://public)"
    );
    assert_eq!(read(&client, "test://mine").await.0, "read 1 (test://mine)");
    client.set_cache_partition(Some(String::from("bob"))).await;
    // Bob does not see Alice's private read; the public one is shared.
    assert_eq!(read(&client, "test://mine").await.0, "read 3 (test://mine)");
    assert_eq!(
        read(&client, "test://public").await.0,
        "read 2 (test://public)"
    );
    assert_eq!(counts.reads.load(Ordering::SeqCst), 3);
    client.close().await;
}

/// Waits for `notifications/tools/list_changed` on `notifications`.
async fn tools_changed(notifications: &mut tokio::sync::broadcast::Receiver<ServerNotification>) {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let ServerNotification::ToolListChangedNotification(_) =
                notifications.recv().await.unwrap()
            {
                return;
            }
        }
    })
    .await
    .expect("notifications/tools/list_changed");
}

#[tokio::test]
async fn on_2025_11_25_no_hints_come_and_nothing_is_cached() {
    let counts = Counts::default();
    let server = server(&counts, Duration::from_secs(60));
    let client = server
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap();
    assert_eq!(
        read(&client, "test://public").await,
        (String::from("read 1 (test://public)"), None)
    );
    assert_eq!(
        read(&client, "test://public").await,
        (String::from("read 2 (test://public)"), None)
    );
    client.list_tools().await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(counts.lists.load(Ordering::SeqCst), 2);
    client.close().await;
}

#[tokio::test]
async fn a_disabled_cache_sends_every_request() {
    let counts = Counts::default();
    let server = server(&counts, Duration::from_secs(60));
    let client = server
        .connect_in_memory(options(ResponseCache::disabled()))
        .await
        .unwrap();
    read(&client, "test://public").await;
    assert_eq!(
        read(&client, "test://public").await.0,
        "read 2 (test://public)"
    );
    client.close().await;
}

#[cfg(feature = "redis")]
mod redis_replicas {
    use fusion_test_support::redis_server::Redis;

    use super::*;

    fn keys(redis: &Redis) -> Vec<(String, i64)> {
        let client = redis::Client::open(redis.url()).unwrap();
        let mut conn = client.get_connection().unwrap();
        let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut conn).unwrap();
        keys.sort();
        keys.into_iter()
            .map(|key| {
                let ttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut conn).unwrap();
                (key, ttl)
            })
            .collect()
    }

    #[tokio::test]
    async fn two_replicas_share_public_results_and_each_partitions_private_ones() {
        let redis = Redis::start();
        let counts = Counts::default();
        let server = server(&counts, Duration::from_secs(60));
        let shared = |partition: &str| {
            let cache = ResponseCache::redis(&redis.url())
                .unwrap()
                .partition(partition);
            server.connect_in_memory(options(cache))
        };
        let one = shared("alice").await.unwrap();
        let other = shared("alice").await.unwrap();
        // Public: read by one replica, served to the other.
        assert_eq!(
            read(&one, "test://public").await.0,
            "read 1 (test://public)"
        );
        let (text, left) = read(&other, "test://public").await;
        assert_eq!(text, "read 1 (test://public)");
        assert!(
            left.is_some_and(|ms| ms <= 60_000 && ms > 55_000),
            "{left:?}"
        );
        // Private: shared by the same partition on both replicas…
        assert_eq!(read(&one, "test://mine").await.0, "read 2 (test://mine)");
        assert_eq!(read(&other, "test://mine").await.0, "read 2 (test://mine)");
        assert_eq!(counts.reads.load(Ordering::SeqCst), 2);
        // …and not by another partition, which sees the public one.
        other.set_cache_partition(Some(String::from("bob"))).await;
        assert_eq!(read(&other, "test://mine").await.0, "read 3 (test://mine)");
        assert_eq!(
            read(&other, "test://public").await.0,
            "read 1 (test://public)"
        );
        let stored = keys(&redis);
        let names: Vec<&str> = stored.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(
            names.iter().all(|k| k.starts_with("mcp-fusion:cache:")),
            "{names:?}"
        );
        assert_eq!(names.iter().filter(|k| k.contains(":public:")).count(), 1);
        assert!(
            !names
                .iter()
                .any(|k| k.contains("alice") || k.contains("bob"))
        );
        assert!(
            stored
                .iter()
                .all(|(_, ttl)| (55_000..=60_000).contains(ttl)),
            "{stored:?}"
        );
        one.close().await;
        other.close().await;
    }

    /// Three clients of `server` sharing the Redis cache as partition
    /// `alice`: two on 2026-07-28, and a watcher on 2025-11-25, whose
    /// connection the server tells of changes.
    async fn replicas(server: &FusionServer, redis: &Redis) -> [FusionClient; 3] {
        let cache = ResponseCache::redis(&redis.url())
            .unwrap()
            .partition("alice");
        let one = server.connect_in_memory(options(cache.clone()));
        let other = server.connect_in_memory(options(cache.clone()));
        let watcher = server.connect_in_memory(ClientOptions::default().response_cache(cache));
        [
            one.await.unwrap(),
            other.await.unwrap(),
            watcher.await.unwrap(),
        ]
    }

    /// On 2026-07-28 a `FusionClient` opens no `subscriptions/listen`, so
    /// the change reaches a third replica speaking 2025-11-25 (whose
    /// connection the server tells): it drops the list of every revision.
    #[tokio::test]
    async fn a_list_change_seen_by_one_replica_drops_the_list_for_the_others() {
        let redis = Redis::start();
        let counts = Counts::default();
        let server = server(&counts, Duration::from_secs(60));
        let [one, other, watcher] = replicas(&server, &redis).await;
        let mut notifications = watcher.notifications();
        assert_eq!(one.list_tools().await.unwrap().len(), 1);
        assert_eq!(other.list_tools().await.unwrap().len(), 1);
        assert_eq!(counts.lists.load(Ordering::SeqCst), 1);
        // 2025-11-25: no hints, not cached; its connection is told of changes.
        watcher.list_tools().await.unwrap();
        assert_eq!(counts.lists.load(Ordering::SeqCst), 2);
        server.add_tool(Action::new("pong", ping)).await.unwrap();
        tools_changed(&mut notifications).await;
        // Only the server's drop count is left.
        let left = keys(&redis);
        assert_eq!(left.len(), 1, "{left:?}");
        assert!(left[0].0.ends_with(":drops"), "{left:?}");
        assert_eq!(other.list_tools().await.unwrap().len(), 2);
        assert_eq!(one.list_tools().await.unwrap().len(), 2);
        assert_eq!(counts.lists.load(Ordering::SeqCst), 3);
        one.close().await;
        other.close().await;
        watcher.close().await;
    }

    #[tokio::test]
    async fn without_a_partition_private_results_are_not_shared() {
        let redis = Redis::start();
        let counts = Counts::default();
        let server = server(&counts, Duration::from_secs(60));
        let cache = ResponseCache::redis(&redis.url()).unwrap();
        let one = server
            .connect_in_memory(options(cache.clone()))
            .await
            .unwrap();
        let other = server.connect_in_memory(options(cache)).await.unwrap();
        assert_eq!(read(&one, "test://mine").await.0, "read 1 (test://mine)");
        assert_eq!(read(&other, "test://mine").await.0, "read 2 (test://mine)");
        assert!(keys(&redis).is_empty());
        one.close().await;
        other.close().await;
    }

    /// Waits until `n` reads have reached the server.
    async fn reads_reached(counts: &Counts, n: usize) {
        for _ in 0..500 {
            if counts.reads.load(Ordering::SeqCst) >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{n} reads never reached the server");
    }

    async fn held(
        State((counts, gate)): State<(Counts, Arc<tokio::sync::Semaphore>)>,
    ) -> Result<ResourceData, ToolError> {
        let n = counts.reads.fetch_add(1, Ordering::SeqCst) + 1;
        let _pass = gate.acquire().await.map_err(ToolError::internal)?;
        Ok(ResourceData::Text(format!("read {n}")))
    }

    #[tokio::test]
    async fn an_answer_sent_before_a_change_and_received_after_it_is_not_kept() {
        let redis = Redis::start();
        let counts = Counts::default();
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let server = FusionServer::builder("cached", "1.0.0")
            .state((counts.clone(), Arc::clone(&gate)))
            .tool(Action::new("ping", ping))
            .resource(
                Resource::new("test://slow", "slow", held)
                    .cache_hint(CacheHint::public(Duration::from_secs(60))),
            )
            .build()
            .unwrap();
        let [one, other, watcher] = replicas(&server, &redis).await;
        let mut notifications = watcher.notifications();
        let reading = tokio::spawn(async move {
            let text = read(&one, "test://slow").await.0;
            one.close().await;
            text
        });
        reads_reached(&counts, 1).await;
        // The tools change while the read is on its way: a replica is told.
        server.add_tool(Action::new("pong", ping)).await.unwrap();
        tools_changed(&mut notifications).await;
        gate.add_permits(10);
        assert_eq!(reading.await.unwrap(), "read 1");
        // It was not kept: the next read reaches the server, and is kept.
        assert_eq!(read(&other, "test://slow").await.0, "read 2");
        assert_eq!(read(&other, "test://slow").await.0, "read 2");
        assert_eq!(counts.reads.load(Ordering::SeqCst), 2);
        other.close().await;
        watcher.close().await;
    }
}
