//! `fusion serve`: the billing example over Streamable HTTP (default) or stdio.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Options of `fusion serve`.
#[derive(Debug, Args)]
#[command(after_help = "The server logs to stderr (RUST_LOG sets the level, default info).\n\
Exit codes: 0 after a clean shutdown (Ctrl-C or SIGTERM, or end of stdin with --stdio),\n\
1 when the database cannot be opened or the port cannot be bound.")]
pub struct ServeArgs {
    /// Serve MCP over stdin/stdout instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// The address to listen on (HTTP only).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The port to listen on (HTTP only); the endpoint is http://HOST:PORT/mcp.
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The SQLite file of invoices; created and seeded when missing
    /// [default: $XDG_DATA_HOME/mcp-fusion/billing.db or ~/.local/share/mcp-fusion/billing.db].
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Put the internal text of INTERNAL_ERROR envelopes in their details
    /// (development only: internal texts can hold secrets).
    #[arg(long)]
    expose_internal_errors: bool,
}

/// Runs `fusion serve` until shutdown.
pub fn run(args: ServeArgs) -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("fusion serve: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("fusion serve: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: ServeArgs) -> Result<(), String> {
    let path = args.db.unwrap_or_else(billing_example::default_db_path);
    let existed = path.exists();
    let db = billing_example::Db::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let server = billing_example::builder(&db)
        .expose_internal_errors(args.expose_internal_errors)
        .build()
        .map_err(|e| e.to_string())?;
    let state = if existed { "opened" } else { "created and seeded" };
    eprintln!("fusion serve: billing example");
    eprintln!("  database: {} ({state})", path.display());
    if args.stdio {
        eprintln!("  transport: stdio");
        return server.serve_stdio().await.map_err(|e| e.to_string());
    }
    let addr = SocketAddr::new(args.host, args.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    eprintln!("  MCP endpoint: http://{addr}/mcp");
    eprintln!("  Ctrl-C to stop.");
    server
        .serve_http_on(listener, mcp_fusion::server::shutdown_signal())
        .await
        .map_err(|e| e.to_string())
}
