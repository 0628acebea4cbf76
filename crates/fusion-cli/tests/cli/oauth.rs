//! `fusion call` and `fusion tools` against a server that answers 401
//! (`fusion serve --auth-tokens`, which publishes no OAuth metadata): each
//! grant fails at the stage it reaches and says so, without the secret; with
//! `--no-oauth` the 401 itself is the error; `--bearer` is served. (The
//! grants succeeding end to end: `oauth_grants.rs`, against oidc-provider,
//! and the conformance suite's `auth/*` client scenarios, run by
//! scripts/conformance.)

use crate::run::fusion;
use crate::support::{HttpServer, TempDb};

/// The hint under every authorization failure.
pub(crate) const HINT: &str = "  hint: a server that takes a static token wants --bearer TOKEN (or FUSION_BEARER); for OAuth, check --oauth-client-id / --oauth-client-secret (FUSION_OAUTH_CLIENT_ID / FUSION_OAUTH_CLIENT_SECRET) or --oauth-private-key / --oauth-signing-alg and that the authorization server knows this server as a resource (RUST_LOG=rmcp=debug shows each OAuth request)\n";

#[test]
fn a_401_starts_authorization_and_a_failure_names_its_stage() {
    let db = TempDb::new("cli-oauth");
    let tokens = format!("{}.tokens.json", db.path());
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "tok-123", "subject": "ada", "scopes": ["billing:read"]}]}"#,
    )
    .unwrap();
    let server = HttpServer::start_with(&db.0, &["--auth-tokens", &tokens]);
    let url = server.url.as_str();

    // No flag: the authorization code grant. The server publishes no
    // metadata, so the client falls back to the 2025-03-26 default
    // endpoints, and dynamic registration at /register gets 404.
    let code_grant = fusion(&["tools", url, "--color", "never"]);
    assert_eq!(code_grant.code, 2);
    assert_eq!(code_grant.stdout, "");
    assert_eq!(
        code_grant.stderr,
        format!(
            "error: could not authorize with {url}: client registration failed: Registration failed: Dynamic registration failed: Registration failed: HTTP 404 Not Found: Not Found: the MCP endpoint of this server is /mcp\n{HINT}"
        )
    );

    // A client id and secret: client credentials, refused at the token
    // endpoint; the secret is not printed.
    let credentials = fusion(&[
        "call",
        url,
        "billing_health",
        "{}",
        "--oauth-client-id",
        "fusion-ci",
        "--oauth-client-secret",
        "s3cret-value",
        "--color",
        "never",
    ]);
    assert_eq!(credentials.code, 2);
    assert_eq!(
        credentials.stderr,
        format!(
            "error: could not authorize with {url}: the token request failed: Client credentials error: Token exchange parse error: expected value at line 1 column 1\n{HINT}"
        )
    );
    assert!(!credentials.stderr.contains("s3cret-value"));

    // --no-oauth: the challenge is the error, as before OAuth.
    let refused = fusion(&[
        "call",
        url,
        "billing_health",
        "{}",
        "--no-oauth",
        "--color",
        "never",
    ]);
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        format!(
            "error: could not connect to {url}: the server answered HTTP 401: it needs a valid bearer token (Bearer realm=\"mcp\")\n  hint: give a token the server takes: --bearer TOKEN (or FUSION_BEARER), or let fusion obtain one: without --no-oauth a 401 starts the authorization code grant, and --oauth-client-id with --oauth-client-secret (or --oauth-private-key) use client credentials\n"
        )
    );

    // A static token is sent as it is.
    let served = fusion(&[
        "call",
        url,
        "billing_health",
        "{}",
        "--bearer",
        "tok-123",
        "--json",
    ]);
    assert_eq!(served.code, 0, "{}", served.stderr);
    assert!(
        served.stdout.contains("\"status\": \"ok\""),
        "{}",
        served.stdout
    );
    let _ = std::fs::remove_file(tokens);
}
