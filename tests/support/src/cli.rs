//! What fusion-cli's `serve`, `gateway` and `cli` test programs share:
//! temporary databases, `fusion serve` started over stdio or Streamable HTTP
//! and an rmcp client session. Each takes it as its `support` module
//! (`use fusion_test_support::cli as support;`); their own helpers are beside
//! their tests (`serve/raw.rs`, `gateway/gateway.rs`). A real Redis comes
//! from [`redis_server`](crate::redis_server).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};

/// The `fusion` binary under test, as a command (`Command::new(FUSION)`) or
/// text (`format!("{FUSION} serve")`).
pub const FUSION: Fusion = Fusion;

/// The path of the `fusion` binary: beside the directory of the test program
/// that runs (`target/<profile>/fusion`, the program being in
/// `target/<profile>/deps/`), where cargo builds a package's binaries before
/// its integration tests run. (`env!("CARGO_BIN_EXE_fusion")` is set only
/// when the test program itself is compiled, not this crate.)
#[derive(Debug, Clone, Copy)]
pub struct Fusion;

impl Fusion {
    /// The path, as text.
    pub fn path(self) -> &'static str {
        static PATH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            let program = std::env::current_exe().expect("the test program's path");
            let profile = program
                .parent()
                .and_then(Path::parent)
                .expect("the test program is in target/<profile>/deps");
            let fusion = profile.join(format!("fusion{}", std::env::consts::EXE_SUFFIX));
            assert!(
                fusion.exists(),
                "no fusion binary at {}: run the tests with cargo test -p fusion-cli",
                fusion.display()
            );
            fusion.to_string_lossy().into_owned()
        });
        &PATH
    }
}

impl std::fmt::Display for Fusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.path())
    }
}

impl AsRef<std::ffi::OsStr> for Fusion {
    fn as_ref(&self) -> &std::ffi::OsStr {
        std::ffi::OsStr::new(self.path())
    }
}
/// The `_meta` key of the envelope's JSON twin.
pub const META_KEY: &str = "mcp-fusion/error";

// ---------------------------------------------------------------------------
// Databases and servers

/// A database file of its own, removed (with SQLite's side files) on drop.
pub struct TempDb(pub PathBuf);

impl TempDb {
    pub fn new(test: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let name = format!("fusion-e2e-{test}-{}-{nanos}-{n}.db", std::process::id());
        let path = std::env::temp_dir().join(name);
        assert!(!path.exists(), "{} already exists", path.display());
        TempDb(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temp path")
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let mut file = self.0.clone().into_os_string();
            file.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(file));
        }
    }
}

/// `fusion ARGS` with `RUST_LOG=rust_log`, stdin and stdout closed; every
/// stderr line is read (so the pipe never fills) and sent on the receiver.
pub fn spawn_fusion(args: &[&std::ffi::OsStr], rust_log: &str) -> (Child, mpsc::Receiver<String>) {
    spawn_fusion_with_env(args, rust_log, &[])
}

/// [`spawn_fusion`] with the environment variables `env` set too.
pub fn spawn_fusion_with_env(
    args: &[&std::ffi::OsStr],
    rust_log: &str,
    env: &[(&str, &str)],
) -> (Child, mpsc::Receiver<String>) {
    let mut child = std::process::Command::new(FUSION)
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", rust_log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fusion");
    let stderr = child.stderr.take().expect("piped stderr");
    let (lines_tx, lines_rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    (child, lines_rx)
}

/// `fusion serve --port N --db PATH` as a child process, killed on drop.
pub struct HttpServer {
    child: Child,
    pub url: String,
    pub port: u16,
    /// The server's first stderr lines, up to its endpoint line.
    pub banner: Vec<String>,
}

impl HttpServer {
    /// Starts the server on a free port and waits until it prints its
    /// endpoint (so it is listening). Retries on another port if the one
    /// picked was taken in between.
    pub fn start(db: &Path) -> Self {
        HttpServer::start_with(db, &[])
    }

    /// [`HttpServer::start`] with more `fusion serve` options.
    pub fn start_with(db: &Path, options: &[&str]) -> Self {
        let mut last_failure = String::new();
        for _ in 0..5 {
            match HttpServer::try_start_on(db, free_port(), options) {
                Ok(server) => return server,
                Err(stderr) => last_failure = stderr,
            }
        }
        panic!("fusion serve did not start over HTTP; its stderr:\n{last_failure}");
    }

    /// `fusion serve` on `port` exactly (e.g. to restart a server where its
    /// clients expect it).
    pub fn start_on(db: &Path, port: u16, options: &[&str]) -> Self {
        let mut last_failure = String::new();
        // The port of a server just killed may take a moment to be free.
        for _ in 0..20 {
            match HttpServer::try_start_on(db, port, options) {
                Ok(server) => return server,
                Err(stderr) => last_failure = stderr,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("fusion serve did not start on port {port}; its stderr:\n{last_failure}");
    }

    /// `fusion serve --example EXAMPLE` (one without a database, e.g.
    /// `conformance`) on a free port, as [`HttpServer::start`] starts it.
    pub fn start_example(example: &str) -> Self {
        HttpServer::start_example_with(example, &[])
    }

    /// [`HttpServer::start_example`] with more `fusion serve` options.
    pub fn start_example_with(example: &str, options: &[&str]) -> Self {
        let mut args = vec!["--example", example];
        args.extend_from_slice(options);
        let mut last_failure = String::new();
        for _ in 0..5 {
            match HttpServer::try_start(None, free_port(), &args) {
                Ok(server) => return server,
                Err(stderr) => last_failure = stderr,
            }
        }
        panic!(
            "fusion serve --example {example} did not start over HTTP; its stderr:\n{last_failure}"
        );
    }

    fn try_start_on(db: &Path, port: u16, options: &[&str]) -> Result<Self, String> {
        HttpServer::try_start(Some(db), port, options)
    }

    fn try_start(db: Option<&Path>, port: u16, options: &[&str]) -> Result<Self, String> {
        let port_text = port.to_string();
        let mut args: Vec<&std::ffi::OsStr> = ["serve", "--port", &port_text]
            .into_iter()
            .map(std::ffi::OsStr::new)
            .collect();
        if let Some(db) = db {
            args.push(std::ffi::OsStr::new("--db"));
            args.push(db.as_os_str());
        }
        args.extend(options.iter().map(std::ffi::OsStr::new));
        let (mut child, lines_rx) = spawn_fusion(&args, "warn");
        let mut banner = Vec::new();
        // Bounded, so that a server that never starts fails the test
        // instead of hanging it; not a timing assertion.
        while let Ok(line) = lines_rx.recv_timeout(Duration::from_secs(60)) {
            let ready = line.contains("MCP endpoint: ");
            banner.push(line);
            if ready {
                return Ok(HttpServer {
                    child,
                    url: format!("http://127.0.0.1:{port}/mcp"),
                    port,
                    banner,
                });
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        Err(banner.join("\n"))
    }
}

impl HttpServer {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the server at once (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The server's resident memory, in KiB (Linux `/proc`).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("read /proc/PID/status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a VmRSS line")
    }

    /// Waits for the server to exit (bounded: 30 s, then it is killed) and
    /// returns its exit status.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        for _ in 0..300 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        self.child.wait().expect("wait for fusion serve")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

#[derive(Debug, Clone, Copy)]
pub enum Transport {
    Stdio,
    Http,
}

/// A client session with a running `fusion serve`.
pub struct Session {
    pub client: RunningService<RoleClient, ()>,
    /// Kept alive for the session (HTTP only); killed on drop.
    pub _http: Option<HttpServer>,
}

impl Session {
    pub async fn start(transport: Transport, db: &TempDb) -> Self {
        Session::start_with(transport, db, &[], None).await
    }

    /// An HTTP session with `fusion serve` started with more `options`,
    /// sending `bearer` as its bearer token; the handshake's error when the
    /// server refuses it (the text of rmcp's `ClientInitializeError`, which
    /// names the `WWW-Authenticate` challenge of a 401).
    pub async fn try_start_http(
        db: &TempDb,
        options: &[&str],
        bearer: Option<&str>,
    ) -> Result<Self, String> {
        let server = HttpServer::start_with(&db.0, options);
        let mut config = StreamableHttpClientTransportConfig::with_uri(server.url.as_str());
        if let Some(token) = bearer {
            config = config.auth_header(token);
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        let client = ().serve(transport).await.map_err(|e| format!("{e:?}"))?;
        Ok(Session {
            client,
            _http: Some(server),
        })
    }

    /// A session with `fusion serve` started with more `options`, sending
    /// `bearer` as its HTTP bearer token (HTTP only).
    pub async fn start_with(
        transport: Transport,
        db: &TempDb,
        options: &[&str],
        bearer: Option<&str>,
    ) -> Self {
        match transport {
            Transport::Stdio => {
                let db = db.path().to_owned();
                let command = tokio::process::Command::new(FUSION).configure(|c| {
                    c.args(["serve", "--stdio", "--db", &db]).args(options);
                });
                let (child, _) = TokioChildProcess::builder(command)
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("start fusion serve --stdio");
                let client = ().serve(child).await.expect("MCP handshake over stdio");
                Session {
                    client,
                    _http: None,
                }
            }
            Transport::Http => Session::try_start_http(db, options, bearer)
                .await
                .unwrap_or_else(|e| panic!("MCP handshake over HTTP: {e}")),
        }
    }

    pub async fn try_call(&self, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
    }

    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.try_call(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{tool}: a tool result, got {e}"))
    }

    pub async fn billing(&self, args: Value) -> CallToolResult {
        self.call("billing", args).await
    }

    pub async fn close(self) {
        let _ = self.client.cancel().await;
    }
}

// ---------------------------------------------------------------------------
// Reading results

pub fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|block| {
            block
                .as_text()
                .unwrap_or_else(|| panic!("a text block, got {block:?}"))
                .text
                .clone()
        })
        .collect()
}

pub fn meta_of(result: &CallToolResult) -> Option<Value> {
    result
        .meta
        .as_ref()
        .and_then(|meta| meta.0.get(META_KEY))
        .cloned()
}

// ---------------------------------------------------------------------------
// Envelope assertions

/// The `<recovery>` line of every `<validation_error>` (wire contract §4);
/// what to fix comes first, on the line before the envelope.
pub const VALIDATION_RECOVERY: &str = "Do not explain the error.";

/// `_meta`'s `recovery` of a `<validation_error>` of `tool` (§4): the line
/// before the envelope, then [`VALIDATION_RECOVERY`].
pub fn validation_meta_recovery(tool: &str) -> String {
    format!("Fix the fields below and call {tool} again. {VALIDATION_RECOVERY}")
}

/// A failure (§1): one text block equal to `text`, `isError` as the severity
/// says, no `structuredContent`, `_meta` equal to `meta`.
#[track_caller]
pub fn assert_failure(result: &CallToolResult, text: &str, meta: &Value, is_error: bool) {
    assert_eq!(texts(result), [text], "envelope text");
    assert_eq!(result.is_error, Some(is_error), "isError");
    assert_eq!(result.structured_content, None, "structuredContent");
    assert_eq!(meta_of(result).as_ref(), Some(meta), "_meta");
}

/// A `<validation_error>` of `billing.{action}` with `lines` (§4), after
/// the default next step.
#[track_caller]
pub fn assert_invalid(result: &CallToolResult, action: &str, lines: &[(&str, &str)]) {
    assert_invalid_after(
        result,
        "Fix the fields below and call billing again.",
        action,
        lines,
    );
}

/// [`assert_invalid`] after the next step `step` (one that names the values
/// to send).
#[track_caller]
pub fn assert_invalid_after(
    result: &CallToolResult,
    step: &str,
    action: &str,
    lines: &[(&str, &str)],
) {
    let dotted = format!("billing.{action}");
    let mut text = format!("{step}\n<validation_error action=\"{dotted}\">\n");
    for (path, message) in lines {
        let escaped = message.replace('&', "&amp;").replace('<', "&lt;");
        text.push_str(&format!("  <field name=\"{path}\">{escaped}</field>\n"));
    }
    text.push_str(&format!(
        "  <recovery>{VALIDATION_RECOVERY}</recovery>\n</validation_error>"
    ));
    let n = lines.len();
    let meta = json!({
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": format!(
            "The arguments for {dotted} are not valid ({n} {}).",
            if n == 1 { "problem" } else { "problems" }
        ),
        "recovery": format!("{step} {VALIDATION_RECOVERY}"),
        "action": dotted,
        "fields": lines.iter().map(|(p, m)| json!({"path": p, "message": m})).collect::<Vec<_>>(),
    });
    assert_failure(result, &text, &meta, true);
}
