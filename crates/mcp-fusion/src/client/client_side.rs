//! The client's side of a connection as rmcp serves it: what it says
//! about itself, how it answers the server's requests (elicitation,
//! sampling, roots), and the notifications it hands on.

// Sampling and roots, deprecated by SEP-2577 (2026-07-28) in rmcp's types,
// are still client features of both revisions: the client answers them.
#![allow(deprecated)]

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, ListRootsResult,
    RootsCapabilities, SamplingCapability, ServerNotification, ServerRequest,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, Service};

use super::features::{ElicitationHandler, Roots, SamplingHandler};
use super::options::{ClientOptions, ToolsChangedHook};
use super::response_cache::Cached;

/// How many server notifications a receiver of
/// [`FusionClient::notifications`](super::FusionClient::notifications) may fall behind before it loses the
/// oldest (it then gets `RecvError::Lagged` with how many it lost).
pub const NOTIFICATION_BUFFER: usize = 256;

/// The client's side of the connection as rmcp serves it: the
/// [`ClientSide`] handler, with every notification also handed to the
/// receivers of [`FusionClient::notifications`](super::FusionClient::notifications).
pub(super) struct Observed {
    side: ClientSide,
    pub(super) notifications: tokio::sync::broadcast::Sender<ServerNotification>,
    /// The shared response cache, whose entries a change drops (rmcp's own
    /// cache drops its entries itself).
    pub(super) cached: Cached,
}

impl Observed {
    /// The client side of a connection to `server` (the target as
    /// displayed) with `options`.
    pub(super) fn new(options: &ClientOptions, server: &str) -> Self {
        Observed {
            cached: Cached::new(&options.response_cache, server),
            side: ClientSide {
                config: client_info(options),
                on_tools_changed: options.on_tools_changed.clone(),
                elicitation: options.elicitation.clone(),
                sampling: options.sampling.clone(),
                roots: options.roots.clone(),
            },
            notifications: tokio::sync::broadcast::channel(NOTIFICATION_BUFFER).0,
        }
    }
}

impl Service<RoleClient> for Observed {
    async fn handle_request(
        &self,
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        Service::handle_request(&self.side, request, context).await
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        context: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        // What the notification says changed is dropped first, so that a
        // receiver that lists again at once is not answered from the cache.
        self.cached.drop_changed(&notification).await;
        // No receiver is not a failure: nobody is listening.
        let _ = self.notifications.send(notification.clone());
        Service::handle_notification(&self.side, notification, context).await
    }

    fn get_info(&self) -> ClientConfig {
        ClientHandler::get_info(&self.side)
    }
}

/// The client's side of the connection: its handshake info, and what it
/// does on the server's notifications.
pub(super) struct ClientSide {
    config: ClientConfig,
    on_tools_changed: Option<ToolsChangedHook>,
    elicitation: Option<ElicitationHandler>,
    sampling: Option<SamplingHandler>,
    roots: Option<Roots>,
}

impl ClientHandler for ClientSide {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(hook) = &self.on_tools_changed {
            (hook.0)();
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match &self.elicitation {
            Some(handler) => Ok(handler.answer(request).await),
            // Not declared; a server asking anyway is told no.
            None => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        match &self.sampling {
            Some(handler) => handler.answer(request).await,
            None => Err(ErrorData::method_not_found::<
                rmcp::model::CreateMessageRequestMethod,
            >()),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        match &self.roots {
            Some(roots) => Ok(ListRootsResult::new(roots.as_ref().clone())),
            None => Err(ErrorData::method_not_found::<
                rmcp::model::ListRootsRequestMethod,
            >()),
        }
    }
}

/// What the client says about itself: in the 2025-11-25 handshake, and on
/// 2026-07-28 in every request's `_meta` (`clientInfo`,
/// `clientCapabilities`): a capability for each client feature it has a
/// handler for.
fn client_info(options: &ClientOptions) -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    if options.elicitation.is_some() {
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::new());
        elicitation.url = Some(UrlElicitationCapability::new());
        capabilities.elicitation = Some(elicitation);
    }
    if options.sampling.is_some() {
        capabilities.sampling = Some(SamplingCapability::default());
    }
    if options.roots.is_some() {
        capabilities.roots = Some(RootsCapabilities::default());
    }
    let mut config = ClientConfig::new(
        capabilities,
        Implementation::new("mcp-fusion", env!("CARGO_PKG_VERSION")),
    );
    // The version `initialize` asks for (rmcp's default is its newest).
    config.protocol_version = options.protocol.handshake_version();
    config
}
