//! `--otel`: OpenTelemetry for `fusion serve`, `fusion gateway` and the
//! client commands, and the log on stderr composed with it: with `--otel`,
//! one `tracing` subscriber whose log layer has its own filter
//! (`RUST_LOG`), so that the filter does not hide the spans from
//! OpenTelemetry; without it, the log's filter is the subscriber's.

use clap::ValueEnum;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// The name the process's spans and metrics are under when
/// `OTEL_SERVICE_NAME` names none.
#[cfg(feature = "otel")]
const SERVICE_NAME: &str = "fusion";

/// The `--help` text of `--otel`, shared by every command that has it.
macro_rules! otel_help {
    () => {
        "OpenTelemetry, on the MCP semantic conventions: export sends a span \
per MCP request (SERVER spans for the requests served, CLIENT spans for \
those sent, linked into one trace through params._meta.traceparent) and the \
mcp.server.operation.duration / mcp.client.operation.duration histograms \
over OTLP/HTTP (protobuf) to OTEL_EXPORTER_OTLP_ENDPOINT [default: \
http://localhost:4318; /v1/traces and /v1/metrics are added]; propagate \
only carries the trace context on (a request's parent in, this process's \
spans out in _meta) and exports nothing. The standard variables apply: \
OTEL_SERVICE_NAME [default: fusion], OTEL_TRACES_SAMPLER and \
OTEL_TRACES_SAMPLER_ARG [default: parentbased_always_on], \
OTEL_EXPORTER_OTLP_HEADERS, OTEL_METRIC_EXPORT_INTERVAL (ms). What is \
buffered is sent before the process exits. Argument values, results and \
credentials are never recorded."
    };
}
pub(crate) use otel_help;

/// `--otel`: what the process does with its spans and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OtelFlag {
    /// Export spans and metrics over OTLP/HTTP.
    Export,
    /// Carry the trace context on; export nothing.
    Propagate,
}

/// A log layer of the process's subscriber, before its filter is added.
pub(crate) type LogLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// The OpenTelemetry SDK the process installed (none without `--otel`):
/// dropped, it sends what is buffered and stops the exporters, which
/// blocks. Keep it until the async runtime has ended.
#[must_use = "dropping it shuts OpenTelemetry down"]
#[derive(Default)]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    otel: Option<mcp_fusion::telemetry::Otel>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(otel) = self.otel.take() {
            otel.shutdown();
        }
    }
}

/// Installs the process's subscriber: `log` (if any) filtered by `filter`,
/// and, with `otel`, OpenTelemetry as it says.
///
/// # Errors
///
/// Why OpenTelemetry could not be set up (an `OTEL_EXPORTER_OTLP_*`
/// variable the exporter cannot use, or a build without the `otel`
/// feature); the log is installed all the same.
pub(crate) fn install(
    log: Option<(LogLayer, EnvFilter)>,
    otel: Option<OtelFlag>,
) -> Result<Telemetry, String> {
    let Some(otel) = otel else {
        // The log alone: its filter is the whole subscriber's, so that what
        // it leaves out (rmcp's spans, debug events) is never even made.
        if let Some((layer, filter)) = log {
            let _ = tracing_subscriber::registry()
                .with(layer)
                .with(filter)
                .try_init();
        }
        return Ok(Telemetry::default());
    };
    let otel = Some(otel);
    // Without RUST_LOG the log's filter (info, rmcp at error) lets through
    // every span OpenTelemetry records (INFO and above, not rmcp's): it
    // stays the whole subscriber's, and what it leaves out is never made.
    // With RUST_LOG it is the log's alone, so that it cannot hide a span.
    let (log, global) = match (log, std::env::var_os("RUST_LOG")) {
        (Some((layer, filter)), None) => (Some(layer.boxed()), Some(filter)),
        (log, _) => (
            log.map(|(layer, filter)| layer.with_filter(filter).boxed()),
            None,
        ),
    };
    let registry = tracing_subscriber::registry().with(log).with(global);
    #[cfg(feature = "otel")]
    {
        use mcp_fusion::telemetry::{Otel, OtelMode};
        let mode = otel.map(|flag| match flag {
            OtelFlag::Export => OtelMode::Export,
            OtelFlag::Propagate => OtelMode::Propagate,
        });
        let otel = mode
            .map(|mode| Otel::install(mode, SERVICE_NAME))
            .transpose();
        // The log is installed either way, to say why OpenTelemetry is not.
        let layer = otel.as_ref().ok().and_then(Option::as_ref).map(Otel::layer);
        let _ = registry.with(layer).try_init();
        Ok(Telemetry {
            otel: otel.map_err(|e| e.to_string())?,
        })
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = registry.try_init();
        match otel {
            Some(_) => Err(String::from(
                "--otel (FUSION_OTEL): this fusion was built without OpenTelemetry (the `otel` feature, on by default)",
            )),
            None => Ok(Telemetry::default()),
        }
    }
}
