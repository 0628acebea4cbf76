//! CORS of the Streamable HTTP router (`http_router`, spoken to in process
//! with exact requests): a page of an allowed origin gets its preflight
//! answered before the bearer-token check and `Access-Control-Allow-Origin`
//! on every answer, the `401` of the auth edge and the JSON-RPC `400` too; a
//! disallowed origin or host still gets the door's `403` with no CORS
//! header; a request without `Origin` is answered as before; a preflight
//! allows the `Mcp-Param-*` headers the tools declare (`x-mcp-header`),
//! those of a tool added while serving too. Every header
//! of each answer is compared, so a header added or lost fails.

use axum::body::Body;
use axum::http::{Method, Request};
use mcp_fusion::guard::StaticTokens;
use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, CallContext, FusionServer, NoArgs, ToolError};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// The origin of MCP Inspector's direct mode, the one the README names.
const INSPECTOR: &str = "http://localhost:6274";
const TOKEN: &str = "page-token";

const ALLOW_METHODS: &str = "GET,POST,DELETE,OPTIONS";
const ALLOW_HEADERS: &str = "content-type,authorization,accept,mcp-session-id,\
                             mcp-protocol-version,last-event-id,mcp-method,mcp-name";
const EXPOSE_HEADERS: &str = "mcp-session-id,www-authenticate,mcp-protocol-version";

async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// A server with one bearer token, served with `allowed_origins`.
fn router(allowed_origins: &[&str]) -> axum::Router {
    let server = FusionServer::builder("cors-test", "1.0.0")
        .auth(StaticTokens::new().token(TOKEN, "ada", Vec::<String>::new()))
        .tool(Action::new("ping", ping))
        .build()
        .expect("a valid server");
    let options = allowed_origins
        .iter()
        .fold(HttpOptions::default(), |options, origin| {
            options.allow_origin(*origin)
        });
    server
        .http_router(&options, CancellationToken::new())
        .expect("usable options")
}

/// One answer: its status, every header as `name: value` in order, its body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<String>,
    body: String,
}

async fn send(router: &axum::Router, request: Request<Body>) -> Answer {
    let response = router.clone().oneshot(request).await.expect("an answer");
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| format!("{name}: {}", value.to_str().expect("a text header")))
        .collect();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .expect("a body");
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// A browser's preflight of a POST to `/mcp` with a token and a session.
fn preflight(host: &str, origin: Option<&str>) -> Request<Body> {
    let mut request = Request::builder()
        .method(Method::OPTIONS)
        .uri("/mcp")
        .header("host", host)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type,mcp-protocol-version,mcp-session-id",
        );
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.body(Body::empty()).expect("a request")
}

/// A POST of `body` to `/mcp` as `fetch()` sends it.
fn post(origin: Option<&str>, bearer: Option<&str>, body: &str) -> Request<Body> {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/mcp")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    if let Some(token) = bearer {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request
        .body(Body::from(body.to_owned()))
        .expect("a request")
}

fn initialize() -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "cors-test", "version": "1.0.0"},
        },
    })
    .to_string()
}

fn preflight_headers(origin: &str) -> Vec<String> {
    vec![
        "vary: origin".to_owned(),
        format!("access-control-allow-methods: {ALLOW_METHODS}"),
        format!("access-control-allow-headers: {ALLOW_HEADERS}"),
        format!("access-control-allow-origin: {origin}"),
    ]
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_answered_before_the_token_check() {
    let router = router(&[INSPECTOR, "http://localhost:*"]);
    for (host, origin) in [
        ("127.0.0.1:8080", INSPECTOR),
        // `:*` allows any port of its host.
        ("127.0.0.1:8080", "http://localhost:5173"),
        // A same-origin page of a loopback server needs no entry.
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
    ] {
        let answer = send(&router, preflight(host, Some(origin))).await;
        assert_eq!(answer.status, 200, "{origin}: {answer:?}");
        assert_eq!(answer.headers, preflight_headers(origin), "{origin}");
        assert_eq!(answer.body, "", "{origin}");
    }
}

#[tokio::test]
async fn every_answer_to_an_allowed_origin_carries_cors_headers() {
    let router = router(&[INSPECTOR]);
    let cors = |origin: &str| {
        vec![
            "vary: origin".to_owned(),
            format!("access-control-allow-origin: {origin}"),
            format!("access-control-expose-headers: {EXPOSE_HEADERS}"),
        ]
    };

    // The auth edge's 401, its challenge readable by the page (made before
    // the body was read: the connection is said to close).
    let refused = send(&router, post(Some(INSPECTOR), None, &initialize())).await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.headers,
        [
            vec![
                "content-type: text/plain; charset=utf-8".to_owned(),
                "www-authenticate: Bearer realm=\"mcp\"".to_owned(),
                "cache-control: no-store".to_owned(),
                "connection: close".to_owned(),
            ],
            cors(INSPECTOR),
        ]
        .concat()
    );
    assert_eq!(
        refused.body,
        "Unauthorized: this server needs a bearer token (Authorization: Bearer TOKEN)"
    );

    // A JSON-RPC error of the edge.
    let unreadable = send(&router, post(Some(INSPECTOR), Some(TOKEN), "{")).await;
    assert_eq!(unreadable.status, 400);
    assert_eq!(
        unreadable.headers,
        [
            vec!["content-type: application/json".to_owned()],
            cors(INSPECTOR)
        ]
        .concat()
    );
    assert_eq!(
        unreadable.body,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message cannot be read as JSON (EOF while parsing an object at line 1 column 1)"}}"#
    );

    // The handshake: the session id is exposed to the page.
    let opened = send(&router, post(Some(INSPECTOR), Some(TOKEN), &initialize())).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = opened
        .headers
        .iter()
        .find_map(|h| h.strip_prefix("mcp-session-id: "))
        .expect("an Mcp-Session-Id");
    assert_eq!(
        opened.headers[opened.headers.len() - 3..],
        cors(INSPECTOR)[..]
    );
    assert!(
        opened.body.contains(r#""protocolVersion":"2025-11-25""#),
        "{}",
        opened.body
    );
    assert_eq!(session.len(), 36, "{session}");

    // Another route of the router.
    let elsewhere = Request::get("/elsewhere")
        .header("host", "127.0.0.1:8080")
        .header("origin", INSPECTOR)
        .body(Body::empty())
        .expect("a request");
    let missing = send(&router, elsewhere).await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.headers,
        [
            vec!["content-type: text/plain; charset=utf-8".to_owned()],
            cors(INSPECTOR),
            vec!["content-length: 50".to_owned()],
        ]
        .concat()
    );
    assert_eq!(
        missing.body,
        "Not Found: the MCP endpoint of this server is /mcp"
    );
}

#[tokio::test]
async fn a_disallowed_origin_or_host_gets_the_doors_refusal_without_cors_headers() {
    let router = router(&[INSPECTOR]);
    let forbidden = "Forbidden: requests from the browser origin \"http://attacker.example\" \
                     are not allowed (DNS rebinding protection). To allow it: fusion serve \
                     --allowed-origin http://attacker.example, or HttpOptions::allowed_origins.";
    for request in [
        preflight("127.0.0.1:8080", Some("http://attacker.example")),
        post(Some("http://attacker.example"), Some(TOKEN), &initialize()),
    ] {
        // The POST is refused before its body was read.
        let unread = request.method() == axum::http::Method::POST;
        let answer = send(&router, request).await;
        assert_eq!(answer.status, 403);
        let mut expected = vec!["content-type: text/plain; charset=utf-8"];
        if unread {
            expected.push("connection: close");
        }
        assert_eq!(answer.headers, expected);
        assert_eq!(answer.body, forbidden);
    }
    // An allowed origin, but a host the server does not answer to.
    let answer = send(&router, preflight("evil.example:8080", Some(INSPECTOR))).await;
    assert_eq!(answer.status, 403);
    assert_eq!(answer.headers, ["content-type: text/plain; charset=utf-8"]);
    assert!(
        answer.body.starts_with(
            "Forbidden: this server does not answer to the host \"evil.example:8080\""
        ),
        "{}",
        answer.body
    );
}

#[tokio::test]
async fn a_request_without_origin_is_answered_as_before() {
    let router = router(&[INSPECTOR]);
    // No preflight without `Origin`: an OPTIONS reaches the edge, whose
    // token check refuses it.
    let options = send(&router, preflight("127.0.0.1:8080", None)).await;
    assert_eq!(options.status, 401);
    assert_eq!(
        options.headers,
        [
            "content-type: text/plain; charset=utf-8",
            "www-authenticate: Bearer realm=\"mcp\"",
            "cache-control: no-store",
        ]
    );
    let refused = send(&router, post(None, None, &initialize())).await;
    assert_eq!(refused.status, 401);
    // Its body was not read: the connection is said to close.
    assert_eq!(
        refused.headers,
        [
            options.headers.clone(),
            vec![String::from("connection: close")]
        ]
        .concat()
    );
    let opened = send(&router, post(None, Some(TOKEN), &initialize())).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert!(
        opened
            .headers
            .iter()
            .all(|h| !h.starts_with("access-control-") && !h.starts_with("vary:")),
        "{:?}",
        opened.headers
    );
}

/// A forecast's input: its region mirrored into `Mcp-Param-Region`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Forecast {
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

/// A ticket's input: its tenant mirrored into `Mcp-Param-Tenant-Id`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Ticket {
    #[schemars(extend("x-mcp-header" = "Tenant-Id"))]
    tenant: String,
}

async fn forecast(input: Forecast) -> Result<String, ToolError> {
    Ok(format!("sunny in {}", input.region))
}

async fn ticket(input: Ticket) -> Result<String, ToolError> {
    Ok(format!("ticket of {}", input.tenant))
}

#[tokio::test]
async fn a_preflight_allows_the_mcp_param_headers_the_tools_declare() {
    let server = FusionServer::builder("cors-test", "1.0.0")
        .tool(Action::new("forecast", forecast))
        .build()
        .expect("a valid server");
    let router = server
        .http_router(
            &HttpOptions::default().allow_origin(INSPECTOR),
            CancellationToken::new(),
        )
        .expect("usable options");
    let preflight_with = |headers: &str| {
        Request::builder()
            .method(Method::OPTIONS)
            .uri("/mcp")
            .header("host", "127.0.0.1:8080")
            .header("origin", INSPECTOR)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", headers)
            .body(Body::empty())
            .expect("a request")
    };
    let answer = send(
        &router,
        preflight_with("content-type,mcp-method,mcp-name,mcp-param-region"),
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.headers,
        [
            "vary: origin".to_owned(),
            format!("access-control-allow-methods: {ALLOW_METHODS}"),
            format!("access-control-allow-headers: {ALLOW_HEADERS},mcp-param-region"),
            format!("access-control-allow-origin: {INSPECTOR}"),
        ]
    );

    // A tool added while serving: the next preflight allows its header.
    server
        .add_tool(Action::new("ticket", ticket))
        .await
        .expect("a valid tool");
    let answer = send(&router, preflight_with("mcp-param-tenant-id")).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.headers[2],
        format!(
            "access-control-allow-headers: {ALLOW_HEADERS},mcp-param-region,mcp-param-tenant-id"
        )
    );
}
