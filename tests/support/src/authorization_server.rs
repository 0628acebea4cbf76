//! A real OAuth 2.1 authorization server for the resource-server tests and
//! `fusion call`'s (fusion-cli's `serve` and `cli` programs):
//! `oidc-provider` (npm) run by `tests/oauth/server.mjs` on a loopback port,
//! stopped when dropped. Its clients and resource rules are described in
//! that file. Needs `tests/oauth/node_modules`, which `scripts/test`
//! installs (`bash scripts/npm-install tests/oauth`); without it a test
//! fails saying so.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// One running authorization server.
pub struct AuthorizationServer {
    child: Child,
    /// Its issuer, `http://127.0.0.1:PORT`.
    pub issuer: String,
    port: u16,
    http: reqwest::Client,
}

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../oauth")
}

impl AuthorizationServer {
    /// Starts one on a free port, signing with a new key whose id is `kid`.
    pub async fn start(kid: &str) -> Self {
        Self::start_on(0, kid).await
    }

    /// Starts one on `port` (0: a free one) signing with a new key `kid`.
    pub async fn start_on(port: u16, kid: &str) -> Self {
        let dir = folder();
        assert!(
            dir.join("node_modules/oidc-provider").is_dir(),
            "{}/node_modules is missing: install it with scripts/test's step `bash scripts/npm-install tests/oauth`",
            dir.display()
        );
        let mut child = Command::new("node")
            .arg("server.mjs")
            .args(["--port", &port.to_string(), "--kid", kid])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs (Node.js 20 or later)");
        let stdout = child.stdout.take().expect("its stdout");
        let mut lines = BufReader::new(stdout).lines();
        // Generous: the tests of a binary start one each, at once, and Node
        // starts slowly on a loaded machine (a readiness bound, not a
        // timing check).
        let line = tokio::time::timeout(Duration::from_secs(120), lines.next_line())
            .await
            .expect("oidc-provider says it is ready within 120 s")
            .expect("its stdout is readable")
            .expect("oidc-provider printed its ready line before exiting");
        let issuer = line
            .strip_prefix("ready ")
            .unwrap_or_else(|| panic!("not a ready line: {line}"))
            .to_owned();
        let port = issuer
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("a port");
        AuthorizationServer {
            child,
            issuer,
            port,
            http: reqwest::Client::new(),
        }
    }

    /// Stops it and starts it again on the same port (the same issuer) with
    /// a new key `kid`: its keys rotate.
    pub async fn restart(mut self, kid: &str) -> Self {
        let port = self.port;
        let _ = self.child.kill().await;
        let _ = self.child.wait().await;
        Self::start_on(port, kid).await
    }

    /// Stops it and waits until it has exited: its port refuses
    /// connections from then on (an authorization server that cannot be
    /// reached).
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
        let _ = self.child.wait().await;
    }

    /// POSTs `form` to `path` as `client` (secret `<client>-secret`), returns
    /// the status and the JSON answer.
    async fn post(&self, path: &str, client: &str, form: &[(&str, &str)]) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.issuer))
            .basic_auth(client, Some(format!("{client}-secret")))
            .form(form)
            .send()
            .await
            .expect("the authorization server answers");
        let status = response.status().as_u16();
        let text = response.text().await.expect("a body");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// An access token for `client` (client_credentials) with `scope`, for
    /// `resource` when given (RFC 8707).
    pub async fn token(&self, client: &str, scope: &str, resource: Option<&str>) -> String {
        let mut form = vec![("grant_type", "client_credentials"), ("scope", scope)];
        if let Some(resource) = resource {
            form.push(("resource", resource));
        }
        let (status, answer) = self.post("/token", client, &form).await;
        assert_eq!(status, 200, "token request: {answer}");
        answer["access_token"]
            .as_str()
            .expect("an access token")
            .to_owned()
    }

    /// Revokes `token` (RFC 7009) as `client`, the client it was issued to.
    pub async fn revoke(&self, client: &str, token: &str) {
        let (status, answer) = self
            .post("/token/revocation", client, &[("token", token)])
            .await;
        assert_eq!(status, 200, "revocation: {answer}");
    }
}
