//! [`Listener`]: one open `subscriptions/listen` stream (MCP 2026-07-28,
//! basic/patterns/subscriptions) as a session holds it; opened and told by
//! [`super::stream`].
//!
//! The server never waits on a listen stream's client: a notification is put
//! in the stream's queue of [`LISTEN_QUEUE`] (at once, or not at all), and
//! the stream's own task writes it out. A stream whose queue is full (its
//! client stopped reading) is closed.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The target of this file's logs: its module's path before it
/// moved into `listen/`, so that log filters and readers see the same target.
const TARGET: &str = "mcp_fusion::server::listener";

/// The most notifications one listen stream may hold unsent; one more closes
/// the stream (its client fell behind).
pub const LISTEN_QUEUE: usize = 64;

/// One open `subscriptions/listen` stream.
#[derive(Debug, Clone)]
pub(crate) struct Listener {
    /// The subscription id (the listen request's JSON-RPC id), as text.
    id: Arc<str>,
    /// The filter rmcp acknowledged.
    accepted: Arc<SubscriptionFilter>,
    /// Accepted resource URIs the caller may not read (a resource whose
    /// guard refuses it): never told of, as `resources/subscribe` refuses
    /// them on 2025-11-25.
    hidden: Arc<HashSet<String>>,
    /// The tasks whose `notifications/tasks` it asked for (its `taskIds`,
    /// SEP-2663): rmcp's filter does not carry them.
    task_ids: Arc<HashSet<String>>,
    /// The stream's queue, drained by its task ([`super::stream`]).
    queue: mpsc::Sender<ServerNotification>,
    /// Cancelled when the queue overflowed: the stream is to be closed.
    behind: CancellationToken,
}

impl Listener {
    /// The stream `id` with the `accepted` filter, never told of updates to
    /// the URIs of `hidden`, told of the status of the tasks of `task_ids`;
    /// with the receiving end of its queue.
    pub(crate) fn new(
        id: String,
        accepted: SubscriptionFilter,
        hidden: HashSet<String>,
        task_ids: HashSet<String>,
    ) -> (Self, mpsc::Receiver<ServerNotification>) {
        let (queue, receiver) = mpsc::channel(LISTEN_QUEUE);
        let listener = Listener {
            id: id.into(),
            accepted: Arc::new(accepted),
            hidden: Arc::new(hidden),
            task_ids: Arc::new(task_ids),
            queue,
            behind: CancellationToken::new(),
        };
        (listener, receiver)
    }

    /// The subscription id (the listen request's JSON-RPC id), as text.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Resolves once the stream fell behind ([`LISTEN_QUEUE`] notifications
    /// unsent when one more came) and is to be closed.
    pub(crate) async fn fell_behind(&self) {
        self.behind.cancelled().await;
    }

    /// Queues `notification` when the accepted filter asks for it, without
    /// waiting; whether it was queued. A full queue closes the stream.
    pub(crate) fn tell(&self, notification: ServerNotification) -> bool {
        if !self.accepts(&notification) || self.behind.is_cancelled() {
            return false;
        }
        match self.queue.try_send(notification) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::debug!(
                    target: TARGET,
                    subscription = %self.id.chars().take(64).collect::<String>(),
                    "a listen stream fell behind: closed"
                );
                self.behind.cancel();
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Whether the acknowledged filter takes `notification` (the rule rmcp's
    /// sink applies), and the caller may read the resource it names.
    fn accepts(&self, notification: &ServerNotification) -> bool {
        match notification {
            ServerNotification::ResourceUpdatedNotification(update)
                if self.hidden.contains(&update.params.uri) =>
            {
                false
            }
            ServerNotification::TaskStatusNotification(status) => {
                self.task_ids.contains(&status.params.task.task.task_id)
            }
            _ => filter_takes(&self.accepted, notification),
        }
    }
}

/// Whether `filter` asks for `notification`: a list change whose flag is
/// `true`, an update of a URI it names. Task statuses are asked for by
/// `taskIds`, which the filter does not carry: never.
pub(crate) fn filter_takes(filter: &SubscriptionFilter, notification: &ServerNotification) -> bool {
    let on = |flag: Option<bool>| flag == Some(true);
    match notification {
        ServerNotification::ToolListChangedNotification(_) => on(filter.tools_list_changed),
        ServerNotification::PromptListChangedNotification(_) => on(filter.prompts_list_changed),
        ServerNotification::ResourceListChangedNotification(_) => on(filter.resources_list_changed),
        ServerNotification::ResourceUpdatedNotification(update) => filter
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.contains(&update.params.uri)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolListChangedNotification;

    fn tools_changed() -> ServerNotification {
        ServerNotification::ToolListChangedNotification(ToolListChangedNotification::default())
    }

    #[tokio::test]
    async fn a_stream_that_falls_behind_is_closed_without_waiting() {
        let mut filter = SubscriptionFilter::default();
        filter.tools_list_changed = Some(true);
        let (listener, mut queue) =
            Listener::new("7".into(), filter, HashSet::new(), HashSet::new());
        for _ in 0..LISTEN_QUEUE {
            assert!(listener.tell(tools_changed()));
        }
        assert!(!listener.behind.is_cancelled());
        assert!(
            !listener.tell(tools_changed()),
            "one past the queue is not queued"
        );
        assert!(listener.behind.is_cancelled());
        listener.fell_behind().await;
        assert!(queue.recv().await.is_some());
        assert!(
            !listener.tell(tools_changed()),
            "a closed stream takes no more"
        );
    }

    #[test]
    fn what_the_filter_did_not_accept_is_not_queued() {
        let (listener, _queue) = Listener::new(
            "7".into(),
            SubscriptionFilter::default(),
            HashSet::new(),
            HashSet::new(),
        );
        assert!(!listener.tell(tools_changed()));
    }
}
