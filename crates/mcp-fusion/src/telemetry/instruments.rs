//! The tracer and the two duration histograms, taken from the global
//! OpenTelemetry providers when a server or client is made: a provider
//! installed later (by [`Otel::install`](super::Otel::install) or by the
//! application) is used by the connections made after it.

use opentelemetry::InstrumentationScope;
use opentelemetry::global::BoxedTracer;
use opentelemetry::metrics::Histogram;

use super::conventions::{DURATION_BOUNDARIES_SECONDS, SCOPE, SERVER_OPERATION_DURATION};

/// What a connection records with: one tracer, the server histogram and
/// the client histogram.
pub(crate) struct Instruments {
    pub tracer: BoxedTracer,
    pub server_duration: Histogram<f64>,
    #[cfg(feature = "client")]
    pub client_duration: Histogram<f64>,
}

/// The instrumentation scope of every span and instrument: `mcp-fusion`,
/// at this crate's version.
fn scope() -> InstrumentationScope {
    InstrumentationScope::builder(SCOPE)
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

/// The global provider's tracer, as it is now.
pub(crate) fn tracer() -> BoxedTracer {
    opentelemetry::global::tracer_with_scope(scope())
}

impl Instruments {
    /// The instruments of the global providers as they are now.
    pub(crate) fn from_global() -> Self {
        let meter = opentelemetry::global::meter_with_scope(scope());
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(DURATION_BOUNDARIES_SECONDS.to_vec())
                .build()
        };
        Self {
            tracer: tracer(),
            server_duration: histogram(
                SERVER_OPERATION_DURATION,
                "MCP request duration as observed on the receiver, from its arrival until its answer is sent.",
            ),
            #[cfg(feature = "client")]
            client_duration: histogram(
                super::conventions::CLIENT_OPERATION_DURATION,
                "MCP request duration as observed on the sender, from the time it was sent until its answer is received.",
            ),
        }
    }
}
