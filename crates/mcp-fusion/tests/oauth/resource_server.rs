//! The server under test: a billing group (`get_invoice` needs
//! `billing:read`, `void_invoice` `billing:write`), an open read-only
//! `billing_health` tool, a prompt needing
//! `billing:write`, a template needing `billing:read` (each completing its
//! argument), served on
//! 127.0.0.1 with an [`OAuthResourceServer`] for its own endpoint; and raw
//! MCP requests to it.

use std::time::Duration;

use mcp_fusion::guard::{InsufficientScope, OAuthResourceServer};
use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, CallContext, FusionServer, Group, Prompt, ResourceTemplate, ToolError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::authorization_server::AuthorizationServer;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

async fn get_invoice(ctx: CallContext, input: Invoice) -> Result<String, ToolError> {
    let who = ctx.principal().map_or("nobody", |p| p.subject.as_str());
    Ok(format!("invoice {} for {who}", input.id))
}

async fn health() -> Result<String, ToolError> {
    Ok(String::from("ok"))
}

async fn void_invoice(input: Invoice) -> Result<String, ToolError> {
    Ok(format!("voided {}", input.id))
}

async fn reminder(ctx: CallContext) -> Result<String, ToolError> {
    let who = ctx.principal().map_or("nobody", |p| p.subject.as_str());
    Ok(format!("Remind, signed {who}."))
}

async fn invoice(vars: Id) -> Result<String, ToolError> {
    Ok(format!("invoice {}", vars.id))
}

/// A served resource server.
pub struct Served {
    /// Its resource URI, `http://127.0.0.1:PORT/mcp`.
    pub resource: String,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    stop: CancellationToken,
    http: reqwest::Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// How a test sets its verifier up.
pub type Setup = fn(OAuthResourceServer) -> OAuthResourceServer;

/// Both billing scopes, as a `scope` parameter (RFC 6749 §3.3).
pub const BOTH: &str = "billing:read billing:write";

/// A [`Setup`] that fetches the authorization server's keys again as soon
/// as a token names a key not cached (no cooldown).
pub fn refetching_keys(verifier: OAuthResourceServer) -> OAuthResourceServer {
    verifier.jwks_refetch_cooldown(Duration::ZERO)
}

/// A [`Setup`] that introspects opaque tokens (RFC 7662) as the client
/// `mcp-server` of `tests/oauth/server.mjs`, caching answers as by default.
pub fn introspecting(verifier: OAuthResourceServer) -> OAuthResourceServer {
    verifier
        .introspection_client("mcp-server", "mcp-server-secret")
        .unwrap()
}

/// [`introspecting`] without caching: every request is introspected.
pub fn introspecting_uncached(verifier: OAuthResourceServer) -> OAuthResourceServer {
    introspecting(verifier).introspection_cache(Duration::ZERO)
}

/// A token of the client `opaque-client` for `billing:read` and the
/// resource of `served`, issued by `authorization`: opaque (asserted), so
/// checked by introspection only.
pub async fn opaque_token(authorization: &AuthorizationServer, served: &Served) -> String {
    let token = authorization
        .token("opaque-client", "billing:read", Some(&served.resource))
        .await;
    assert_eq!(token.split('.').count(), 1, "an opaque token");
    token
}

/// A token of the client `billing-full` for [`BOTH`] scopes and the
/// resource of `served` (RFC 8707), issued by `authorization`.
pub async fn full_token(authorization: &AuthorizationServer, served: &Served) -> String {
    authorization
        .token("billing-full", BOTH, Some(&served.resource))
        .await
}

/// Serves the billing server trusting `issuer`, its verifier set up by
/// `setup`, with the insufficient-scope `policy` (`None`: the default).
pub async fn serve(issuer: &str, setup: Setup, policy: Option<InsufficientScope>) -> Served {
    serve_with(issuer, setup, policy, false).await
}

/// [`serve`], serving callers without a token too when `anonymous`; its
/// `billing_health` action needs no credentials.
pub async fn serve_with(
    issuer: &str,
    setup: Setup,
    policy: Option<InsufficientScope>,
    anonymous: bool,
) -> Served {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let resource = format!("{base}/mcp");
    let verifier = OAuthResourceServer::discover(issuer, &resource)
        .await
        .expect("the authorization server is discovered");
    let mut builder = FusionServer::builder("billing", "1.0.0")
        .auth(setup(verifier))
        .allow_anonymous(anonymous)
        .tool(Action::new("billing_health", health).read_only())
        .group(
            Group::new("billing")
                .action(Action::new("get_invoice", get_invoice).requires_scopes(["billing:read"]))
                .action(
                    Action::new("void_invoice", void_invoice).requires_scopes(["billing:write"]),
                ),
        )
        .prompt(
            Prompt::new("payment_reminder", reminder)
                .requires_scopes(["billing:write"])
                .complete_values("customer", ["acme", "globex"]),
        )
        .resource_template(
            ResourceTemplate::new("billing://invoices/{id}", "invoice", invoice)
                .requires_scopes(["billing:read"])
                .complete_values("id", ["inv_1", "inv_2"]),
        );
    if let Some(policy) = policy {
        builder = builder.insufficient_scope(policy);
    }
    let server = builder.build().unwrap();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(async move {
        server
            .serve_http_on(listener, HttpOptions::default(), async move {
                stopped.cancelled().await;
            })
            .await
            .unwrap();
    });
    Served {
        resource,
        base,
        stop,
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap(),
    }
}

/// A response: its status, its headers, its body.
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    /// The value of header `name` (fails the test when absent).
    #[track_caller]
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| {
                panic!(
                    "no {name} header (status {}, body {})",
                    self.status, self.body
                )
            })
            .to_str()
            .unwrap()
    }

    /// The JSON-RPC message of an answer (plain JSON or the `data:` of an
    /// SSE event).
    pub fn message(&self) -> Value {
        if let Ok(value) = serde_json::from_str(&self.body) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|m| m.get("id").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC answer in {}", self.body))
    }
}

/// The JSON-RPC `initialize` request.
pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "1"}
    }})
}

/// `tools/call` of the group `billing`'s `action` on `inv_1`.
pub fn billing_call(action: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "billing", "arguments": {"action": action, "id": "inv_1"}
    }})
}

impl Served {
    /// The metadata URL of the path form.
    pub fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.base)
    }

    /// GETs `path` of the server.
    pub async fn get(&self, path: &str) -> Answer {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        Answer {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.unwrap(),
        }
    }

    /// POSTs `body` to `/mcp` with `authorization` (a whole header value)
    /// and the session `session`.
    pub async fn post(
        &self,
        authorization: Option<&str>,
        session: Option<&str>,
        body: &Value,
    ) -> Answer {
        let mut request = self
            .http
            .post(&self.resource)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let response = request.send().await.unwrap();
        Answer {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.unwrap(),
        }
    }

    /// `initialize` with `token` (`Bearer` token), asserting its 200.
    pub async fn initialize(&self, token: &str) -> Answer {
        self.post(Some(&format!("Bearer {token}")), None, &initialize())
            .await
    }

    /// A session opened with `token` (initialize, then initialized).
    pub async fn session(&self, token: &str) -> String {
        self.session_as(Some(&format!("Bearer {token}"))).await
    }

    /// A session opened with `authorization` (a whole header value; `None`:
    /// an anonymous caller).
    pub async fn session_as(&self, authorization: Option<&str>) -> String {
        let opened = self.post(authorization, None, &initialize()).await;
        assert_eq!(opened.status, 200, "initialize: {}", opened.body);
        let session = opened.header("mcp-session-id").to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let sent = self.post(authorization, Some(&session), &initialized).await;
        assert_eq!(sent.status, 202, "initialized: {}", sent.body);
        session
    }

    /// `body` in the session `session` with `token`.
    pub async fn call(&self, token: &str, session: &str, body: &Value) -> Answer {
        self.post(Some(&format!("Bearer {token}")), Some(session), body)
            .await
    }
}

/// The 401 challenge of this server for a refused token of a request that
/// calls nothing needing scopes (its challenge scopes, those of the
/// read-only capabilities: both): `why` is the
/// [`AuthFailure`](mcp_fusion::guard::AuthFailure) text.
pub fn invalid_token(served: &Served, why: &str) -> String {
    invalid_token_asking(served, why, "billing:read billing:write")
}

/// [`invalid_token`] of a request whose capability needs `scope`.
pub fn invalid_token_asking(served: &Served, why: &str, scope: &str) -> String {
    format!(
        "Bearer error=\"invalid_token\", error_description=\"The bearer token {why}.\", resource_metadata=\"{}\", scope=\"{scope}\"",
        served.metadata_url()
    )
}
