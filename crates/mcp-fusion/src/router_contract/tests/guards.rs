//! [`RouterContract`]: a tool's guards and the changes since a lockfile,
//! through rmcp serving the router.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::handler::server::common::schema_for_input;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Billing, answer, answers, exchange};
use crate::contract::{Lockfile, ServerContract};
use crate::error::ToolError;
use crate::guard::{Guards, RateLimit};
use crate::router_contract::{Parameters, RouterContract, RouterContractError};

/// A route `report` that counts its starts in `started`, sleeps for its
/// `ms` argument and answers `done`, the count of its futures dropped
/// before they finished going to `dropped`.
fn report_router(started: Arc<AtomicUsize>, dropped: Arc<AtomicUsize>) -> ToolRouter<Billing> {
    let schema = serde_json::from_value(json!({"type": "object"})).expect("a schema");
    let tool = Tool::new("report", "A slow report.", Arc::new(schema));
    ToolRouter::new().with_route(ToolRoute::new_dyn(
        tool,
        move |context: ToolCallContext<'_, Billing>| {
            started.fetch_add(1, Ordering::SeqCst);
            let ms = context
                .arguments
                .as_ref()
                .and_then(|args| args.get("ms"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let unfinished = Unfinished(Some(Arc::clone(&dropped)));
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                let mut unfinished = unfinished;
                unfinished.0 = None;
                Ok(CallToolResponse::from(CallToolResult::success(vec![
                    ContentBlock::text("done"),
                ])))
            })
        },
    ))
}

/// Counts in its counter when dropped while still set.
struct Unfinished(Option<Arc<AtomicUsize>>);

impl Drop for Unfinished {
    fn drop(&mut self) {
        if let Some(count) = &self.0 {
            count.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn report(ms: u64) -> (&'static str, Value) {
    (
        "tools/call",
        json!({"name": "report", "arguments": {"ms": ms}}),
    )
}

/// The text and `_meta` code of a tool result.
fn text_and_code(answer: &Value) -> (String, Value) {
    let result = &answer["result"];
    assert_eq!(result["isError"], json!(true), "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (
        text.to_owned(),
        result["_meta"]["mcp-fusion/error"]["code"].clone(),
    )
}

/// Two `report` calls of `ms` each, sent together to `report` behind
/// `guards`: the one answered `done` and the text and `_meta` code of the
/// other (which of the two got through is the scheduler's choice), and how
/// many times the route started.
async fn one_of_two(guards: Guards, ms: u64) -> (String, Value, usize) {
    let started = Arc::<AtomicUsize>::default();
    let router = RouterContract::new(report_router(Arc::clone(&started), Arc::default()))
        .guards("report", guards)
        .build()
        .expect("valid guards");
    let mut both = answers(router, &[report(ms), report(ms)]).await;
    both.sort_by_key(|answer| answer["result"]["isError"] == json!(true));
    assert_eq!(both[0]["result"]["content"][0]["text"], json!("done"));
    let (text, code) = text_and_code(&both[1]);
    (text, code, started.load(Ordering::SeqCst))
}

#[tokio::test]
async fn a_call_over_the_rate_limit_is_refused_before_the_route_runs() {
    let guards = Guards::new().rate_limit(RateLimit::per_minute(1));
    let (text, code, started) = one_of_two(guards, 0).await;
    assert_eq!(
        (code, text.as_str(), started),
        (json!("RATE_LIMITED"), RATE_LIMITED, 1)
    );
}

const RATE_LIMITED: &str = r#"Call report again with the same arguments: this refusal is about timing, not about them.
<tool_error code="RATE_LIMITED" severity="error">
  <message>Too many calls to report: the limit is 1 per minute.</message>
  <recovery>Wait 60 seconds, then call report again.</recovery>
  <details>
    <detail key="limit">1 per minute</detail>
  </details>
  <retry_after>60 seconds</retry_after>
</tool_error>"#;

#[tokio::test]
async fn a_call_beyond_the_running_ones_is_busy() {
    let (text, code, started) = one_of_two(Guards::new().concurrency(1, 0), 300).await;
    assert_eq!(
        (code, text.as_str(), started),
        (json!("SERVER_BUSY"), SERVER_BUSY, 1)
    );
}

const SERVER_BUSY: &str = r#"Call report again with the same arguments: this refusal is about timing, not about them.
<tool_error code="SERVER_BUSY" severity="error">
  <message>report is at capacity: its only slot is taken and it keeps no queue.</message>
  <recovery>Wait about 1 second, then call report again; no call of it has finished yet, so that wait is a guess: if it is still at capacity then, wait twice as long. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel.</recovery>
  <details>
    <detail key="max_active">1</detail>
    <detail key="max_queue">0</detail>
  </details>
  <retry_after>1 second</retry_after>
</tool_error>"#;

#[tokio::test]
async fn a_call_past_its_time_limit_is_stopped_and_its_future_dropped() {
    let (started, dropped) = (Arc::default(), Arc::<AtomicUsize>::default());
    let router = RouterContract::new(report_router(started, Arc::clone(&dropped)))
        .guards("report", Guards::new().timeout(Duration::from_millis(50)))
        .build()
        .expect("valid guards");
    let (method, params) = report(5_000);
    let (text, code) = text_and_code(&answer(router, method, params).await);
    assert_eq!(code, json!("TIMEOUT"));
    assert_eq!(text, TIMEOUT);
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}

const TIMEOUT: &str = r#"<tool_error code="TIMEOUT" severity="error">
  <message>report took longer than its limit of 50 ms and was stopped.</message>
  <recovery>Its changes may have been made before it was stopped: check whether they were (read the item) before calling it again, so as not to make them twice.</recovery>
  <details>
    <detail key="limit_ms">50</detail>
  </details>
</tool_error>"#;

#[test]
fn guards_of_a_tool_it_lacks_or_that_cannot_work_are_refused() {
    let router = || report_router(Arc::default(), Arc::default());
    let unknown = RouterContract::new(router())
        .guards("reports", Guards::new().timeout(Duration::from_secs(1)))
        .build()
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "guards for tool \"reports\", which the router does not have (it has: report)"
    );
    let zero = RouterContract::new(router())
        .guards("report", Guards::new().concurrency(0, 0))
        .build()
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        zero,
        RouterContractError::BadGuard {
            tool: "report".into(),
            reason: "max_active must be at least 1".into()
        }
    );
    // The last setting of a tool is the one checked and used.
    let replaced = RouterContract::new(router())
        .guards("report", Guards::new().concurrency(0, 0))
        .guards("report", Guards::new().concurrency(1, 0))
        .build();
    assert!(replaced.is_ok());
}

/// `invite` before its field was renamed (only its schema is used).
#[derive(JsonSchema)]
struct InviteV1 {
    /// Who is invited.
    #[schemars(email)]
    #[allow(dead_code)]
    email: String,
}

/// `invite` now.
#[derive(Deserialize, JsonSchema)]
struct Invite {
    /// Who is invited.
    #[schemars(email)]
    customer_email: String,
}

fn invite(_: &Billing, Parameters(args): Parameters<Invite>) -> Result<String, ToolError> {
    Ok(args.customer_email)
}

#[tokio::test]
async fn a_validation_failure_tells_what_changed_since_the_lockfile() {
    let tool = |schema| Tool::new("invite", "Invite someone.", schema);
    let v1 = schema_for_input::<Parameters<InviteV1>>().expect("an object schema");
    let locked = ServerContract::from_tools(&[tool(v1)]).expect("a contract");
    let now = schema_for_input::<Parameters<Invite>>().expect("an object schema");
    let router = ToolRouter::new().with_route(ToolRoute::new(tool(now), invite));
    let router = RouterContract::new(router)
        .lockfile(&Lockfile::new(locked, None))
        .build()
        .expect("a contract");
    let params = json!({"name": "invite", "arguments": {"email": "ada@example.com"}});
    let (text, code) = text_and_code(&answer(router, "tools/call", params).await);
    assert_eq!(code, json!("VALIDATION_ERROR"));
    assert_eq!(text, INVITE_CHANGED);
}

const INVITE_CHANGED: &str = r#"Fix the fields below and call invite again.
<validation_error action="invite">
  <field name="customer_email">Missing required field. You sent: (missing). Expected a valid email address.</field>
  <field name="email">Unrecognized field "email". You sent: 'ada@example.com'. Did you mean "customer_email"?</field>
  <recovery>Do not explain the error.</recovery>
  <contract_awareness action="invite" changes="1" max_severity="RISKY">
    <delta severity="RISKY" field="email">Field "email" was renamed to "customer_email". Before: string (format email). Now: string (format email).</delta>
  </contract_awareness>
</validation_error>"#;

/// A `tools/call` of `report` with id `id`, taking `ms`.
fn report_request(id: u64, ms: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "report", "arguments": {"ms": ms}}})
}

#[tokio::test]
async fn a_cancelled_call_leaves_the_queue_and_its_route_never_starts() {
    let started = Arc::<AtomicUsize>::default();
    let router = RouterContract::new(report_router(Arc::clone(&started), Arc::default()))
        .guards("report", Guards::new().concurrency(1, 1))
        .build()
        .expect("valid guards");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user moved on"}});
    // 1 runs for 400 ms, 2 waits in the one queue place and is cancelled,
    // 3 takes the place 2 left.
    let steps = [
        (report_request(1, 400), 50),
        (report_request(2, 0), 50),
        (cancel, 50),
        (report_request(3, 0), 0),
    ];
    let answers = exchange(router, &steps).await;
    assert_eq!(answers[0]["result"]["content"][0]["text"], json!("done"));
    assert_eq!(answers[1], Value::Null);
    assert_eq!(
        answers[2]["result"]["content"][0]["text"],
        json!("done"),
        "{}",
        answers[2]
    );
    assert_eq!(started.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_cancelled_running_call_frees_its_slot_at_once() {
    let (started, dropped) = (Arc::<AtomicUsize>::default(), Arc::<AtomicUsize>::default());
    let router = RouterContract::new(report_router(Arc::clone(&started), Arc::clone(&dropped)))
        .guards("report", Guards::new().concurrency(1, 0))
        .build()
        .expect("valid guards");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}});
    let steps = [
        (report_request(1, 5_000), 100),
        (cancel, 50),
        (report_request(2, 0), 0),
    ];
    let answers = exchange(router, &steps).await;
    assert_eq!(
        answers[1]["result"]["content"][0]["text"],
        json!("done"),
        "{}",
        answers[1]
    );
    assert_eq!(
        (
            started.load(Ordering::SeqCst),
            dropped.load(Ordering::SeqCst)
        ),
        (2, 1)
    );
}

#[tokio::test(start_paused = true)]
async fn a_route_that_answers_as_its_time_limit_passes_has_answered() {
    let router = RouterContract::new(report_router(Arc::default(), Arc::default()))
        .guards("report", Guards::new().timeout(Duration::from_millis(100)))
        .build()
        .expect("valid guards");
    let (method, params) = report(100);
    let answer = answer(router, method, params).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("done"),
        "{answer}"
    );
}
