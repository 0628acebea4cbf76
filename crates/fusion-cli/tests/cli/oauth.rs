//! `fusion call` and `fusion tools` against a server that answers 401
//! (`fusion serve --auth-tokens`, which publishes no OAuth metadata): each
//! grant fails saying that the server wants a bearer token and offers no
//! OAuth, without the secret; with `--no-oauth` the 401 itself is the error;
//! `--bearer` is served. (The
//! grants succeeding end to end: `oauth_grants.rs`, against oidc-provider,
//! and the conformance suite's `auth/*` client scenarios, run by
//! scripts/conformance.)

use crate::run::{Run, fusion};
use crate::support::{HttpServer, TempDb};

/// Runs `fusion call URL billing_health {} OPTIONS --color never`.
fn call_health(url: &str, options: &[&str]) -> Run {
    let mut words = vec!["call", url, "billing_health", "{}"];
    words.extend_from_slice(options);
    words.extend(["--color", "never"]);
    fusion(&words)
}

#[test]
fn a_401_without_oauth_metadata_asks_for_a_bearer_token() {
    let db = TempDb::new("cli-oauth");
    let tokens = format!("{}.tokens.json", db.path());
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "tok-123", "subject": "ada", "scopes": ["billing:read"]}]}"#,
    )
    .unwrap();
    let server = HttpServer::start_with(&db.0, &["--auth-tokens", &tokens]);
    let url = server.url.as_str();

    // No flag (the authorization code grant), or a client id and secret
    // (client credentials): the challenge names no resource_metadata and
    // the server publishes no metadata, so there is no OAuth to do; the
    // error says the server takes a bearer token, and the secret is not
    // printed.
    let metadata = format!(
        "http://127.0.0.1:{port}/.well-known/oauth-protected-resource",
        port = server.port
    );
    let no_oauth = format!(
        "error: could not authorize with {url}: the server needs a bearer token and publishes no OAuth metadata: its challenge (Bearer realm=\"mcp\") names no resource_metadata, and there is no protected resource metadata at {metadata}/mcp or {metadata}\n  hint: give the token it takes: --bearer TOKEN (or FUSION_BEARER)\n"
    );
    let code_grant = call_health(url, &[]);
    assert_eq!(code_grant.code, 2);
    assert_eq!(code_grant.stdout, "");
    assert_eq!(code_grant.stderr, no_oauth);
    let listed = fusion(&["tools", url, "--color", "never"]);
    assert_eq!(listed.code, 2);
    assert_eq!(listed.stdout, "");
    assert_eq!(listed.stderr, no_oauth);

    let credentials = call_health(
        url,
        &[
            "--oauth-client-id",
            "fusion-ci",
            "--oauth-client-secret",
            "s3cret-value",
        ],
    );
    assert_eq!(credentials.code, 2);
    assert_eq!(credentials.stdout, "");
    assert_eq!(credentials.stderr, no_oauth);

    // --no-oauth: the challenge is the error, as before OAuth.
    let refused = call_health(url, &["--no-oauth"]);
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

#[test]
fn a_bearer_token_with_a_line_break_is_refused_before_connecting() {
    // Port 1: nothing listens there, so an error that is not about the
    // token would be "connection refused".
    let url = "http://127.0.0.1:1/mcp";
    let run = call_health(url, &["--bearer", "tok\r\nX-Injected: 1"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: could not connect to {url}: the bearer token has a character an HTTP header cannot carry (a line break or another control character); give the token alone, on one line\n"
        )
    );
}

#[test]
fn a_client_metadata_document_url_that_is_not_https_is_a_usage_error() {
    let run = call_health(
        "http://127.0.0.1:1/mcp",
        &[
            "--oauth-client-metadata-url",
            "http://evil.example/client.json",
        ],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("error: invalid value 'http://evil.example/client.json' for '--oauth-client-metadata-url <URL>': `http://evil.example/client.json` is not an https:// URL with a path: a client ID metadata document URL must be https:// with a path, e.g. https://client.example.com/fusion.json\n"),
        "{}",
        run.stderr
    );
}
