//! A client connected to a server in the same process, with no process and
//! no port: [`FusionServer::connect_in_memory`], for tests.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::FutureExt;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::error::ServeError;
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
    /// ```
    /// use mcp_fusion::{Action, ClientOptions, FusionServer, ToolError};
    ///
    /// async fn ping() -> Result<&'static str, ToolError> {
    ///     Ok("pong")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = FusionServer::builder("demo", "1.0.0")
    ///     .tool(Action::new("ping", ping))
    ///     .build()?;
    /// let client = server.connect_in_memory(ClientOptions::default()).await?;
    /// let answer = client.call_checked("ping", serde_json::Value::Null).await?;
    /// assert_eq!(answer.text(), "pong");
    /// client.close().await;
    /// # Ok(())
    /// # }
    /// ```
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
        let gone = CancellationToken::new();
        let serving = tokio::spawn(self.clone().serve_until(
            read,
            write,
            StdioOptions::default(),
            std::future::pending(),
            gone.clone().cancelled_owned(),
        ));
        let client_io = ClientEnd {
            io: client_io,
            _gone: gone.drop_guard(),
        };
        let target = format!("in-memory server {}", self.inner.identity.name);
        connect_to(serving, client_io, target, options).await
    }
}

/// The client's end of the in-memory pipe, which tells the server that the
/// client went away when it drops (the client closed or was dropped): the
/// calls still running are cancelled then, at once.
struct ClientEnd {
    io: DuplexStream,
    _gone: DropGuard,
}

impl AsyncRead for ClientEnd {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for ClientEnd {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The client's side of [`FusionServer::connect_in_memory`]: the handshake
/// over `client_io` with the server that `serving` runs on its other end.
async fn connect_to(
    serving: JoinHandle<Result<(), ServeError>>,
    client_io: impl AsyncRead + AsyncWrite + Send + 'static,
    target: String,
    options: ClientOptions,
) -> Result<FusionClient, FusionClientError> {
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
    FusionClient::connect_in_process(client_io, target, options, end).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, ToolError};

    async fn wait() -> Result<&'static str, ToolError> {
        std::future::pending().await
    }

    /// The serving task of `server` on `server_io`, which panics with
    /// "the serving task failed" when `fail` is sent (or dropped). The
    /// server itself runs on an inner pipe the task relays to `server_io`:
    /// the panic drops the client's end at once, with no last answer.
    fn failing_server(
        server: FusionServer,
        mut server_io: DuplexStream,
        fail: tokio::sync::oneshot::Receiver<()>,
    ) -> JoinHandle<Result<(), ServeError>> {
        let (mut relay_io, inner_io) = tokio::io::duplex(PIPE_BYTES);
        let (read, write) = tokio::io::split(inner_io);
        tokio::spawn(server.serve_streams(
            read,
            write,
            StdioOptions::default(),
            std::future::pending(),
        ));
        tokio::spawn(async move {
            tokio::select! {
                relayed = tokio::io::copy_bidirectional(&mut server_io, &mut relay_io) => {
                    relayed.map(|_| ()).map_err(|e| ServeError::Transport(Box::new(e)))
                }
                _ = fail => panic!("the serving task failed"),
            }
        })
    }

    fn server() -> FusionServer {
        FusionServer::builder("failing", "1.0.0")
            .tool(Action::new("wait", wait))
            .build()
            .expect("the server builds")
    }

    #[tokio::test]
    async fn a_call_in_flight_when_the_server_panics_fails_with_the_panic() {
        let (client_io, server_io) = tokio::io::duplex(PIPE_BYTES);
        let (fail, failed) = tokio::sync::oneshot::channel();
        let serving = failing_server(server(), server_io, failed);
        let client = connect_to(serving, client_io, "test".into(), ClientOptions::default())
            .await
            .expect("the handshake succeeds");
        let call = client.call("wait", serde_json::Value::Null);
        tokio::pin!(call);
        // The call is on its way (the server answers the ping after reading it).
        tokio::select! {
            biased;
            _ = &mut call => panic!("`wait` never answers"),
            pinged = client.ping() => pinged.expect("the server answers the ping"),
        }
        fail.send(()).expect("the serving task waits");
        let error = call.await.expect_err("the connection closed");
        assert_eq!(
            error.to_string(),
            "transport error: the server stopped: it panicked: the serving task failed"
        );
        assert!(client.is_closed());
    }

    #[tokio::test]
    async fn a_server_that_panics_before_the_handshake_fails_the_connection() {
        let (client_io, server_io) = tokio::io::duplex(PIPE_BYTES);
        let (fail, failed) = tokio::sync::oneshot::channel();
        drop(fail);
        let serving = failing_server(server(), server_io, failed);
        let error = connect_to(
            serving,
            client_io,
            "in-memory server failing".into(),
            ClientOptions::default(),
        )
        .await
        .expect_err("no handshake");
        assert_eq!(
            error.to_string(),
            "could not connect to in-memory server failing: the server stopped: it panicked: the serving task failed"
        );
    }
}
