//! Tools served beside the registry whose list depends on the caller: a
//! gateway's mounted upstream servers (`crate::gateway`). The server asks
//! the [`MountedTools`] for the caller's extra tools on `tools/list`, and
//! sends a call of a name no tool of its own has, and the mount claims,
//! through the mount's forwarding action: the server's layers and guards,
//! then the action's handler, which forwards it.

use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use rmcp::model::Tool;
use serde_json::{Map, Value};

use super::dispatch::CallRequest;
use super::session::Connections;
use crate::capability::Registry;

/// The argument of the forwarding action that holds the tool's name.
pub(crate) const FORWARD_TOOL_ARG: &str = "tool";
/// The argument of the forwarding action that holds the call's arguments.
pub(crate) const FORWARD_ARGUMENTS_ARG: &str = "arguments";

/// What a server mounts beside its own tools.
pub(crate) trait MountedTools: Send + Sync + 'static {
    /// Called once, when the server is built: how to tell callers that
    /// their tools list changed.
    fn attach(&self, changed: ToolsChanged);
    /// The tools `caller` ([`crate::CallContext::caller`]) sees besides the
    /// server's own, in order.
    fn tools<'a>(&'a self, caller: &'a str) -> BoxFuture<'a, Vec<Tool>>;
    /// Whether a call of `name`, which is no tool of the server's own, is
    /// the mount's to answer.
    fn claims(&self, name: &str) -> bool;
}

/// A mount as the built server holds it.
pub(crate) struct Mount {
    pub hook: Arc<dyn MountedTools>,
    /// The forwarding action alone, built like every action (layers, guards,
    /// validation), never listed.
    pub registry: Registry,
    /// Its tool name.
    pub forward: String,
}

impl Mount {
    /// `request`, addressed to the forwarding action: its arguments are
    /// `{"tool": <name>, "arguments": <arguments or {}>}`.
    pub(crate) fn rewrite(&self, mut request: CallRequest) -> CallRequest {
        let mut arguments = Map::new();
        let called = std::mem::replace(&mut request.name, self.forward.clone());
        arguments.insert(FORWARD_TOOL_ARG.to_owned(), Value::String(called.clone()));
        arguments.insert(
            FORWARD_ARGUMENTS_ARG.to_owned(),
            Value::Object(request.arguments.take().unwrap_or_default()),
        );
        request.called = Some(called);
        request.arguments = Some(arguments);
        request
    }
}

/// Sends `notifications/tools/list_changed` to a caller's connections, or
/// to every connection. Holds the server weakly: after the server is gone,
/// it does nothing.
#[derive(Clone)]
#[cfg_attr(not(feature = "gateway"), allow(dead_code))]
pub(crate) struct ToolsChanged {
    pub(super) connections: Weak<Connections>,
}

impl std::fmt::Debug for ToolsChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolsChanged").finish_non_exhaustive()
    }
}

#[cfg_attr(not(feature = "gateway"), allow(dead_code))]
impl ToolsChanged {
    /// Tells the connections of `caller` (every connection when `None`)
    /// that their tools list changed; returns how many were told.
    pub(crate) async fn notify(&self, caller: Option<&str>) -> usize {
        let Some(connections) = self.connections.upgrade() else {
            return 0;
        };
        let mut told = 0;
        for session in connections.live() {
            if caller.is_some_and(|c| !session.is_caller(c)) {
                continue;
            }
            let Some(peer) = session.peer() else { continue };
            if peer.notify_tool_list_changed().await.is_ok() {
                told += 1;
            }
        }
        told
    }
}
