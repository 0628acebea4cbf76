//! [`ResponseCache`]: where a [`FusionClient`](super::FusionClient) keeps
//! the cacheable results a server sent with SEP-2549 caching hints (MCP
//! 2026-07-28 server/utilities/caching), and [`Cached`], the cache as the
//! client's requests consult it.
//!
//! In memory it is rmcp's own client cache (one per connection, the
//! partition its `private_partition`); in Redis ([`ResponseCache::redis`])
//! one shared by every client given the same Redis, so that replicas of a
//! gateway or an agent fetch a list once between them.

use std::fmt;
#[cfg(feature = "redis")]
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::model::{
    CacheScope, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, ReadResourceResult,
};
use rmcp::service::ClientCacheConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;

#[cfg(feature = "redis")]
use super::redis_cache::RedisCacheStore;

/// The longest a cached result is kept, whatever its `ttlMs`: 24 hours
/// (rmcp's `MAX_CLIENT_CACHE_TTL`, the bound of its own cache).
pub const MAX_CACHE_TTL: Duration = rmcp::service::MAX_CLIENT_CACHE_TTL;

/// Where a [`FusionClient`](super::FusionClient) caches the results a
/// 2026-07-28 server declared cacheable (SEP-2549: `server/discover`,
/// `tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list`, `resources/read`), and for whom.
///
/// A result is kept for its `ttlMs` (milliseconds from its arrival, at most
/// [`MAX_CACHE_TTL`]); `ttlMs: 0` or absent (every 2025-11-25 result) is
/// not kept. Within that time the same request (same method, same cursor or
/// URI) is answered from the cache without reaching the server. A
/// `"private"` result (or one without `cacheScope`) is kept for its
/// [`partition`](Self::partition) alone; a `"public"` one for every
/// partition. `notifications/tools/list_changed` (and the prompts and
/// resources ones) drop the cached pages of that list, and
/// `notifications/resources/updated` the reads of that URI. A result got
/// through input-required rounds (a retry carrying `inputResponses` or
/// `requestState`) is never kept.
///
/// - [`ResponseCache::memory`] (the default): rmcp's client cache, in this
///   connection's memory (at most 512 results); without a partition,
///   private results are kept for this connection.
/// - [`ResponseCache::redis`] (feature `redis`): one Redis shared by every
///   client given it (replicas of a gateway, say), keyed by the server
///   ([`Target`](super::Target), as displayed) and the partition. Private
///   results are kept only under a partition (a shared store cannot tell
///   whose they are otherwise). A Redis that does not answer within 1 s is
///   a miss, never a failed request.
/// - [`ResponseCache::disabled`]: nothing is kept.
///
/// ```no_run
/// use mcp_fusion::client::{ClientOptions, FusionClient, ResponseCache, Target};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// // Replicas share one cache; each caller's private lists stay its own.
/// let cache = ResponseCache::redis("redis://127.0.0.1:6379/0")?.partition("user:alice");
/// let options = ClientOptions::default().response_cache(cache);
/// let client = FusionClient::connect(&Target::http("http://127.0.0.1:8080/mcp"), options).await?;
/// let tools = client.list_tools().await?; // fetched once per `ttlMs` across replicas
/// # let _ = tools;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ResponseCache {
    pub(super) store: Store,
    pub(super) partition: Option<String>,
}

/// What keeps the results.
#[derive(Clone, Default)]
pub(super) enum Store {
    /// rmcp's cache of the connection.
    #[default]
    Memory,
    /// Nothing.
    Disabled,
    /// A Redis shared by clients.
    #[cfg(feature = "redis")]
    Redis(Arc<RedisCacheStore>),
}

impl fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let store = match &self.store {
            Store::Memory => "memory",
            Store::Disabled => "disabled",
            #[cfg(feature = "redis")]
            Store::Redis(_) => "redis",
        };
        f.debug_struct("ResponseCache")
            .field("store", &store)
            .field("partition", &self.partition)
            .finish()
    }
}

impl ResponseCache {
    /// rmcp's in-memory cache of the connection (the default).
    pub fn memory() -> ResponseCache {
        ResponseCache::default()
    }

    /// No cache: every request reaches the server.
    pub fn disabled() -> ResponseCache {
        ResponseCache {
            store: Store::Disabled,
            partition: None,
        }
    }

    /// A cache in the Redis at `url` (`redis://host:port/db`), shared by
    /// every client given one at the same Redis; its keys start
    /// `mcp-fusion:cache:`. Nothing connects until the first request.
    ///
    /// # Errors
    /// [`RedisUrlError`](crate::guard::RedisUrlError) when `url` is not a
    /// Redis URL.
    #[cfg(feature = "redis")]
    pub fn redis(url: &str) -> Result<ResponseCache, crate::redis_connection::RedisUrlError> {
        Ok(ResponseCache {
            store: Store::Redis(Arc::new(RedisCacheStore::new(url)?)),
            partition: None,
        })
    }

    /// The authorization context the client speaks for (the credential's
    /// subject, a tenant: any stable, opaque text), whose private results
    /// no other partition sees. In Redis it is hashed (SHA-256) into the
    /// keys, never stored as given.
    pub fn partition(mut self, partition: impl Into<String>) -> ResponseCache {
        self.partition = Some(partition.into());
        self
    }

    /// rmcp's cache configuration for this cache: rmcp keeps the results
    /// only for [`ResponseCache::memory`].
    pub(super) fn rmcp_config(&self) -> ClientCacheConfig {
        match (&self.store, &self.partition) {
            (Store::Memory, Some(partition)) => {
                ClientCacheConfig::default().with_private_partition(partition.clone())
            }
            (Store::Memory, None) => ClientCacheConfig::default(),
            _ => ClientCacheConfig::disabled(),
        }
    }
}

/// A cacheable result as the client's cache reads it: its hints, and its
/// `ttlMs` rewritten to the time left when it is served from the cache.
/// Read only by the Redis store (rmcp reads its own cache's hints).
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(super) trait Cacheable: Serialize + DeserializeOwned {
    /// `ttlMs` and `cacheScope` as the server sent them.
    fn hints(&self) -> (Option<u64>, Option<CacheScope>);
    /// Sets `ttlMs` (kept absent when it was).
    fn set_ttl_ms(&mut self, left: u64);
}

macro_rules! cacheable {
    ($($result:ty),*) => {$(
        impl Cacheable for $result {
            fn hints(&self) -> (Option<u64>, Option<CacheScope>) {
                (self.ttl_ms, self.cache_scope)
            }
            fn set_ttl_ms(&mut self, left: u64) {
                if self.ttl_ms.is_some() {
                    self.ttl_ms = Some(left);
                }
            }
        }
    )*};
}

cacheable!(
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ListSkillsResult
);

/// The cache key of a page of the list `method` from `cursor` (only the
/// cursor changes the result; `_meta` does not), as rmcp builds it.
pub(super) fn page_key(method: &str, cursor: Option<&str>) -> String {
    format!("{method}:{}", serde_json::Value::from(cursor))
}

/// The cache key of `resources/read` of `uri`.
pub(super) fn read_key(uri: &str) -> String {
    format!("resources/read:{}:", serde_json::Value::from(uri))
}

/// The cache as a client's requests consult it: for a Redis store, the
/// store, the server it caches for and the current partition; for the
/// others nothing (rmcp's peer caches in memory, or nothing).
#[derive(Clone, Default)]
pub(super) struct Cached {
    #[cfg(feature = "redis")]
    shared: Option<Shared>,
}

/// What a lookup of the cache found.
pub(super) enum Lookup<T> {
    /// A fresh result, its `ttlMs` the time left.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Fresh(T),
    /// Nothing: send the request, then [`Cached::keep`] its result with
    /// this.
    Miss(Seen),
}

/// What a lookup that missed saw of the cache: the server's drop count (a
/// shared store that answered), so that a result is not kept when a change
/// came while it was on its way.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Seen {
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    drops: Option<i64>,
}

/// A Redis store for one server.
#[cfg(feature = "redis")]
#[derive(Clone)]
struct Shared {
    store: Arc<RedisCacheStore>,
    /// The server, as displayed.
    server: String,
    partition: Arc<RwLock<Option<String>>>,
    /// The prefixes whose keys this client is deleting now, each with
    /// whether another change of it came meanwhile: a burst of
    /// notifications runs one deletion at a time, and one more after it.
    deleting: Arc<std::sync::Mutex<std::collections::HashMap<String, bool>>>,
}

impl Cached {
    /// The cache of a client of `server` (its target as displayed).
    pub(super) fn new(cache: &ResponseCache, server: &str) -> Cached {
        #[cfg(feature = "redis")]
        if let Store::Redis(store) = &cache.store {
            return Cached {
                shared: Some(Shared {
                    store: Arc::clone(store),
                    server: server.to_owned(),
                    partition: Arc::new(RwLock::new(cache.partition.clone())),
                    deleting: Arc::default(),
                }),
            };
        }
        let _ = (cache, server);
        Cached::default()
    }

    /// Whether the client's own code must consult it (a shared store);
    /// `false` leaves caching to rmcp.
    pub(super) fn is_shared(&self) -> bool {
        #[cfg(feature = "redis")]
        return self.shared.is_some();
        #[cfg(not(feature = "redis"))]
        false
    }

    /// Sets the partition of a shared store's later lookups and writes.
    pub(super) fn set_partition(&self, partition: Option<String>) {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            *shared.partition.write().unwrap_or_else(|e| e.into_inner()) = partition;
        }
        #[cfg(not(feature = "redis"))]
        let _ = partition;
    }

    /// The fresh result cached under `key` for the MCP `revision`: the
    /// partition's own first, else a public one; its `ttlMs` the time left.
    /// On a miss, what [`keep`](Self::keep) is to be given back.
    pub(super) async fn lookup<T: Cacheable>(&self, revision: &str, key: &str) -> Lookup<T> {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            use super::redis_cache::Got;
            let partition = shared.partition();
            let at = (shared.server.as_str(), revision);
            return match shared.store.get(at, partition.as_deref(), key).await {
                Got::Hit(json, left) => match serde_json::from_str::<T>(&json) {
                    Ok(mut result) => {
                        result.set_ttl_ms(left);
                        Lookup::Fresh(result)
                    }
                    Err(_) => Lookup::Miss(Seen { drops: None }),
                },
                Got::Miss(drops) => Lookup::Miss(Seen { drops: Some(drops) }),
                Got::Unreachable => Lookup::Miss(Seen { drops: None }),
            };
        }
        let _ = (revision, key);
        Lookup::Miss(Seen::default())
    }

    /// Keeps `result` under `key` for the MCP `revision` for its `ttlMs`,
    /// as its `cacheScope` says, unless a change was notified since its
    /// lookup (`seen`).
    pub(super) async fn keep<T: Cacheable>(
        &self,
        revision: &str,
        key: &str,
        result: &T,
        seen: Seen,
    ) {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            let Some(drops) = seen.drops else {
                return;
            };
            let (ttl_ms, scope) = result.hints();
            let ttl = Duration::from_millis(ttl_ms.unwrap_or(0)).min(MAX_CACHE_TTL);
            if ttl.is_zero() {
                return;
            }
            let Ok(json) = serde_json::to_string(result) else {
                return;
            };
            let scope = scope.unwrap_or(CacheScope::Private);
            let partition = shared.partition();
            let at = (shared.server.as_str(), revision);
            let store = &shared.store;
            store
                .put(at, partition.as_deref(), scope, key, &json, ttl, drops)
                .await;
        }
        let _ = (revision, key, result, seen);
    }

    /// Drops every cached result whose key starts with `prefix`, of every
    /// partition and revision (the server said the list or resource
    /// changed).
    pub(super) async fn drop_prefix(&self, prefix: &str) {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            shared.store.count_drop(&shared.server).await;
            if !shared.begin_deleting(prefix) {
                return;
            }
            loop {
                shared.store.drop_prefix(&shared.server, prefix).await;
                if !shared.delete_again(prefix) {
                    break;
                }
            }
        }
        let _ = prefix;
    }

    /// Drops what `notification` says changed.
    pub(super) async fn drop_changed(&self, notification: &rmcp::model::ServerNotification) {
        use rmcp::model::ServerNotification as N;
        match notification {
            N::ToolListChangedNotification(_) => self.drop_prefix("tools/list:").await,
            N::PromptListChangedNotification(_) => self.drop_prefix("prompts/list:").await,
            N::ResourceListChangedNotification(_) => {
                self.drop_prefix("resources/list:").await;
                self.drop_prefix("resources/templates/list:").await;
            }
            N::ResourceUpdatedNotification(updated) => {
                self.drop_prefix(&read_key(&updated.params.uri)).await;
            }
            _ => {}
        }
    }
}

#[cfg(feature = "redis")]
impl Shared {
    /// Whether this call deletes `prefix`'s keys: `false` when a deletion
    /// of it runs already (it is then marked to run once more).
    fn begin_deleting(&self, prefix: &str) -> bool {
        let mut deleting = self.deleting.lock().unwrap_or_else(|e| e.into_inner());
        match deleting.get_mut(prefix) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                deleting.insert(prefix.to_owned(), false);
                true
            }
        }
    }

    /// Whether `prefix`'s keys are to be deleted once more (a change came
    /// during the deletion); else the deletion ends.
    fn delete_again(&self, prefix: &str) -> bool {
        let mut deleting = self.deleting.lock().unwrap_or_else(|e| e.into_inner());
        match deleting.get_mut(prefix) {
            Some(again) if *again => {
                *again = false;
                true
            }
            _ => {
                deleting.remove(prefix);
                false
            }
        }
    }

    fn partition(&self) -> Option<String> {
        self.partition
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_method_and_what_changes_the_result() {
        assert_eq!(page_key("tools/list", None), "tools/list:null");
        assert_eq!(page_key("tools/list", Some("c2")), "tools/list:\"c2\"");
        assert_eq!(read_key("file:///a b"), "resources/read:\"file:///a b\":");
    }

    #[test]
    fn only_memory_leaves_caching_to_rmcp() {
        assert!(ResponseCache::memory().rmcp_config().enabled);
        assert_eq!(
            ResponseCache::memory()
                .partition("alice")
                .rmcp_config()
                .private_partition
                .as_deref(),
            Some("alice")
        );
        assert!(!ResponseCache::disabled().rmcp_config().enabled);
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_redis_cache_turns_rmcps_off() {
        let cache = ResponseCache::redis("redis://127.0.0.1:1/0").unwrap();
        assert!(!cache.rmcp_config().enabled);
        assert!(Cached::new(&cache, "server").is_shared());
        assert!(!Cached::new(&ResponseCache::memory(), "server").is_shared());
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_burst_of_changes_runs_one_deletion_and_one_more() {
        let cache = ResponseCache::redis("redis://127.0.0.1:1/0").unwrap();
        let cached = Cached::new(&cache, "server");
        let shared = cached.shared.as_ref().unwrap();
        assert!(shared.begin_deleting("tools/list:"));
        // Ten more changes while it deletes: none starts its own.
        for _ in 0..10 {
            assert!(!shared.begin_deleting("tools/list:"));
        }
        // Another prefix is deleted beside it.
        assert!(shared.begin_deleting("prompts/list:"));
        assert!(shared.delete_again("tools/list:"));
        assert!(!shared.delete_again("tools/list:"));
        assert!(shared.begin_deleting("tools/list:"));
    }
}
