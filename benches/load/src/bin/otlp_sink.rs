//! `otlp-sink --port N`: an OTLP/HTTP endpoint that takes every export and
//! keeps nothing (`POST /v1/traces`, `/v1/metrics`, `/v1/logs`: `200` with
//! an empty protobuf answer, which is a valid `Export…ServiceResponse`).
//! What compare.sh's `otel` stacks export to, so that their exporter does
//! its whole work (encode, send, read the answer) on every batch without a
//! collector's own cost on the machine.

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::routing::post;
use clap::Parser;

/// The sink's command line.
#[derive(Parser)]
#[command(about = "An OTLP/HTTP endpoint that answers every export with 200 and keeps nothing")]
struct Args {
    /// The port to listen on, on 127.0.0.1.
    #[arg(long)]
    port: u16,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let taken = || async { ([(CONTENT_TYPE, "application/x-protobuf")], Vec::<u8>::new()) };
    let app = Router::new()
        .route("/v1/traces", post(taken))
        .route("/v1/metrics", post(taken))
        .route("/v1/logs", post(taken));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    axum::serve(listener, app).await
}
