//! [`Connection`]: one client's connection to a [`FusionServer`] — a stdio
//! connection, or one Streamable HTTP session while its worker runs. It is
//! what rmcp serves (see `super::adapter`); users never hold one, so that
//! every way to serve goes through the connection set-up of
//! [`FusionServer::connection`].

use std::sync::Arc;

use super::FusionServer;
use super::session::Session;

/// One client connection: the shared server and this connection's session
/// (peer, log level, subscriptions).
#[derive(Clone)]
pub(crate) struct Connection {
    pub(crate) server: FusionServer,
    pub(crate) session: Arc<Session>,
}
