//! Key rotation: the authorization server restarts with a new signing key;
//! the resource server fetches its JWKS again for the new key id, and
//! tokens of the old key are refused as signed with an unknown key.

use crate::authorization_server::AuthorizationServer;
use crate::resource_server::{full_token, invalid_token, refetching_keys, serve};

#[tokio::test]
async fn a_rotated_key_is_fetched_again_and_the_old_one_refused() {
    let authorization = AuthorizationServer::start("key-1").await;
    let served = serve(&authorization.issuer, refetching_keys, None).await;
    let old = full_token(&authorization, &served).await;
    assert_eq!(served.initialize(&old).await.status, 200);

    let authorization = authorization.restart("key-2").await;
    let new = full_token(&authorization, &served).await;
    let answer = served.initialize(&new).await;
    assert_eq!(answer.status, 200, "{}", answer.body);

    let answer = served.initialize(&old).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate"),
        invalid_token(
            &served,
            "is signed with a key the authorization server does not publish"
        )
    );
}
