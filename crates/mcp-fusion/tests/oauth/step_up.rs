//! A token without a scope the called capability needs: under the step-up
//! policy (the default with OAuth) HTTP 403 `insufficient_scope` naming the
//! scope, before the call runs (an action of a group, by its discriminator
//! or dotted name, a prompt); under the envelope policy the `FORBIDDEN`
//! result.

use mcp_fusion::guard::InsufficientScope;
use serde_json::{Value, json};

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{Served, billing_call, serve};

fn insufficient(served: &Served, name: &str) -> String {
    format!(
        "Bearer error=\"insufficient_scope\", scope=\"billing:write\", resource_metadata=\"{}\", error_description=\"{name} needs the scope billing:write, which the token does not have\"",
        served.metadata_url()
    )
}

#[tokio::test]
async fn a_read_only_token_gets_403_insufficient_scope_for_what_writes() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let token = authorization
        .token("billing-reader", "billing:read", Some(&served.resource))
        .await;
    let session = served.session(&token).await;

    let writes: [(Value, &str); 3] = [
        (billing_call("void_invoice"), "billing.void_invoice"),
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "billing.void_invoice", "arguments": {"id": "inv_1"}
            }}),
            "billing.void_invoice",
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
        assert_eq!(answer.status, 403, "{name}: {}", answer.body);
        assert_eq!(
            answer.header("www-authenticate"),
            insufficient(&served, name)
        );
        assert_eq!(answer.header("cache-control"), "no-store");
        assert_eq!(
            answer.body,
            format!(
                "Forbidden: {name} needs the scope billing:write, which the token does not have"
            )
        );
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
async fn under_the_envelope_policy_a_missing_scope_is_the_forbidden_result() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(
        &authorization.issuer,
        |v| v,
        Some(InsufficientScope::Envelope),
    )
    .await;
    let token = authorization
        .token("billing-reader", "billing:read", Some(&served.resource))
        .await;
    let session = served.session(&token).await;
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
