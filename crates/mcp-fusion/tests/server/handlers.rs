//! Handlers as users write them: application state and extractors in any
//! order (`State<T>`, `CallContext`, your own), typed outputs (`Json<T>`: the
//! `outputSchema`, and a result that never contradicts it), and errors checked
//! by the compiler (`impl From<MyError> for ToolError`, `ToolError::internal`
//! with its whole source chain in the log).

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::support::{INTERNAL_STILL_RUNNING, error_id_of, meta_of, texts};
use mcp_fusion::{
    Action, BuildError, CallContext, ErrorCode, FromCallContext, FusionServer, Group, Json, State,
    ToolError, from_fn,
};
use serde_json::{Value, json};

#[derive(Clone)]
struct Prefix(&'static str);

#[derive(Clone)]
struct Counter(Arc<Mutex<u32>>);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greet {
    name: String,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct Greeting {
    text: String,
    count: u32,
}

/// The caller's tenant, from the `x-tenant` header (an extractor of ours).
struct Tenant(String);

impl FromCallContext for Tenant {
    async fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
        ctx.http()
            .and_then(|h| h.headers.get("x-tenant"))
            .and_then(|v| v.to_str().ok())
            .map(|t| Tenant(t.to_owned()))
            .ok_or_else(|| {
                ToolError::forbidden("No tenant was given.").suggest("Send the X-Tenant header.")
            })
    }
}

async fn greet(
    State(prefix): State<Prefix>,
    ctx: CallContext,
    State(counter): State<Counter>,
    args: Greet,
) -> Result<Json<Greeting>, ToolError> {
    let count = {
        let mut n = counter.0.lock().expect("a lock");
        *n += 1;
        *n
    };
    Ok(Json(Greeting {
        text: format!("{} {} (from {})", prefix.0, args.name, ctx.name()),
        count,
    }))
}

async fn count(State(counter): State<Counter>) -> Result<String, ToolError> {
    Ok(counter.0.lock().expect("a lock").to_string())
}

async fn whoami(tenant: Tenant, _ctx: CallContext) -> Result<String, ToolError> {
    Ok(tenant.0)
}

fn server() -> FusionServer {
    FusionServer::builder("handlers", "1.0.0")
        .state(Prefix("Hello"))
        .state(Counter(Arc::new(Mutex::new(0))))
        .group(
            Group::new("hello")
                .action(Action::new("greet", greet))
                .action(Action::new("count", count))
                .action(Action::new("whoami", whoami)),
        )
        .tool(Action::new("plain_greet", greet))
        .build()
        .expect("a valid server")
}

#[tokio::test]
async fn extractors_in_any_order_share_the_server_state() {
    let server = server();
    let first = server
        .call("hello", json!({"action": "greet", "name": "Ada"}))
        .await
        .expect("a result");
    assert_eq!(first.is_error, Some(false));
    let expected = json!({"text": "Hello Ada (from hello.greet)", "count": 1});
    assert_eq!(first.structured_content, Some(expected.clone()));
    assert_eq!(texts(&first), [expected.to_string()]);

    let second = server
        .call("plain_greet", json!({"name": "Lin"}))
        .await
        .expect("a result");
    assert_eq!(
        second.structured_content,
        Some(json!({"text": "Hello Lin (from plain_greet)", "count": 2}))
    );
    let counted = server
        .call("hello", json!({"action": "count"}))
        .await
        .expect("a result");
    assert_eq!(texts(&counted), ["2"]);
    assert_eq!(counted.structured_content, None);
}

#[tokio::test]
async fn an_extractor_that_fails_ends_the_call_with_its_error() {
    let server = server();
    let refused = server
        .call("hello", json!({"action": "whoami"}))
        .await
        .expect("a result");
    assert_eq!(
        texts(&refused),
        [
            "<tool_error code=\"FORBIDDEN\" severity=\"error\">\n  <message>No tenant was given.</message>\n  <recovery>Send the X-Tenant header.</recovery>\n</tool_error>"
        ]
    );
    let request = axum::http::Request::builder()
        .uri("/mcp")
        .header("x-tenant", "acme")
        .body(())
        .expect("a request");
    let served = server
        .call_with_http(
            "hello",
            json!({"action": "whoami"}),
            Some(request.into_parts().0),
        )
        .await
        .expect("a result");
    assert_eq!(texts(&served), ["acme"]);
}

#[test]
fn a_typed_output_is_the_output_schema() {
    let listings = server().listings();
    let plain = listings
        .iter()
        .find(|l| l.name == "plain_greet")
        .expect("plain_greet");
    let schema = plain.output_schema.as_ref().expect("an outputSchema");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["text", "count"]));
    assert_eq!(schema["properties"]["text"]["type"], "string");
    let group = listings.iter().find(|l| l.name == "hello").expect("hello");
    let greet = group
        .actions
        .iter()
        .find(|a| a.name == "greet")
        .expect("hello.greet");
    assert_eq!(greet.output_schema.as_ref(), Some(schema));
    let count = group
        .actions
        .iter()
        .find(|a| a.name == "count")
        .expect("hello.count");
    assert_eq!(count.output_schema, None);
}

#[test]
fn a_handler_asking_for_a_missing_state_does_not_build() {
    let err = FusionServer::builder("handlers", "1.0.0")
        .state(Prefix("Hi"))
        .group(Group::new("hello").action(Action::new("greet", greet)))
        .build()
        .expect_err("Counter is missing");
    assert_eq!(
        err,
        BuildError::MissingState {
            action: String::from("hello.greet"),
            state: String::from("server::handlers::Counter"),
        }
    );
    assert_eq!(
        err.to_string(),
        "hello.greet: the handler takes State<server::handlers::Counter>, but the server has no such state: add it with ServerBuilder::state"
    );
}

// ---- A success that does not match its own outputSchema never leaves.

/// Its schema says `{id: string}`; it serializes as `{"things": 5}`.
#[derive(schemars::JsonSchema)]
struct Liar {
    #[allow(dead_code)]
    id: String,
}

impl serde::Serialize for Liar {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json!({"things": 5}).serialize(serializer)
    }
}

async fn lie() -> Result<Json<Liar>, ToolError> {
    Ok(Json(Liar { id: String::new() }))
}

/// A buffer that collects the log.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("a lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("a lock")).into_owned()
    }
}

/// Runs `future` with the log collected (level error and above).
async fn logged<F: Future>(future: F) -> (F::Output, String) {
    logged_at(tracing::Level::ERROR, future).await
}

thread_local! {
    /// The log of the test running on this thread, and its level.
    static CAPTURE: std::cell::RefCell<Option<(Log, tracing::Level)>> =
        const { std::cell::RefCell::new(None) };
}

/// Writes each event to the log of the test on the event's thread, when it
/// is at that test's level or above; elsewhere, nowhere.
struct Capture;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Capture {
    type Writer = tracing_subscriber::fmt::writer::EitherWriter<Log, std::io::Sink>;

    fn make_writer(&'a self) -> Self::Writer {
        tracing_subscriber::fmt::writer::EitherWriter::B(std::io::sink())
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        CAPTURE.with(|capture| match &*capture.borrow() {
            Some((log, level)) if meta.level() <= level => {
                tracing_subscriber::fmt::writer::EitherWriter::A(log.clone())
            }
            _ => self.make_writer(),
        })
    }
}

/// Runs `future` (on this thread: `#[tokio::test]`'s runtime) with the log
/// collected at `level` and above. One global subscriber at DEBUG serves
/// every test: with one per test (`set_default`), tests running side by side
/// race on tracing's per-callsite interest cache, and an event may be
/// dropped.
async fn logged_at<F: Future>(level: tracing::Level, future: F) -> (F::Output, String) {
    static GLOBAL: std::sync::Once = std::sync::Once::new();
    GLOBAL.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_writer(Capture)
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
    });
    let log = Log::default();
    CAPTURE.with(|capture| *capture.borrow_mut() = Some((log.clone(), level)));
    let output = future.await;
    CAPTURE.with(|capture| *capture.borrow_mut() = None);
    (output, log.text())
}

#[tokio::test]
async fn a_result_that_contradicts_its_output_schema_is_a_masked_internal_error() {
    let server = FusionServer::builder("liar", "1.0.0")
        .tool(Action::new("lie", lie))
        .build()
        .expect("a valid server");
    let (result, log) = logged(server.call("lie", json!({}))).await;
    let result = result.expect("a result");
    let id = error_id_of(&result);
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.structured_content, None);
    assert_eq!(
        meta_of(&result)["message"],
        format!("lie failed with an internal error (error id {id}). {INTERNAL_STILL_RUNNING}")
    );
    assert!(!texts(&result)[0].contains("things"));
    assert!(log.contains(&format!("error_id={id}")), "{log}");
    assert!(
        log.contains("the result does not match the action's outputSchema"),
        "{log}"
    );
    assert!(log.contains("\"id\" is a required property"), "{log}");
}

// ---- Errors checked by the compiler.

#[derive(Debug, thiserror::Error)]
#[error("the ledger failed")]
struct LedgerError(#[source] std::io::Error);

#[derive(Debug, thiserror::Error)]
enum PayError {
    #[error("invoice {0} is already paid")]
    AlreadyPaid(String),
    #[error("cannot pay")]
    Ledger(#[from] LedgerError),
}

impl From<PayError> for ToolError {
    fn from(error: PayError) -> Self {
        match error {
            PayError::AlreadyPaid(id) => {
                ToolError::conflict(format!("Invoice {id} is already paid."))
                    .suggest("Do not pay it again.")
            }
            other => ToolError::internal(other),
        }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pay {
    id: String,
}

async fn pay(args: Pay) -> Result<String, PayError> {
    match args.id.as_str() {
        "inv_1" => Err(PayError::AlreadyPaid(args.id)),
        "inv_2" => Err(LedgerError(std::io::Error::other("disk full at /var/ledger")).into()),
        _ => Ok(String::from("paid")),
    }
}

fn pay_server() -> FusionServer {
    FusionServer::builder("pay", "1.0.0")
        .tool(Action::new("pay", pay))
        .build()
        .expect("a valid server")
}

#[tokio::test]
async fn a_custom_error_type_maps_to_the_envelope_the_user_chose() {
    let result = pay_server()
        .call("pay", json!({"id": "inv_1"}))
        .await
        .expect("a result");
    assert_eq!(
        texts(&result),
        [
            "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Invoice inv_1 is already paid.</message>\n  <recovery>Do not pay it again.</recovery>\n</tool_error>"
        ]
    );
}

#[tokio::test]
async fn an_internal_error_logs_its_whole_chain_with_its_id_and_shows_neither() {
    let (result, log) = logged(pay_server().call("pay", json!({"id": "inv_2"}))).await;
    let result = result.expect("a result");
    let id = error_id_of(&result);
    let text = &texts(&result)[0];
    assert!(!text.contains("disk") && !text.contains("ledger"), "{text}");
    assert_eq!(
        meta_of(&result)["recovery"],
        "Retry this call once. If it fails again, do not retry it: call another action, or tell the user the action failed and give them the error id."
    );
    assert!(
        log.contains(&format!("error_id={id}"))
            && log.contains("error=cannot pay: the ledger failed: disk full at /var/ledger"),
        "{log}"
    );
}

#[tokio::test]
async fn middleware_errors_follow_the_handlers_rule() {
    let server = FusionServer::builder("mw", "1.0.0")
        .layer(from_fn(
            |call: mcp_fusion::Call, next: mcp_fusion::Next| async move {
                if call.args.get("id") == Some(&Value::from("inv_3")) {
                    return Err(ToolError::internal("the audit log is full"));
                }
                next.run(call).await
            },
        ))
        .tool(Action::new("pay", pay))
        .build()
        .expect("a valid server");
    let (result, log) = logged(server.call("pay", json!({"id": "inv_3"}))).await;
    let result = result.expect("a result");
    let id = error_id_of(&result);
    assert_eq!(meta_of(&result)["code"], "INTERNAL_ERROR");
    assert!(log.contains(&format!("error_id={id}")), "{log}");
    assert!(log.contains("error=the audit log is full"), "{log}");
    let ok = server
        .call("pay", json!({"id": "inv_9"}))
        .await
        .expect("a result");
    assert_eq!(texts(&ok), ["paid"]);
}

#[test]
fn tool_error_internal_keeps_its_source_and_is_internal() {
    let err = ToolError::internal(LedgerError(std::io::Error::other("x")));
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(
        std::error::Error::source(&err).map(ToString::to_string),
        Some(String::from("the ledger failed"))
    );
    assert_eq!(err.message, "The tool failed with an internal error.");
}

#[tokio::test]
async fn every_call_has_a_span_with_its_outcome() {
    let server = pay_server();
    let (_, log) = logged_at(tracing::Level::DEBUG, async {
        server
            .call("pay", json!({"id": "inv_9"}))
            .await
            .expect("a result");
        server
            .call("pay", json!({"id": "inv_1"}))
            .await
            .expect("a result");
        server
            .call("pay", json!({"id": 5}))
            .await
            .expect("a result");
    })
    .await;
    let finished: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("tool call finished"))
        .collect();
    assert_eq!(finished.len(), 3, "{log}");
    for (line, (outcome, code)) in finished.iter().zip([
        ("ok", ""),
        ("error", "CONFLICT"),
        ("error", "VALIDATION_ERROR"),
    ]) {
        assert!(
            line.contains(&format!(
                "tool_call{{tool=pay action= caller=in-process outcome={outcome} code={code} duration_ms="
            )),
            "{line}"
        );
    }
}
