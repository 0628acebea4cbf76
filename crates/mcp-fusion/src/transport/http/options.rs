//! [`HttpOptions`]: every setting of the Streamable HTTP edge in one place,
//! given to `FusionServer::serve_http` (and `serve_http_on`, `http_router`),
//! apart from what the server is ([`ServerBuilder`](crate::ServerBuilder)).

use std::time::Duration;

use super::origin::{DoorPolicy, PolicyError};
#[cfg(feature = "redis")]
use super::session_store::RedisSessionStore;
use crate::transport::options::{DEFAULT_MAX_JSON_VALUES, DEFAULT_SHUTDOWN_GRACE};

/// The settings of the Streamable HTTP transport, given to
/// `FusionServer::serve_http` (and `serve_http_on`, `http_router`).
/// `HttpOptions::default()` is safe for
/// a server on the loopback interface; a server reachable from other hosts
/// needs at least [`allowed_hosts`](Self::allowed_hosts).
///
/// The MCP transport specification (Streamable HTTP, "Security Warning")
/// asks servers to validate `Origin` on every request (DNS rebinding) and to
/// bind to localhost when they run locally; the `Host` check is rmcp's
/// defence against the same attack.
///
/// The per-caller bounds count a caller by its verified principal (its
/// token's subject), else by its address, never by the session it names:
///
/// ```
/// use mcp_fusion::transport::HttpOptions;
///
/// let options = HttpOptions::default().max_sessions(1_000);
/// // A quarter of the sessions per caller, unless set.
/// assert_eq!(options.sessions_per_caller(), 250);
/// let options = options
///     .max_sessions_per_caller(20)
///     .max_listen_streams_per_caller(4);
/// assert_eq!(options.sessions_per_caller(), 20);
/// assert_eq!(options.max_listen_streams_per_caller, 4);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Browser origins allowed to call the server, as `scheme://host[:port]`
    /// (`https://app.example.com`, `http://localhost:5173`; `:*` for any
    /// port), or `null` for `Origin: null`. A request without `Origin` is
    /// always served, and so is a same-origin request to a loopback server
    /// (its `Origin` names the loopback host and port the request was sent
    /// to). Any other present `Origin` gets HTTP 403 before any JSON-RPC is
    /// read, with no CORS header. A page of an allowed (or same) origin may
    /// call the server from a browser (the Fetch standard's CORS protocol):
    /// its preflight `OPTIONS` is answered `200` before any token is
    /// checked, and every answer, the bearer-token refusals (`401`) too, carries
    /// `Access-Control-Allow-Origin` with that origin (never `*`),
    /// `Vary: Origin`, and exposes `Mcp-Session-Id`, `WWW-Authenticate` and
    /// `Mcp-Protocol-Version`. Default: empty.
    pub allowed_origins: Vec<String>,
    /// Host names (or `host:port`) the server answers to, checked against the
    /// `Host` header and an absolute request target; others get HTTP 403
    /// naming the setting. Default: `localhost`, `127.0.0.1`, `::1`. A
    /// request with more than one `Host` header gets HTTP 400.
    pub allowed_hosts: Vec<String>,
    /// The most MCP sessions (2025-11-25 handshake) kept at once. Past it, the
    /// least recently used idle session is closed for a new `initialize`
    /// (one of the same caller first: its bearer token's subject);
    /// when every session has a request or a stream open, `initialize` gets
    /// HTTP 503 with `Retry-After`. Default: 10 000.
    pub max_sessions: usize,
    /// The most MCP sessions one caller may hold at once, busy ones (a
    /// request or a `GET` stream open) included: a caller is its verified
    /// principal (its token's subject, wherever it connects from), else its
    /// address (an IPv6 one's /64), as for rate limits and listen streams.
    /// Past it, the caller's next `initialize` closes its own least recently
    /// used idle session, or, when all of them are busy, gets HTTP 503 with
    /// `Retry-After` saying the caller holds its most. `None`: a quarter of
    /// [`max_sessions`](Self::max_sessions), at least 1 (2 500 by default).
    /// A caller without credentials never closes a signed-in caller's
    /// session to make room in a full table.
    pub max_sessions_per_caller: Option<usize>,
    /// The most idle sessions kept with a running session worker (about 60
    /// KiB each). Past it, the least recently used idle worker is parked: its
    /// handshake is kept (about 5 KiB in all) and replayed when the session's next
    /// request comes, which the client does not notice. A session with a
    /// request or a stream open is never parked: [`max_sessions`](Self::max_sessions)
    /// bounds those. Default: 64.
    pub max_live_sessions: usize,
    /// The most `subscriptions/listen` streams (MCP 2026-07-28) open at once
    /// over the endpoint (each holds a request and its response open). Past
    /// it a listen request gets HTTP 503 with `Retry-After`
    /// ([`LISTEN_FULL_RETRY_SECS`](crate::transport::http::LISTEN_FULL_RETRY_SECS))
    /// and a JSON-RPC error `-32000` saying so. Default: 1 000.
    pub max_listen_streams: usize,
    /// The most `subscriptions/listen` streams one caller may hold open at
    /// once: a caller is its verified principal (its token's subject,
    /// wherever it connects from), else its address (an IPv6 one's /64),
    /// as for rate limits; never the session a request names. Past it a listen request gets HTTP 429 with
    /// `Retry-After` and a JSON-RPC error `-32000` saying so. Default: 16.
    pub max_listen_streams_per_caller: usize,
    /// How long a session may go unused (no request, no open stream) before
    /// it is closed; a request on it then gets HTTP 404, and MCP clients
    /// start a new session. Default: 30 minutes.
    pub session_idle: Duration,
    /// The largest request body, in bytes; a larger `Content-Length` is
    /// refused at once with HTTP 413, and so is a body that grows past it.
    /// An `initialize` request, whose handshake a session keeps for its whole
    /// life, may be at most 16 KiB (`MAX_INITIALIZE_BYTES`) whatever this says.
    /// Default: 4 MiB.
    pub max_body_bytes: usize,
    /// The most JSON values one request body may hold (every object, array,
    /// string, number, boolean and `null` counts one; keys do not), checked
    /// on the text before it is parsed, so that a body within
    /// [`max_body_bytes`](Self::max_body_bytes) cannot cost memory out of
    /// proportion to its bytes (`[{},{},…]` is 1.3 million values in
    /// 3.9 MB). A `tools/call` over it gets HTTP 200 with a tool result
    /// holding a `<validation_error>` that says so (wire contract §4);
    /// another message gets HTTP 400 with `-32600` Invalid Request
    /// (JSON-RPC 2.0 §5). Default: 100 000
    /// ([`DEFAULT_MAX_JSON_VALUES`](crate::transport::DEFAULT_MAX_JSON_VALUES)).
    pub max_json_values: usize,
    /// How long a client may take to send a request's headers (counted from
    /// the moment its connection is accepted or its previous request ended),
    /// and then its body; past it the connection is closed (headers) or the
    /// request gets HTTP 408 (body), so that silent, slow or stalled clients
    /// hold nothing.
    /// Default: 30 seconds.
    pub read_timeout: Duration,
    /// On Ctrl-C or SIGTERM, how long calls in progress may go on before the
    /// server closes anyway; the calls still running then end with a
    /// `SERVER_BUSY` result saying the server shut down. Default: 10 seconds.
    pub shutdown_grace: Duration,
    /// Identify an anonymous HTTP caller (for per-caller rate limits) by the
    /// last address of `X-Forwarded-For`, which the proxy in front of the
    /// server appends, instead of the TCP peer (the proxy). Only for a server
    /// that is reachable through that proxy alone: otherwise any client can
    /// name itself. Default: `false`.
    pub trust_forwarded_for: bool,
    /// Where sessions are stored besides this process: with a Redis store, a
    /// client whose next request reaches a restarted server or another
    /// replica goes on in its session without a new handshake. Default:
    /// none (sessions live and die with the process). Needs the `http` and
    /// `redis` features.
    #[cfg(feature = "redis")]
    pub session_store: Option<RedisSessionStore>,
    /// Serve a Prometheus text exposition at `GET /metrics`, beside `/mcp`:
    /// calls by tool, action, outcome and code, call durations in seconds,
    /// concurrency guards, sheds, rate limits, timeouts and sessions (the
    /// series are listed in docs/guide/deployment.md). It passes the `Host` check
    /// ([`allowed_hosts`](Self::allowed_hosts)) but not the `Origin` check
    /// nor anything else of the MCP endpoint. The first server of a process
    /// that turns it on installs the Prometheus exporter as the process's
    /// global `metrics` recorder; every server of the process then shares
    /// it. Off, `/metrics` is 404. Default: `false`. Needs the `metrics`
    /// feature.
    #[cfg(feature = "metrics")]
    pub metrics: bool,
}

/// The largest `initialize` request body, in bytes (16 KiB; real clients send
/// well under 2 KiB): a session keeps its handshake as long as it lives, so a
/// huge one would cost its size times every session.
pub const MAX_INITIALIZE_BYTES: usize = 16 * 1024;

/// [`HttpOptions::max_body_bytes`]'s default: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            allowed_origins: Vec::new(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            max_sessions: 10_000,
            max_sessions_per_caller: None,
            max_live_sessions: 64,
            max_listen_streams: 1_000,
            max_listen_streams_per_caller: 16,
            session_idle: Duration::from_secs(30 * 60),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_json_values: DEFAULT_MAX_JSON_VALUES,
            read_timeout: Duration::from_secs(30),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            trust_forwarded_for: false,
            #[cfg(feature = "redis")]
            session_store: None,
            #[cfg(feature = "metrics")]
            metrics: false,
        }
    }
}

impl HttpOptions {
    /// Checks that every allowed host and origin can be read, as serving
    /// will (so that a program can refuse bad options before it starts).
    ///
    /// # Errors
    /// The [`PolicyError`] naming the first entry that
    /// cannot be read.
    pub fn check(&self) -> Result<(), PolicyError> {
        DoorPolicy::new(&self.allowed_hosts, &self.allowed_origins).map(|_| ())
    }

    /// Adds an allowed browser origin (see [`allowed_origins`](Self::allowed_origins)).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Adds an allowed host name to the loopback defaults (see
    /// [`allowed_hosts`](Self::allowed_hosts)).
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Sets [`max_sessions`](Self::max_sessions) (at least 1).
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// Sets [`max_sessions_per_caller`](Self::max_sessions_per_caller) (at
    /// least 1).
    pub fn max_sessions_per_caller(mut self, max: usize) -> Self {
        self.max_sessions_per_caller = Some(max.max(1));
        self
    }

    /// The bound [`max_sessions_per_caller`](Self::max_sessions_per_caller)
    /// sets: its value, else a quarter of
    /// [`max_sessions`](Self::max_sessions); at least 1, at most
    /// `max_sessions`.
    pub fn sessions_per_caller(&self) -> usize {
        let max = self.max_sessions.max(1);
        self.max_sessions_per_caller
            .unwrap_or(max / 4)
            .clamp(1, max)
    }

    /// Sets [`max_live_sessions`](Self::max_live_sessions) (at least 1).
    pub fn max_live_sessions(mut self, max: usize) -> Self {
        self.max_live_sessions = max.max(1);
        self
    }

    /// Sets [`max_listen_streams`](Self::max_listen_streams) (at least 1).
    pub fn max_listen_streams(mut self, max: usize) -> Self {
        self.max_listen_streams = max.max(1);
        self
    }

    /// Sets [`max_listen_streams_per_caller`](Self::max_listen_streams_per_caller)
    /// (at least 1).
    pub fn max_listen_streams_per_caller(mut self, max: usize) -> Self {
        self.max_listen_streams_per_caller = max.max(1);
        self
    }

    /// Sets [`session_idle`](Self::session_idle).
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets [`max_json_values`](Self::max_json_values) (at least 1).
    pub fn max_json_values(mut self, max: usize) -> Self {
        self.max_json_values = max.max(1);
        self
    }

    /// Sets [`read_timeout`](Self::read_timeout).
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }

    /// Sets [`shutdown_grace`](Self::shutdown_grace).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Sets [`trust_forwarded_for`](Self::trust_forwarded_for).
    pub fn trust_forwarded_for(mut self, trust: bool) -> Self {
        self.trust_forwarded_for = trust;
        self
    }

    /// Sets [`session_store`](Self::session_store).
    #[cfg(feature = "redis")]
    pub fn session_store(mut self, store: RedisSessionStore) -> Self {
        self.session_store = Some(store);
        self
    }

    /// Sets [`metrics`](Self::metrics): `GET /metrics` on or off.
    #[cfg(feature = "metrics")]
    pub fn metrics(mut self, on: bool) -> Self {
        self.metrics = on;
        self
    }
}
