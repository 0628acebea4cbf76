//! Claims read exactly: the scopes are `scope` when the token has it
//! (RFC 9068 §2.2.3), else `scp`, never both merged; `iss` must be the
//! issuer the metadata names, character for character (RFC 9068 §4).

use serde_json::json;

use crate::resource_server::{billing_call, invalid_token, serve};
use crate::signing_server::{KID, SigningServer};

#[tokio::test]
async fn the_scopes_are_those_of_scope_when_present_else_those_of_scp() {
    let issuer = SigningServer::start().await;
    let served = serve(&issuer.issuer, |v| v, None).await;

    let mut both = issuer.claims(&served.resource, "billing:read");
    both["scp"] = json!(["billing:write"]);
    let token = issuer.token(KID, &both);
    let session = served.session(&token).await;
    let void = served
        .call(&token, &session, &billing_call("void_invoice"))
        .await;
    assert_eq!(void.status, 403, "{}", void.body);
    assert_eq!(
        void.body,
        "Forbidden: billing.void_invoice needs the scope billing:write, which the token does not have"
    );
    let read = served
        .call(&token, &session, &billing_call("get_invoice"))
        .await;
    assert_eq!(read.status, 200, "{}", read.body);

    let mut scp_only = issuer.claims(&served.resource, "");
    scp_only.as_object_mut().unwrap().remove("scope");
    scp_only["scp"] = json!(["billing:read", "billing:write"]);
    let token = issuer.token(KID, &scp_only);
    let session = served.session(&token).await;
    let void = served
        .call(&token, &session, &billing_call("void_invoice"))
        .await;
    assert_eq!(void.status, 200, "{}", void.body);
    assert_eq!(
        void.message()["result"]["content"],
        json!([{"type": "text", "text": "voided inv_1"}])
    );
}

#[tokio::test]
async fn an_iss_spelled_with_a_trailing_slash_is_another_issuer() {
    let issuer = SigningServer::start().await;
    let served = serve(&issuer.issuer, |v| v, None).await;
    let mut claims = issuer.claims(&served.resource, "billing:read");
    claims["iss"] = json!(format!("{}/", issuer.issuer));
    let answer = served.initialize(&issuer.token(KID, &claims)).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        invalid_token(
            &served,
            "was issued by another authorization server than the one this server trusts"
        )
    );
    // Spelled as the metadata does, the same token is taken.
    let claims = issuer.claims(&served.resource, "billing:read");
    assert_eq!(
        served.initialize(&issuer.token(KID, &claims)).await.status,
        200
    );
}
