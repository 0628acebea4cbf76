//! A client connected to a server in the same process, with no process and
//! no port: [`FusionServer::connect_in_memory`], for tests.

use futures::FutureExt;

use super::options::StdioOptions;
use crate::client::{ClientOptions, FusionClient, FusionClientError};
use crate::pipeline::panic_text;
use crate::server::FusionServer;

/// The bytes each direction of the in-memory pipe holds before the writer
/// waits for the reader: 64 KiB (a longer message passes in pieces).
const PIPE_BYTES: usize = 64 * 1024;

impl FusionServer {
    /// Connects a [`FusionClient`] to this server through an in-memory pipe:
    /// a new connection of the server (its own session, as a new stdio
    /// client would have), served by a task of the current tokio runtime
    /// exactly as [`serve_streams`](Self::serve_streams) serves a stdio
    /// client, and the client's MCP handshake done (`initialize`, or
    /// `server/discover` per [`ClientOptions::protocol`]). Every MCP message
    /// goes over the pipe as JSON, as it would over stdio: lists, calls,
    /// prompts, resources, completion, the server's notifications (read them
    /// with [`FusionClient::notifications`]) and its requests to the client
    /// (answered by [`ClientOptions::elicitation`],
    /// [`ClientOptions::sampling`] and [`ClientOptions::roots`]). The
    /// server's tools, prompts and resources may change while the client is
    /// connected ([`add_tool`](Self::add_tool), …), and the client is told.
    ///
    /// For tests: the whole protocol path of a server, as FastMCP's
    /// `Client(server)`. [`call`](Self::call) is the tool path alone.
    ///
    /// The server task ends when the client closes: [`FusionClient::close`]
    /// returns once it has; dropping the client ends it in the background.
    /// If the server task fails or panics, the client's requests fail with
    /// [`FusionClientError::Transport`] (`the server stopped: …`), never wait
    /// forever. Connection settings of other transports (`stderr`, `bearer`,
    /// `oauth`) are ignored; the server sees no HTTP request (no bearer
    /// token: a capability that requires credentials answers
    /// `AUTH_REQUIRED`, as over stdio).
    ///
    /// # Errors
    /// [`FusionClientError::Connect`] (target `in-memory server NAME`) when
    /// the handshake fails or takes longer than
    /// [`ClientOptions::connect_timeout`]. Must be called within a tokio
    /// runtime (it spawns the server's task; panics otherwise, as
    /// `tokio::spawn` does).
    pub async fn connect_in_memory(
        &self,
        options: ClientOptions,
    ) -> Result<FusionClient, FusionClientError> {
        let (client_io, server_io) = tokio::io::duplex(PIPE_BYTES);
        let (read, write) = tokio::io::split(server_io);
        let serving = tokio::spawn(self.clone().serve_streams(
            read,
            write,
            StdioOptions::default(),
            std::future::pending(),
        ));
        let end = async move {
            match serving.await {
                Ok(Ok(())) => None,
                Ok(Err(error)) => Some(error.to_string()),
                Err(join) => Some(match join.try_into_panic() {
                    Ok(panic) => format!("it panicked: {}", panic_text(panic.as_ref())),
                    Err(join) => join.to_string(),
                }),
            }
        }
        .boxed()
        .shared();
        let target = format!("in-memory server {}", self.inner.identity.name);
        FusionClient::connect_in_process(client_io, target, options, end).await
    }
}
