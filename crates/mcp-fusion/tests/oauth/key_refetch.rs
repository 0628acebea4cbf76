//! A token whose key is cached is checked at once, even while the key set
//! is being fetched again for a token naming a key it lacks: that fetch
//! (held open here by the signing server) is off the path of tokens the
//! cached keys verify, so a caller with made-up key ids cannot stall every
//! other caller.

use crate::resource_server::{invalid_token, refetching_keys, serve};
use crate::signing_server::{KID, SigningServer};

#[tokio::test]
async fn a_cached_key_verifies_while_the_keys_are_fetched_again() {
    let issuer = SigningServer::start().await;
    let served = serve(&issuer.issuer, refetching_keys, None).await;
    let claims = issuer.claims(&served.resource, "billing:read");
    let valid = issuer.token(KID, &claims);
    assert_eq!(served.initialize(&valid).await.status, 200);
    assert_eq!(
        issuer.fetches(),
        1,
        "the keys are fetched at the first token"
    );

    // A token naming a key the set lacks: the keys are fetched again, and
    // that fetch is held open.
    issuer.hold_fetches();
    let unknown = issuer.token("key-made-up", &claims);
    let refused = served.initialize(&unknown);
    tokio::pin!(refused);
    tokio::select! {
        () = issuer.held_fetch_arrived() => {}
        answer = &mut refused => panic!("answered before the keys were fetched again: {}", answer.status),
    }

    // Meanwhile a token of the cached key is served, the fetch still open.
    let answer = served.initialize(&valid).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        !issuer.abandoned(),
        "the token of a cached key waited until the fetch gave up"
    );

    // Once the keys arrive (still without that key), the other is refused.
    issuer.release();
    let refused = refused.await;
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert_eq!(
        refused.header("www-authenticate"),
        invalid_token(
            &served,
            "is signed with a key the authorization server does not publish"
        )
    );
    assert_eq!(issuer.fetches(), 2);
}
