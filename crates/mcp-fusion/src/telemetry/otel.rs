//! [`Otel`]: the OpenTelemetry SDK set up as the `OTEL_*` environment
//! variables say, for a process that has no setup of its own.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::registry::LookupSpan;

use super::conventions::SCOPE;

/// What [`Otel::install`] does with the spans it makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OtelMode {
    /// Spans and metrics are exported over OTLP/HTTP (protobuf) to
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`; the
    /// signal paths `/v1/traces` and `/v1/metrics` are added, and
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `…_METRICS_ENDPOINT` override
    /// them).
    Export,
    /// Trace context is read from and written to `params._meta` (and the
    /// spans sampled as `OTEL_TRACES_SAMPLER` says), but nothing is
    /// exported: a process in the middle of a trace that another one
    /// records.
    Propagate,
}

/// Why [`Otel::install`] failed: an exporter could not be built (an
/// `OTEL_EXPORTER_OTLP_*` variable it could not use).
#[derive(Debug, thiserror::Error)]
#[error("OpenTelemetry could not be set up: {0}")]
pub struct OtelError(String);

/// The OpenTelemetry SDK of a process, installed as the global tracer and
/// meter providers and the W3C trace-context propagator.
///
/// Read from the environment, as every OpenTelemetry SDK does:
/// `OTEL_SERVICE_NAME` (else the name given to [`install`](Self::install)),
/// `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and
/// `OTEL_TRACES_SAMPLER_ARG` (default `parentbased_always_on`),
/// `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`,
/// `OTEL_EXPORTER_OTLP_TIMEOUT` and `OTEL_METRIC_EXPORT_INTERVAL`
/// (milliseconds, default 60 000).
///
/// Servers and clients made after `install` record into it ([`install`](Self::install)
/// calls [`enable`](super::enable)); call
/// [`shutdown`](Self::shutdown) before the process exits so that what is
/// buffered is sent.
///
/// ```
/// use mcp_fusion::telemetry::{Otel, OtelMode};
/// use tracing_subscriber::prelude::*;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // `OtelMode::Export` sends to OTEL_EXPORTER_OTLP_ENDPOINT; this one
/// // only carries trace context on.
/// let otel = Otel::install(OtelMode::Propagate, "billing")?;
/// let subscriber = tracing_subscriber::registry().with(otel.layer());
/// let _guard = tracing::subscriber::set_default(subscriber);
/// // … build and serve a FusionServer, or connect a FusionClient …
/// otel.shutdown();
/// # Ok(())
/// # }
/// ```
pub struct Otel {
    tracer_provider: SdkTracerProvider,
    meter_provider: Option<SdkMeterProvider>,
}

impl std::fmt::Debug for Otel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Otel")
            .field("exports", &self.meter_provider.is_some())
            .finish_non_exhaustive()
    }
}

impl Otel {
    /// Sets up the SDK in `mode`, for a service named `service_name` unless
    /// `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`)
    /// names it.
    ///
    /// # Errors
    ///
    /// [`OtelError`] when an OTLP exporter cannot be built.
    pub fn install(mode: OtelMode, service_name: &str) -> Result<Otel, OtelError> {
        let resource = resource(service_name);
        let mut tracer_provider = SdkTracerProvider::builder().with_resource(resource.clone());
        let mut meter_provider = None;
        if mode == OtelMode::Export {
            let spans = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .build()
                .map_err(|e| OtelError(e.to_string()))?;
            tracer_provider = tracer_provider.with_batch_exporter(spans);
            let metrics = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .build()
                .map_err(|e| OtelError(e.to_string()))?;
            meter_provider = Some(
                SdkMeterProvider::builder()
                    .with_resource(resource)
                    .with_periodic_exporter(metrics)
                    .build(),
            );
        }
        let tracer_provider = tracer_provider.build();
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        opentelemetry::global::set_tracer_provider(tracer_provider.clone());
        if let Some(meter_provider) = &meter_provider {
            opentelemetry::global::set_meter_provider(meter_provider.clone());
        }
        super::enable();
        Ok(Otel {
            tracer_provider,
            meter_provider,
        })
    }

    /// A `tracing` layer that makes the application's own spans (level
    /// `INFO` and above; rmcp's are left out) children of the MCP span they
    /// run in, and exports them with it.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        let tracer: SdkTracer = self.tracer_provider.tracer(SCOPE);
        let spans = Targets::new()
            .with_default(LevelFilter::INFO)
            .with_target("rmcp", LevelFilter::OFF);
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(spans)
    }

    /// Sends what is buffered and stops the exporters. It blocks the
    /// calling thread until they are flushed: at most
    /// `OTEL_EXPORTER_OTLP_TIMEOUT` (10 s by default) when the collector
    /// does not answer. The exporters run on threads of their own, so
    /// calling it at the end of an async `main` is fine.
    pub fn shutdown(self) {
        if let Err(error) = self.tracer_provider.shutdown() {
            tracing::warn!("OpenTelemetry spans were not all sent: {error}");
        }
        if let Some(meter_provider) = self.meter_provider
            && let Err(error) = meter_provider.shutdown()
        {
            tracing::warn!("OpenTelemetry metrics were not all sent: {error}");
        }
    }
}

/// The resource of every span and metric: the SDK's (`OTEL_SERVICE_NAME`,
/// `OTEL_RESOURCE_ATTRIBUTES`), with `service_name` when they name no
/// service.
fn resource(service_name: &str) -> Resource {
    let named_by_env = std::env::var_os("OTEL_SERVICE_NAME").is_some()
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES")
            .is_ok_and(|attributes| attributes.contains("service.name="));
    let builder = Resource::builder();
    match named_by_env {
        true => builder.build(),
        false => builder.with_service_name(service_name.to_owned()).build(),
    }
}
