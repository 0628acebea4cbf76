//! Contract speed: what the error contract's hot paths cost, measured with
//! criterion.
//!
//! Run: `cargo bench -p mcp-fusion --bench contract` (a quick pass: append
//! `-- --warm-up-time 1 --measurement-time 3`; one group: append its name,
//! e.g. `-- envelope/render`). For each bench criterion prints the time per
//! iteration as `[low estimate high]` (a 95 % confidence interval of the
//! mean) and the change since the last run; the medians are in
//! `target/criterion/<group>/<bench>/new/estimates.json`. Before measuring,
//! it prints the size of the envelopes it renders and parses. The benches:
//!
//! - `envelope/render/seed`, `envelope/render/16KiB`: `envelope::render` of
//!   the wire contract's example `<tool_error>` (`NOT_FOUND`, wire contract
//!   §2, byte for byte) and of one of about 16 KiB (a long message, many
//!   details, nothing cut by the size budget);
//! - `envelope/parse/seed`, `envelope/parse/16KiB`: `envelope::parse` of the
//!   same two texts;
//! - `validation/1_error`, `validation/3_errors`, `validation/10_errors`:
//!   `SchemaValidator::validate` plus `render_validation` of a failing call
//!   (the 3-error one is the bench example's `get_invoice` with
//!   `{"id":"bad","email":"nope","amount":0}`; the 10-error one a struct of
//!   10 constrained fields, all wrong), against the schema the server itself
//!   compiles for the action (read from `FusionServer::listings`);
//! - `call/in_process/plain_3_errors`, `call/in_process/grouped_3_errors`:
//!   that 3-error call through `FusionServer::call` (routing, validation,
//!   the `CallToolResult` with the envelope and its `_meta`), to the plain
//!   tool `get_invoice` and to the group `billing` (action `get_invoice`,
//!   routed by the `action` field);
//! - `call/success/plain`, `call/success/grouped`: the same calls with valid
//!   arguments, through the handler to a success.
//!
//! The in-process calls run on a current-thread tokio runtime; each call
//! gets a fresh copy of its arguments (made outside the timing), as a
//! transport hands over a freshly decoded value. The targets: a failing
//! in-process call with 3 field errors in at most 4 µs, the seed envelope
//! rendered in at most 1 µs.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use mcp_fusion::envelope::{ParsedEnvelope, parse, render, render_validation};
use mcp_fusion::error::ValidationFailure;
use mcp_fusion::validation::SchemaValidator;
use mcp_fusion::{Action, CallContext, FusionServer, Group, ToolError, action};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// The bench example's arguments (`examples/bench/src/lib.rs`), declared
/// again here: the library cannot depend on the example crate.
#[derive(Debug, Deserialize, JsonSchema)]
#[expect(
    dead_code,
    reason = "the handler reads only `id`, as the example's does"
)]
struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    id: String,
    /// Who the invoice is sent to, e.g. `user@example.com`.
    #[schemars(email)]
    email: String,
    /// The amount, in cents (at least 1).
    #[schemars(range(min = 1))]
    amount: u64,
}

/// Read one invoice by id (the bench example's handler).
#[action(read_only, idempotent)]
async fn get_invoice(args: GetInvoice) -> Result<String, ToolError> {
    Ok(format!(r#"{{"id":"{}","status":"open"}}"#, args.id))
}

/// A currency, for [`TenChecks`]'s `enum` check.
#[derive(Debug, Deserialize, JsonSchema)]
enum Currency {
    #[serde(rename = "USD")]
    Usd,
    #[serde(rename = "EUR")]
    Eur,
    #[serde(rename = "GBP")]
    Gbp,
}

/// Ten constrained fields, one keyword each: the 10-error validation bench
/// sends a wrong value for every one.
#[derive(Debug, Deserialize, JsonSchema)]
#[expect(dead_code, reason = "only the schema is used: every call is refused")]
struct TenChecks {
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    id: String,
    #[schemars(email)]
    email: String,
    #[schemars(range(min = 1))]
    amount: u64,
    currency: Currency,
    #[schemars(range(max = 100))]
    quantity: u32,
    #[schemars(url)]
    website: String,
    #[schemars(length(min = 1))]
    items: Vec<String>,
    #[schemars(length(max = 10))]
    note: String,
    paid: bool,
    #[schemars(extend("format" = "date"))]
    due: String,
}

/// The ten wrong values for [`TenChecks`], one per field.
fn ten_wrong() -> Value {
    json!({
        "id": "bad",
        "email": "nope",
        "amount": 0,
        "currency": "usd",
        "quantity": 1000,
        "website": "not a url",
        "items": [],
        "note": "far longer than ten characters",
        "paid": "yes",
        "due": "tomorrow"
    })
}

/// The bench example's failing call: three field errors.
fn three_wrong() -> Value {
    json!({"id": "bad", "email": "nope", "amount": 0})
}

/// The bench example's failing call with one field error (the id).
fn one_wrong() -> Value {
    json!({"id": "bad", "email": "user@example.com", "amount": 5})
}

/// The success path's arguments.
fn valid() -> Value {
    json!({"id": "inv_1", "email": "user@example.com", "amount": 5})
}

/// `args` with the group's discriminator added: `{"action": "get_invoice", …}`.
fn grouped(args: Value) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("action".into(), json!("get_invoice"));
    let Value::Object(fields) = args else {
        unreachable!("the bench arguments are objects")
    };
    object.extend(fields);
    Value::Object(object)
}

/// The server of the call benches: the plain tool `get_invoice`, the group
/// `billing` with the same action, and `ten_checks` (only its schema is used).
fn server() -> FusionServer {
    async fn ten_checks(_ctx: CallContext, _args: TenChecks) -> Result<&'static str, ToolError> {
        Ok("checked")
    }
    FusionServer::builder("contract-bench", "1")
        .tool(get_invoice::action())
        .group(Group::new("billing").action(get_invoice::action()))
        .tool(Action::new("ten_checks", ten_checks))
        .build()
        .expect("the bench tools build")
}

/// The validator the server compiles for the plain tool `name`: its listed
/// input schema, compiled.
fn validator(server: &FusionServer, name: &str) -> SchemaValidator {
    let listing = server
        .listings()
        .into_iter()
        .find(|l| l.name == name)
        .expect("the tool is listed");
    SchemaValidator::new(&listing.input_schema).expect("the listed schema compiles")
}

/// The wire contract's example envelope (§2; the seed page's).
fn seed_error() -> ToolError {
    ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .details([("requestedId", "inv_2026_9999")])
        .retry_after(30)
}

/// The number of details of [`large_error`].
const LARGE_DETAILS: usize = 100;

/// An envelope of about 16 KiB that the size budget leaves whole: a message
/// of 1 800 characters, a recovery, four actions and 100 details of about
/// 120 bytes, with a few characters to escape (`&`, `<`).
fn large_error() -> ToolError {
    let message = "The invoice batch could not be posted & nothing was charged: "
        .repeat(30)
        .chars()
        .take(1_800)
        .collect::<String>();
    let details = (0..LARGE_DETAILS).map(|i| {
        (
            format!("line_{i:03}"),
            format!(
                "item {i:03}: 3 x widget <blue> & co, unit price 1250 cents, rejected by the ledger as a duplicate"
            ),
        )
    });
    ToolError::conflict(message)
        .suggest(
            "Fix the lines listed in details, then post the batch again; do not retry unchanged.",
        )
        .actions([
            "billing.list_invoices",
            "billing.get_invoice",
            "billing.void_invoice",
            "billing.create_invoice",
        ])
        .details(details)
}

fn envelope(c: &mut Criterion) {
    let seed = seed_error();
    let large = large_error();
    // Its exact bytes are asserted by tests/envelope/seed.rs; here, that
    // the bench renders a whole envelope that reads back.
    let seed_text = render(&seed);
    assert!(
        matches!(parse(&seed_text), Ok(ParsedEnvelope::Tool(ref e)) if e.retry_after.is_some()),
        "the seed envelope reads back whole"
    );
    let large_text = render(&large);
    let ParsedEnvelope::Tool(parsed) = parse(&large_text).expect("the large envelope parses")
    else {
        panic!("the large envelope is a <tool_error>")
    };
    assert_eq!(parsed.details.len(), LARGE_DETAILS, "nothing was cut");
    assert!(
        (15 * 1024..16 * 1024).contains(&large_text.len()),
        "about 16 KiB: {} bytes",
        large_text.len()
    );
    println!(
        "envelopes: seed {} bytes; 16KiB {} bytes ({} details)",
        seed_text.len(),
        large_text.len(),
        LARGE_DETAILS
    );

    let mut group = c.benchmark_group("envelope/render");
    group.bench_function("seed", |b| b.iter(|| render(black_box(&seed))));
    group.bench_function("16KiB", |b| b.iter(|| render(black_box(&large))));
    group.finish();

    let mut group = c.benchmark_group("envelope/parse");
    group.bench_function("seed", |b| b.iter(|| parse(black_box(&seed_text))));
    group.bench_function("16KiB", |b| b.iter(|| parse(black_box(&large_text))));
    group.finish();
}

fn validation(c: &mut Criterion) {
    let server = server();
    let get_invoice = validator(&server, "get_invoice");
    let ten_checks = validator(&server, "ten_checks");
    let cases = [
        ("1_error", &get_invoice, "get_invoice", one_wrong(), 1),
        ("3_errors", &get_invoice, "get_invoice", three_wrong(), 3),
        ("10_errors", &ten_checks, "ten_checks", ten_wrong(), 10),
    ];
    let mut group = c.benchmark_group("validation");
    for (id, validator, action, mut args, problems) in cases {
        let fields = validator.validate(&mut args).expect_err("the call fails");
        assert_eq!(fields.len(), problems, "{id}: {fields:?}");
        // `validate` only removes `null`s given for optional fields: there
        // are none, so the same value serves every iteration.
        group.bench_function(id, |b| {
            b.iter(|| {
                let fields = validator
                    .validate(black_box(&mut args))
                    .expect_err("the call fails");
                render_validation(&ValidationFailure::new(action, fields))
            })
        });
    }
    group.finish();
}

/// The first text block of a call's result.
fn text(result: &mcp_fusion::model::CallToolResult) -> &str {
    &result.content[0].as_text().expect("a text block").text
}

fn calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = server();
    let cases = [
        ("plain", "get_invoice", three_wrong(), valid()),
        (
            "grouped",
            "billing",
            grouped(three_wrong()),
            grouped(valid()),
        ),
    ];
    for (_, tool, failing, succeeding) in &cases {
        let (bad, ok) = runtime.block_on(async {
            (
                server
                    .call(tool, failing.clone())
                    .await
                    .expect("known tool"),
                server
                    .call(tool, succeeding.clone())
                    .await
                    .expect("known tool"),
            )
        });
        assert_eq!(bad.is_error, Some(true));
        assert_eq!(text(&bad).matches("<field ").count(), 3, "{}", text(&bad));
        assert_eq!(ok.is_error, Some(false));
        assert_eq!(text(&ok), r#"{"id":"inv_1","status":"open"}"#);
    }

    let mut group = c.benchmark_group("call/in_process");
    for (kind, tool, failing, _) in &cases {
        group.bench_function(format!("{kind}_3_errors"), |b| {
            b.to_async(&runtime).iter_batched(
                || failing.clone(),
                |args| async {
                    // Dropping the result is part of the call's cost.
                    black_box(server.call(tool, args).await.expect("known tool"));
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();

    let mut group = c.benchmark_group("call/success");
    for (kind, tool, _, succeeding) in &cases {
        group.bench_function(*kind, |b| {
            b.to_async(&runtime).iter_batched(
                || succeeding.clone(),
                |args| async {
                    // Dropping the result is part of the call's cost.
                    black_box(server.call(tool, args).await.expect("known tool"));
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, envelope, validation, calls);
criterion_main!(benches);
