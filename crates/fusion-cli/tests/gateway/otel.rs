//! One trace across three processes (issue 37): `fusion call --otel export`
//! → `fusion gateway --otel export` (Streamable HTTP) → the billing example,
//! `fusion serve --stdio --otel export`, started by the gateway. Each
//! exports over OTLP/HTTP to a receiver the test starts
//! ([`OtlpReceiver`]: the official protobuf messages decode what arrives),
//! under a service name of its own.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use fusion_test_support::otlp_receiver::{AttributeValue, OtlpReceiver, ReceivedSpan};

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

/// The id the failing call asks for: an argument value, which no attribute
/// may hold.
const MISSING_ID: &str = "inv_e2e_missing_4711";

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
    let output = Command::new(FUSION)
        .args(["call", "--otel", "export", url, "finance.billing", args])
        .envs(otel_env(receiver, CALLER, FLUSH_AT_EXIT_ONLY_MS))
        .env_remove("RUST_LOG")
        .env_remove("FUSION_OTEL")
        .stdin(Stdio::null())
        .output()
        .expect("run fusion call");
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    output.status.code().expect("an exit code")
}

#[tokio::test]
async fn one_trace_crosses_client_gateway_and_upstream() {
    let receiver = OtlpReceiver::start();
    let db = TempDb::new("gateway-otel");
    let env = otel_env(&receiver, GATEWAY, FLUSH_AT_EXIT_ONLY_MS);
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let mut gateway =
        HttpGateway::start_with_env("otel", &config(&receiver, &db), &["--otel", "export"], &env);
    let ok = call(
        &receiver,
        &gateway.url,
        r#"{"action": "get_invoice", "id": "inv_1"}"#,
    );
    assert_eq!(ok, 0);
    let args = format!(r#"{{"action": "get_invoice", "id": "{MISSING_ID}"}}"#);
    assert_eq!(call(&receiver, &gateway.url, &args), 1);
    let status = Command::new("kill")
        .args(["-TERM", &gateway.child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let exit = gateway.child.wait().expect("the gateway exits");
    assert!(exit.success(), "{exit:?}");
    let spans = receiver.spans();
    for span in &spans {
        eprintln!("{span:?}");
    }
    let points = receiver.histogram_points();
    for point in &points {
        eprintln!("{point:?}");
    }
    let _ = (SERVER, CLIENT);
    let _: Option<(&ReceivedSpan, BTreeMap<String, AttributeValue>)> = None;
    panic!("dump");
}
