//! `floor`: the bench tool `get_invoice` on bare rmcp (see
//! `load_bench::floor`), the floor that `benches/load/compare.sh` measures
//! the other servers against.
//!
//! `floor` serves newline-delimited JSON-RPC on stdin/stdout through rmcp's
//! non-blocking `stdio_pipes()` and exits at the end of stdin;
//! `floor --http PORT` serves rmcp's Streamable HTTP server (sessions, its
//! default settings) with axum at `http://127.0.0.1:PORT/mcp`, `TCP_NODELAY`
//! on each connection, until Ctrl-C or SIGTERM.
//! Runs on tokio's default multi-thread runtime, as a typical rmcp server
//! does. Exit codes: 0 at the end of stdin or after a signal; 1 when
//! serving fails (the port cannot be bound); 2 for invalid arguments.

use std::process::ExitCode;
use std::sync::Arc;

use axum::serve::ListenerExt;
use clap::Parser;
use load_bench::floor::Floor;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// The floor server: get_invoice on bare rmcp, three hand-written checks.
#[derive(Parser)]
#[command(name = "floor", version)]
struct Args {
    /// Serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio.
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let served = match args.http {
        None => serve_stdio().await,
        Some(port) => serve_http(port).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("floor: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio() -> Result<(), String> {
    let service = Floor::new()
        .serve(rmcp::transport::stdio_pipes())
        .await
        .map_err(|error| format!("the handshake failed: {error}"))?;
    service
        .waiting()
        .await
        .map(drop)
        .map_err(|error| format!("serving stdio failed: {error}"))
}

async fn serve_http(port: u16) -> Result<(), String> {
    let service = StreamableHttpService::new(
        || Ok(Floor::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    // TCP_NODELAY on every connection, as axum's documentation shows: an SSE
    // answer goes out in several small writes, which Nagle's algorithm would
    // hold until the client's delayed ACK (up to 40 ms each).
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|error| format!("cannot listen on 127.0.0.1:{port}: {error}"))?
        .tap_io(|stream| {
            // Best effort: a connection without it is only slower.
            let _ = stream.set_nodelay(true);
        });
    eprintln!("floor: http://127.0.0.1:{port}/mcp");
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await
        .map_err(|error| format!("serving HTTP failed: {error}"))
}

/// Ctrl-C or SIGTERM.
async fn shutdown() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async {
            match term.as_mut() {
                Some(term) => { term.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => {}
    }
}
