//! [`RedisCacheStore`]: cached results (SEP-2549) in a Redis shared by the
//! clients of several replicas, behind
//! [`ResponseCache::redis`](super::ResponseCache::redis).
//!
//! One string key per result,
//! `mcp-fusion:cache:{server}:{revision}:{scope}:{key}`: `{server}` the
//! first 16 hex digits of the SHA-256 of the target as displayed,
//! `{revision}` the MCP revision negotiated (`2026-07-28`), `{scope}` `public` or `private.` and the first 32 hex digits
//! of the SHA-256 of the partition, `{key}` the method and what changes the
//! result (`tools/list:null`, `resources/read:"uri":`). It expires with the
//! result's `ttlMs` (`SET … PX`). A change the server notifies counts one
//! more drop of the server (`INCR mcp-fusion:cache:{server}:drops`), then
//! deletes the keys of every revision and scope (`SCAN MATCH` then
//! `UNLINK`; a client runs one deletion of a prefix at a time, and one more
//! for the changes that came during it); a result is kept only if no drop was counted since its lookup
//! missed (one script), so an answer sent before a change and received
//! after it is never kept, by any replica.

use std::time::Duration;

use rmcp::model::CacheScope;
use sha2::{Digest, Sha256};

use crate::redis_connection::{RedisConnection, RedisUrlError};

/// The longest a cache lookup or write waits for Redis; past it the
/// request goes to the server (a lookup) or the result is not kept.
const REDIS_WAIT: Duration = Duration::from_secs(1);

/// The keys' prefix.
const PREFIX: &str = "mcp-fusion:cache";

/// Where a result is cached: the server (its target as displayed) and the
/// MCP revision spoken.
pub(crate) type At<'a> = (&'a str, &'a str);

/// Cached results in Redis.
pub(crate) struct RedisCacheStore {
    connection: RedisConnection,
    /// Keeps a result if the server's drop count is still the one its
    /// lookup saw: `KEYS` the result's key, the drop count's key, and the
    /// other scope's key to delete (optional); `ARGV` the JSON, its
    /// milliseconds, the drop count seen.
    put_unchanged: redis::Script,
}

/// What a lookup's pipeline answers: the first key's JSON and milliseconds
/// left, the public key's, and the server's drop count.
type Looked = (Option<String>, i64, Option<String>, i64, Option<i64>);

/// What a lookup in Redis found.
pub(crate) enum Got {
    /// A fresh result's JSON and its milliseconds left.
    Hit(String, u64),
    /// Nothing; the server's drop count when looked up.
    Miss(i64),
    /// Redis did not answer in time.
    Unreachable,
}

const PUT_UNCHANGED: &str = r"
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if KEYS[3] then redis.call('UNLINK', KEYS[3]) end
return 1
";

/// The first `n` hex digits of the SHA-256 of `text`.
fn digest(text: &str, n: usize) -> String {
    let hex: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    hex[..n].to_owned()
}

/// `text` with the characters a `SCAN MATCH` pattern reads escaped.
fn literal(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

impl RedisCacheStore {
    /// A store in the Redis at `url`, not connected yet.
    ///
    /// # Errors
    /// [`RedisUrlError`] when `url` is not a Redis URL.
    pub(crate) fn new(url: &str) -> Result<RedisCacheStore, RedisUrlError> {
        Ok(RedisCacheStore {
            connection: RedisConnection::new(url, "client response cache")?,
            put_unchanged: redis::Script::new(PUT_UNCHANGED),
        })
    }

    /// The key of the drop count of `server`.
    fn drops_key(server: &str) -> String {
        format!("{PREFIX}:{}:drops", digest(server, 16))
    }

    /// The Redis key of `key` at `at` for `partition` (`None`: public).
    fn redis_key((server, revision): At<'_>, partition: Option<&str>, key: &str) -> String {
        let server = digest(server, 16);
        match partition {
            Some(partition) => format!(
                "{PREFIX}:{server}:{revision}:private.{}:{key}",
                digest(partition, 32)
            ),
            None => format!("{PREFIX}:{server}:{revision}:public:{key}"),
        }
    }

    /// The cached JSON of `key` at `at` and its milliseconds left:
    /// `partition`'s private one first, else the public one; on a miss, the
    /// server's drop count, which [`put`](Self::put) is given back.
    pub(crate) async fn get(&self, at: At<'_>, partition: Option<&str>, key: &str) -> Got {
        let private = partition.map(|p| Self::redis_key(at, Some(p), key));
        let public = Self::redis_key(at, None, key);
        // The private key first; without a partition, the public one twice.
        let first = private.unwrap_or_else(|| public.clone());
        let drops = Self::drops_key(at.0);
        let answer: Result<Looked, _> = self
            .connection
            .run(
                REDIS_WAIT,
                || String::from("results are fetched from the server"),
                |mut conn| async move {
                    redis::pipe()
                        .cmd("GET")
                        .arg(&first)
                        .cmd("PTTL")
                        .arg(&first)
                        .cmd("GET")
                        .arg(&public)
                        .cmd("PTTL")
                        .arg(&public)
                        .cmd("GET")
                        .arg(&drops)
                        .query_async(&mut conn)
                        .await
                },
            )
            .await;
        let Ok((first, first_left, public, public_left, drops)) = answer else {
            return Got::Unreachable;
        };
        [(first, first_left), (public, public_left)]
            .into_iter()
            .find_map(|(json, left)| {
                // PTTL: -2 gone since the GET, -1 no expiry (never written so).
                let left = u64::try_from(left).ok().filter(|ms| *ms > 0)?;
                Some(Got::Hit(json?, left))
            })
            .unwrap_or(Got::Miss(drops.unwrap_or(0)))
    }

    /// Keeps `json` as `key` at `at` for `ttl`: public for every
    /// partition, private for `partition` only (not at all without one);
    /// nothing if the server's drop count is no longer `drops`, the count
    /// its lookup saw (a change came meanwhile). The entry of the other
    /// scope for the same partition is deleted, as the server's answer
    /// replaced it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn put(
        &self,
        at: At<'_>,
        partition: Option<&str>,
        scope: CacheScope,
        key: &str,
        json: &str,
        ttl: Duration,
        drops: i64,
    ) {
        let public = Self::redis_key(at, None, key);
        let private = partition.map(|p| Self::redis_key(at, Some(p), key));
        let (target, other) = match scope {
            CacheScope::Public => (public, private),
            _ => match private {
                Some(private) => (private, Some(public)),
                None => return,
            },
        };
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let mut invocation = self.put_unchanged.prepare_invoke();
        invocation
            .key(target)
            .key(Self::drops_key(at.0))
            .arg(json)
            .arg(ms)
            .arg(drops.to_string());
        if let Some(other) = other {
            invocation.key(other);
        }
        let _ = self
            .connection
            .run(
                REDIS_WAIT,
                || String::from("results are not cached"),
                |mut conn| async move { invocation.invoke_async::<i64>(&mut conn).await },
            )
            .await;
    }

    /// Counts one more change of `server`: a result whose lookup missed
    /// before it is not kept ([`put`](Self::put)).
    pub(crate) async fn count_drop(&self, server: &str) {
        let drops = Self::drops_key(server);
        let _ = self
            .connection
            .run(
                REDIS_WAIT,
                || String::from("a change may be served stale until its ttlMs"),
                |mut conn| async move {
                    redis::cmd("INCR")
                        .arg(&drops)
                        .query_async::<i64>(&mut conn)
                        .await
                },
            )
            .await;
    }

    /// Deletes every cached result of `server` whose key starts with
    /// `prefix`, in every revision and scope (after
    /// [`count_drop`](Self::count_drop)).
    pub(crate) async fn drop_prefix(&self, server: &str, prefix: &str) {
        let pattern = format!("{PREFIX}:{}:*:{}*", digest(server, 16), literal(prefix));
        let _ = self
            .connection
            .run(
                REDIS_WAIT,
                || String::from("a change may be served stale until its ttlMs"),
                |mut conn| async move {
                    let mut cursor: u64 = 0;
                    loop {
                        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                            .arg(cursor)
                            .arg("MATCH")
                            .arg(&pattern)
                            .arg("COUNT")
                            .arg(500)
                            .query_async(&mut conn)
                            .await?;
                        if !keys.is_empty() {
                            redis::cmd("UNLINK")
                                .arg(&keys)
                                .query_async::<()>(&mut conn)
                                .await?;
                        }
                        if next == 0 {
                            return Ok::<(), redis::RedisError>(());
                        }
                        cursor = next;
                    }
                },
            )
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_hold_digests_of_the_server_and_the_partition() {
        let at = ("http://a/mcp", "2026-07-28");
        let public = RedisCacheStore::redis_key(at, None, "tools/list:null");
        let private = RedisCacheStore::redis_key(at, Some("alice"), "tools/list:null");
        let server = digest("http://a/mcp", 16);
        assert_eq!(
            public,
            format!("mcp-fusion:cache:{server}:2026-07-28:public:tools/list:null")
        );
        let partition = digest("alice", 32);
        assert_eq!(
            private,
            format!("mcp-fusion:cache:{server}:2026-07-28:private.{partition}:tools/list:null")
        );
        assert!(!private.contains("alice"));
    }

    #[test]
    fn a_prefix_is_matched_literally() {
        assert_eq!(
            literal("resources/read:\"a*[b]?\\\":"),
            "resources/read:\"a\\*\\[b\\]\\?\\\\\":"
        );
    }
}
