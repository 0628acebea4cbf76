//! `GET /metrics`: the Prometheus text exposition of what the crate records
//! (feature `metrics`, on when [`crate::transport::HttpOptions::metrics`] says so).
//!
//! The exporter is `metrics-exporter-prometheus`'s recorder, installed as the
//! process's global `metrics` recorder the first time a server with metrics
//! on builds its router, and only then: a process has one global recorder,
//! so every server of the process shares it (and its counts), and building
//! many servers (tests) installs it once. When the program installed another
//! recorder first, ours cannot be, and `/metrics` answers 503 saying so.
//!
//! The endpoint keeps the `Host` check of the MCP endpoint (DNS rebinding:
//! a page of another site reaching the server through a rebound name) but
//! not its `Origin` check, sessions or body rules: a scraper sends no
//! `Origin`, and a browser page of another site cannot read the answer
//! (no CORS headers are sent).

use std::sync::OnceLock;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::origin::DoorPolicy;
use crate::metrics_names as names;

/// How often histograms are folded when nobody scrapes, so that their
/// samples do not pile up.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The process's exporter: `None` when another global recorder was there first.
static EXPORTER: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The exporter, installed on first use.
fn exporter() -> Option<&'static PrometheusHandle> {
    EXPORTER
        .get_or_init(|| {
            let builder = PrometheusBuilder::new().set_buckets_for_metric(
                Matcher::Full(names::TOOL_CALL_DURATION_SECONDS.into()),
                &names::DURATION_BUCKETS_SECONDS,
            );
            let recorder = match builder {
                Ok(builder) => builder.build_recorder(),
                Err(e) => {
                    tracing::warn!("metrics: cannot set the duration buckets: {e}");
                    PrometheusBuilder::new().build_recorder()
                }
            };
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!(
                    "metrics: another metrics recorder is installed in this process; GET /metrics answers 503"
                );
                return None;
            }
            names::describe();
            let upkeep = handle.clone();
            let spawned = std::thread::Builder::new()
                .name(String::from("mcp-fusion-metrics"))
                .spawn(move || {
                    loop {
                        std::thread::sleep(UPKEEP_EVERY);
                        upkeep.run_upkeep();
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!("metrics: no upkeep thread ({e}); histograms fold at each scrape");
            }
            Some(handle)
        })
        .as_ref()
}

/// Installs the exporter if no server of the process did yet: done before
/// anything of the server records, so that it all counts.
pub(crate) fn install() {
    let _ = exporter();
}

/// The `/metrics` route, behind the `Host` check of `door`.
pub(crate) fn router(door: DoorPolicy) -> axum::Router {
    install();
    axum::Router::new()
        .route("/metrics", axum::routing::get(render))
        .layer(axum::middleware::from_fn_with_state(door, host_only))
}

async fn render() -> Response {
    match exporter() {
        Some(handle) => (
            [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
            handle.render(),
        )
            .into_response(),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: another metrics recorder was installed in this process before the server's",
        )
            .into_response(),
    }
}

/// The `Host` check of the MCP endpoint, alone.
async fn host_only(State(door): State<DoorPolicy>, request: Request, next: Next) -> Response {
    if let Err(refusal) = door.check_host(request.uri(), request.headers()) {
        let (status, body) = refusal.status_and_text();
        return (
            StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN),
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            body,
        )
            .into_response();
    }
    next.run(request).await
}
