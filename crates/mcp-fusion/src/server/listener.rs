//! [`Listener`]: one open `subscriptions/listen` stream (MCP 2026-07-28,
//! basic/patterns/subscriptions) as a session holds it; opened and told by
//! [`super::listen`].

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::ServerNotification;
use rmcp::service::SubscriptionSink;

/// One open `subscriptions/listen` stream.
#[derive(Debug, Clone)]
pub(crate) struct Listener {
    /// rmcp's sink: the accepted filter, the subscription id, the stream.
    sink: SubscriptionSink,
    /// Accepted resource URIs the caller may not read (a resource whose
    /// guard refuses it): never told of, as `resources/subscribe` refuses
    /// them on 2025-11-25.
    hidden: Arc<HashSet<String>>,
}

impl Listener {
    /// The stream of `sink`, never told of updates to the URIs of `hidden`.
    pub(crate) fn new(sink: SubscriptionSink, hidden: HashSet<String>) -> Self {
        Listener {
            sink,
            hidden: Arc::new(hidden),
        }
    }

    /// The subscription id (the listen request's JSON-RPC id), as text.
    pub(crate) fn id(&self) -> String {
        self.sink.id().to_string()
    }

    /// Sends `notification` when the accepted filter asks for it; whether
    /// it was sent. The sink refuses what was not accepted.
    pub(crate) async fn tell(&self, notification: ServerNotification) -> bool {
        if let ServerNotification::ResourceUpdatedNotification(update) = &notification
            && self.hidden.contains(&update.params.uri)
        {
            return false;
        }
        self.sink.send(notification).await.is_ok()
    }
}
