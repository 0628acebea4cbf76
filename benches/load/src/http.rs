//! The Streamable HTTP driver: `connections` MCP sessions (each its own
//! client: `initialize`, its `Mcp-Session-Id`, `notifications/initialized`),
//! each with `workers` calls in flight, every call a `POST` of `tools/call`
//! whose answer is JSON or an SSE stream ([`crate::sse`]).
//!
//! Each (session, worker) pair is a task that sends a call, waits for its
//! answer and sends the next; the ids come from one counter, and an answer
//! must carry the id of its request.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use tokio::time::Instant;

use crate::calls::{
    CallPath, CallTemplate, INITIALIZE_ID, INITIALIZED_NOTIFICATION, Measure, PROTOCOL_VERSION,
    RunPlan, TOOLS_LIST_ID, TOOLS_LIST_REQUEST, initialize_request,
};
use crate::check::{Incoming, Outcome, Tally, classify};
use crate::error::Error;
use crate::report::{Report, rss_mib};
use crate::sse::data_payloads;
use crate::stats::Latencies;

/// How long the server is left alone after the handshakes before its idle
/// memory is read.
const IDLE_SETTLE: Duration = Duration::from_millis(200);

/// The `Accept` header of every `POST`, as the transport specification
/// requires.
const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// The session header.
const SESSION_HEADER: &str = "mcp-session-id";

/// An HTTP run.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`.
    pub url: String,
    /// The server's process id, to read its memory (none: not reported).
    pub pid: Option<u32>,
    /// The call repeated.
    pub path: CallPath,
    /// The tool called ([`DEFAULT_TOOL`](crate::calls::DEFAULT_TOOL) unless the server mounts it under
    /// another name).
    pub tool: String,
    /// Send `tools/list` in the first session after the handshakes and wait
    /// for its answer before the first call (a gateway answers it once its
    /// upstreams connected).
    pub list_tools: bool,
    /// Sessions (each its own client and keep-alive connection).
    pub connections: u32,
    /// Calls in flight per session.
    pub workers: u32,
    /// Warm-up, measured part, timeout and deadline.
    pub plan: RunPlan,
    /// The server's name in the report.
    pub label: String,
}

/// One MCP session: its client and its headers.
#[derive(Clone)]
struct Session {
    client: reqwest::Client,
    /// `Content-Type`, `Accept`, the protocol version and the session id.
    headers: HeaderMap,
}

/// What the workers share.
struct Shared {
    next_id: AtomicU64,
    /// Set when no more calls should be sent.
    stop: AtomicBool,
    /// Calls answered in the measured part so far (for [`Measure::Calls`]).
    measured: AtomicU64,
    /// When the measured part ended, for [`Measure::Calls`] (set once).
    ended: std::sync::Mutex<Option<Instant>>,
    measure_start: Instant,
    /// The fixed end of the measured part, for [`Measure::For`].
    measure_end: Option<Instant>,
    deadline: Instant,
}

/// What one worker found.
struct WorkerResult {
    tally: Tally,
    latencies: Latencies,
    /// Its answers during the measured part.
    calls: u64,
}

/// Opens the sessions of `options` and measures the server.
///
/// # Errors
/// When the URL is not an `http://` URL, or a session cannot be opened (no
/// connection, an HTTP error status, a JSON-RPC error or no answer to
/// `initialize`, no answer within the timeout). Wrong or missing answers to
/// calls are not errors: the report counts them.
pub async fn run(options: &HttpOptions) -> Result<Report, Error> {
    let url = reqwest::Url::parse(&options.url)
        .map_err(|error| Error::Usage(format!("--url {}: {error}", options.url)))?;
    if url.scheme() != "http" {
        return Err(Error::Usage(format!(
            "--url {}: only http:// is supported (a server on this machine)",
            options.url
        )));
    }
    let plan = options.plan;
    let started = Instant::now();
    let deadline = started + plan.deadline;
    let connections = options.connections.max(1);
    let workers = options.workers.max(1);

    let mut sessions = Vec::with_capacity(connections as usize);
    for n in 0..connections {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let session = tokio::time::timeout(
            plan.timeout.min(remaining),
            open_session(&url, workers, plan.timeout),
        )
        .await
        .map_err(|_| Error::Timeout {
            when: format!("opening session {} of {connections}", n + 1),
            after: plan.timeout.min(remaining),
        })??;
        sessions.push(session);
    }
    if options.list_tools
        && let Some(session) = sessions.first()
    {
        list_tools(&url, session).await?;
    }
    tokio::time::sleep(IDLE_SETTLE).await;
    let rss_idle_mib = options.pid.and_then(rss_mib);

    let measure_start = Instant::now() + plan.warmup;
    let shared = Arc::new(Shared {
        next_id: AtomicU64::new(1),
        stop: AtomicBool::new(false),
        measured: AtomicU64::new(0),
        ended: std::sync::Mutex::new(None),
        measure_start,
        measure_end: match plan.measure {
            Measure::For(length) => Some(measure_start + length),
            Measure::Calls(_) => None,
        },
        deadline,
    });
    let template = Arc::new(CallTemplate::new(options.path, &options.tool));
    let mut tasks = Vec::with_capacity((connections * workers) as usize);
    for session in &sessions {
        for _ in 0..workers {
            tasks.push(tokio::spawn(work(
                session.clone(),
                url.clone(),
                options.path,
                Arc::clone(&template),
                Arc::clone(&shared),
                plan,
            )));
        }
    }
    let mut tally = Tally::default();
    let mut latencies = Latencies::default();
    let mut calls = 0;
    for task in tasks {
        match task.await {
            Ok(result) => {
                tally.merge(result.tally);
                latencies.merge(result.latencies);
                calls += result.calls;
            }
            Err(error) => tally.missing(1, format!("a worker failed: {error}")),
        }
    }
    let rss_after_mib = options.pid.and_then(rss_mib);
    for session in &sessions {
        close_session(&url, session).await;
    }

    let end = match plan.measure {
        Measure::For(_) => shared.measure_end,
        Measure::Calls(_) => *shared
            .ended
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    }
    .unwrap_or_else(Instant::now);
    let seconds = end.saturating_duration_since(measure_start).as_secs_f64();
    let (p50_us, p99_us) = latencies.p50_p99_us();
    Ok(Report {
        label: options.label.clone(),
        transport: "http",
        path: options.path,
        workers,
        connections,
        seconds,
        calls,
        calls_per_s: crate::report::rate(calls, seconds),
        p50_us,
        p99_us,
        outcomes: tally,
        rss_idle_mib,
        rss_after_mib,
    })
}

/// One worker: calls until the measured part is over.
async fn work(
    session: Session,
    url: reqwest::Url,
    path: CallPath,
    template: Arc<CallTemplate>,
    shared: Arc<Shared>,
    plan: RunPlan,
) -> WorkerResult {
    let mut result = WorkerResult {
        tally: Tally::default(),
        latencies: Latencies::with_capacity(64 * 1024),
        calls: 0,
    };
    let mut body = Vec::with_capacity(256);
    loop {
        let now = Instant::now();
        if shared.stop.load(Ordering::Relaxed)
            || shared.measure_end.is_some_and(|end| now >= end)
            || now >= shared.deadline
        {
            break;
        }
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        body.clear();
        template.write(id, &mut body);
        let sent = Instant::now();
        let remaining = shared.deadline.saturating_duration_since(sent);
        let answer = tokio::time::timeout(
            plan.timeout.min(remaining),
            post(&session, &url, body.clone()),
        )
        .await;
        let now = Instant::now();
        let answer = match answer {
            Ok(Ok(answer)) => answer,
            Ok(Err(PostError::Status(status, text))) => {
                result.tally.record(Outcome::Unexpected(format!(
                    "HTTP {status} for id {id}: {}",
                    text.chars().take(200).collect::<String>()
                )));
                continue;
            }
            Ok(Err(PostError::Transport(error))) => {
                // The session's connection is gone: this worker stops.
                result.tally.missing(1, format!("id {id}: {error}"));
                break;
            }
            Err(_) => {
                let why = if now >= shared.deadline {
                    format!("id {id}: the run's deadline ({:?}) passed", plan.deadline)
                } else {
                    format!("id {id}: no answer for {:?}", plan.timeout)
                };
                result.tally.missing(1, why);
                break;
            }
        };
        result.tally.record(judge(path, id, &answer));
        let in_window =
            now >= shared.measure_start && shared.measure_end.is_none_or(|end| now <= end);
        if in_window && !shared.stop.load(Ordering::Relaxed) {
            result.calls += 1;
            if sent >= shared.measure_start {
                result.latencies.push(now - sent);
            }
            if let Measure::Calls(target) = plan.measure
                && shared.measured.fetch_add(1, Ordering::Relaxed) + 1 >= target
                && !shared.stop.swap(true, Ordering::Relaxed)
            {
                *shared
                    .ended
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(now);
            }
        }
    }
    result
}

/// Judges `answer` (JSON or SSE) to the call with id `id`: it must hold
/// exactly one response, to `id`, that `path` expects (notifications before
/// it are skipped).
fn judge(path: CallPath, id: u64, answer: &Answer) -> Outcome {
    let mut found = None;
    let mut seen = 0;
    for payload in answer.payloads() {
        let Ok(message) = serde_json::from_str::<Incoming<'_>>(&payload) else {
            return Outcome::Unexpected(format!(
                "an answer that is not JSON-RPC: {}",
                payload.chars().take(200).collect::<String>()
            ));
        };
        if message.is_from_server() {
            continue;
        }
        seen += 1;
        if message.numeric_id() == Some(id) {
            found = Some(classify(path, &message));
        } else {
            return Outcome::Unexpected(format!(
                "an answer to id {:?} where {id} was asked",
                message.id
            ));
        }
    }
    match found {
        Some(outcome) if seen == 1 => outcome,
        Some(_) => Outcome::Unexpected(format!("id {id} answered {seen} times")),
        None => Outcome::Unexpected(format!("no answer to id {id} in the response")),
    }
}

/// An answer body and its kind.
struct Answer {
    /// `true` for `text/event-stream`.
    sse: bool,
    body: String,
}

impl Answer {
    /// The JSON-RPC messages of the body, as text.
    fn payloads(&self) -> Vec<String> {
        if self.sse {
            data_payloads(&self.body)
        } else {
            vec![self.body.clone()]
        }
    }
}

/// Why a `POST` got no usable answer.
enum PostError {
    /// An HTTP error status, and the body.
    Status(reqwest::StatusCode, String),
    /// No answer at all.
    Transport(reqwest::Error),
}

/// `POST`s `body` in `session` and reads the whole answer.
async fn post(session: &Session, url: &reqwest::Url, body: Vec<u8>) -> Result<Answer, PostError> {
    let response = session
        .client
        .post(url.clone())
        .headers(session.headers.clone())
        .body(body)
        .send()
        .await
        .map_err(PostError::Transport)?;
    let status = response.status();
    let sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let bytes = response.bytes().await.map_err(PostError::Transport)?;
    let body = String::from_utf8_lossy(&bytes).into_owned();
    if !status.is_success() {
        return Err(PostError::Status(status, body));
    }
    Ok(Answer { sse, body })
}

/// Opens one session: `initialize`, its session id, `notifications/initialized`.
async fn open_session(
    url: &reqwest::Url,
    workers: u32,
    timeout: Duration,
) -> Result<Session, Error> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(workers as usize)
        .tcp_nodelay(true)
        .timeout(timeout)
        .build()
        .map_err(|error| Error::Protocol(format!("cannot build an HTTP client: {error}")))?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_BOTH));
    let failed = |what: String| Error::Protocol(format!("initialize at {url}: {what}"));
    let response = client
        .post(url.clone())
        .headers(headers.clone())
        .body(initialize_request())
        .send()
        .await
        .map_err(|error| failed(describe(&error)))?;
    let session_id = response.headers().get(SESSION_HEADER).cloned();
    let status = response.status();
    let sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let body = response
        .text()
        .await
        .map_err(|error| failed(describe(&error)))?;
    if !status.is_success() {
        return Err(failed(format!(
            "HTTP {status}: {}",
            body.chars().take(300).collect::<String>()
        )));
    }
    let answer = Answer { sse, body };
    let mut answered = false;
    for payload in answer.payloads() {
        let Ok(message) = serde_json::from_str::<Incoming<'_>>(&payload) else {
            continue;
        };
        if message.is_from_server() || message.numeric_id() != Some(INITIALIZE_ID) {
            continue;
        }
        if let Some(error) = message.error {
            return Err(failed(format!(
                "JSON-RPC error {}: {}",
                error.code, error.message
            )));
        }
        answered = true;
    }
    if !answered {
        return Err(failed("no answer to initialize in the response".into()));
    }
    headers.insert(
        "mcp-protocol-version",
        HeaderValue::from_static(PROTOCOL_VERSION),
    );
    // A stateless server gives no session id: the calls go without one.
    if let Some(id) = session_id {
        headers.insert(SESSION_HEADER, id);
    }
    let response = client
        .post(url.clone())
        .headers(headers.clone())
        .body(INITIALIZED_NOTIFICATION)
        .send()
        .await
        .map_err(|error| failed(format!("notifications/initialized: {}", describe(&error))))?;
    let status = response.status();
    // Read the (empty) body so that the connection is reused.
    let _ = response.bytes().await;
    if !status.is_success() {
        return Err(failed(format!("notifications/initialized: HTTP {status}")));
    }
    Ok(Session { client, headers })
}

/// Sends `tools/list` in `session` and checks that it is answered with a
/// result.
async fn list_tools(url: &reqwest::Url, session: &Session) -> Result<(), Error> {
    let failed = |what: String| Error::Protocol(format!("tools/list at {url}: {what}"));
    let answer = match post(session, url, TOOLS_LIST_REQUEST.as_bytes().to_vec()).await {
        Ok(answer) => answer,
        Err(PostError::Status(status, body)) => {
            return Err(failed(format!(
                "HTTP {status}: {}",
                body.chars().take(300).collect::<String>()
            )));
        }
        Err(PostError::Transport(error)) => return Err(failed(describe(&error))),
    };
    for payload in answer.payloads() {
        let Ok(message) = serde_json::from_str::<Incoming<'_>>(&payload) else {
            continue;
        };
        if message.id.as_ref().and_then(|id| id.as_str()) != Some(TOOLS_LIST_ID) {
            continue;
        }
        return match message.error {
            Some(error) => Err(failed(format!(
                "JSON-RPC error {}: {}",
                error.code, error.message
            ))),
            None => Ok(()),
        };
    }
    Err(failed("no answer to tools/list in the response".into()))
}

/// Ends a session with `DELETE` (its answer does not matter).
async fn close_session(url: &reqwest::Url, session: &Session) {
    if !session.headers.contains_key(SESSION_HEADER) {
        return;
    }
    let request = session
        .client
        .delete(url.clone())
        .headers(session.headers.clone())
        .timeout(Duration::from_secs(2))
        .send();
    let _ = request.await;
}

/// A reqwest error with its causes (its `Display` leaves them out).
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_json_and_sse_answers() {
        let json = Answer {
            sse: false,
            body: r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"id, email, amount"}],"isError":true}}"#.into(),
        };
        assert_eq!(judge(CallPath::Fail, 3, &json), Outcome::ToolError);
        assert_eq!(
            judge(CallPath::Fail, 4, &json),
            Outcome::Unexpected("an answer to id Some(Number(3)) where 4 was asked".into())
        );
        let sse = Answer {
            sse: true,
            body: "id: a\nretry: 3000\ndata: \n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"id\\\":\\\"inv_1\\\",\\\"status\\\":\\\"open\\\"}\"}]}}\n\n".into(),
        };
        assert_eq!(judge(CallPath::Ok, 9, &sse), Outcome::Ok);
        let empty = Answer {
            sse: true,
            body: ": nothing\n\n".into(),
        };
        assert_eq!(
            judge(CallPath::Ok, 9, &empty),
            Outcome::Unexpected("no answer to id 9 in the response".into())
        );
    }
}
