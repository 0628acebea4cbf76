//! `FusionClient` against the real `fusion serve` over Streamable HTTP when
//! the server loses the client's session: the server is killed and started
//! again on the same port (so it answers the old `Mcp-Session-Id` with 404),
//! and the next call succeeds on a new session, started by the client on its
//! own. (That a second 404 is reported and not looped is tested against a
//! server that forgets every session: `crates/mcp-fusion/tests/client/session.rs`.)

use std::time::Duration;

use crate::support::{HttpServer, TempDb};
use mcp_fusion::client::{ClientOptions, FusionClient, Target};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_call_after_the_server_lost_the_session_succeeds_on_a_new_one() {
    let db = TempDb::new("session-restart");
    let mut server = HttpServer::start(&db.0);
    let port = server.port;
    // The time limit only keeps a hang from hanging the test.
    let options = ClientOptions::default().call_timeout(Duration::from_secs(60));
    let client = FusionClient::connect(&Target::http(&server.url), options)
        .await
        .expect("connect to fusion serve");
    let first = client
        .call_checked("billing.get_invoice", json!({"id": "inv_1"}))
        .await
        .expect("a call on the first session");
    assert_eq!(first.value()["customer_email"], "ada@example.com");

    // The server goes away with every session it held, and comes back.
    server.kill();
    let _restarted = HttpServer::start_on(&db.0, port, &[]);

    let second = client
        .call_checked("billing.get_invoice", json!({"id": "inv_2"}))
        .await
        .expect("the call succeeds on a new session");
    assert_eq!(second.value()["customer_email"], "grace@example.com");
    // The new session carries on.
    let third = client
        .call_checked("billing.get_invoice", json!({"id": "inv_3"}))
        .await
        .expect("a later call on the new session");
    assert_eq!(third.value()["customer_email"], "linus@example.com");
    client.close().await;
}
