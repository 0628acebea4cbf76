//! Which scopes a 401 challenge asks for (MCP authorization, "Scope
//! Selection Strategy"): a request that calls a capability needing scopes
//! names exactly that capability's; any other the server's challenge
//! scopes (set on the resource server, else those of its read-only
//! capabilities, else every scope). An anonymous caller the server lets in
//! gets the 401 of what it calls under the step-up policy, the
//! `AUTH_REQUIRED` result under the envelope policy, and sees what is open.

use mcp_fusion::guard::InsufficientScope;
use serde_json::{Value, json};

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{BOTH, Served, billing_call, initialize, serve, serve_with};

const NO_TOKEN: &str =
    "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)";

fn challenge(served: &Served, scope: &str) -> String {
    format!(
        "Bearer resource_metadata=\"{}\", scope=\"{scope}\"",
        served.metadata_url()
    )
}

fn prompt() -> Value {
    json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {
        "name": "payment_reminder"
    }})
}

fn template() -> Value {
    json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {
        "uri": "billing://invoices/inv_1"
    }})
}

fn health() -> Value {
    json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "billing_health", "arguments": {}
    }})
}

fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
}

#[tokio::test]
async fn a_401_names_the_scopes_of_what_the_request_calls() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let dotted = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "billing.get_invoice", "arguments": {"id": "inv_1"}
    }});
    // What needs no scope, and what calls nothing, is asked the challenge
    // scopes: here those of the read-only capabilities (the prompt, the
    // template, billing_health), which are both. So is a dotted
    // `group.action` name, which the router runs no call of.
    let cases: [(Value, &str); 7] = [
        (billing_call("void_invoice"), "billing:write"),
        (billing_call("get_invoice"), "billing:read"),
        (dotted, BOTH),
        (prompt(), "billing:write"),
        (template(), "billing:read"),
        (health(), BOTH),
        (tools_list(), BOTH),
    ];
    for (body, scope) in cases {
        let answer = served.post(None, None, &body).await;
        assert_eq!(answer.status, 401, "{body}: {}", answer.body);
        assert_eq!(
            answer.header("www-authenticate"),
            challenge(&served, scope),
            "{body}"
        );
        assert_eq!(answer.header("cache-control"), "no-store");
        assert_eq!(answer.body, NO_TOKEN);
    }
    // A GET (the session's stream) names the challenge scopes too.
    let get = served.get("/mcp").await;
    assert_eq!(get.status, 401, "{}", get.body);
    assert_eq!(get.header("www-authenticate"), challenge(&served, BOTH));

    // A refused token's 401 names the scopes of what it calls as well.
    let refused = served
        .post(Some("Bearer garbage"), None, &billing_call("void_invoice"))
        .await;
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert_eq!(
        refused.header("www-authenticate"),
        format!(
            "Bearer error=\"invalid_token\", error_description=\"The bearer token is not valid.\", resource_metadata=\"{}\", scope=\"billing:write\"",
            served.metadata_url()
        )
    );
}

#[tokio::test]
async fn the_challenge_scopes_set_on_the_resource_server_are_asked_by_what_calls_nothing() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(
        &authorization.issuer,
        |v| v.challenge_scopes(["billing:read"]),
        None,
    )
    .await;
    let opened = served.post(None, None, &initialize()).await;
    assert_eq!(opened.status, 401, "{}", opened.body);
    assert_eq!(
        opened.header("www-authenticate"),
        challenge(&served, "billing:read")
    );
    let write = served.post(None, None, &billing_call("void_invoice")).await;
    assert_eq!(write.status, 401, "{}", write.body);
    assert_eq!(
        write.header("www-authenticate"),
        challenge(&served, "billing:write")
    );
    // The metadata still lists every scope.
    let metadata: Value = serde_json::from_str(
        &served
            .get("/.well-known/oauth-protected-resource/mcp")
            .await
            .body,
    )
    .unwrap();
    assert_eq!(
        metadata["scopes_supported"],
        json!(["billing:read", "billing:write"])
    );
}

#[tokio::test]
async fn an_anonymous_caller_gets_the_401_of_what_needs_credentials_under_step_up() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve_with(&authorization.issuer, |v| v, None, true).await;
    let session = served.session_as(None).await;

    // What is open is served and listed; nothing else is listed.
    let open = served.post(None, Some(&session), &health()).await;
    assert_eq!(open.status, 200, "{}", open.body);
    assert_eq!(
        open.message()["result"]["content"],
        json!([{"type": "text", "text": "ok"}])
    );
    let listed = served.post(None, Some(&session), &tools_list()).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    let listing = listed.message();
    let names: Vec<&str> = listing["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["billing_health"]);

    let cases: [(Value, &str, &str); 3] = [
        (
            billing_call("void_invoice"),
            "billing.void_invoice",
            "billing:write",
        ),
        (prompt(), "payment_reminder", "billing:write"),
        (template(), "billing://invoices/inv_1", "billing:read"),
    ];
    for (body, name, scope) in cases {
        let answer = served.post(None, Some(&session), &body).await;
        assert_eq!(answer.status, 401, "{name}: {}", answer.body);
        assert_eq!(
            answer.header("www-authenticate"),
            challenge(&served, scope),
            "{name}"
        );
        assert_eq!(answer.header("cache-control"), "no-store");
        assert_eq!(
            answer.body,
            format!("Unauthorized: {name} needs a bearer token (Authorization: Bearer TOKEN)")
        );
    }
}

#[tokio::test]
async fn an_anonymous_caller_gets_auth_required_under_the_envelope_policy() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve_with(
        &authorization.issuer,
        |v| v,
        Some(InsufficientScope::Envelope),
        true,
    )
    .await;
    let session = served.session_as(None).await;
    let answer = served
        .post(None, Some(&session), &billing_call("void_invoice"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let result = &answer.message()["result"];
    assert_eq!(result["isError"], true);
    let meta = &result["_meta"]["mcp-fusion/error"];
    assert_eq!(meta["code"], "AUTH_REQUIRED", "{result}");
    assert_eq!(
        meta["message"],
        "billing.void_invoice needs credentials, and the call carried none."
    );
}
