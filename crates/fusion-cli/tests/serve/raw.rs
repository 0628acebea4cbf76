//! A raw MCP client over Streamable HTTP (reqwest, no MCP library) and over
//! stdio (lines written to and read from `fusion serve --stdio`), for tests
//! that must see the exact status codes, headers and JSON-RPC frames.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// The `initialize` request of the 2025-11-25 handshake.
pub fn initialize_request(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-test-client", "version": "1.0.0"},
        },
    })
}

/// A `tools/call` of `tool` with `arguments`.
pub fn call_request(id: u64, tool: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    })
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The JSON-RPC message of the body: the body itself (JSON), or the
    /// first `data:` event holding JSON (SSE).
    pub fn message(&self) -> Value {
        if let Ok(value) = serde_json::from_str(&self.body) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .find_map(|d| serde_json::from_str(d.trim()).ok())
            .unwrap_or_else(|| panic!("no JSON-RPC message in {:?}", self.body))
    }
}

/// A raw Streamable HTTP client of one endpoint.
#[derive(Clone)]
pub struct RawHttp {
    pub url: String,
    client: reqwest::Client,
    bearer: Option<String>,
}

impl RawHttp {
    pub fn new(url: &str) -> Self {
        RawHttp {
            url: url.to_owned(),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .expect("an HTTP client"),
            bearer: None,
        }
    }

    /// The same endpoint, every request with `Authorization: Bearer <token>`.
    pub fn with_bearer(&self, token: &str) -> Self {
        RawHttp {
            bearer: Some(token.to_owned()),
            ..self.clone()
        }
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.bearer {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// POSTs `body` as JSON with MCP's `Accept`, plus `headers`.
    pub async fn post(&self, body: impl Into<String>, headers: &[(&str, &str)]) -> Reply {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.into());
        request = self.authorized(request);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Reply::read(request.send().await.expect("an HTTP answer")).await
    }

    /// POSTs a JSON-RPC message within `session` (if any).
    pub async fn send(&self, session: Option<&str>, message: &Value) -> Reply {
        let mut headers = Vec::new();
        if let Some(id) = session {
            headers.push(("mcp-session-id", id));
            headers.push(("mcp-protocol-version", "2025-11-25"));
        }
        self.post(message.to_string(), &headers).await
    }

    /// Runs the 2025-11-25 handshake and returns the session id.
    pub async fn initialize(&self) -> String {
        let reply = self.send(None, &initialize_request(1)).await;
        assert_eq!(reply.status, 200, "initialize: {}", reply.body);
        let id = reply
            .header("mcp-session-id")
            .expect("an Mcp-Session-Id header")
            .to_owned();
        let done = self
            .send(
                Some(&id),
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(done.status, 202, "initialized: {}", done.body);
        id
    }

    /// `tools/call` in `session`; the JSON-RPC answer.
    pub async fn call(&self, session: &str, id: u64, tool: &str, arguments: Value) -> Reply {
        self.send(Some(session), &call_request(id, tool, arguments))
            .await
    }

    /// DELETEs `session`.
    pub async fn delete(&self, session: &str) -> Reply {
        let request = self
            .client
            .delete(&self.url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
        let request = self.authorized(request);
        Reply::read(request.send().await.expect("an HTTP answer")).await
    }

    /// Opens the session's standalone GET stream and keeps it open.
    pub async fn listen(&self, session: &str) -> reqwest::Response {
        let response = self
            .client
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await
            .expect("an HTTP answer");
        assert_eq!(response.status(), 200, "GET stream");
        response
    }
}

impl Reply {
    async fn read(response: reqwest::Response) -> Reply {
        Reply {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.expect("a body"),
        }
    }
}

/// Sends `request` bytes as they are over a new TCP connection and returns
/// the status line and the rest of the answer, for requests no HTTP client
/// library sends (two `Host` headers, a lying `Content-Length`).
pub fn raw_tcp(port: u16, request: &[u8]) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    stream.write_all(request).expect("write the request");
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    // The server closes or stops after the head and a short body; read what
    // comes until the connection ends or goes quiet.
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&buf[..n]);
                if answer.windows(4).any(|w| w == b"\r\n\r\n") {
                    stream
                        .set_read_timeout(Some(Duration::from_millis(300)))
                        .expect("a read timeout");
                }
            }
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (status, rest) = text.split_once("\r\n").unwrap_or((&text, ""));
    (status.to_owned(), rest.to_owned())
}

/// `fusion serve --stdio --db DB OPTIONS`, its stdin and stdout piped.
pub fn spawn_stdio(db: &str, options: &[&str]) -> Child {
    std::process::Command::new(crate::support::FUSION)
        .args(["serve", "--stdio", "--db", db])
        .args(options)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start fusion serve --stdio")
}

/// `fusion serve --stdio` spoken to line by line.
pub struct RawStdio {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl RawStdio {
    pub fn start(db: &str, options: &[&str]) -> Self {
        let mut child = spawn_stdio(db, options);
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        RawStdio {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    /// Writes `bytes` as they are.
    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// Writes one line (a newline is added).
    pub fn line(&mut self, line: &str) {
        self.write(format!("{line}\n").as_bytes());
    }

    /// The next line the server writes, as JSON (bounded wait: a server that
    /// never answers fails the test instead of hanging it).
    pub fn read(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a line from the server within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Runs the handshake.
    pub fn initialize(&mut self) {
        self.line(&initialize_request(0).to_string());
        let answer = self.read();
        assert_eq!(answer["id"], 0, "{answer}");
        assert!(answer.get("result").is_some(), "{answer}");
        self.line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Closes stdin and waits for the server to exit.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait for the server")
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
