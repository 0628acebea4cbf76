//! One trace across three processes (issue 37): `fusion call --otel export`
//! → `fusion gateway --otel export` (Streamable HTTP) → the billing example,
//! `fusion serve --stdio --otel export`, started by the gateway. Each
//! exports over OTLP/HTTP to a receiver the test starts
//! ([`OtlpReceiver`]: the official protobuf messages decode what arrives),
//! under a service name of its own. Also: a gateway that only propagates
//! (`--otel propagate`) keeps the trace whole and sends nothing, and a
//! stdio server sends its spans when its input ends.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use fusion_test_support::otlp_receiver::{
    AttributeValue, HistogramPoint, OtlpReceiver, ReceivedSpan,
};

use crate::gateway::HttpGateway;
use crate::support::{FUSION, TempDb};

/// OTLP's `SpanKind` of a span that serves a request.
const SERVER: i32 = 2;
/// OTLP's `SpanKind` of a span that sends one.
const CLIENT: i32 = 3;

/// The services' names, one per process.
const CALLER: &str = "e2e-client";
const GATEWAY: &str = "e2e-gateway";
const UPSTREAM: &str = "e2e-upstream";

/// The calls made, in order: their arguments (whose values no attribute
/// may hold), `fusion call`'s exit code, the envelope's code.
const CALLS: [(&str, i32, Option<&str>); 3] = [
    (r#"{"action": "get_invoice", "id": "inv_1"}"#, 0, None),
    (
        r#"{"action": "get_invoice", "id": "inv_4711004711"}"#,
        1,
        Some("NOT_FOUND"),
    ),
    (
        r#"{"action": "get_invoice", "id": "inv_e2e_secret"}"#,
        1,
        Some("VALIDATION_ERROR"),
    ),
];

/// The argument values of [`CALLS`].
const ARGUMENT_VALUES: [&str; 3] = ["inv_1", "inv_4711004711", "inv_e2e_secret"];

/// The OTLP `StatusCode` of a span that failed.
const STATUS_ERROR: i32 = 2;

/// The MCP revision every hop speaks.
const REVISION: &str = "2025-11-25";

/// The batch span processor's delay for the client and the gateway: far
/// longer than the test, so that their spans arrive only because the
/// process sends what it buffered before it exits.
const FLUSH_AT_EXIT_ONLY_MS: &str = "600000";

/// The environment of a process exporting to `receiver` as `service`.
fn otel_env(receiver: &OtlpReceiver, service: &str, delay_ms: &str) -> Vec<(String, String)> {
    [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_SERVICE_NAME", service.to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", delay_ms.to_owned()),
        ("OTEL_METRIC_EXPORT_INTERVAL", String::from("200")),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect()
}

/// The gateway's config: the billing example over stdio under `finance`,
/// with its own service name and a short export delay (the gateway may
/// stop it without waiting for it to flush).
fn config(receiver: &OtlpReceiver, db: &TempDb) -> String {
    let env: Vec<String> = otel_env(receiver, UPSTREAM, "100")
        .into_iter()
        .map(|(name, value)| format!("\"{name}={value}\""))
        .collect();
    format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"env\", {}, \"{FUSION}\", \"serve\", \"--stdio\", \"--db\", \"{}\", \"--otel\", \"export\"]\n",
        env.join(", "),
        db.path()
    )
}

/// `fusion call --otel export URL finance.billing ARGS` run to its end, as
/// the service [`CALLER`]; its exit code.
fn call(receiver: &OtlpReceiver, url: &str, args: &str) -> i32 {
    call_with(receiver, &[url, "finance.billing", args])
}

/// The CLIENT spans of `fusion call`'s tool calls received so far.
fn client_calls(spans: &[ReceivedSpan]) -> Vec<&ReceivedSpan> {
    spans
        .iter()
        .filter(|s| s.service_name == CALLER && s.name == "tools/call finance.billing")
        .collect()
}

/// The spans of `service` of kind `kind` named `name`.
fn count(spans: &[ReceivedSpan], service: &str, kind: i32, name: &str) -> usize {
    spans
        .iter()
        .filter(|s| s.service_name == service && s.kind == kind && s.name == name)
        .count()
}

/// The one span of `service` whose parent is `parent`.
fn child_of<'a>(
    spans: &'a [ReceivedSpan],
    service: &str,
    parent: &ReceivedSpan,
) -> &'a ReceivedSpan {
    let children: Vec<_> = spans
        .iter()
        .filter(|s| s.service_name == service)
        .filter(|s| s.parent_span_id.as_deref() == Some(parent.span_id.as_str()))
        .collect();
    assert_eq!(
        children.len(),
        1,
        "one child of {parent:#?} in {service}: {children:#?}"
    );
    assert_eq!(
        children[0].trace_id, parent.trace_id,
        "one trace: {children:#?}"
    );
    children[0]
}

fn text(value: &str) -> AttributeValue {
    AttributeValue::StringValue(value.to_owned())
}

/// `pairs` as an attribute map, with `error.type` and
/// `mcp_fusion.error.code` when the call failed with `code`.
fn attributes(
    pairs: &[(&str, AttributeValue)],
    code: Option<&str>,
) -> BTreeMap<String, AttributeValue> {
    let mut map: BTreeMap<String, AttributeValue> = pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect();
    if let Some(code) = code {
        map.insert("error.type".into(), text("tool_error"));
        map.insert("mcp_fusion.error.code".into(), text(code));
    }
    map
}

/// The attributes of a `tools/call` of `tool` on every side.
fn call_of(tool: &str) -> Vec<(&'static str, AttributeValue)> {
    vec![
        ("mcp.method.name", text("tools/call")),
        ("gen_ai.tool.name", text(tool)),
        ("gen_ai.operation.name", text("execute_tool")),
    ]
}

/// Checks the hops of the `n`th call (`code`: its envelope's code), from
/// its CLIENT span `client` to the upstream's SERVER span: each the parent
/// of the next, in one trace, named, kinded and attributed as the MCP
/// conventions say.
fn check_hops(
    spans: &[ReceivedSpan],
    client: &ReceivedSpan,
    n: usize,
    port: u16,
    code: Option<&str>,
) {
    let status = if code.is_some() { STATUS_ERROR } else { 0 };
    assert_eq!(
        (client.kind, client.status, client.parent_span_id.as_deref()),
        (CLIENT, status, None)
    );
    let mut expected = call_of("finance.billing");
    expected.extend([
        ("mcp.protocol.version", text(REVISION)),
        ("network.transport", text("tcp")),
        ("network.protocol.name", text("http")),
        ("server.address", text("127.0.0.1")),
        ("server.port", AttributeValue::IntValue(i64::from(port))),
    ]);
    assert_eq!(client.attributes, attributes(&expected, code));

    let served = child_of(spans, GATEWAY, client);
    assert_eq!(
        (served.name.as_str(), served.kind, served.status),
        ("tools/call finance.billing", SERVER, status)
    );
    let mut seen = served.attributes.clone();
    let session = seen.remove("mcp.session.id");
    assert!(
        matches!(session, Some(AttributeValue::StringValue(id)) if id.len() == 36),
        "{served:#?}"
    );
    let caller_port = seen.remove("client.port");
    assert!(
        matches!(caller_port, Some(AttributeValue::IntValue(port)) if port > 0),
        "{served:#?}"
    );
    let mut expected = call_of("finance.billing");
    expected.extend([
        ("client.address", text("127.0.0.1")),
        // `fusion call` sends initialize (0), tools/list (1), then the call.
        ("jsonrpc.request.id", text("2")),
        ("mcp.protocol.version", text(REVISION)),
        ("network.transport", text("tcp")),
        ("network.protocol.name", text("http")),
    ]);
    assert_eq!(seen, attributes(&expected, code));

    let forwarded = child_of(spans, GATEWAY, served);
    assert_eq!(
        (forwarded.name.as_str(), forwarded.kind, forwarded.status),
        ("tools/call billing", CLIENT, status)
    );
    let mut expected = call_of("billing");
    expected.push(("network.transport", text("pipe")));
    expected.push(("mcp.protocol.version", text(REVISION)));
    assert_eq!(forwarded.attributes, attributes(&expected, code));

    let upstream = child_of(spans, UPSTREAM, forwarded);
    assert_eq!(
        (upstream.name.as_str(), upstream.kind, upstream.status),
        ("tools/call billing", SERVER, status)
    );
    expected.extend([
        // The gateway sent initialize (0) and tools/list (1) upstream first.
        ("jsonrpc.request.id", text(&(n + 2).to_string())),
        ("mcp.protocol.version", text(REVISION)),
        ("mcp_fusion.action", text("get_invoice")),
    ]);
    assert_eq!(upstream.attributes, attributes(&expected, code));
}

/// Waits for the upstream's `mcp.server.operation.duration` of the calls:
/// one success and two tool errors, in seconds, on the conventions'
/// buckets.
async fn check_upstream_durations(receiver: &OtlpReceiver) {
    let mut ok = call_of("billing");
    ok.extend([
        ("mcp.protocol.version", text(REVISION)),
        ("network.transport", text("pipe")),
    ]);
    let ok = attributes(&ok, None);
    let mut failed = ok.clone();
    failed.insert("error.type".into(), text("tool_error"));
    let measured =
        |points: &[HistogramPoint], attributes: &BTreeMap<String, AttributeValue>, count: u64| {
            points.iter().any(|p| {
                p.service_name == UPSTREAM
                    && p.metric == "mcp.server.operation.duration"
                    && p.attributes == *attributes
                    && p.count == count
            })
        };
    let points = receiver
        .wait_for_points("the upstream's durations of 3 calls", |points| {
            measured(points, &ok, 1) && measured(points, &failed, 2)
        })
        .await;
    let point = points.iter().find(|p| p.attributes == ok).expect("a point");
    assert_eq!(point.unit, "s");
    assert_eq!(
        point.bounds,
        [
            0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
        ]
    );
}

/// No argument value in any attribute of any span or histogram point.
fn check_no_argument_values(receiver: &OtlpReceiver) {
    let spans = receiver.spans().into_iter().map(|s| s.attributes);
    let points = receiver
        .histogram_points()
        .into_iter()
        .map(|p| p.attributes);
    for attributes in spans.chain(points) {
        for (key, value) in &attributes {
            let AttributeValue::StringValue(value) = value else {
                continue;
            };
            for argument in ARGUMENT_VALUES {
                assert!(
                    !value.contains(argument),
                    "{key} = {value} holds an argument value"
                );
            }
        }
    }
}

#[tokio::test]
async fn one_trace_crosses_client_gateway_and_upstream() {
    let receiver = OtlpReceiver::start();
    let db = TempDb::new("gateway-otel");
    let env = otel_env(&receiver, GATEWAY, FLUSH_AT_EXIT_ONLY_MS);
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let mut gateway =
        HttpGateway::start_with_env("otel", &config(&receiver, &db), &["--otel", "export"], &env);
    let port: u16 = gateway
        .url
        .split(':')
        .nth(2)
        .and_then(|p| p.split('/').next()?.parse().ok())
        .expect("the gateway's port");
    for (n, (args, exit, _)) in CALLS.iter().enumerate() {
        assert_eq!(call(&receiver, &gateway.url, args), *exit, "{args}");
        // Sent before `fusion call` exited: its spans wait for nothing else.
        assert_eq!(
            client_calls(&receiver.spans()).len(),
            n + 1,
            "{:#?}",
            receiver.spans()
        );
    }
    receiver
        .wait_for_spans("the upstream's 3 tools/call spans", |spans| {
            count(spans, UPSTREAM, SERVER, "tools/call billing") == CALLS.len()
        })
        .await;
    check_upstream_durations(&receiver).await;

    // SIGTERM: the gateway sends what it buffered before it exits.
    let status = Command::new("kill")
        .args(["-TERM", &gateway.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let exit = gateway.child.wait().expect("the gateway exits");
    assert!(exit.success(), "{exit:?}");
    let spans = receiver.spans();
    assert_eq!(
        count(&spans, GATEWAY, SERVER, "tools/call finance.billing"),
        CALLS.len()
    );
    let clients = client_calls(&spans);
    let traces: std::collections::BTreeSet<_> = clients.iter().map(|s| &s.trace_id).collect();
    assert_eq!(traces.len(), CALLS.len(), "a trace per call");
    for (n, (client, (_, _, code))) in clients.iter().zip(CALLS).enumerate() {
        check_hops(&spans, client, n, port, code);
    }
    check_no_argument_values(&receiver);
}

/// `fusion call --otel export ARGS…` run to its end, as the service
/// [`CALLER`]; its exit code.
fn call_with(receiver: &OtlpReceiver, args: &[&str]) -> i32 {
    let output = Command::new(FUSION)
        .args(["call", "--otel", "export"])
        .args(args)
        .envs(otel_env(receiver, CALLER, FLUSH_AT_EXIT_ONLY_MS))
        .env_remove("RUST_LOG")
        .env_remove("FUSION_OTEL")
        .stdin(Stdio::null())
        .output()
        .expect("run fusion call");
    output.status.code().expect("an exit code")
}

#[tokio::test]
async fn a_propagating_gateway_carries_the_trace_and_exports_nothing() {
    let receiver = OtlpReceiver::start();
    let db = TempDb::new("gateway-otel-propagate");
    let env = otel_env(&receiver, GATEWAY, "100");
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let mut gateway = HttpGateway::start_with_env(
        "otel-propagate",
        &config(&receiver, &db),
        &["--otel", "propagate"],
        &env,
    );
    assert_eq!(call(&receiver, &gateway.url, CALLS[0].0), 0);
    let spans = receiver
        .wait_for_spans("the upstream's tools/call span", |spans| {
            count(spans, UPSTREAM, SERVER, "tools/call billing") == 1
        })
        .await;
    let client = client_calls(&spans)[0];
    let upstream = spans
        .iter()
        .find(|s| s.service_name == UPSTREAM && s.name == "tools/call billing")
        .expect("the upstream's span");
    // The gateway's own spans are the links between: in the trace, not sent.
    assert_eq!(upstream.trace_id, client.trace_id);
    assert!(upstream.parent_span_id.is_some());
    assert_ne!(upstream.parent_span_id, Some(client.span_id.clone()));
    let status = Command::new("kill")
        .args(["-TERM", &gateway.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    assert!(gateway.child.wait().expect("the gateway exits").success());
    let from_gateway = |service: &str| service == GATEWAY;
    assert!(
        !receiver
            .spans()
            .iter()
            .any(|s| from_gateway(&s.service_name))
    );
    assert!(
        !receiver
            .histogram_points()
            .iter()
            .any(|p| from_gateway(&p.service_name))
    );
}

#[tokio::test]
async fn a_stdio_server_sends_its_spans_when_its_input_ends() {
    let receiver = OtlpReceiver::start();
    // The server inherits the client's environment, its long export delay
    // included: its spans arrive only because it flushes when stdin closes.
    let server = format!(
        "env OTEL_SERVICE_NAME={UPSTREAM} {FUSION} serve --stdio --example bench --otel export"
    );
    let args = [
        "--cmd",
        server.as_str(),
        "get_invoice",
        r#"{"id": "inv_1", "email": "e2e@example.com", "amount": 5}"#,
    ];
    assert_eq!(call_with(&receiver, &args), 0);
    let spans = receiver
        .wait_for_spans("the server's tools/call span", |spans| {
            count(spans, UPSTREAM, SERVER, "tools/call get_invoice") == 1
        })
        .await;
    let client = spans
        .iter()
        .find(|s| s.service_name == CALLER && s.name == "tools/call get_invoice")
        .expect("the client's span");
    let served = child_of(&spans, UPSTREAM, client);
    assert_eq!((served.kind, client.kind), (SERVER, CLIENT));
    let mut expected = call_of("get_invoice");
    expected.push(("network.transport", text("pipe")));
    expected.push(("mcp.protocol.version", text(REVISION)));
    assert_eq!(client.attributes, attributes(&expected, None));
    expected.extend([
        // initialize (0), then the call: a name without a dot is not
        // looked up in tools/list first.
        ("jsonrpc.request.id", text("1")),
    ]);
    assert_eq!(served.attributes, attributes(&expected, None));
}
