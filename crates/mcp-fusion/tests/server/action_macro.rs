//! `#[mcp_fusion::action]` against the builder: a server made with the macro
//! and the same server written by hand have the same contract (lockfile and
//! digest), and the description, the guard settings, the visibility and the
//! function itself are what the macro's documentation says.

use std::time::Duration;

use mcp_fusion::contract::{Lockfile, ServerContract};
use mcp_fusion::guard::StaticTokens;
use mcp_fusion::{Action, CallContext, FusionServer, Group, NoArgs, RateLimit, ToolError, action};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct GetInvoice {
    /// The invoice id, e.g. `inv_2`.
    pub id: String,
}

// `name`, `title` and `label` exist for the schema (the deprecated names of
// one field); the handler reads only `id`.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct RenameInvoice {
    /// The invoice id.
    pub id: String,
    /// The new name.
    pub name: Option<String>,
    /// The name, as version 1 called it.
    pub title: Option<String>,
    /// The name, as version 2 called it.
    pub label: Option<String>,
}

/// Fetch one invoice by its id.
///
/// Returns who owes what:
///   the id, then the amount in cents.
#[action(read_only, idempotent, timeout = "2s", requires_scopes("billing:read"))]
pub async fn get_invoice(_ctx: CallContext, args: GetInvoice) -> Result<String, ToolError> {
    Ok(format!("{} owes 1250 cents", args.id))
}

/// Delete an invoice for good.
#[action(
    destructive,
    requires_auth,
    concurrency(max_active = 4, max_queue = 16),
    rate_limit = "2/min",
    deprecated = "billing.void_invoice"
)]
pub(crate) async fn delete_invoice(
    _ctx: CallContext,
    args: GetInvoice,
) -> Result<String, ToolError> {
    Ok(format!("{} deleted", args.id))
}

/// Not the description: `description` replaces it.
#[action(
    name = "rename",
    description = "Rename an invoice.",
    idempotent,
    allow_unknown_fields,
    deprecated_field("title", "name"),
    deprecated_field("label", "name"),
    requires_scopes("billing:write", "billing:read")
)]
async fn rename_invoice(_ctx: CallContext, args: RenameInvoice) -> Result<String, ToolError> {
    Ok(format!("{} renamed", args.id))
}

/// Works for a minute, past its limit.
#[action(timeout = "50ms")]
async fn slow(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    tokio::time::sleep(Duration::from_secs(60)).await;
    Ok("late")
}

#[action]
async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("pong")
}

mod status {
    use mcp_fusion::{Action, CallContext, NoArgs, ToolError, action};

    /// Whether the billing back end answers.
    #[action(read_only)]
    async fn health(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("healthy")
    }

    /// The action of the private `health`: its `action()` is `pub(super)`,
    /// so this module, which declares the function, may build it.
    pub fn health_action() -> Action {
        health::action()
    }

    /// The same action written by hand.
    pub fn health_by_hand() -> Action {
        Action::new("health", health)
            .description("Whether the billing back end answers.")
            .read_only()
    }
}

fn tokens() -> StaticTokens {
    StaticTokens::new().token("admin-token", "root", ["billing:read", "billing:write"])
}

fn with_macro() -> FusionServer {
    FusionServer::builder("billing", "1.0.0")
        .auth(tokens())
        .group(
            Group::new("billing")
                .description("Invoices.")
                .action(get_invoice::action())
                .action(delete_invoice::action())
                .action(rename_invoice::action())
                .action(status::health_action()),
        )
        .tool(ping::action())
        .tool(slow::action())
        .build()
        .expect("a valid server")
}

fn by_hand() -> FusionServer {
    FusionServer::builder("billing", "1.0.0")
        .auth(tokens())
        .group(
            Group::new("billing")
                .description("Invoices.")
                .action(
                    Action::new("get_invoice", get_invoice)
                        .description("Fetch one invoice by its id.\n\nReturns who owes what:\n  the id, then the amount in cents.")
                        .read_only()
                        .idempotent()
                        .timeout(Duration::from_millis(2000))
                        .requires_scopes(["billing:read"]),
                )
                .action(
                    Action::new("delete_invoice", delete_invoice)
                        .description("Delete an invoice for good.")
                        .destructive()
                        .requires_auth()
                        .concurrency(4, 16)
                        .rate_limit(RateLimit::per_minute(2))
                        .deprecated("billing.void_invoice"),
                )
                .action(
                    Action::new("rename", rename_invoice)
                        .description("Rename an invoice.")
                        .idempotent()
                        .allow_unknown_fields()
                        .deprecated_field("title", "name")
                        .deprecated_field("label", "name")
                        .requires_scopes(["billing:write", "billing:read"]),
                )
                .action(status::health_by_hand()),
        )
        .tool(Action::new("ping", ping))
        .tool(
            Action::new("slow", slow)
                .description("Works for a minute, past its limit.")
                .timeout(Duration::from_millis(50)),
        )
        .build()
        .expect("a valid server")
}

fn lockfile(server: &FusionServer) -> Lockfile {
    Lockfile::new(ServerContract::from_listings(&server.listings()), None)
}

/// The action `name` of tool `tool` as `_meta["mcp-fusion/actions"]` lists it.
fn listed(server: &FusionServer, tool: &str, name: &str) -> Value {
    let listing = server
        .listings()
        .into_iter()
        .find(|listing| listing.name == tool)
        .expect("a listed tool");
    let action = listing
        .actions
        .iter()
        .find(|action| action.name == name)
        .expect("a listed action");
    action.to_json()
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

#[test]
fn the_macro_and_the_builder_make_the_same_contract() {
    let (made, written) = (lockfile(&with_macro()), lockfile(&by_hand()));
    assert_eq!(made.to_json()["digest"], written.to_json()["digest"]);
    assert_eq!(made.render(), written.render());
    assert_eq!(with_macro().listings(), by_hand().listings());
    assert_eq!(ServerContract::of_server(&with_macro()).action_count(), 6);
}

#[test]
fn every_attribute_reaches_the_listing() {
    let server = with_macro();
    assert_eq!(
        listed(&server, "billing", "get_invoice")["description"],
        "Fetch one invoice by its id.\n\nReturns who owes what:\n  the id, then the amount in cents."
    );
    assert_eq!(
        listed(&server, "billing", "get_invoice")["guards"],
        json!({"timeoutMs": 2000})
    );
    assert_eq!(
        listed(&server, "billing", "get_invoice")["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true})
    );
    assert_eq!(
        listed(&server, "billing", "get_invoice")["requiredScopes"],
        json!(["billing:read"])
    );
    let delete = listed(&server, "billing", "delete_invoice");
    assert_eq!(
        delete["guards"],
        // Destructive: serialized per action (wire contract §10.2).
        json!({"maxActive": 4, "maxQueue": 16, "rateLimit": {"calls": 2, "periodMs": 60000, "scope": "caller"}, "serialize": {"key": null, "maxQueue": 64, "maxWaitMs": 30000}})
    );
    assert_eq!(delete["deprecated"], "billing.void_invoice");
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    let rename = listed(&server, "billing", "rename");
    assert_eq!(rename["description"], "Rename an invoice.");
    assert_eq!(
        rename["inputSchema"]["properties"]["title"]["description"],
        "The name, as version 1 called it. Deprecated: use \"name\" instead."
    );
    assert_eq!(
        rename["inputSchema"]["properties"]["label"]["description"],
        "The name, as version 2 called it. Deprecated: use \"name\" instead."
    );
    assert_eq!(rename["inputSchema"].get("additionalProperties"), None);
    assert_eq!(
        rename["requiredScopes"],
        json!(["billing:write", "billing:read"])
    );
    assert_eq!(listed(&server, "ping", "ping").get("description"), None);
    assert_eq!(listed(&server, "ping", "ping")["guards"], json!({}));
}

#[tokio::test]
async fn the_timeout_read_at_compile_time_stops_the_call() {
    let result = with_macro().call("slow", json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "<tool_error code=\"TIMEOUT\" severity=\"error\">\n  <message>slow took longer than its limit of 50 ms and was stopped.</message>\n  <recovery>Its changes may have been made before it was stopped: check whether they were (read the item) before calling it again, so as not to make them twice.</recovery>\n  <details>\n    <detail key=\"limit_ms\">50</detail>\n  </details>\n</tool_error>"
    );
}

#[tokio::test]
async fn the_action_of_a_private_function_serves_calls() {
    let result = with_macro()
        .call("billing", json!({"action": "health"}))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result), "healthy");
}

#[tokio::test]
async fn the_function_is_still_a_plain_function() {
    let direct = Action::new("direct", |ctx: CallContext, _args: NoArgs| async move {
        get_invoice(ctx, GetInvoice { id: "inv_7".into() }).await
    });
    let server = FusionServer::builder("t", "1")
        .tool(direct)
        .build()
        .unwrap();
    let result = server.call("direct", json!({})).await.unwrap();
    assert_eq!(text(&result), "inv_7 owes 1250 cents");
}

/// One action per spelling of the period, each limited by the macro (the
/// limit passed as an `expr` fragment of `macro_rules!`).
macro_rules! limited {
    ($($name:ident = $limit:expr),* $(,)?) => {
        $(
            #[action(rate_limit = $limit)]
            async fn $name(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
                Ok("")
            }
        )*

        /// The group of those actions made by the macro, and the same
        /// group with each limit read by `RateLimit`'s `FromStr`.
        fn limited_groups() -> (Group, Group) {
            let made = Group::new("limits")$(.action($name::action()))*;
            let parsed = Group::new("limits")$(.action(
                Action::new(stringify!($name), $name).rate_limit($limit.parse().unwrap()),
            ))*;
            (made, parsed)
        }
    };
}

limited!(
    per_s = "3/s",
    per_sec = "3/sec",
    per_second = "3/second",
    per_min = "2/min",
    per_minute = "2/minute",
    per_h = "100/h",
    per_hour = " 100 / hour ",
);

#[test]
fn rate_limits_are_read_as_rate_limit_from_str_reads_them() {
    let (made, parsed) = limited_groups();
    let server = |group| {
        FusionServer::builder("t", "1")
            .group(group)
            .build()
            .unwrap()
    };
    let (made, parsed) = (server(made), server(parsed));
    assert_eq!(made.listings(), parsed.listings());
    assert_eq!(
        listed(&made, "limits", "per_hour")["guards"],
        json!({"rateLimit": {"calls": 100, "periodMs": 3_600_000, "scope": "caller"}})
    );
}
