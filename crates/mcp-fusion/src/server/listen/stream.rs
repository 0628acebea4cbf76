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
//! `notify_resource_updated`, …), through a queue the server never waits on
//! ([`super::listener`]): a stream whose client stops reading is closed.
//!
//! Bounds: a listen request's id (repeated in every notification of its
//! stream as the subscription id) may be at most [`MAX_LISTEN_ID_BYTES`]
//! bytes of JSON, and its `resourceSubscriptions` at most
//! [`MAX_SUBSCRIPTIONS`] URIs (duplicates are taken once); past either the
//! request gets `-32602` ([`listen_refusal`]).
//!
//! A stream is also told the status changes of its tasks
//! (`notifications/tasks`, to the streams whose `taskIds` name the task and
//! whose caller created it, the Tasks extension's SEP-2663 and "Auth
//! binding"; see [`super::task_ids`]); rmcp's sink
//! refuses those, so they go through the connection's peer, tagged with
//! the subscription id as the sink tags the others.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::{
    ErrorCode, GetMeta, RequestId, ServerNotification, SubscriptionFilter,
    SubscriptionsListenRequestParams,
};
use rmcp::service::SubscriptionContext;

use super::listener::{LISTEN_QUEUE, Listener};
use crate::handler::Capability;
use crate::server::Connection;
use crate::server::session::{MAX_SUBSCRIPTIONS, Session};

/// The longest JSON-RPC id a `subscriptions/listen` request may carry, in
/// bytes of its JSON text (`"abc"` is 5): every notification of the stream
/// repeats it as `_meta["io.modelcontextprotocol/subscriptionId"]`.
pub const MAX_LISTEN_ID_BYTES: usize = 256;

/// `-32602` (JSON-RPC 2.0 §5.1) for a `subscriptions/listen` request whose
/// id is longer than [`MAX_LISTEN_ID_BYTES`] or whose `resourceSubscriptions`
/// names more than [`MAX_SUBSCRIPTIONS`] URIs (duplicates counted); `None`
/// for one within both.
pub(crate) fn listen_refusal(
    id: &RequestId,
    params: &SubscriptionsListenRequestParams,
) -> Option<rmcp::ErrorData> {
    let id_bytes = serde_json::to_string(id).map_or(0, |text| text.len());
    let reason = if id_bytes > MAX_LISTEN_ID_BYTES {
        format!(
            "the request id is {id_bytes} bytes of JSON; a listen request's id, repeated in every notification of its stream, may be at most {MAX_LISTEN_ID_BYTES} bytes"
        )
    } else {
        let uris = params
            .notifications
            .resource_subscriptions
            .as_ref()
            .map_or(0, Vec::len);
        if uris <= MAX_SUBSCRIPTIONS {
            return None;
        }
        format!(
            "notifications.resourceSubscriptions names {uris} URIs; at most {MAX_SUBSCRIPTIONS} may be listened to on one stream"
        )
    };
    Some(rmcp::ErrorData::invalid_params(
        format!("Invalid params for subscriptions/listen: {reason}"),
        None,
    ))
}

/// `filter` with each resource URI once (the first time it is named), or
/// `None` when it names none twice. Used by the HTTP edge.
#[cfg(feature = "http")]
pub(crate) fn deduplicated(filter: &SubscriptionFilter) -> Option<SubscriptionFilter> {
    let uris = filter.resource_subscriptions.as_ref()?;
    let mut seen = HashSet::with_capacity(uris.len());
    let unique: Vec<String> = uris
        .iter()
        .filter(|uri| seen.insert(uri.as_str()))
        .cloned()
        .collect();
    if unique.len() == uris.len() {
        return None;
    }
    let mut filter = filter.clone();
    filter.resource_subscriptions = Some(unique);
    Some(filter)
}

/// `filter` without the resource URIs the caller with `principal` (`None`:
/// no credentials) may not subscribe to: those of a resource whose auth
/// rule refuses it (`AUTH_REQUIRED` or `FORBIDDEN`, as `resources/read`
/// and `resources/subscribe` answer), so that the acknowledgement never
/// lists them; `None` when it leaves none out. A URI naming no resource is
/// left to [`accepted`]. Used by the HTTP edge, which knows the principal
/// before rmcp acknowledges.
#[cfg(feature = "http")]
pub(crate) fn subscribable(
    server: &crate::FusionServer,
    filter: &SubscriptionFilter,
    principal: Option<&crate::handler::Principal>,
) -> Option<SubscriptionFilter> {
    let uris = filter.resource_subscriptions.as_ref()?;
    let catalog = server.catalog();
    let kept: Vec<String> = uris
        .iter()
        .filter(|uri| match catalog.resolve(uri) {
            Some(Ok(resolved)) => resolved.callable().visibility.auth.admits(principal),
            _ => true,
        })
        .cloned()
        .collect();
    if kept.len() == uris.len() {
        return None;
    }
    let mut filter = filter.clone();
    filter.resource_subscriptions = Some(kept);
    Some(filter)
}

/// Of `requested`, what this server accepts: every list kind (rmcp keeps
/// those the server advertises), and the resource URIs of `connection`'s
/// server that name a resource or match a template whose arguments type
/// takes their variables, at most
/// [`MAX_SUBSCRIPTIONS`] of them, each once. The connection notes the stream as being
/// opened: rmcp acknowledges it before [`serve`] registers
/// it, and a change made in between is kept for it.
pub(crate) fn accepted(
    connection: &Connection,
    requested: &SubscriptionFilter,
) -> SubscriptionFilter {
    let catalog = connection.server.catalog();
    let mut seen = HashSet::new();
    let resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|uri| seen.insert(uri.as_str()))
            .filter(|uri| {
                catalog
                    .resolve(uri)
                    .is_some_and(|resolved| resolved.is_ok_and(|r| r.check_variables(uri).is_ok()))
            })
            .take(MAX_SUBSCRIPTIONS)
            .cloned()
            .collect::<Vec<_>>()
    });
    let mut accepted = requested.clone();
    accepted.resource_subscriptions = resource_subscriptions;
    connection.session.listen_opening(requested, &accepted);
    accepted
}

/// Serves one acknowledged `subscriptions/listen` stream until the client
/// closes it (or cancels it): registered with the connection's session,
/// told of every change the server makes meanwhile, through a queue of
/// [`LISTEN_QUEUE`] notifications, and of the status of the tasks of
/// `task_ids` (those its caller, the task owner `owner`, created).
///
/// # Errors
/// `-32602` for a request past the bounds of [`listen_refusal`] (the
/// HTTP edge refuses those before they are acknowledged); `-32000` when
/// the stream fell behind (its client left [`LISTEN_QUEUE`]
/// notifications unread) and was closed.
pub(crate) async fn serve(
    connection: &Connection,
    subscription: SubscriptionContext,
    task_ids: HashSet<String>,
    owner: &str,
) -> Result<(), rmcp::ErrorData> {
    let context = subscription.request_context();
    let requested = SubscriptionsListenRequestParams::new(subscription.requested().clone());
    if let Some(refused) = listen_refusal(&context.id, &requested) {
        connection.session.listen_refused(subscription.requested());
        return Err(refused);
    }
    // Records the caller of the stream, for changes told to one caller
    // only (`notify_tool_list_changed_for`).
    let _ = connection.origin(context);
    let catalog = connection.server.catalog();
    let hidden = subscription
        .accepted()
        .resource_subscriptions
        .iter()
        .flatten()
        .filter(|uri| match catalog.resolve(uri) {
            Some(Ok(resolved)) => {
                let ctx = connection.surface_context(Capability::Resource, uri, context, None);
                resolved.callable().visibility.auth.refusal(&ctx).is_some()
            }
            _ => true,
        })
        .cloned()
        .collect();
    let sink = subscription.sink().clone();
    let peer = context.peer.clone();
    let (listener, mut queue) = Listener::new(
        sink.id().to_string(),
        sink.accepted().clone(),
        hidden,
        task_ids,
        owner,
    );
    for (missed, task_owner) in connection
        .session
        .add_listener(listener.clone(), subscription.requested())
    {
        listener.tell(missed, task_owner.as_deref());
    }
    let drain = async {
        while let Some(mut notification) = queue.recv().await {
            let sent = if matches!(notification, ServerNotification::TaskStatusNotification(_)) {
                notification
                    .get_meta_mut()
                    .set_subscription_id(sink.id().clone());
                peer.send_notification(notification).await.is_ok()
            } else {
                sink.send(notification).await.is_ok()
            };
            if !sent {
                break;
            }
        }
        // The stream is closed: wait for rmcp to end the request.
        std::future::pending::<()>().await;
    };
    let outcome = tokio::select! {
        () = subscription.cancelled() => Ok(()),
        () = drain => Ok(()),
        () = listener.fell_behind() => Err(rmcp::ErrorData::new(
            ErrorCode(-32000),
            format!(
                "subscriptions/listen stream closed: its client left {LISTEN_QUEUE} notifications unread; open a new stream and list again"
            ),
            None,
        )),
    };
    connection.session.remove_listener(listener.id());
    outcome
}

/// Sends the notification `make` builds to every open listen stream of
/// `sessions` (those whose last request came from `caller`, when given)
/// whose filter accepts it, without waiting on any client (a stream that
/// fell behind is closed instead); how many were told, counting a stream
/// being opened that asks for it (it is kept for the stream, and sent once
/// the stream is registered). A task's status comes with its task's owner
/// (`task_owner`, `tasks::owner_key`): only that owner's streams are told.
pub(crate) async fn tell_listeners(
    sessions: &[Arc<Session>],
    caller: Option<&str>,
    task_owner: Option<&str>,
    make: impl Fn() -> ServerNotification,
) -> usize {
    let mut told = 0;
    for session in sessions {
        if caller.is_some_and(|c| !session.is_caller(c)) {
            continue;
        }
        let notification = make();
        let (open, kept) = session.listeners_for(&notification, task_owner);
        told += kept;
        for listener in open {
            if listener.tell(notification.clone(), task_owner) {
                told += 1;
            }
        }
    }
    told
}
