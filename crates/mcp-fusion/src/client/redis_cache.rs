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
//! result's `ttlMs` (`SET … PX`). A change the server notifies deletes the
//! keys of every revision and scope (`SCAN MATCH` then `UNLINK`).

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
}

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
        })
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
    /// `partition`'s private one first, else the public one. `None` on a
    /// miss, or when Redis does not answer.
    pub(crate) async fn get(
        &self,
        at: At<'_>,
        partition: Option<&str>,
        key: &str,
    ) -> Option<(String, u64)> {
        let private = partition.map(|p| Self::redis_key(at, Some(p), key));
        let public = Self::redis_key(at, None, key);
        // The private key first; without a partition, the public one twice.
        let first = private.unwrap_or_else(|| public.clone());
        let answer: (Option<String>, i64, Option<String>, i64) = self
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
                        .query_async(&mut conn)
                        .await
                },
            )
            .await
            .ok()?;
        let (first, first_left, public, public_left) = answer;
        [(first, first_left), (public, public_left)]
            .into_iter()
            .find_map(|(json, left)| {
                // PTTL: -2 gone since the GET, -1 no expiry (never written so).
                let left = u64::try_from(left).ok().filter(|ms| *ms > 0)?;
                Some((json?, left))
            })
    }

    /// Keeps `json` as `key` at `at` for `ttl`: public for every
    /// partition, private for `partition` only (not at all without one).
    /// The entry of the other scope for the same partition is deleted, as
    /// the server's answer replaced it.
    pub(crate) async fn put(
        &self,
        at: At<'_>,
        partition: Option<&str>,
        scope: CacheScope,
        key: &str,
        json: &str,
        ttl: Duration,
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
        let json = json.to_owned();
        let _ = self
            .connection
            .run(
                REDIS_WAIT,
                || String::from("results are not cached"),
                |mut conn| async move {
                    let mut pipe = redis::pipe();
                    pipe.cmd("SET")
                        .arg(&target)
                        .arg(json)
                        .arg("PX")
                        .arg(ms)
                        .ignore();
                    if let Some(other) = &other {
                        pipe.cmd("UNLINK").arg(other).ignore();
                    }
                    pipe.query_async::<()>(&mut conn).await
                },
            )
            .await;
    }

    /// Deletes every cached result of `server` whose key starts with
    /// `prefix`, in every revision and scope.
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
