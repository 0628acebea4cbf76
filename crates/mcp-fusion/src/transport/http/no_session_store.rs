//! Without the `redis` feature, sessions live in this process only:
//! [`NoSessionStore`] stands where `RedisSessionStore` would. It has no
//! value, so the session table's store is always `None` and the code that
//! uses a store is never reached.

use std::convert::Infallible;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionState;

/// A session store that cannot exist: the methods of `RedisSessionStore`
/// that the session table calls, on a type without values.
pub(crate) enum NoSessionStore {}

impl NoSessionStore {
    pub(crate) async fn load(&self, _id: &str) -> Result<Option<SessionState>, Infallible> {
        match *self {}
    }

    pub(crate) async fn save(
        &self,
        _id: &str,
        _state: &SessionState,
        _ttl: Duration,
    ) -> Result<(), Infallible> {
        match *self {}
    }

    pub(crate) async fn touch(&self, _id: &str, _ttl: Duration) -> Result<bool, Infallible> {
        match *self {}
    }

    pub(crate) async fn exists(&self, _id: &str) -> Result<bool, Infallible> {
        match *self {}
    }

    pub(crate) async fn delete(&self, _id: &str) -> Result<(), Infallible> {
        match *self {}
    }

    pub(crate) async fn save_owner(
        &self,
        _id: &str,
        _owner: &str,
        _ttl: Duration,
    ) -> Result<(), Infallible> {
        match *self {}
    }

    pub(crate) async fn load_owner(&self, _id: &str) -> Result<Option<String>, Infallible> {
        match *self {}
    }
}
