//! [`Listener`]: one open `subscriptions/listen` stream (MCP 2026-07-28,
//! basic/patterns/subscriptions) as a session holds it; opened and told by
//! [`super::stream`].
//!
//! The server never waits on a listen stream's client: a notification is put
//! in the stream's queue of [`LISTEN_QUEUE`] (at once, or not at all), and
//! the stream's own task writes it out. A list change whose kind is already
//! queued and not yet taken for writing is not queued again (a burst of
//! changes is one notification per kind, as for a connection:
//! `server::list_changes`). A stream whose queue is full (its client
//! stopped reading) is closed.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

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
    /// SEP-2663), each one of a task `owner` created (checked when the
    /// stream was accepted): rmcp's filter does not carry them.
    task_ids: Arc<HashSet<String>>,
    /// The task owner of the stream's caller (`tasks::owner_key`): a task's
    /// status is told only when the task is this owner's, checked again
    /// for each status (the Tasks extension, "Auth binding").
    owner: Arc<str>,
    /// The stream's queue, drained by its task ([`super::stream`]).
    queue: mpsc::Sender<ServerNotification>,
    /// The list-change kinds queued and not yet taken ([`list_bit`]).
    queued_lists: Arc<AtomicU8>,
    /// Cancelled when the queue overflowed: the stream is to be closed.
    behind: CancellationToken,
}

impl Listener {
    /// The stream `id` with the `accepted` filter, never told of updates to
    /// the URIs of `hidden`, told of the status of the tasks of `task_ids`
    /// that `owner` created; with the receiving end of its queue.
    pub(crate) fn new(
        id: String,
        accepted: SubscriptionFilter,
        hidden: HashSet<String>,
        task_ids: HashSet<String>,
        owner: &str,
    ) -> (Self, Inbox) {
        let (queue, receiver) = mpsc::channel(LISTEN_QUEUE);
        let queued_lists = Arc::new(AtomicU8::new(0));
        let listener = Listener {
            id: id.into(),
            accepted: Arc::new(accepted),
            hidden: Arc::new(hidden),
            task_ids: Arc::new(task_ids),
            owner: owner.into(),
            queue,
            queued_lists: Arc::clone(&queued_lists),
            behind: CancellationToken::new(),
        };
        let inbox = Inbox {
            receiver,
            queued_lists,
        };
        (listener, inbox)
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
    /// waiting; whether it was queued (a list change of a kind already
    /// queued counts as queued: that one tells it). A task's status comes
    /// with the task's owner (`task_owner`), and is queued only when it is
    /// the stream's. A full queue closes the stream.
    pub(crate) fn tell(&self, notification: ServerNotification, task_owner: Option<&str>) -> bool {
        if !self.accepts(&notification, task_owner) || self.behind.is_cancelled() {
            return false;
        }
        if let Some(bit) = list_bit(&notification)
            && self.queued_lists.fetch_or(bit, Ordering::AcqRel) & bit != 0
        {
            return true;
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
    /// sink applies), and the caller may read the resource it names, or
    /// the task it tells of is one the stream named and `task_owner`, its
    /// owner, is the stream's.
    fn accepts(&self, notification: &ServerNotification, task_owner: Option<&str>) -> bool {
        match notification {
            ServerNotification::ResourceUpdatedNotification(update)
                if self.hidden.contains(&update.params.uri) =>
            {
                false
            }
            ServerNotification::TaskStatusNotification(status) => {
                task_owner == Some(&*self.owner)
                    && self.task_ids.contains(&status.params.task.task.task_id)
            }
            _ => filter_takes(&self.accepted, notification),
        }
    }
}

/// The receiving end of a stream's queue, for its task.
#[derive(Debug)]
pub(crate) struct Inbox {
    receiver: mpsc::Receiver<ServerNotification>,
    queued_lists: Arc<AtomicU8>,
}

impl Inbox {
    /// The next notification to write; a list change taken here may be
    /// queued again by the next change of its kind.
    pub(crate) async fn recv(&mut self) -> Option<ServerNotification> {
        let notification = self.receiver.recv().await?;
        if let Some(bit) = list_bit(&notification) {
            self.queued_lists.fetch_and(!bit, Ordering::AcqRel);
        }
        Some(notification)
    }
}

/// The bit of a list change's kind (tools, prompts, resources), `None` for
/// any other notification.
fn list_bit(notification: &ServerNotification) -> Option<u8> {
    match notification {
        ServerNotification::ToolListChangedNotification(_) => Some(1),
        ServerNotification::PromptListChangedNotification(_) => Some(2),
        ServerNotification::ResourceListChangedNotification(_) => Some(4),
        _ => None,
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
    use rmcp::model::{
        ResourceUpdatedNotification, ResourceUpdatedNotificationParam, ToolListChangedNotification,
    };

    const OWNER: &str = "subject:ada";

    fn tools_changed() -> ServerNotification {
        ServerNotification::ToolListChangedNotification(ToolListChangedNotification::default())
    }

    fn updated(uri: &str) -> ServerNotification {
        ServerNotification::ResourceUpdatedNotification(ResourceUpdatedNotification::new(
            ResourceUpdatedNotificationParam::new(uri),
        ))
    }

    /// A filter asking for tool list changes and updates of `memo://a`.
    fn filter() -> SubscriptionFilter {
        let mut filter = SubscriptionFilter::default();
        filter.tools_list_changed = Some(true);
        filter.resource_subscriptions = Some(vec![String::from("memo://a")]);
        filter
    }

    #[tokio::test]
    async fn a_stream_that_falls_behind_is_closed_without_waiting() {
        let (listener, mut queue) =
            Listener::new("7".into(), filter(), HashSet::new(), HashSet::new(), OWNER);
        for _ in 0..LISTEN_QUEUE {
            assert!(listener.tell(updated("memo://a"), None));
        }
        assert!(!listener.behind.is_cancelled());
        assert!(
            !listener.tell(updated("memo://a"), None),
            "one past the queue is not queued"
        );
        assert!(listener.behind.is_cancelled());
        listener.fell_behind().await;
        assert!(queue.recv().await.is_some());
        assert!(
            !listener.tell(tools_changed(), None),
            "a closed stream takes no more"
        );
    }

    #[tokio::test]
    async fn a_burst_of_list_changes_is_queued_once_until_taken() {
        let (listener, mut queue) =
            Listener::new("7".into(), filter(), HashSet::new(), HashSet::new(), OWNER);
        for _ in 0..10 * LISTEN_QUEUE {
            assert!(listener.tell(tools_changed(), None));
        }
        assert!(listener.tell(updated("memo://a"), None));
        assert!(!listener.behind.is_cancelled());
        let json = |n: Option<ServerNotification>| serde_json::to_value(n).unwrap();
        assert_eq!(json(queue.recv().await), json(Some(tools_changed())));
        assert_eq!(json(queue.recv().await), json(Some(updated("memo://a"))));
        // Taken: the next change is queued again.
        assert!(listener.tell(tools_changed(), None));
        assert_eq!(json(queue.recv().await), json(Some(tools_changed())));
    }

    fn status_of(task_id: &str) -> ServerNotification {
        use rmcp::model::{
            DetailedTask, Task, TaskPayload, TaskStatus, TaskStatusNotification,
            TaskStatusNotificationParams,
        };
        let task = Task::new(task_id, TaskStatus::Working, "t", "t");
        ServerNotification::TaskStatusNotification(TaskStatusNotification::new(
            TaskStatusNotificationParams::from(DetailedTask::new(task, TaskPayload::Working)),
        ))
    }

    #[test]
    fn a_task_status_is_queued_only_for_the_owner_of_the_task() {
        let named = HashSet::from([String::from("t1")]);
        let (listener, _queue) = Listener::new("7".into(), filter(), HashSet::new(), named, OWNER);
        assert!(!listener.tell(status_of("t1"), Some("subject:bob")));
        assert!(!listener.tell(status_of("t1"), None), "no owner: not told");
        assert!(!listener.tell(status_of("t2"), Some(OWNER)), "not named");
        assert!(listener.tell(status_of("t1"), Some(OWNER)));
    }

    #[test]
    fn what_the_filter_did_not_accept_is_not_queued() {
        let (listener, _queue) = Listener::new(
            "7".into(),
            SubscriptionFilter::default(),
            HashSet::new(),
            HashSet::new(),
            OWNER,
        );
        assert!(!listener.tell(tools_changed(), None));
    }
}
