//! What the gateway tests share: `fusion gateway` started with a config
//! over stdio (an rmcp client that counts `tools/list_changed`) or over
//! Streamable HTTP, the billing example as an upstream, the expected
//! `HANDOFF_*` envelopes, and the interop packages of `tests/interop`.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

use crate::support::{FUSION, TempDb, free_port, meta_of};

/// Counts the gateway's `notifications/tools/list_changed`.
#[derive(Clone, Default)]
pub struct Listener {
    pub changes: Arc<AtomicUsize>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.fetch_add(1, Ordering::SeqCst);
    }
}

/// A gateway started with `config` (written to a temp file) over stdio.
pub struct Gateway {
    pub client: RunningService<RoleClient, Listener>,
    pub changes: Arc<AtomicUsize>,
    pub _config: TempFile,
}

pub struct TempFile(pub PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Gateway {
    pub async fn start(test: &str, config: &str, flags: &[&str]) -> Gateway {
        let config = config_file(test, config);
        let config_path = config.0.display().to_string();
        let command = tokio::process::Command::new(FUSION).configure(|c| {
            c.args(["gateway", "--stdio", "--config", &config_path])
                .args(flags)
                .env("RUST_LOG", "error");
        });
        let (child, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::null())
            .spawn()
            .expect("start fusion gateway --stdio");
        let listener = Listener::default();
        let changes = Arc::clone(&listener.changes);
        let client = listener
            .serve(child)
            .await
            .expect("MCP handshake with the gateway");
        Gateway {
            client,
            changes,
            _config: config,
        }
    }

    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
            .unwrap_or_else(|e| panic!("{tool}: a tool result, got {e}"))
    }

    pub async fn tool_names(&self) -> Vec<String> {
        self.client
            .list_all_tools()
            .await
            .expect("tools/list")
            .into_iter()
            .map(|t| t.name.into_owned())
            .collect()
    }

    /// Calls until the answer is not `code` (bounded: 60 s, then the last
    /// answer is returned). Not a timing assertion: the upstream gets the time
    /// it needs.
    pub async fn call_until_not(&self, code: &str, tool: &str, args: Value) -> CallToolResult {
        let mut last = self.call(tool, args.clone()).await;
        for _ in 0..120 {
            if code_of(&last).as_deref() != Some(code) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
            last = self.call(tool, args.clone()).await;
        }
        last
    }

    pub async fn close(self) {
        let _ = self.client.cancel().await;
    }
}

pub fn code_of(result: &CallToolResult) -> Option<String> {
    meta_of(result).and_then(|m| m["code"].as_str().map(str::to_owned))
}

/// A `fusion serve --stdio` upstream command, as a TOML array.
pub fn billing_command(db: &TempDb) -> String {
    format!(
        r#"["{FUSION}", "serve", "--stdio", "--db", "{}"]"#,
        db.path()
    )
}

/// The envelope text and `_meta` of a `HANDOFF_*` failure.
pub fn handoff_envelope(
    code: &str,
    severity: &str,
    message: &str,
    recovery: &str,
    actions: &[&str],
    retry_after: Option<u64>,
) -> (String, Value) {
    let mut text = format!("<tool_error code=\"{code}\" severity=\"{severity}\">\n");
    text.push_str(&format!("  <message>{message}</message>\n"));
    text.push_str(&format!("  <recovery>{recovery}</recovery>\n"));
    if !actions.is_empty() {
        text.push_str("  <available_actions>\n");
        for action in actions {
            text.push_str(&format!("    <action>{action}</action>\n"));
        }
        text.push_str("  </available_actions>\n");
    }
    if let Some(secs) = retry_after {
        let unit = if secs == 1 { "second" } else { "seconds" };
        text.push_str(&format!("  <retry_after>{secs} {unit}</retry_after>\n"));
    }
    text.push_str("</tool_error>");
    let mut meta = json!({
        "code": code,
        "severity": severity,
        "message": message,
        "recovery": recovery,
    });
    if !actions.is_empty() {
        meta["available_actions"] = json!(actions);
    }
    if let Some(secs) = retry_after {
        meta["retry_after_seconds"] = json!(secs);
    }
    (text, meta)
}

pub const NOT_ACTIVE_RECOVERY: &str = "To use them, call handoff with {\"namespace\": \"finance\"} and wait for the tools list to refresh; otherwise call one of the tools in available_actions.";
pub const MISMATCH_RECOVERY: &str = "Call one of the tools in available_actions; list the tools again with tools/list if they may have changed.";

/// What `fusion serve` answers itself, for comparison with what the gateway
/// passes through.
pub async fn direct_billing(db: &TempDb, args: Value) -> CallToolResult {
    let session = crate::support::Session::start(crate::support::Transport::Stdio, db).await;
    let result = session.billing(args).await;
    session.close().await;
    result
}

/// `tests/interop`, with its packages installed; `None` (the test skips,
/// saying so) without node.
pub fn interop_dir() -> Option<PathBuf> {
    if std::process::Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        eprintln!("SKIPPED: `node` is not installed, so the node upstreams cannot run");
        return None;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .is_file(),
        "the interop packages are missing: run `scripts/npm-install tests/interop` from the repository root"
    );
    Some(dir.canonicalize().expect("tests/interop exists"))
}

/// server-everything's script.
pub fn server_everything() -> Option<PathBuf> {
    interop_dir()
        .map(|dir| dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
}

/// A gateway config file for `test`, removed on drop.
pub fn config_file(test: &str, text: &str) -> TempFile {
    let path =
        std::env::temp_dir().join(format!("fusion-gateway-{test}-{}.toml", std::process::id()));
    std::fs::write(&path, text).expect("write the config");
    TempFile(path)
}

/// `fusion gateway --config CONFIG --port PORT` over Streamable HTTP, killed on drop.
pub struct HttpGateway {
    pub child: std::process::Child,
    pub url: String,
    pub _config: TempFile,
}

impl HttpGateway {
    pub fn start(test: &str, config: &str) -> HttpGateway {
        Self::start_with(test, config, &[])
    }

    /// Started with `flags` too.
    pub fn start_with(test: &str, config: &str, flags: &[&str]) -> HttpGateway {
        Self::start_with_env(test, config, flags, &[])
    }

    /// Started with `flags`, and the environment variables `env` set.
    pub fn start_with_env(
        test: &str,
        config: &str,
        flags: &[&str],
        env: &[(&str, &str)],
    ) -> HttpGateway {
        let config = config_file(test, config);
        let port = free_port().to_string();
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "gateway".as_ref(),
            "--port".as_ref(),
            port.as_ref(),
            "--config".as_ref(),
            config.0.as_os_str(),
        ];
        args.extend(flags.iter().map(|flag| std::ffi::OsStr::new(*flag)));
        let (child, lines) = crate::support::spawn_fusion_with_env(&args, "error", env);
        // Bounded, so that a gateway that never starts fails the test.
        while let Ok(line) = lines.recv_timeout(Duration::from_secs(60)) {
            if let Some(url) = line.trim().strip_prefix("MCP endpoint: ") {
                return HttpGateway {
                    child,
                    url: url.to_owned(),
                    _config: config,
                };
            }
        }
        panic!("fusion gateway did not start over HTTP");
    }

    pub async fn client(&self) -> RunningService<RoleClient, ()> {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(self.url.as_str());
        ().serve(transport).await.expect("MCP handshake over HTTP")
    }

    /// A client that sends `Authorization: Bearer TOKEN`.
    pub async fn client_with_bearer(&self, token: &str) -> RunningService<RoleClient, ()> {
        let config =
            rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                self.url.as_str(),
            )
            .auth_header(token.to_owned());
        let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
        ().serve(transport).await.expect("MCP handshake over HTTP")
    }
}

impl Drop for HttpGateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn names_of(client: &RunningService<RoleClient, ()>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

pub async fn call_on(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: a tool result, got {e}"))
}
