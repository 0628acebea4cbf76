//! The 401 challenges of an OAuth resource server (RFC 6750 §3, RFC 9728
//! §5.1) and why each refused token is refused, and its protected resource
//! metadata at both well-known URLs.

use std::time::Duration;

use serde_json::json;

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{BOTH, billing_call, full_token, initialize, invalid_token, serve};

#[tokio::test]
async fn a_request_without_a_token_is_told_where_the_metadata_is_and_which_scopes() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let answer = served.post(None, None, &initialize()).await;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.header("www-authenticate"),
        format!(
            "Bearer resource_metadata=\"{}\", scope=\"{BOTH}\"",
            served.metadata_url()
        )
    );
    assert_eq!(answer.header("cache-control"), "no-store");
    assert_eq!(
        answer.body,
        "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)"
    );
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_at_the_path_and_the_root_form() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let expected = json!({
        "resource": served.resource,
        "authorization_servers": [authorization.issuer],
        "scopes_supported": ["billing:read", "billing:write"],
        "bearer_methods_supported": ["header"],
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let answer = served.get(path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("content-type"), "application/json", "{path}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&answer.body).unwrap(),
            expected,
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_token_of_the_authorization_server_for_this_resource_is_served() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let token = full_token(&authorization, &served).await;
    let session = served.session(&token).await;
    let answer = served
        .call(&token, &session, &billing_call("get_invoice"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.message()["result"]["content"],
        json!([{"type": "text", "text": "invoice inv_1 for billing-full"}])
    );
}

#[tokio::test]
async fn refused_tokens_get_401_invalid_token_saying_why() {
    let authorization = AuthorizationServer::start("key-1").await;
    let other = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let good = full_token(&authorization, &served).await;
    // The signature of another token of the same header and claims' shape.
    let (signed, _) = good.rsplit_once('.').unwrap();
    let forged = format!("{signed}.{}", "A".repeat(342));
    let cases = [
        (String::from("garbage"), "is not valid"),
        (forged, "has a signature that does not verify"),
        (
            authorization
                .token("billing-full", BOTH, Some("http://127.0.0.1:1/other"))
                .await,
            "was not issued for this server (its audience does not include this server's resource URI)",
        ),
        (
            // Without a resource indicator: an opaque token, bound to no
            // audience; this server does not introspect.
            authorization.token("billing-full", BOTH, None).await,
            "is not valid",
        ),
        (
            other
                .token("billing-full", BOTH, Some(&served.resource))
                .await,
            "was issued by another authorization server than the one this server trusts",
        ),
    ];
    for (token, why) in cases {
        let answer = served.initialize(&token).await;
        assert_eq!(answer.status, 401, "{why}: {}", answer.body);
        assert_eq!(
            answer.header("www-authenticate"),
            invalid_token(&served, why)
        );
        assert_eq!(answer.header("cache-control"), "no-store");
        assert_eq!(
            answer.body,
            format!("Unauthorized: The bearer token {why}.")
        );
        assert!(!answer.body.contains(&token));
    }
}

#[tokio::test]
async fn an_expired_token_is_refused_as_expired() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v.leeway(Duration::ZERO), None).await;
    // short-lived's tokens live one second.
    let token = authorization
        .token("short-lived", BOTH, Some(&served.resource))
        .await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let answer = served.initialize(&token).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        invalid_token(&served, "has expired")
    );
}

#[tokio::test]
async fn only_the_exact_endpoint_path_is_the_mcp_endpoint() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, |v| v, None).await;
    let token = full_token(&authorization, &served).await;
    let http = reqwest::Client::new();
    for path in [
        "/mcp/xyz",
        "/mcp/",
        "/mcp/.well-known/oauth-protected-resource",
    ] {
        let response = http
            .post(format!("{}{path}", served.base))
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize().to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "{path}");
        assert!(response.headers().get("www-authenticate").is_none());
        assert_eq!(
            response.text().await.unwrap(),
            "Not Found: the MCP endpoint of this server is /mcp"
        );
        let get = served.get(path).await;
        assert_eq!(get.status, 404, "GET {path}: {}", get.body);
    }
    assert_eq!(served.initialize(&token).await.status, 200);
}
