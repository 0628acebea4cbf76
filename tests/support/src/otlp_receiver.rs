//! [`OtlpReceiver`]: a small OTLP/HTTP receiver (protobuf) on a free
//! loopback port, for the tests that look at what a process exports. It
//! takes `POST /v1/traces` and `POST /v1/metrics` with `Content-Type:
//! application/x-protobuf`, decodes them with the official
//! `opentelemetry-proto` messages, keeps every span and histogram data
//! point, and answers 200 with an empty export response, as an
//! OpenTelemetry Collector does. Anything else is 404 or 415.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use tokio::sync::Notify;

pub use opentelemetry_proto::tonic::common::v1::any_value::Value as AttributeValue;

/// How long [`OtlpReceiver::wait_for_spans`] and
/// [`OtlpReceiver::wait_for_points`] wait before they fail the test.
pub const WAIT: Duration = Duration::from_secs(20);

/// The content type of OTLP/HTTP in protobuf.
const PROTOBUF: &str = "application/x-protobuf";

/// One span as it was exported.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedSpan {
    /// The `service.name` of the resource it came with.
    pub service_name: String,
    /// The trace id, 32 lowercase hex digits.
    pub trace_id: String,
    /// The span id, 16 lowercase hex digits.
    pub span_id: String,
    /// The parent's span id (16 hex digits), `None` for a root span.
    pub parent_span_id: Option<String>,
    pub name: String,
    /// The OTLP `SpanKind`: 1 internal, 2 server, 3 client, 4 producer,
    /// 5 consumer.
    pub kind: i32,
    /// The OTLP `StatusCode`: 0 unset, 1 ok, 2 error.
    pub status: i32,
    /// Its attributes by key (a key given twice keeps the last value).
    pub attributes: BTreeMap<String, AttributeValue>,
}

/// One data point of a histogram as it was exported.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramPoint {
    /// The `service.name` of the resource it came with.
    pub service_name: String,
    /// The instrument's name, e.g. `mcp.server.operation.duration`.
    pub metric: String,
    /// The instrument's unit, e.g. `s`.
    pub unit: String,
    /// How many values the point counts (cumulative, as the SDK exports).
    pub count: u64,
    /// The point's explicit bucket boundaries.
    pub bounds: Vec<f64>,
    /// Its attributes by key.
    pub attributes: BTreeMap<String, AttributeValue>,
}

/// What was received so far, and a wake-up for the waiters.
#[derive(Default)]
struct Received {
    spans: Mutex<Vec<ReceivedSpan>>,
    points: Mutex<Vec<HistogramPoint>>,
    arrived: Notify,
}

/// The receiver, served on a thread of its own (so that a test blocked on
/// a child process does not stop it) until it is dropped.
pub struct OtlpReceiver {
    addr: SocketAddr,
    received: Arc<Received>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OtlpReceiver {
    /// Starts a receiver on `127.0.0.1:0`.
    ///
    /// # Panics
    ///
    /// When no port can be bound or the runtime cannot start.
    pub fn start() -> OtlpReceiver {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the OTLP receiver");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let addr = listener.local_addr().expect("the receiver's address");
        let received = Arc::new(Received::default());
        let app = axum::Router::new()
            .route("/v1/traces", axum::routing::post(traces))
            .route("/v1/metrics", axum::routing::post(metrics))
            .with_state(Arc::clone(&received));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the receiver's runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        OtlpReceiver {
            addr,
            received,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The endpoint to give as `OTEL_EXPORTER_OTLP_ENDPOINT`,
    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every span received so far, in the order it came.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.received.spans.lock().expect("spans").clone()
    }

    /// Every histogram data point received so far, in the order it came.
    pub fn histogram_points(&self) -> Vec<HistogramPoint> {
        self.received.points.lock().expect("points").clone()
    }

    /// Waits until the spans received satisfy `done`, and returns them all.
    ///
    /// # Panics
    ///
    /// After [`WAIT`] without that, listing the spans received, `what`
    /// saying what was waited for.
    pub async fn wait_for_spans(
        &self,
        what: &str,
        done: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Vec<ReceivedSpan> {
        self.wait(|| {
            let spans = self.spans();
            done(&spans).then_some(spans)
        })
        .await
        .unwrap_or_else(|| panic!("no {what} within {WAIT:?}; received: {:#?}", self.spans()))
    }

    /// Waits until the histogram points received satisfy `done`, and
    /// returns them all.
    ///
    /// # Panics
    ///
    /// After [`WAIT`] without that, listing the points received, `what`
    /// saying what was waited for.
    pub async fn wait_for_points(
        &self,
        what: &str,
        done: impl Fn(&[HistogramPoint]) -> bool,
    ) -> Vec<HistogramPoint> {
        self.wait(|| {
            let points = self.histogram_points();
            done(&points).then_some(points)
        })
        .await
        .unwrap_or_else(|| {
            panic!(
                "no {what} within {WAIT:?}; received: {:#?}",
                self.histogram_points()
            )
        })
    }

    /// `check()` once it is `Some`, woken by each export; `None` after [`WAIT`].
    async fn wait<T>(&self, check: impl Fn() -> Option<T>) -> Option<T> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let arrived = self.received.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if let Some(found) = check() {
                return Some(found);
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return check();
            }
        }
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `POST /v1/traces`: every span of the request kept.
async fn traces(
    State(received): State<Arc<Received>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = match decode::<ExportTraceServiceRequest>(&headers, &body) {
        Ok(request) => request,
        Err(refusal) => return refusal,
    };
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let service = service_name(resource_spans.resource.as_ref());
        for span in resource_spans
            .scope_spans
            .into_iter()
            .flat_map(|scope| scope.spans)
        {
            spans.push(ReceivedSpan {
                service_name: service.clone(),
                trace_id: hex(&span.trace_id),
                span_id: hex(&span.span_id),
                parent_span_id: (!span.parent_span_id.is_empty())
                    .then(|| hex(&span.parent_span_id)),
                name: span.name,
                kind: span.kind,
                status: span.status.map_or(0, |status| status.code),
                attributes: attributes(span.attributes),
            });
        }
    }
    received.spans.lock().expect("spans").extend(spans);
    received.arrived.notify_waiters();
    protobuf(ExportTraceServiceResponse::default().encode_to_vec())
}

/// `POST /v1/metrics`: every histogram data point of the request kept.
async fn metrics(
    State(received): State<Arc<Received>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = match decode::<ExportMetricsServiceRequest>(&headers, &body) {
        Ok(request) => request,
        Err(refusal) => return refusal,
    };
    let mut points = Vec::new();
    for resource_metrics in request.resource_metrics {
        let service = service_name(resource_metrics.resource.as_ref());
        let metrics = resource_metrics
            .scope_metrics
            .into_iter()
            .flat_map(|scope| scope.metrics);
        for metric in metrics {
            let Some(Data::Histogram(histogram)) = metric.data else {
                continue;
            };
            points.extend(
                histogram
                    .data_points
                    .into_iter()
                    .map(|point| HistogramPoint {
                        service_name: service.clone(),
                        metric: metric.name.clone(),
                        unit: metric.unit.clone(),
                        count: point.count,
                        bounds: point.explicit_bounds,
                        attributes: attributes(point.attributes),
                    }),
            );
        }
    }
    received.points.lock().expect("points").extend(points);
    received.arrived.notify_waiters();
    protobuf(ExportMetricsServiceResponse::default().encode_to_vec())
}

/// The message of a protobuf request; 415 for another content type, 400
/// for a body that does not decode.
fn decode<M: Message + Default>(headers: &HeaderMap, body: &[u8]) -> Result<M, Response> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok());
    if content_type != Some(PROTOBUF) {
        return Err(StatusCode::UNSUPPORTED_MEDIA_TYPE.into_response());
    }
    M::decode(body).map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()).into_response())
}

/// A 200 answer with `body`, in protobuf.
fn protobuf(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, PROTOBUF)], body).into_response()
}

/// The `service.name` of `resource`, empty when it has none.
fn service_name(resource: Option<&Resource>) -> String {
    resource
        .into_iter()
        .flat_map(|resource| &resource.attributes)
        .find(|kv| kv.key == "service.name")
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .map_or_else(String::new, |value| match value {
            AttributeValue::StringValue(name) => name.clone(),
            other => format!("{other:?}"),
        })
}

/// `attributes` by key (an attribute without a value is left out).
fn attributes(attributes: Vec<KeyValue>) -> BTreeMap<String, AttributeValue> {
    attributes
        .into_iter()
        .filter_map(|kv| Some((kv.key, kv.value?.value?)))
        .collect()
}

/// `bytes` as lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
