//! [`super::Sessions`] as rmcp's `SessionManager` and `SessionStore`:
//! what rmcp's `StreamableHttpService` asks of the sessions.

use std::sync::Arc;

use futures::Stream;
use std::time::Instant;

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionWorker;
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager, SessionState, SessionStore,
    SessionStoreError,
};

use super::table::{Entry, Worker, lock, parse_state};
use super::{Sessions, SessionsError};
impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionsError> {
        let id = rmcp::transport::common::server_side_http::session_id();
        let transport = self.start_worker(&mut lock(&self.inner.table), &id, false);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionsError> {
        Ok(self.running_handle(id)?.initialize(message).await?)
    }

    /// Only live sessions: a starting one is reported absent, so that rmcp
    /// makes its request wait for the restore in progress.
    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionsError> {
        Ok(lock(&self.inner.table)
            .entries
            .get(id)
            .is_some_and(Entry::is_live))
    }

    /// Called by rmcp for a `DELETE` (then `SessionStore::delete` follows),
    /// and once when a worker ends, whatever ended it.
    async fn close_session(&self, id: &SessionId) -> Result<(), SessionsError> {
        let handle = {
            let mut table = lock(&self.inner.table);
            let Some(entry) = table.entries.get_mut(id) else {
                return Ok(());
            };
            if entry.stopping > 0 {
                // The end of a worker we stopped (parked or closed) ourselves.
                entry.stopping -= 1;
                return Ok(());
            }
            let Some(handle) = std::mem::replace(&mut entry.worker, Worker::Parked)
                .handle()
                .cloned()
            else {
                return Ok(());
            };
            // A DELETE, or a worker that ended: nobody can be answered.
            entry.end_calls();
            table.running = table.running.saturating_sub(1);
            handle
        };
        match handle.close().await {
            // A DELETE: the worker stops now and reports its end later.
            Ok(()) => {
                if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
                    entry.stopping += 1;
                }
            }
            // The worker ended on its own (a failed handshake, an error):
            // keep the session parked if its handshake is known.
            Err(_) => {
                let mut table = lock(&self.inner.table);
                if table.entries.get(id).is_some_and(|e| e.state.is_none()) {
                    table.entries.remove(id);
                }
            }
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let handle = self.running_handle(id)?;
        let receiver = handle.establish_request_wise_channel().await?;
        handle
            .push_message(message, receiver.http_request_id)
            .await?;
        Ok(self.track(id, receiver.inner))
    }

    /// A restore's replayed `notifications/initialized` ends its start: the
    /// session is live from then on.
    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionsError> {
        let initialized = matches!(
            &message,
            ClientJsonRpcMessage::Notification(n)
                if matches!(n.notification, ClientNotification::InitializedNotification(_))
        );
        self.running_handle(id)?.push_message(message, None).await?;
        if initialized
            && let Some(entry) = lock(&self.inner.table).entries.get_mut(id)
            && let Worker::Starting(handle) = &entry.worker
        {
            entry.worker = Worker::Live(handle.clone());
        }
        Ok(())
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let receiver = self.running_handle(id)?.establish_common_channel().await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        let receiver = self
            .running_handle(id)?
            .resume(last_event_id.parse()?)
            .await?;
        Ok(self.track(id, receiver.inner))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, SessionsError> {
        let mut table = lock(&self.inner.table);
        if table.entries.get(&id).is_some_and(Entry::runs) {
            return Ok(RestoreOutcome::AlreadyPresent);
        }
        tracing::debug!(session = %id, "restoring a parked session");
        Ok(RestoreOutcome::Restored(
            self.start_worker(&mut table, &id, true),
        ))
    }
}

#[async_trait::async_trait]
impl SessionStore for Sessions {
    /// The handshake of session `id`: this server's copy, else Redis's. Redis
    /// failing counts as "unknown" (the client gets 404 and starts a new
    /// session here), never as a server error.
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let kept = lock(&self.inner.table)
            .entries
            .get(id)
            .and_then(|entry| entry.state.clone());
        if let Some(state) = kept {
            return Ok(parse_state(&state));
        }
        let Some(redis) = &self.inner.redis else {
            return Ok(None);
        };
        let Ok(Some(state)) = redis.load(id).await else {
            return Ok(None);
        };
        // A session of another replica, or of an earlier run of this one.
        let mut table = lock(&self.inner.table);
        if table.entries.len() + table.pending >= self.inner.limits.max_sessions
            && let Some(victim) = table.eviction_victim(None)
        {
            self.remove(&mut table, &victim);
        }
        let entry = table
            .entries
            .entry(id.into())
            .or_insert_with(|| Entry::new(Instant::now()));
        entry.state = serde_json::to_string(&state).ok().map(Arc::from);
        entry.served = true;
        entry.in_redis = true;
        Ok(Some(state))
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let text: Option<Arc<str>> = serde_json::to_string(state).ok().map(Arc::from);
        if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
            entry.state = text;
        }
        if let Some(redis) = &self.inner.redis {
            redis.save(id, state, self.inner.limits.idle).await?;
            if let Some(entry) = lock(&self.inner.table).entries.get_mut(id) {
                entry.in_redis = true;
            }
        }
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        {
            let mut table = lock(&self.inner.table);
            self.remove(&mut table, &SessionId::from(id));
        }
        if let Some(redis) = &self.inner.redis {
            redis.delete(id).await?;
        }
        Ok(())
    }
}
