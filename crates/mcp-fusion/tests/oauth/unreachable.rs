//! An authorization server that cannot be reached: a token that needs it
//! to be checked (its keys not fetched yet, a key not cached, an opaque
//! token to introspect)
//! gets `503 Service Unavailable` with `Retry-After`, not `401
//! invalid_token` (the token may be fine); one that cannot be discovered
//! is named with the cause of each failed request.

use mcp_fusion::guard::OAuthResourceServer;
use mcp_fusion::transport::AUTHORIZATION_SERVER_RETRY_SECS;

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{
    Answer, Served, full_token, introspecting_uncached, opaque_token, refetching_keys, serve,
};

#[track_caller]
fn assert_unavailable(answer: &Answer) {
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert_eq!(answer.header("retry-after"), "10");
    assert_eq!(AUTHORIZATION_SERVER_RETRY_SECS, 10);
    assert_eq!(answer.header("cache-control"), "no-store");
    assert!(answer.headers.get("www-authenticate").is_none());
    assert_eq!(
        answer.body,
        "Service Unavailable: the authorization server could not be reached to check the bearer token; try again in 10 seconds"
    );
}

#[tokio::test]
async fn a_jwt_whose_keys_cannot_be_fetched_gets_503() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served: Served = serve(&authorization.issuer, |v| v, None).await;
    // Discovered at start, its keys are fetched at the first token: never
    // here, the authorization server being gone by then.
    let token = full_token(&authorization, &served).await;
    authorization.stop().await;
    let answer = served.initialize(&token).await;
    assert_unavailable(&answer);
}

#[tokio::test]
async fn a_jwt_of_a_key_not_cached_gets_503_when_the_keys_cannot_be_fetched_again() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, refetching_keys, None).await;
    let first = full_token(&authorization, &served).await;
    assert_eq!(served.initialize(&first).await.status, 200);
    // The keys rotate (the same issuer), then the authorization server
    // goes away: a token of the new key cannot be checked.
    let authorization = authorization.restart("key-2").await;
    let rotated = full_token(&authorization, &served).await;
    authorization.stop().await;
    assert_unavailable(&served.initialize(&rotated).await);
    // A token of the key cached is still checked without it.
    assert_eq!(served.initialize(&first).await.status, 200);
}

#[tokio::test]
async fn an_opaque_token_that_cannot_be_introspected_gets_503() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, introspecting_uncached, None).await;
    let token = opaque_token(&authorization, &served).await;
    authorization.stop().await;
    let answer = served.initialize(&token).await;
    assert_unavailable(&answer);
}

#[tokio::test]
async fn an_authorization_server_that_cannot_be_discovered_is_named_with_the_cause() {
    // A port nothing listens on: every connection is refused.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let refused = "error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)";
    let error = OAuthResourceServer::discover(&issuer, "http://127.0.0.1:9/mcp")
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot discover the authorization server {issuer}: {issuer}/.well-known/oauth-authorization-server: {refused}; {issuer}/.well-known/openid-configuration: {refused}"
        )
    );
}
