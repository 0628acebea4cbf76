//! The gateway's own credentials for its HTTP upstreams (`bearer_env`, and
//! `[upstream.oauth]` against oidc-provider, `tests/oauth/server.mjs`):
//! the upstream is called with the gateway's token, never with the
//! caller's, and an upstream that refuses the gateway's credentials — at
//! connection or later, on a call — is answered with the `UNAUTHORIZED`
//! envelope. The upstream is `fusion serve --auth-tokens`, the gateway
//! `fusion gateway --auth-tokens`, driven with rmcp's client.

use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use crate::authorization_server::AuthorizationServer;
use crate::gateway::{HttpGateway, TempFile, call_on, code_of, handoff_envelope, names_of};
use crate::support::{HttpServer, TempDb, assert_failure};

/// A `--auth-tokens` file for `test` holding `json`, removed on drop.
fn token_file(test: &str, json: &str) -> TempFile {
    let path = std::env::temp_dir().join(format!(
        "fusion-gateway-tokens-{test}-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, json).expect("write the token file");
    TempFile(path)
}

fn path_of(file: &TempFile) -> &str {
    file.0.to_str().expect("a UTF-8 temp path")
}

/// The `UNAUTHORIZED` envelope (text and `_meta`) of a call of
/// `<namespace>.billing` whose upstream refused the gateway's credentials.
fn refused(namespace: &str) -> (String, Value) {
    handoff_envelope(
        "UNAUTHORIZED",
        "critical",
        &format!(
            "The {namespace} tools refused the gateway's credentials; {namespace}.billing was not called."
        ),
        &format!(
            "Do not call the {namespace} tools again: an operator must fix the gateway's credentials for {namespace} in gateway.toml. Tell the user the {namespace} tools are unavailable until then."
        ),
        &[],
        None,
    )
}

/// Asserts that reading `inv_1` through `<namespace>.billing` is answered
/// with the [`refused`] envelope of `namespace`.
async fn assert_refused(client: &RunningService<RoleClient, ()>, namespace: &str) {
    let (text, meta) = refused(namespace);
    let answer = call_on(
        client,
        &format!("{namespace}.billing"),
        json!({"action": "get_invoice", "id": "inv_1"}),
    )
    .await;
    assert_failure(&answer, &text, &meta, true);
}

/// Asserts that paying `inv_2` through `<namespace>.billing` succeeds: the
/// upstream took a token allowed `billing:write`.
async fn assert_paid(client: &RunningService<RoleClient, ()>, namespace: &str) {
    let paid = call_on(
        client,
        &format!("{namespace}.billing"),
        json!({"action": "pay_invoice", "id": "inv_2"}),
    )
    .await;
    assert_eq!(paid.is_error, Some(false), "{paid:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_gets_the_gateways_own_token_never_the_callers() {
    let db = TempDb::new("gateway-credentials");
    // The upstream takes the caller's token too (reading only), so that a
    // caller's token passed through would be seen to work.
    let both = token_file(
        "upstream",
        r#"{"tokens": [
            {"token": "caller-secret", "subject": "ada", "scopes": ["billing:read"]},
            {"token": "gateway-secret", "subject": "gateway", "scopes": ["billing:read", "billing:write"]}
        ]}"#,
    );
    let mut upstream = HttpServer::start_with(&db.0, &["--auth-tokens", path_of(&both)]);
    let callers = token_file(
        "callers",
        r#"{"tokens": [{"token": "caller-secret", "subject": "ada", "scopes": ["gateway:call"]}]}"#,
    );
    let url = &upstream.url;
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\nurl = \"{url}\"\nbearer_env = \"FINANCE_TOKEN\"\n\n\
         [[upstream]]\nnamespace = \"anonymous\"\nurl = \"{url}\"\n\n\
         [[upstream]]\nnamespace = \"wrong\"\nurl = \"{url}\"\nbearer_env = \"WRONG_TOKEN\"\n"
    );
    let gateway = HttpGateway::start_with_env(
        "credentials",
        &config,
        &["--auth-tokens", path_of(&callers)],
        &[
            ("FINANCE_TOKEN", "gateway-secret"),
            ("WRONG_TOKEN", "not-a-token"),
        ],
    );
    let client = gateway.client_with_bearer("caller-secret").await;
    // Only the upstream that took the gateway's token is listed.
    assert_eq!(
        names_of(&client).await,
        ["finance.billing", "finance.billing_health"]
    );

    // A write: the caller's token may only read at the upstream, the
    // gateway's may write — the upstream saw the gateway's token.
    assert_paid(&client, "finance").await;

    // Mounted without credentials, an upstream that would take the
    // caller's token refuses the call: the caller's token was not sent.
    // With a wrong token, the same answer.
    for namespace in ["anonymous", "wrong"] {
        assert_refused(&client, namespace).await;
    }

    // The upstream restarted where it was, no longer taking the gateway's
    // token: the next call is refused, and so is every one after it.
    let port = upstream.port;
    upstream.kill();
    let callers_only = token_file(
        "upstream-callers-only",
        r#"{"tokens": [{"token": "caller-secret", "subject": "ada", "scopes": ["billing:read"]}]}"#,
    );
    let _upstream = HttpServer::start_on(&db.0, port, &["--auth-tokens", path_of(&callers_only)]);
    for _ in 0..2 {
        assert_refused(&client, "finance").await;
    }
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_is_called_with_the_gateways_oauth_client_credentials() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("gateway-oauth");
    // A missing scope is answered FORBIDDEN (passed through), not stepped up.
    let upstream = HttpServer::start_with(
        &db.0,
        &[
            "--oauth-issuer",
            &authorization.issuer,
            "--insufficient-scope",
            "envelope",
        ],
    );
    let url = &upstream.url;
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\nurl = \"{url}\"\n\
         [upstream.oauth]\nclient_id = \"billing-full\"\nclient_secret_env = \"FINANCE_SECRET\"\n\
         scopes = [\"billing:read\", \"billing:write\"]\n\n\
         [[upstream]]\nnamespace = \"reader\"\nurl = \"{url}\"\n\
         [upstream.oauth]\nclient_id = \"billing-full\"\nclient_secret_env = \"FINANCE_SECRET\"\n\
         scopes = [\"billing:read\"]\n\n\
         [[upstream]]\nnamespace = \"wrong\"\nurl = \"{url}\"\n\
         [upstream.oauth]\nclient_id = \"billing-full\"\nclient_secret_env = \"WRONG_SECRET\"\n"
    );
    let gateway = HttpGateway::start_with_env(
        "oauth",
        &config,
        &[],
        &[
            ("FINANCE_SECRET", "billing-full-secret"),
            ("WRONG_SECRET", "not-the-secret"),
        ],
    );
    let client = gateway.client().await;
    assert_eq!(
        names_of(&client).await,
        [
            "finance.billing",
            "finance.billing_health",
            "reader.billing",
            "reader.billing_health"
        ]
    );
    // The token carries the configured scopes, not all the upstream
    // supports: asked for billing:read alone, it cannot pay.
    let read = call_on(
        &client,
        "reader.billing",
        json!({"action": "get_invoice", "id": "inv_1"}),
    )
    .await;
    assert_eq!(read.is_error, Some(false), "{read:?}");
    let forbidden = call_on(
        &client,
        "reader.billing",
        json!({"action": "pay_invoice", "id": "inv_2"}),
    )
    .await;
    assert_eq!(code_of(&forbidden).as_deref(), Some("FORBIDDEN"));
    // billing:write, asked for by the configured scopes.
    assert_paid(&client, "finance").await;
    // The authorization server refuses the token request (invalid_client).
    assert_refused(&client, "wrong").await;
    let _ = client.cancel().await;
}
