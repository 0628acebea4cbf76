//! [`RedisSessionStore`]: MCP sessions kept in Redis, so that a client can go
//! on in its session on another replica, or on a restarted server.
//!
//! A session is its `initialize` handshake (rmcp's `SessionState`), stored as
//! JSON under `{prefix}{session id}` with a time to live of the session's idle
//! limit, refreshed while the session is used. Every command is bounded in
//! time (default 100 ms); while Redis is down, sessions keep working on the
//! server that holds them and cannot move to another one.

use std::sync::Arc;
use std::time::Duration;

use redis::AsyncCommands;
use rmcp::transport::streamable_http_server::session::SessionState;

use crate::redis_connection::{RedisConnection, RedisUrlError, Unanswered};

/// Sessions in Redis, shared by every replica that uses the same store.
/// Cheap to clone. Give it to [`crate::transport::HttpOptions::session_store`].
#[derive(Clone)]
pub struct RedisSessionStore {
    prefix: String,
    timeout: Duration,
    connection: Arc<RedisConnection>,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("url", &self.connection.url())
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Why a Redis command of the session store failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    #[error("Redis is unavailable")]
    Unavailable,
    #[error("Redis did not answer within {0:?}")]
    Timeout(Duration),
    #[error("Redis: {0}")]
    Redis(#[from] redis::RedisError),
    #[error("a stored session cannot be read: {0}")]
    Json(#[from] serde_json::Error),
}

impl RedisSessionStore {
    /// A store at `url` (`redis://host:port/db`). Nothing is connected yet.
    /// Defaults: commands bounded by 100 ms, keys prefixed
    /// `mcp-fusion:session:`.
    ///
    /// # Errors
    /// [`RedisUrlError`] when the URL is not a Redis URL.
    pub fn new(url: &str) -> Result<Self, RedisUrlError> {
        Ok(RedisSessionStore {
            prefix: String::from("mcp-fusion:session:"),
            timeout: Duration::from_millis(100),
            connection: Arc::new(RedisConnection::new(url, "session store")?),
        })
    }

    /// The longest one command may take, connecting included; default 100 ms.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The prefix of every key this store writes; default `mcp-fusion:session:`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The URL with its credentials masked.
    pub fn url(&self) -> &str {
        self.connection.url()
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    /// The key of the principal session `id` belongs to.
    fn owner_key(&self, id: &str) -> String {
        format!("{}{id}:owner", self.prefix)
    }

    /// Runs `command` on the connection within the timeout, keeping the
    /// connection's failure bookkeeping.
    async fn run<T, F, Fut>(&self, command: F) -> Result<T, StoreError>
    where
        F: FnOnce(redis::aio::ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        let consequence = || String::from("sessions stay on the server that holds them");
        let result = self
            .connection
            .run(self.timeout, consequence, command)
            .await;
        result.map_err(|why| match why {
            Unanswered::RecentlyFailed | Unanswered::NotConnected => StoreError::Unavailable,
            Unanswered::TimedOut(limit) => StoreError::Timeout(limit),
            Unanswered::Failed(e) => e,
        })
    }

    /// The session `id`'s handshake, if Redis holds it.
    pub(crate) async fn load(&self, id: &str) -> Result<Option<SessionState>, StoreError> {
        let key = self.key(id);
        self.run(|mut conn| async move {
            let text: Option<String> = conn.get(&key).await?;
            Ok(text.map(|t| serde_json::from_str(&t)).transpose()?)
        })
        .await
    }

    /// Stores session `id`'s handshake for `ttl`.
    pub(crate) async fn save(
        &self,
        id: &str,
        state: &SessionState,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        let key = self.key(id);
        let text = serde_json::to_string(state)?;
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        self.run(|mut conn| async move {
            let () = conn.pset_ex(&key, text, ms).await?;
            Ok(())
        })
        .await
    }

    /// Gives session `id` (and the record of its owner) another `ttl` to
    /// live; `false` when Redis does not hold it (it ended, or expired).
    pub(crate) async fn touch(&self, id: &str, ttl: Duration) -> Result<bool, StoreError> {
        let key = self.key(id);
        let owner = self.owner_key(id);
        let ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX).max(1);
        self.run(|mut conn| async move {
            let _: bool = conn.pexpire(&owner, ms).await?;
            Ok(conn.pexpire(&key, ms).await?)
        })
        .await
    }

    /// Records that session `id` belongs to `owner`, for `ttl`.
    pub(crate) async fn save_owner(
        &self,
        id: &str,
        owner: &str,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        let key = self.owner_key(id);
        let owner = owner.to_owned();
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        self.run(|mut conn| async move {
            let () = conn.pset_ex(&key, owner, ms).await?;
            Ok(())
        })
        .await
    }

    /// Whom session `id` belongs to, if Redis records it.
    pub(crate) async fn load_owner(&self, id: &str) -> Result<Option<String>, StoreError> {
        let key = self.owner_key(id);
        self.run(|mut conn| async move { Ok(conn.get(&key).await?) })
            .await
    }

    /// Whether Redis holds session `id`.
    pub(crate) async fn exists(&self, id: &str) -> Result<bool, StoreError> {
        let key = self.key(id);
        self.run(|mut conn| async move { Ok(conn.exists(&key).await?) })
            .await
    }

    /// Removes session `id` and the record of its owner.
    pub(crate) async fn delete(&self, id: &str) -> Result<(), StoreError> {
        let keys = [self.key(id), self.owner_key(id)];
        self.run(|mut conn| async move {
            let _: i64 = conn.del(&keys).await?;
            Ok(())
        })
        .await
    }
}
