//! `fusion serve --oauth-issuer`: the billing example as an OAuth resource
//! server of a real authorization server (oidc-provider): its resource URI
//! is the endpoint's URL, its 401 names the metadata and the scopes (of
//! what the request calls, else of what reads, else those of
//! `--oauth-scope`), the
//! metadata is served, a token for it is served, a read-only token gets 403
//! insufficient_scope on a writing action; `--insufficient-scope envelope`
//! answers FORBIDDEN instead. Without `--resource`, a wildcard `--host` or
//! an `--allowed-host` is refused at start (the banner's URL is not the
//! one clients use).

use serde_json::{Value, json};

use crate::authorization_server::AuthorizationServer;
use crate::support::{HttpServer, Session, TempDb, Transport, free_port, meta_of};

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "1"}
    }})
}

fn void_invoice() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "billing", "arguments": {"action": "void_invoice", "id": "inv_2"}
    }})
}

async fn post(url: &str, token: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fusion_serve_is_a_resource_server_of_the_issuer_it_is_given() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("oauth");
    let port = free_port();
    let server = HttpServer::start_on(&db.0, port, &["--oauth-issuer", &authorization.issuer]);
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let metadata = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    assert!(
        server.banner.contains(&format!(
            "  OAuth: JWT access tokens of {} for the resource {resource}",
            authorization.issuer
        )),
        "{:?}",
        server.banner
    );

    // A 401 asks for the scopes of what the request calls; an initialize,
    // which calls nothing, for those of what reads.
    let anonymous = post(&server.url, None, &void_invoice()).await;
    assert_eq!(anonymous.status(), 401);
    assert_eq!(
        anonymous.headers()["www-authenticate"],
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"billing:write\"").as_str()
    );
    let opening = post(&server.url, None, &initialize()).await;
    assert_eq!(opening.status(), 401);
    assert_eq!(
        opening.headers()["www-authenticate"],
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"billing:read\"").as_str()
    );

    let document: Value = reqwest::get(&metadata).await.unwrap().json().await.unwrap();
    assert_eq!(
        document,
        json!({
            "resource": resource,
            "authorization_servers": [authorization.issuer],
            "scopes_supported": ["billing:read", "billing:write"],
            "bearer_methods_supported": ["header"],
        })
    );

    let reader = authorization
        .token("billing-reader", "billing:read", Some(&resource))
        .await;
    let refused = post(&server.url, Some(&reader), &void_invoice()).await;
    assert_eq!(refused.status(), 403);
    assert_eq!(
        refused.headers()["www-authenticate"],
        format!("Bearer error=\"insufficient_scope\", scope=\"billing:write\", resource_metadata=\"{metadata}\", error_description=\"billing.void_invoice needs the scope billing:write, which the token does not have\"").as_str()
    );
    drop(server);

    // The envelope policy, through rmcp's client: FORBIDDEN. The resource
    // is given (the server's port is picked later).
    let resource = "http://127.0.0.1:9/mcp";
    let reader = authorization
        .token("billing-reader", "billing:read", Some(resource))
        .await;
    let session = Session::start_with(
        Transport::Http,
        &db,
        &[
            "--oauth-issuer",
            &authorization.issuer,
            "--resource",
            resource,
            "--insufficient-scope",
            "envelope",
        ],
        Some(&reader),
    )
    .await;
    let read = session
        .billing(json!({"action": "get_invoice", "id": "inv_2"}))
        .await;
    assert_eq!(read.is_error, Some(false), "{read:?}");
    let forbidden = session
        .billing(json!({"action": "void_invoice", "id": "inv_2"}))
        .await;
    let meta = meta_of(&forbidden).expect("an envelope");
    assert_eq!(meta["code"], "FORBIDDEN");
    assert_eq!(
        meta["message"],
        "billing.void_invoice needs the scope \"billing:write\", which these credentials do not have."
    );
    session.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_scope_sets_the_scopes_a_401_that_calls_nothing_asks_for() {
    let authorization = AuthorizationServer::start("key-1").await;
    let db = TempDb::new("oauth-scope");
    let port = free_port();
    let server = HttpServer::start_on(
        &db.0,
        port,
        &[
            "--oauth-issuer",
            &authorization.issuer,
            "--oauth-scope",
            "billing:read",
            "--oauth-scope",
            "billing:write",
        ],
    );
    let metadata = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    let opening = post(&server.url, None, &initialize()).await;
    assert_eq!(opening.status(), 401);
    assert_eq!(
        opening.headers()["www-authenticate"],
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"billing:read billing:write\"")
            .as_str()
    );
    // A call still asks for what it needs.
    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "billing", "arguments": {"action": "get_invoice", "id": "inv_2"}
    }});
    let reading = post(&server.url, None, &read).await;
    assert_eq!(reading.status(), 401);
    assert_eq!(
        reading.headers()["www-authenticate"],
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"billing:read\"").as_str()
    );
}

#[test]
fn a_wildcard_host_or_an_allowed_host_needs_the_resource_given() {
    let db = TempDb::new("oauth-resource-needed");
    let cases: [(&[&str], &str); 2] = [
        (
            &["--host", "0.0.0.0"],
            "the server listens on 0.0.0.0, an address no client can put in a URL",
        ),
        (
            &["--allowed-host", "mcp.example.com"],
            "clients reach the server as mcp.example.com (--allowed-host)",
        ),
    ];
    for (flags, why) in cases {
        // The issuer is never asked: the flags are refused first.
        let out = std::process::Command::new(crate::support::FUSION)
            .arg("serve")
            .arg("--db")
            .arg(&db.0)
            .args(["--port", "0", "--oauth-issuer", "http://127.0.0.1:9"])
            .args(flags)
            .output()
            .expect("run fusion");
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "fusion serve: --oauth-issuer needs --resource URL here: {why}, so the default resource URI http://HOST:PORT/mcp is not the one clients use (tokens name it as their audience, and clients refuse protected resource metadata that names another). Give the MCP endpoint's URL as clients reach it, e.g. --resource https://mcp.example.com/mcp\n"
            )),
            "{flags:?}: {stderr}"
        );
    }
    let help = std::process::Command::new(crate::support::FUSION)
        .args(["serve", "--help"])
        .output()
        .expect("run fusion");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("The scopes each capability needs are the ones --auth-tokens describes (billing:read, billing:write; gateway:call); a token's scope claim (else its scp) grants them"),
        "{help}"
    );
    assert!(
        !help.contains("The scopes are those of --auth-tokens"),
        "{help}"
    );
}
