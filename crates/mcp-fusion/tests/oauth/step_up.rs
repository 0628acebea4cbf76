//! A token without a scope the called capability needs: under the step-up
//! policy (the default with OAuth) HTTP 403 `insufficient_scope` naming the
//! scope, before the call runs (an action of a group by its discriminator,
//! a prompt, a resource read or subscribed to, the completion of a
//! prompt's argument or a template's variable), the name it repeats cut
//! and percent-encoded as a challenge may hold it; never for what the
//! router runs no call of (a dotted `group.action` name); under the
//! envelope policy the `FORBIDDEN` result.

use mcp_fusion::guard::InsufficientScope;
use serde_json::{Value, json};

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{Answer, Served, billing_call, serve};

/// Serves the billing server under `policy` (`None`: the default, step-up)
/// and opens a session with a token of `client` for `scope` and its
/// resource. Returns the authorization server (to keep running), the
/// served server, the token and the session id.
async fn open(
    policy: Option<InsufficientScope>,
    client: &str,
    scope: &str,
) -> (AuthorizationServer, Served, String, String) {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, policy).await;
    let token = authorization
        .token(client, scope, Some(&served.resource))
        .await;
    let session = served.session(&token).await;
    (authorization, served, token, session)
}

/// Asserts that `answer` is the 403 `insufficient_scope` of `served` for
/// `name`, which needs `scope` (RFC 6750 §3.1): its challenge and its body.
#[track_caller]
fn assert_insufficient_scope(answer: &Answer, served: &Served, name: &str, scope: &str) {
    assert_eq!(answer.status, 403, "{name}: {}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{}\", error_description=\"{name} needs the scope {scope}, which the token does not have\"",
            served.metadata_url()
        )
    );
    assert_eq!(
        answer.body,
        format!("Forbidden: {name} needs the scope {scope}, which the token does not have")
    );
}

#[tokio::test]
async fn a_read_only_token_gets_403_insufficient_scope_for_what_writes() {
    let (_authorization, served, token, session) =
        open(None, "billing-reader", "billing:read").await;

    let writes: [(Value, &str); 3] = [
        (billing_call("void_invoice"), "billing.void_invoice"),
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "completion/complete", "params": {
                "ref": {"type": "ref/prompt", "name": "payment_reminder"},
                "argument": {"name": "customer", "value": "a"}
            }}),
            "payment_reminder",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {
                "name": "payment_reminder"
            }}),
            "payment_reminder",
        ),
    ];
    for (body, name) in writes {
        let answer = served.call(&token, &session, &body).await;
        assert_insufficient_scope(&answer, &served, name, "billing:write");
        assert_eq!(answer.header("cache-control"), "no-store");
    }

    // What reads is served.
    let read = served
        .call(&token, &session, &billing_call("get_invoice"))
        .await;
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(
        read.message()["result"]["content"],
        json!([{"type": "text", "text": "invoice inv_1 for billing-reader"}])
    );
    let template = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {
        "uri": "billing://invoices/inv_1"
    }});
    let read = served.call(&token, &session, &template).await;
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(
        read.message()["result"]["contents"][0]["text"],
        "invoice inv_1"
    );
}

#[tokio::test]
async fn a_write_only_token_gets_403_for_reading_subscribing_and_completing() {
    let (_authorization, served, token, session) =
        open(None, "billing-full", "billing:write").await;
    let reads: [(Value, &str); 3] = [
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {
                "uri": "billing://invoices/inv_1"
            }}),
            "billing://invoices/inv_1",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "completion/complete", "params": {
                "ref": {"type": "ref/resource", "uri": "billing://invoices/{id}"},
                "argument": {"name": "id", "value": "inv"}
            }}),
            "billing://invoices/{id}",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {
                "uri": "billing://invoices/inv_1"
            }}),
            "billing://invoices/inv_1",
        ),
    ];
    for (body, name) in reads {
        let answer = served.call(&token, &session, &body).await;
        assert_insufficient_scope(&answer, &served, name, "billing:read");
    }
}

#[tokio::test]
async fn a_challenge_repeats_a_long_or_non_ascii_name_cut_and_percent_encoded() {
    let (_authorization, served, token, session) =
        open(None, "billing-full", "billing:write").await;
    let read = |uri: String| json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": uri}});

    let long = format!("billing://invoices/{}", "A".repeat(100_000));
    let answer = served.call(&token, &session, &read(long.clone())).await;
    let shown = format!("{}...", &long[..125]);
    assert_insufficient_scope(&answer, &served, &shown, "billing:read");

    let answer = served
        .call(
            &token,
            &session,
            &read(String::from("billing://invoices/caf\u{e9}\u{2028}\"%")),
        )
        .await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"billing:read\", resource_metadata=\"{}\", error_description=\"billing://invoices/caf%C3%A9%E2%80%A8%22%25 needs the scope billing:read, which the token does not have\"",
            served.metadata_url()
        )
    );
}

#[tokio::test]
async fn a_dotted_action_name_is_answered_by_the_router_not_stepped_up() {
    let (_authorization, served, token, session) =
        open(None, "billing-reader", "billing:read").await;
    let dotted = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "billing.void_invoice", "arguments": {"id": "inv_1"}
    }});
    let answer = served.call(&token, &session, &dotted).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let error = &answer.message()["error"];
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(
        error["message"],
        "Unknown tool \"billing.void_invoice\": the action billing.void_invoice is called through the tool \"billing\" with \"action\": \"void_invoice\" in its arguments. Valid tools: billing_health, billing."
    );
}

#[tokio::test]
async fn under_the_envelope_policy_a_missing_scope_is_the_forbidden_result() {
    let (_authorization, served, token, session) = open(
        Some(InsufficientScope::Envelope),
        "billing-reader",
        "billing:read",
    )
    .await;
    let answer = served
        .call(&token, &session, &billing_call("void_invoice"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let result = &answer.message()["result"];
    assert_eq!(result["isError"], true);
    let meta = &result["_meta"]["mcp-fusion/error"];
    assert_eq!(meta["code"], "FORBIDDEN");
    assert_eq!(
        meta["message"],
        "billing.void_invoice needs the scope \"billing:write\", which these credentials do not have."
    );
    assert_eq!(meta["details"], json!({"missing_scopes": "billing:write"}));
}
