//! The global tracer and meter providers of this test binary, exporting to
//! memory, and what the tests read of them.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::trace::{SpanId, SpanKind, TraceContextExt, TraceId, Tracer};
use opentelemetry::{Context, KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, HistogramDataPoint, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

/// What the providers export to.
pub struct Recorded {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meter_provider: SdkMeterProvider,
}

/// The binary's providers, installed once (before any server or client is
/// made: they take their instruments when made).
pub fn recorded() -> &'static Recorded {
    static RECORDED: OnceLock<Recorded> = OnceLock::new();
    RECORDED.get_or_init(|| {
        let spans = InMemorySpanExporter::default();
        let tracer_provider = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        opentelemetry::global::set_tracer_provider(tracer_provider);
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let metrics = InMemoryMetricExporter::default();
        let meter_provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        // The application's own providers: mcp-fusion records into them
        // once told to.
        mcp_fusion::telemetry::enable();
        Recorded {
            spans,
            metrics,
            meter_provider,
        }
    })
}

/// A test's own trace: a root span whose context the test's requests run in.
pub fn root() -> (Context, TraceId) {
    recorded();
    let span = opentelemetry::global::tracer("test").start("test");
    let cx = Context::new().with_span(span);
    let trace = cx.span().span_context().trace_id();
    (cx, trace)
}

impl Recorded {
    /// The finished spans of `trace`, once `count` of them have ended
    /// (within 10 s: a server span ends after the client has its answer
    /// when the call was cancelled).
    pub async fn spans(&self, trace: TraceId, count: usize) -> Vec<SpanData> {
        for _ in 0..200 {
            let spans: Vec<SpanData> = self
                .spans
                .get_finished_spans()
                .unwrap()
                .into_iter()
                .filter(|span| span.span_context.trace_id() == trace)
                .collect();
            if spans.len() >= count {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("fewer than {count} spans of the trace ended within 10 s");
    }

    /// Every finished span of every trace.
    pub fn all_spans(&self) -> Vec<SpanData> {
        self.spans.get_finished_spans().unwrap()
    }

    /// Every data point of the histogram `name` exported so far (after a
    /// flush).
    pub fn histogram(&self, name: &str) -> Vec<HistogramDataPoint<f64>> {
        self.meter_provider.force_flush().unwrap();
        let mut points = Vec::new();
        for resource in self.metrics.get_finished_metrics().unwrap() {
            for scope in resource.scope_metrics() {
                for metric in scope.metrics().filter(|m| m.name() == name) {
                    if let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() {
                        points.extend(h.data_points().cloned());
                    }
                }
            }
        }
        points
    }
}

/// The one span of `spans` named `name`.
pub fn named<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let found: Vec<&SpanData> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(
        found.len(),
        1,
        "spans named {name:?} among {:?}",
        names(spans)
    );
    found[0]
}

/// The one span of `spans` of `kind`.
pub fn of_kind(spans: &[SpanData], kind: SpanKind) -> &SpanData {
    let found: Vec<&SpanData> = spans.iter().filter(|s| s.span_kind == kind).collect();
    assert_eq!(
        found.len(),
        1,
        "spans of kind {kind:?} among {:?}",
        names(spans)
    );
    found[0]
}

/// The names of `spans`, sorted.
pub fn names(spans: &[SpanData]) -> Vec<String> {
    let mut names: Vec<String> = spans.iter().map(|s| s.name.to_string()).collect();
    names.sort();
    names
}

/// The string value of attribute `key` of `attributes`, when set.
pub fn attribute<'a>(
    attributes: impl IntoIterator<Item = &'a KeyValue>,
    key: &str,
) -> Option<String> {
    attributes
        .into_iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| match &kv.value {
            Value::String(s) => s.to_string(),
            other => other.to_string(),
        })
}

/// The attribute keys of `span`, sorted.
pub fn keys(span: &SpanData) -> Vec<String> {
    let mut keys: Vec<String> = span
        .attributes
        .iter()
        .map(|kv| kv.key.to_string())
        .collect();
    keys.sort();
    keys
}

/// The span id of `span`.
pub fn id(span: &SpanData) -> SpanId {
    span.span_context.span_id()
}
