//! [`Listener`]: one open `subscriptions/listen` stream (MCP 2026-07-28,
//! basic/patterns/subscriptions) as a session holds it; opened and told by
//! [`super::listen`].

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::Peer;
use rmcp::model::{GetMeta, ServerNotification};
use rmcp::service::{RoleServer, SubscriptionSink};

/// One open `subscriptions/listen` stream.
#[derive(Debug, Clone)]
pub(crate) struct Listener {
    /// rmcp's sink: the accepted filter, the subscription id, the stream.
    sink: SubscriptionSink,
    /// Accepted resource URIs the caller may not read (a resource whose
    /// guard refuses it): never told of, as `resources/subscribe` refuses
    /// them on 2025-11-25.
    hidden: Arc<HashSet<String>>,
    /// The tasks whose `notifications/tasks` it asked for (its `taskIds`,
    /// SEP-2663), and the peer they are sent through: rmcp's sink does not
    /// carry them (its filter has no `taskIds`).
    task_ids: Arc<HashSet<String>>,
    peer: Peer<RoleServer>,
}

impl Listener {
    /// The stream of `sink` (whose request came through `peer`), never
    /// told of updates to the URIs of `hidden`, told of the status of the
    /// tasks of `task_ids`.
    pub(crate) fn new(
        sink: SubscriptionSink,
        peer: Peer<RoleServer>,
        hidden: HashSet<String>,
        task_ids: HashSet<String>,
    ) -> Self {
        Listener {
            sink,
            hidden: Arc::new(hidden),
            task_ids: Arc::new(task_ids),
            peer,
        }
    }

    /// The subscription id (the listen request's JSON-RPC id), as text.
    pub(crate) fn id(&self) -> String {
        self.sink.id().to_string()
    }

    /// Sends `notification` when the accepted filter asks for it; whether
    /// it was sent. The sink refuses what was not accepted; a
    /// `notifications/tasks` goes when its task is one of the stream's
    /// `taskIds`, tagged with the subscription id as the sink tags the
    /// others.
    pub(crate) async fn tell(&self, notification: ServerNotification) -> bool {
        if let ServerNotification::TaskStatusNotification(status) = &notification {
            if !self.task_ids.contains(&status.params.task.task.task_id) {
                return false;
            }
            let mut notification = notification;
            notification
                .get_meta_mut()
                .set_subscription_id(self.sink.id().clone());
            return self.peer.send_notification(notification).await.is_ok();
        }
        if let ServerNotification::ResourceUpdatedNotification(update) = &notification
            && self.hidden.contains(&update.params.uri)
        {
            return false;
        }
        self.sink.send(notification).await.is_ok()
    }
}
