//! `subscriptions/listen` (MCP 2026-07-28, basic/patterns/subscriptions,
//! SEP-2575): the stream a stateless client opens to hear of list changes
//! and resource updates, in place of 2025-11-25's session stream and
//! `resources/subscribe`.
//!
//! rmcp runs the protocol: it intersects the client's filter with what the
//! server accepts ([`accepted`]) and advertises, sends
//! `notifications/subscriptions/acknowledged` first, and its sink tags every
//! notification with `_meta["io.modelcontextprotocol/subscriptionId"]` (the
//! listen request's id) and refuses kinds outside the accepted filter. This
//! module keeps each open stream as a [`Listener`] of its connection's
//! session until the client closes it, and delivers to it on the one path
//! the server tells 2025-11-25 sessions by (`FusionServer::add_tool`,
//! `notify_resource_updated`, …), and the status changes of its tasks
//! (`notifications/tasks`, to the streams whose `taskIds` name the task,
//! the Tasks extension's SEP-2663; see [`super::task_listen`]).

use std::sync::Arc;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::SubscriptionContext;

use super::Connection;
use super::listener::Listener;
use super::session::{MAX_SUBSCRIPTIONS, Session};
use super::task_listen::task_ids_of;
use crate::handler::Capability;

/// Of `requested`, what this server accepts: every list kind (rmcp keeps
/// those the server advertises), and the resource URIs of `connection`'s
/// server that name a resource or match a template, at most
/// [`MAX_SUBSCRIPTIONS`] of them. The connection notes the stream as being
/// opened: rmcp acknowledges it before [`Connection::listen_now`] registers
/// it, and a change made in between is kept for it.
pub(crate) fn accepted(
    connection: &Connection,
    requested: &SubscriptionFilter,
) -> SubscriptionFilter {
    connection.session.listen_opening();
    let catalog = connection.server.catalog();
    let resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|uri| matches!(catalog.resolve(uri), Some(Ok(_))))
            .take(MAX_SUBSCRIPTIONS)
            .cloned()
            .collect::<Vec<_>>()
    });
    let mut accepted = requested.clone();
    accepted.resource_subscriptions = resource_subscriptions;
    accepted
}

impl Connection {
    /// Serves one acknowledged `subscriptions/listen` stream until the client
    /// closes it (or cancels it): registered with the connection's session,
    /// told of every change the server makes meanwhile.
    pub(super) async fn listen_now(&self, subscription: SubscriptionContext) {
        let context = subscription.request_context();
        // Records the caller of the stream, for changes told to one caller
        // only (`notify_tool_list_changed_for`).
        let _ = self.origin(context);
        let catalog = self.server.catalog();
        let hidden = subscription
            .accepted()
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| match catalog.resolve(uri) {
                Some(Ok(resolved)) => {
                    let ctx = self.surface_context(Capability::Resource, uri, context, None);
                    resolved.callable().visibility.auth.refusal(&ctx).is_some()
                }
                _ => true,
            })
            .cloned()
            .collect();
        let task_ids = task_ids_of(context).into_iter().collect();
        let listener = Listener::new(
            subscription.sink().clone(),
            context.peer.clone(),
            hidden,
            task_ids,
        );
        let id = listener.id();
        for missed in self.session.add_listener(listener.clone()) {
            listener.tell(missed).await;
        }
        subscription.cancelled().await;
        self.session.remove_listener(&id);
    }
}

/// Sends the notification `make` builds to every open listen stream of
/// `sessions` (those whose last request came from `caller`, when given)
/// whose filter accepts it; how many were told.
pub(crate) async fn tell_listeners(
    sessions: &[Arc<Session>],
    caller: Option<&str>,
    make: impl Fn() -> ServerNotification,
) -> usize {
    let mut told = 0;
    for session in sessions {
        if caller.is_some_and(|c| !session.is_caller(c)) {
            continue;
        }
        let notification = make();
        for listener in session.listeners_for(&notification) {
            if listener.tell(notification.clone()).await {
                told += 1;
            }
        }
    }
    told
}
