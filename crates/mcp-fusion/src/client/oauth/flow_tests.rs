//! [`authorize`](super::authorize::authorize) against a stub server on
//! loopback that plays the MCP server and its authorization server with
//! metadata a test chooses: what the client refuses before sending
//! credentials, and how long it waits.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use super::authorize::authorize;
use super::options::OAuthOptions;

/// The answer of the stub to one path: a JSON document, or none ever.
type Route = Arc<dyn Fn(&str, &str) -> Option<Value> + Send + Sync>;

/// A stub on `127.0.0.1`; `requests` lists each `METHOD PATH` it got.
struct Stub {
    base: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Stub {
    /// Starts the stub: `route(base, path)` gives each path's JSON (404
    /// for `None` of a path it does not know is left to the caller: a
    /// route that returns `None` never answers).
    async fn start(route: impl Fn(&str, &str) -> Option<Value> + Send + Sync + 'static) -> Stub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let route: Route = Arc::new(route);
        let (seen, at) = (Arc::clone(&requests), base.clone());
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let (route, seen, at) = (Arc::clone(&route), Arc::clone(&seen), at.clone());
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                        let (route, seen, at) = (Arc::clone(&route), Arc::clone(&seen), at.clone());
                        async move {
                            let path = request.uri().path().to_owned();
                            seen.lock()
                                .unwrap()
                                .push(format!("{} {path}", request.method()));
                            let Some(document) = route(&at, &path) else {
                                std::future::pending::<()>().await;
                                unreachable!();
                            };
                            let mut response =
                                Response::new(Full::new(Bytes::from(document.to_string())));
                            if document.is_null() {
                                *response.status_mut() = hyper::StatusCode::NOT_FOUND;
                            }
                            response.headers_mut().insert(
                                hyper::header::CONTENT_TYPE,
                                hyper::header::HeaderValue::from_static("application/json"),
                            );
                            Ok::<_, Infallible>(response)
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Stub { base, requests }
    }

    fn server_url(&self) -> url::Url {
        url::Url::parse(&format!("{}/mcp", self.base)).unwrap()
    }

    fn challenge(&self) -> String {
        format!(
            r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp", scope="x:read""#,
            self.base
        )
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// Protected resource metadata for `{base}/mcp` naming `servers`.
fn resource_metadata(base: &str, servers: &[&str]) -> Value {
    json!({"resource": format!("{base}/mcp"), "authorization_servers": servers, "scopes_supported": ["x:read"]})
}

/// Authorization server metadata of issuer `base` with `token_endpoint`.
fn server_metadata(base: &str, token_endpoint: &str) -> Value {
    json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/auth"),
        "token_endpoint": token_endpoint,
        "registration_endpoint": format!("{base}/reg"),
        "grant_types_supported": ["client_credentials", "authorization_code"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "code_challenge_methods_supported": ["S256"],
        "response_types_supported": ["code"],
    })
}

async fn client_credentials(stub: &Stub, options: OAuthOptions) -> String {
    let registration = std::sync::Mutex::new(None);
    match authorize(
        &stub.server_url(),
        &options,
        &stub.challenge(),
        None,
        &registration,
    )
    .await
    {
        Ok(_) => String::from("authorized"),
        Err(error) => error.to_string(),
    }
}

#[tokio::test]
async fn a_cleartext_token_endpoint_off_loopback_gets_no_secret() {
    // 0.0.0.0 reaches this machine (the stub), but is not loopback: the
    // secret must not be sent there.
    let stub = Stub::start(|base, path| match path {
        "/.well-known/oauth-protected-resource/mcp" => Some(resource_metadata(base, &[base])),
        "/.well-known/oauth-authorization-server" => {
            let port = base.rsplit(':').next().unwrap();
            Some(server_metadata(
                base,
                &format!("http://0.0.0.0:{port}/token"),
            ))
        }
        _ => Some(Value::Null),
    })
    .await;
    let port = stub.base.rsplit(':').next().unwrap().to_owned();
    let failed = client_credentials(
        &stub,
        OAuthOptions::client_credentials("my-client", "TOPSECRET"),
    )
    .await;
    assert_eq!(
        failed,
        format!(
            "refusing the token endpoint http://0.0.0.0:{port}/token: it is not https:// (OAuth 2.1 §1.5, RFC 8414 §2), and only an authorization server on loopback (127.0.0.0/8, ::1, localhost) may use http://; no credential was sent"
        )
    );
    assert_eq!(
        stub.requests(),
        [
            "GET /.well-known/oauth-protected-resource/mcp",
            "GET /.well-known/oauth-authorization-server",
        ]
    );
}

#[tokio::test]
async fn discovery_is_bounded_by_the_request_timeout() {
    // The authorization server metadata never comes.
    let stub = Stub::start(|base, path| match path {
        "/.well-known/oauth-protected-resource/mcp" => Some(resource_metadata(base, &[base])),
        "/.well-known/oauth-authorization-server" => None,
        _ => Some(Value::Null),
    })
    .await;
    let failed = client_credentials(
        &stub,
        OAuthOptions::client_credentials("my-client", "TOPSECRET")
            .request_timeout(Duration::from_secs(1)),
    )
    .await;
    assert_eq!(
        failed,
        "the authorization server discovery timed out after 1 s"
    );
}

#[tokio::test]
async fn resource_metadata_naming_no_authorization_server_is_said() {
    let stub = Stub::start(|base, path| match path {
        "/.well-known/oauth-protected-resource/mcp" | "/.well-known/oauth-protected-resource" => {
            Some(resource_metadata(base, &[]))
        }
        // The path form for the server's URL (RFC 8414 §3.1), with the
        // origin as issuer.
        "/.well-known/oauth-authorization-server/mcp" => {
            Some(server_metadata(base, &format!("{base}/token")))
        }
        _ => Some(Value::Null),
    })
    .await;
    let failed = client_credentials(
        &stub,
        OAuthOptions::client_credentials("my-client", "TOPSECRET"),
    )
    .await;
    assert_eq!(
        failed,
        format!(
            "the protected resource metadata names no authorization server (its authorization_servers is empty or absent), and the authorization server metadata at the server's origin is for the issuer {}, not for this server",
            stub.base
        )
    );
    assert!(
        !stub.requests().iter().any(|r| r.ends_with("/token")),
        "{:?}",
        stub.requests()
    );
}
