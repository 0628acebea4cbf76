//! Opaque tokens checked at the authorization server's introspection
//! endpoint (RFC 7662): served while active, refused once revoked, refused
//! when bound to no audience.

use serde_json::json;

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{
    BOTH, billing_call, introspecting, introspecting_uncached, invalid_token, invalid_token_asking,
    opaque_token, serve,
};

#[tokio::test]
async fn an_opaque_token_is_introspected_and_refused_once_revoked() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, introspecting_uncached, None).await;
    let token = opaque_token(&authorization, &served).await;
    let session = served.session(&token).await;
    let answer = served
        .call(&token, &session, &billing_call("get_invoice"))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.message()["result"]["content"],
        json!([{"type": "text", "text": "invoice inv_1 for opaque-client"}])
    );

    authorization.revoke("opaque-client", &token).await;
    let answer = served
        .call(&token, &session, &billing_call("get_invoice"))
        .await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    // The challenge asks for what the refused call needs.
    assert_eq!(
        answer.header("www-authenticate"),
        invalid_token_asking(
            &served,
            "is not active (the authorization server says it was revoked, has expired or is unknown)",
            "billing:read"
        )
    );
}

#[tokio::test]
async fn an_introspected_token_without_this_audience_is_refused() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, introspecting, None).await;
    // No resource indicator: active, but bound to no audience.
    let token = authorization.token("billing-full", BOTH, None).await;
    let answer = served.initialize(&token).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        invalid_token(
            &served,
            "was not issued for this server (its audience does not include this server's resource URI)"
        )
    );
    let garbage = served.initialize("garbage").await;
    assert_eq!(
        garbage.header("www-authenticate"),
        invalid_token(
            &served,
            "is not active (the authorization server says it was revoked, has expired or is unknown)"
        )
    );
}

#[tokio::test]
async fn a_token_the_introspection_endpoint_refuses_to_check_is_not_accepted() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, introspecting, None).await;
    // An unsigned JWT (`alg: none`) is no JWT this server checks, so it is
    // introspected; oidc-provider answers 400 unsupported_token_type.
    let unsigned = "eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJtYWxsb3J5In0.";
    let answer = served.initialize(unsigned).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        invalid_token(&served, "was not accepted by the authorization server")
    );
    assert_eq!(
        answer.body,
        "Unauthorized: The bearer token was not accepted by the authorization server."
    );
}
