//! The server flags `fusion serve` and `fusion gateway` share ([`ServerFlags`]),
//! their parsers, the log format, and serving a built server with them.

use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcp_fusion::SchemaProfile;
use mcp_fusion::guard::{
    FailMode, InsufficientScope, OAuthResourceServer, RateLimit, RateLimitScope,
    RedisRateLimitStore,
};
use mcp_fusion::transport::{HttpOptions, RedisSessionStore, StdioOptions};
use mcp_fusion::{FusionServer, ServerBuilder};

use crate::telemetry::{self, LogLayer, OtelFlag, Telemetry, otel_help};

/// The longest duration a flag takes: one day.
const MAX_DURATION: Duration = Duration::from_secs(86_400);
/// The most calls a concurrency flag takes.
const MAX_CALLS: usize = 1_000_000;

/// `--host`: an IP address; a host name is answered with examples.
pub(crate) fn ip_address(s: &str) -> Result<IpAddr, String> {
    s.parse().map_err(|_| {
        format!(
            "\"{s}\" is not an IP address; give one such as 127.0.0.1, ::1 or 0.0.0.0 (host names are not accepted)"
        )
    })
}

pub(crate) fn positive_duration(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (write e.g. 500ms, 2s, 1m)"))?;
    if d.is_zero() {
        return Err(String::from("must be longer than zero"));
    }
    if d > MAX_DURATION {
        return Err(String::from("must be at most one day (24h)"));
    }
    Ok(d)
}

pub(crate) fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_CALLS).contains(&n) => Ok(n),
        _ => Err(format!("must be a whole number from 1 to {MAX_CALLS}")),
    }
}

/// One `--allowed-origin`, checked as serving will check it: the default
/// options (whose allowed hosts are all valid) with this origin added.
pub(crate) fn allowed_origin(s: &str) -> Result<String, String> {
    HttpOptions::default()
        .allow_origin(s)
        .check()
        .map(|()| s.to_owned())
        .map_err(|e| e.to_string())
}

/// One `--allowed-host`, checked as [`allowed_origin`] checks an origin.
pub(crate) fn allowed_host(s: &str) -> Result<String, String> {
    HttpOptions::default()
        .allow_host(s)
        .check()
        .map(|()| s.to_owned())
        .map_err(|e| e.to_string())
}

/// The most bytes `--max-body` takes: 1 GiB.
const MAX_BODY: usize = 1 << 30;

/// A size in bytes: `4194304`, `512K`, `512KiB`, `4M`, `4MiB` (K and M are
/// 1024-based, as memory is counted).
pub(crate) fn byte_size(s: &str) -> Result<usize, String> {
    let text = s.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let scale: usize = match unit.trim() {
        "" | "B" => 1,
        "K" | "KiB" | "k" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        _ => {
            return Err(String::from(
                "write a number of bytes, e.g. 4194304, 512KiB or 4MiB",
            ));
        }
    };
    match digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
    {
        Some(n) if (1..=MAX_BODY).contains(&n) => Ok(n),
        _ => Err(format!("must be from 1 byte to {MAX_BODY} bytes (1GiB)")),
    }
}

pub(crate) fn queue_size(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n <= MAX_CALLS => Ok(n),
        _ => Err(format!("must be a whole number from 0 to {MAX_CALLS}")),
    }
}

/// `--schema-profile`: which form of the tools' schemas `tools/list` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// The full JSON Schema (draft 2020-12) every call is validated against.
    Standard,
    /// The subset strict model APIs accept (no format, no
    /// additionalProperties, enums instead of unions of constants); calls
    /// are still validated against the full schema.
    Portable,
}

impl From<Profile> for SchemaProfile {
    fn from(profile: Profile) -> Self {
        match profile {
            Profile::Standard => SchemaProfile::Standard,
            Profile::Portable => SchemaProfile::Portable,
        }
    }
}

/// `--insufficient-scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum InsufficientScopeFlag {
    /// HTTP 403 insufficient_scope, before the call runs.
    StepUp,
    /// The FORBIDDEN result.
    Envelope,
}

impl From<InsufficientScopeFlag> for InsufficientScope {
    fn from(flag: InsufficientScopeFlag) -> Self {
        match flag {
            InsufficientScopeFlag::StepUp => InsufficientScope::StepUp,
            InsufficientScopeFlag::Envelope => InsufficientScope::Envelope,
        }
    }
}

impl ServerFlags {
    /// Whether callers authenticate (--auth-tokens or --oauth-issuer): the
    /// examples' capabilities then require their scopes.
    pub(crate) fn has_auth(&self) -> bool {
        self.auth_tokens.is_some() || self.oauth_issuer.is_some()
    }
}

// The server settings `fusion serve` and `fusion gateway` share: transport,
// HTTP, sessions, guards, auth, self-healing, logging. (Not a doc comment:
// the subcommands are deferred, and clap would show it as their about.)
#[derive(Debug, Args)]
pub struct ServerFlags {
    /// Serve MCP over stdin/stdout instead of HTTP.
    #[arg(long)]
    pub(crate) stdio: bool,
    /// The IP address to listen on (HTTP only): 127.0.0.1, ::1, or 0.0.0.0
    /// for every interface.
    #[arg(long, default_value = "127.0.0.1", value_parser = ip_address)]
    pub(crate) host: IpAddr,
    /// The port to listen on (HTTP only); the endpoint is http://HOST:PORT/mcp.
    #[arg(long, default_value_t = 8080)]
    pub(crate) port: u16,
    /// Put the internal text of INTERNAL_ERROR envelopes in their details
    /// (development only: internal texts can hold secrets).
    #[arg(long)]
    pub(crate) expose_internal_errors: bool,
    /// Answer a call of an unknown tool with an UNKNOWN_TOOL tool result the
    /// model reads, instead of JSON-RPC error -32602.
    #[arg(long)]
    pub(crate) unknown_tool_as_result: bool,
    /// Calls that may run at once, of each billing action (fusion serve) or
    /// of all mounted tools together (fusion gateway); more wait in the queue
    /// (--max-queue), then are shed with SERVER_BUSY.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_active: Option<usize>,
    /// Calls that may wait for a slot (needs --max-active).
    #[arg(long, value_name = "N", requires = "max_active", default_value = "0", value_parser = queue_size)]
    pub(crate) max_queue: usize,
    /// Rate limit of each billing action (fusion serve) or each mounted tool
    /// (fusion gateway), N/PERIOD with PERIOD s, min or h (e.g. 2/min); over
    /// it, RATE_LIMITED with retry_after.
    #[arg(long, value_name = "N/PERIOD")]
    pub(crate) rate_limit: Option<RateLimit>,
    /// Whose calls a rate limit counts together: each caller's (the auth
    /// subject, else the client's address over HTTP, the one client over
    /// stdio) or everybody's.
    #[arg(
        long,
        value_name = "SCOPE",
        default_value = "caller",
        requires = "rate_limit"
    )]
    pub(crate) rate_limit_scope: RateLimitScope,
    /// Time limit of each call, e.g. 500ms, 2s; past it, TIMEOUT.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub(crate) timeout: Option<Duration>,
    /// Keep HTTP sessions and rate-limit state in Redis, shared by every
    /// server using it (a client goes on in its session on another replica or
    /// after a restart), e.g. redis://127.0.0.1:6379/0.
    #[arg(long, value_name = "URL")]
    pub(crate) redis: Option<String>,
    /// When Redis does not answer within 100 ms: let rate-limited calls
    /// through (open) or refuse them with RATE_LIMITED (closed).
    #[arg(long, value_name = "MODE", default_value = "open", requires = "redis")]
    pub(crate) redis_fail: FailMode,
    /// A browser origin allowed to call the server (repeatable), as
    /// scheme://host[:port] (:* for any port), or null. Requests without
    /// Origin, and same-origin requests to a loopback server, are always
    /// served; any other Origin gets 403 (DNS rebinding protection). A page
    /// of an allowed origin may call the server with fetch() (CORS: its
    /// preflight is answered, every answer names the origin).
    #[arg(long = "allowed-origin", value_name = "ORIGIN", value_parser = allowed_origin)]
    pub(crate) allowed_origins: Vec<String>,
    /// A host name (or host:port) the server answers to besides localhost,
    /// 127.0.0.1 and ::1 (repeatable); needed when clients reach it by
    /// another name or address. Other Host headers get 403.
    #[arg(long = "allowed-host", value_name = "HOST", value_parser = allowed_host)]
    pub(crate) allowed_hosts: Vec<String>,
    /// The most MCP sessions kept at once; past it the least recently used
    /// idle one is closed (the caller's own first), or initialize gets 503
    /// when all are busy.
    #[arg(long, value_name = "N", default_value = "10000", value_parser = at_least_one)]
    pub(crate) max_sessions: usize,
    /// The most MCP sessions one caller (its token's subject, else its
    /// address) may hold, busy ones included; past it its own least
    /// recently used idle one is closed, or initialize gets 503 when all of
    /// them are busy. Default: a quarter of --max-sessions.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub(crate) max_sessions_per_caller: Option<usize>,
    /// The most sessions kept with a running worker (about 60 KiB each);
    /// idle ones past it are parked (about 5 KiB) and resumed on their next
    /// request.
    #[arg(long, value_name = "N", default_value = "64", value_parser = at_least_one)]
    pub(crate) max_live_sessions: usize,
    /// The most subscriptions/listen streams (MCP 2026-07-28) open at once;
    /// past it a listen request gets 503 with Retry-After.
    #[arg(long, value_name = "N", default_value = "1000", value_parser = at_least_one)]
    pub(crate) max_listen_streams: usize,
    /// The most subscriptions/listen streams one caller (its token's
    /// subject, else its address) may hold open; past it a listen request
    /// gets 429 with Retry-After.
    #[arg(long, value_name = "N", default_value = "16", value_parser = at_least_one)]
    pub(crate) max_listen_streams_per_caller: usize,
    /// How long a session may stay unused before it is closed, e.g. 30m, 1h.
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = positive_duration)]
    pub(crate) session_idle: Duration,
    /// The largest request body, in bytes (K, KiB, M, MiB suffixes allowed);
    /// a larger one gets 413.
    #[arg(long, value_name = "BYTES", default_value = "4MiB", value_parser = byte_size)]
    pub(crate) max_body: usize,
    /// The most JSON values (objects, arrays, strings, numbers, booleans,
    /// nulls) one message may hold, checked before it is parsed; a tools/call
    /// over it gets a VALIDATION_ERROR result, another request -32600.
    #[arg(long, value_name = "N", default_value = "100000", value_parser = at_least_one)]
    pub(crate) max_json_values: usize,
    /// The most bytes a tool result may have, for every tool without its own
    /// limit (K, KiB, M, MiB suffixes allowed; at least 1). Counted: the
    /// UTF-8 bytes of its text blocks, the JSON of its other blocks and of
    /// its structuredContent. A larger result is cut at whole list items,
    /// lines or characters — never inside an error envelope, a tag, a JSON
    /// string or a character — and its last block, <egress_notice>, says
    /// how much was cut and how to ask for less.
    #[arg(long, value_name = "BYTES", default_value = "256KiB", value_parser = byte_size)]
    pub(crate) egress_limit_bytes: usize,
    /// How long a client may take to send a request's headers, then its body
    /// (past it: connection closed, or 408), e.g. 30s.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = positive_duration)]
    pub(crate) read_timeout: Duration,
    /// On Ctrl-C or SIGTERM, how long calls in progress may go on; the calls
    /// still running then end with SERVER_BUSY. E.g. 10s.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = positive_duration)]
    pub(crate) shutdown_grace: Duration,
    /// Count an anonymous HTTP caller by the last X-Forwarded-For address (set
    /// by the proxy in front) instead of the TCP peer. Only behind a proxy
    /// that every client must go through.
    #[arg(long)]
    pub(crate) trust_forwarded_for: bool,
    /// Require bearer tokens from this JSON file:
    /// {"tokens": [{"token": "…", "subject": "…", "scopes": ["billing:read", "billing:write"]}]}.
    /// fusion serve: reading actions, the payment_reminder prompt and the
    /// billing://invoices/{id} template need billing:read, the other actions
    /// billing:write; fusion gateway: mounted calls and handoffs need
    /// gateway:call.
    #[arg(long, value_name = "FILE", group = "auth")]
    pub(crate) auth_tokens: Option<PathBuf>,
    /// Be an OAuth 2.1 resource server (HTTP only): take the access tokens
    /// of this authorization server (its issuer URL; metadata discovered at
    /// /.well-known/oauth-authorization-server, else
    /// /.well-known/openid-configuration), JWTs checked against its JWKS,
    /// issued for --resource (their audience). Serves the protected
    /// resource metadata (RFC 9728) at
    /// /.well-known/oauth-protected-resource/mcp and
    /// /.well-known/oauth-protected-resource. The scopes each capability
    /// needs are the ones --auth-tokens describes (billing:read,
    /// billing:write; gateway:call); a token's scope claim (else its scp) grants
    /// them.
    #[arg(long, value_name = "URL", group = "auth", conflicts_with = "stdio")]
    pub(crate) oauth_issuer: Option<String>,
    /// With --oauth-issuer: this server's resource URI, the audience its
    /// tokens must name (RFC 8707): the URL clients use for the MCP
    /// endpoint [default: the one the banner prints, http://HOST:PORT/mcp;
    /// required with --host 0.0.0.0 or :: and with --allowed-host, where
    /// that is not the URL clients use].
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    pub(crate) resource: Option<String>,
    /// With --oauth-issuer: a scope the 401 challenge asks for when the
    /// request calls nothing that needs scopes (initialize, lists, GET);
    /// repeat for several. A 401 to a call of a tool, prompt or resource
    /// that needs scopes names exactly those, a 403 insufficient_scope the
    /// ones the token lacks (MCP authorization, "Scope Selection
    /// Strategy") [default: the scopes of the read-only actions, prompts
    /// and resources, else every scope; the metadata's scopes_supported
    /// lists every scope].
    #[arg(long = "oauth-scope", value_name = "SCOPE", requires = "oauth_issuer")]
    pub(crate) oauth_scopes: Vec<String>,
    /// With --oauth-issuer: also take opaque tokens, checked at the
    /// authorization server's introspection endpoint (RFC 7662) as this
    /// client (its secret in --introspection-secret).
    #[arg(long, value_name = "CLIENT_ID", requires_all = ["oauth_issuer", "introspection_secret"])]
    pub(crate) introspection_client: Option<String>,
    /// The client secret of --introspection-client.
    #[arg(
        long,
        value_name = "SECRET",
        env = "FUSION_INTROSPECTION_SECRET",
        hide_env_values = true,
        requires = "introspection_client"
    )]
    pub(crate) introspection_secret: Option<String>,
    /// How a token that lacks a scope the called capability needs is
    /// answered over HTTP: step-up (HTTP 403 with WWW-Authenticate: Bearer
    /// error="insufficient_scope" and the scopes, so that an OAuth client
    /// asks for them) or envelope (the FORBIDDEN result naming them)
    /// [default: step-up with --oauth-issuer, envelope with --auth-tokens].
    #[arg(long, value_enum, value_name = "POLICY", requires = "auth")]
    pub(crate) insufficient_scope: Option<InsufficientScopeFlag>,
    /// With --auth-tokens or --oauth-issuer: serve HTTP requests without a
    /// token (they see and may use only what needs no credentials) instead
    /// of answering 401.
    #[arg(long, requires = "auth")]
    pub(crate) allow_anonymous: bool,
    /// Self-healing: compare the server with this contract lockfile (written
    /// by `fusion lock`) at start-up; a validation error of an action that
    /// changed since then carries the changes in <contract_awareness>.
    #[arg(long, value_name = "FILE")]
    pub(crate) lock: Option<PathBuf>,
    /// Which form of the tools' input and output schemas tools/list shows:
    /// standard (the full JSON Schema) or portable (the subset strict model
    /// APIs accept). Calls are validated against the full schema either
    /// way, and lockfiles record it whatever the profile.
    #[arg(long, value_name = "PROFILE", default_value = "standard")]
    pub(crate) schema_profile: Profile,
    /// Items per page of tools/list, prompts/list, resources/list and
    /// resources/templates/list; every page but the last carries a
    /// nextCursor for the next. A list of at most N items is one page; 0
    /// sends every list whole.
    #[arg(long, value_name = "N", default_value_t = mcp_fusion::server::DEFAULT_PAGE_SIZE, value_parser = queue_size)]
    pub(crate) page_size: usize,
    #[command(flatten)]
    pub(crate) signing: crate::signing_flags::SigningFlags,
    /// Serve Prometheus metrics at http://HOST:PORT/metrics (HTTP only): calls
    /// by tool, action, outcome and error code, their durations, guards and
    /// sessions. Off, /metrics is 404.
    #[arg(long, conflicts_with = "stdio")]
    pub(crate) metrics: bool,
    /// How the log on stderr is written: text, one readable line per event
    /// (with the banner as plain lines); pretty, each event over several
    /// indented lines with its fields and spans, for reading during
    /// development; or json, one JSON object per line (the banner too), for
    /// log collectors.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub(crate) log_format: LogFormat,
    #[arg(long, value_name = "MODE", env = "FUSION_OTEL", help = otel_help!())]
    pub(crate) otel: Option<OtelFlag>,
}

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One readable line per event: time, level, target, spans and fields
    /// (tracing-subscriber's full format); the banner as plain lines.
    Text,
    /// Each event over several indented lines, fields and spans named
    /// (tracing-subscriber's pretty format); the banner as plain lines.
    Pretty,
    /// One JSON object per line: `timestamp`, `level`, `fields` (with
    /// `message`), `target`, and the current `span` and `spans`.
    Json,
}

impl LogFormat {
    /// Installs the log of `fusion serve` (or `fusion gateway`) on stderr in
    /// this format (RUST_LOG sets the level; default info, and error for
    /// rmcp, which logs every JSON-RPC error answer — normal traffic — as a
    /// warning), and OpenTelemetry as `otel` says.
    ///
    /// # Errors
    ///
    /// Why OpenTelemetry could not be set up.
    pub(crate) fn install(self, otel: Option<OtelFlag>) -> Result<Telemetry, String> {
        let filter = tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=error"));
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
        let layer: LogLayer = match self {
            LogFormat::Text => Box::new(layer.with_ansi(ansi)),
            LogFormat::Pretty => Box::new(layer.pretty().with_ansi(ansi)),
            LogFormat::Json => Box::new(layer.json().with_ansi(false)),
        };
        telemetry::install(Some((layer, filter)), otel)
    }

    /// Prints a line of the banner: as is, or as an info event.
    pub(crate) fn say(self, line: &str) {
        match self {
            // A closed stderr is no reason to stop the server.
            LogFormat::Text | LogFormat::Pretty => {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
            LogFormat::Json => {
                for line in line.lines() {
                    tracing::info!(target: "fusion::serve", "{}", line.trim());
                }
            }
        }
    }

    /// Prints why the server stops: as is, or as an error event.
    pub(crate) fn fail(self, message: &str) {
        match self {
            LogFormat::Text | LogFormat::Pretty => {
                let _ = writeln!(std::io::stderr(), "{message}");
            }
            LogFormat::Json => tracing::error!(target: "fusion::serve", "{message}"),
        }
    }

    /// Runs `work` (the server of `command`, `fusion serve` or `fusion
    /// gateway`) on a new multi-threaded tokio runtime until it ends: exit
    /// status 0 when it ends with `Ok`, else 1 after printing
    /// `<command>: <message>` (also when the runtime cannot start).
    pub(crate) fn run(
        self,
        command: &str,
        work: impl std::future::Future<Output = Result<(), String>>,
    ) -> std::process::ExitCode {
        let outcome = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the async runtime: {e}"))
            .and_then(|runtime| runtime.block_on(work));
        match outcome {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(message) => {
                self.fail(&format!("{command}: {message}"));
                std::process::ExitCode::FAILURE
            }
        }
    }
}

/// A line of the banner on stderr, in the `--log-format`.
macro_rules! say {
    ($format:expr, $($arg:tt)*) => {
        $format.say(&format!($($arg)*))
    };
}

pub(crate) use say;

/// Applies the settings every example shares (HTTP, sessions, self-healing,
/// error exposure), builds the server, prints the rest of the banner and
/// serves until shutdown.
pub(crate) async fn serve_built(flags: &ServerFlags, builder: ServerBuilder) -> Result<(), String> {
    let format = flags.log_format;
    let mut builder = with_settings(flags, builder)?;
    let http = http_options(flags)?;
    if let Some(path) = &flags.lock {
        let lockfile = mcp_fusion::contract::Lockfile::read(path).map_err(|e| e.to_string())?;
        builder = builder.self_healing(lockfile);
    }
    if let Some(policy) = flags.insufficient_scope {
        builder = builder.insufficient_scope(policy.into());
    }
    if flags.oauth_issuer.is_some() && flags.resource.is_none() {
        resource_needed(flags)?;
    }
    // Over HTTP the port is bound first: the resource URI an OAuth resource
    // server is for defaults to the endpoint's URL, port included.
    let listener = if flags.stdio {
        None
    } else {
        Some(bind(flags).await?)
    };
    if let (Some(issuer), Some(listener)) = (&flags.oauth_issuer, &listener) {
        builder = builder.auth(oauth_verifier(flags, issuer, listener).await?);
    }
    let server = builder.build().map_err(|e| e.to_string())?;
    if let (Some(path), Some(healing)) = (&flags.lock, server.self_healing()) {
        let diff = healing.diff();
        let max = diff
            .max_severity()
            .map_or_else(String::new, |s| format!(", the most severe {s}"));
        say!(
            format,
            "  self-healing: {} ({} contract changes since it{max})",
            path.display(),
            diff.deltas.len()
        );
    }
    if flags.stdio {
        if let Some(line) = redis_warning(flags).await {
            say!(format, "{line}");
        }
        say!(format, "  transport: stdio");
        let stdio = StdioOptions::default()
            .shutdown_grace(flags.shutdown_grace)
            .max_json_values(flags.max_json_values);
        return server.serve_stdio(stdio).await.map_err(|e| e.to_string());
    }
    let Some(listener) = listener else {
        return Err(String::from("no listener"));
    };
    serve_over_http(flags, server, listener, http).await
}

/// `builder` with the settings of `flags` every example shares; a
/// signing key shorter than the least is refused, naming its flag (the key
/// itself is never printed).
fn with_settings(flags: &ServerFlags, builder: ServerBuilder) -> Result<ServerBuilder, String> {
    let mut builder = builder
        .allow_anonymous(flags.allow_anonymous)
        .expose_internal_errors(flags.expose_internal_errors)
        .unknown_tool_as_result(flags.unknown_tool_as_result)
        .schema_profile(flags.schema_profile.into())
        .page_size(flags.page_size)
        .egress_limit(flags.egress_limit_bytes);
    if let Some(keys) = flags.signing.keys()? {
        builder = builder.signing_keys(keys);
    }
    Ok(builder)
}

/// The HTTP options of `flags`, checked.
fn http_options(flags: &ServerFlags) -> Result<HttpOptions, String> {
    let mut http = HttpOptions::default().max_sessions(flags.max_sessions);
    if let Some(max) = flags.max_sessions_per_caller {
        http = http.max_sessions_per_caller(max);
    }
    let mut http = http
        .max_live_sessions(flags.max_live_sessions)
        .max_listen_streams(flags.max_listen_streams)
        .max_listen_streams_per_caller(flags.max_listen_streams_per_caller)
        .session_idle(flags.session_idle)
        .max_body_bytes(flags.max_body)
        .max_json_values(flags.max_json_values)
        .read_timeout(flags.read_timeout)
        .shutdown_grace(flags.shutdown_grace)
        .trust_forwarded_for(flags.trust_forwarded_for)
        .metrics(flags.metrics);
    for origin in &flags.allowed_origins {
        http = http.allow_origin(origin);
    }
    for host in &flags.allowed_hosts {
        http = http.allow_host(host);
    }
    if let Some(url) = &flags.redis {
        http = http.session_store(RedisSessionStore::new(url).map_err(|e| e.to_string())?);
    }
    http.check().map_err(|e| e.to_string())?;
    Ok(http)
}

/// The OAuth resource server of `--oauth-issuer` `issuer`, for the
/// `--resource` given, else the URL of the endpoint bound on `listener`;
/// told in the banner.
async fn oauth_verifier(
    flags: &ServerFlags,
    issuer: &str,
    listener: &tokio::net::TcpListener,
) -> Result<OAuthResourceServer, String> {
    let format = flags.log_format;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let resource = flags
        .resource
        .clone()
        .unwrap_or_else(|| format!("http://{bound}/mcp"));
    let mut verifier = OAuthResourceServer::discover(issuer, &resource)
        .await
        .map_err(|e| e.to_string())?;
    if let (Some(id), Some(secret)) = (&flags.introspection_client, &flags.introspection_secret) {
        verifier = verifier
            .introspection_client(id, secret)
            .map_err(|e| e.to_string())?;
    }
    if !flags.oauth_scopes.is_empty() {
        verifier = verifier.challenge_scopes(flags.oauth_scopes.iter().cloned());
    }
    let kinds = if flags.introspection_client.is_some() {
        "JWT access tokens and introspected opaque tokens"
    } else {
        "JWT access tokens"
    };
    say!(
        format,
        "  OAuth: {kinds} of {} for the resource {}",
        verifier.issuer(),
        verifier.resource()
    );
    Ok(verifier)
}

/// The rest of the banner of a server over HTTP, then `server` served on
/// `listener` until shutdown.
async fn serve_over_http(
    flags: &ServerFlags,
    server: FusionServer,
    listener: tokio::net::TcpListener,
    http: HttpOptions,
) -> Result<(), String> {
    let format = flags.log_format;
    say!(
        format,
        "  callers: a per-caller rate limit counts each client by its auth subject, else {}",
        if flags.trust_forwarded_for {
            "the last X-Forwarded-For address (set by your proxy)"
        } else {
            "its IP address"
        }
    );
    say!(
        format,
        "  sessions: at most {} ({} per caller), closed after {} unused{}",
        flags.max_sessions,
        http.sessions_per_caller(),
        humantime::format_duration(flags.session_idle),
        flags
            .redis
            .as_deref()
            .map_or(String::new(), |_| String::from(", shared in Redis"))
    );
    if let Some(line) = redis_warning(flags).await {
        say!(format, "{line}");
    }
    if !flags.host.is_loopback() && flags.allowed_hosts.is_empty() {
        say!(
            format,
            "  warning: listening on {} but answering only to the Host names localhost, 127.0.0.1 and ::1;\n           \
             clients that reach this server by another name or address get 403 until you add it with --allowed-host NAME",
            flags.host
        );
    }
    let addr = SocketAddr::new(flags.host, flags.port);
    let bound = listener.local_addr().unwrap_or(addr);
    if flags.metrics {
        say!(format, "  metrics: http://{bound}/metrics");
    }
    say!(format, "  MCP endpoint: http://{bound}/mcp");
    say!(format, "  Ctrl-C to stop.");
    server
        .serve_http_on(listener, http, mcp_fusion::transport::shutdown_signal())
        .await
        .map_err(|e| e.to_string())
}

/// Whether `--oauth-issuer` may go without `--resource`: its default, the
/// banner's URL, must be one clients use. Not on a wildcard address
/// (`0.0.0.0`, `::`), which no client connects to, nor with
/// `--allowed-host`, the name clients reach the server by.
///
/// # Errors
/// The message asking for `--resource`.
fn resource_needed(flags: &ServerFlags) -> Result<(), String> {
    let why = if flags.host.is_unspecified() {
        format!(
            "the server listens on {}, an address no client can put in a URL",
            flags.host
        )
    } else if let Some(host) = flags.allowed_hosts.first() {
        format!("clients reach the server as {host} (--allowed-host)")
    } else {
        return Ok(());
    };
    Err(format!(
        "--oauth-issuer needs --resource URL here: {why}, so the default resource URI http://HOST:PORT/mcp is not the one clients use (tokens name it as their audience, and clients refuse protected resource metadata that names another). Give the MCP endpoint's URL as clients reach it, e.g. --resource https://mcp.example.com/mcp"
    ))
}

/// Binds `--host` and `--port`.
async fn bind(flags: &ServerFlags) -> Result<tokio::net::TcpListener, String> {
    let addr = SocketAddr::new(flags.host, flags.port);
    tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
            " (another server listens there: stop it, or choose another port with --port N)"
        } else {
            ""
        };
        format!("cannot listen on {addr}: {e}{hint}")
    })
}

/// The banner's warning when `--redis` is given and Redis does not answer
/// within a second: what happens meanwhile, by `--redis-fail`.
async fn redis_warning(flags: &ServerFlags) -> Option<String> {
    let url = flags.redis.as_deref()?;
    let store = RedisRateLimitStore::new(url).ok()?;
    let reason = store.ping(Duration::from_secs(1)).await.err()?;
    let meanwhile = match (flags.rate_limit.is_some(), flags.redis_fail) {
        (false, _) => "",
        (true, FailMode::Open) => "rate-limited calls are let through (--redis-fail open), ",
        (true, FailMode::Closed) => "rate-limited calls get RATE_LIMITED (--redis-fail closed), ",
    };
    let sessions = if flags.stdio {
        ""
    } else {
        "sessions stay on this server, "
    };
    Some(format!(
        "  warning: Redis at {} does not answer ({reason}); {meanwhile}{sessions}until it does",
        store.url()
    ))
}

/// A Redis URL with its credentials masked, for the banner.
fn masked(url: &str) -> String {
    RedisRateLimitStore::new(url).map_or_else(|_| url.to_owned(), |store| store.url().to_owned())
}

/// One banner line per guard the flags set; `slots` and `budget` say what
/// one concurrency limit and one rate limit cover (`per action`; `for all
/// mounted tools together`, `per mounted tool`).
pub(crate) fn guard_lines(flags: &ServerFlags, slots: &str, budget: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(active) = flags.max_active {
        lines.push(format!(
            "concurrency: {active} running, {} waiting {slots}",
            flags.max_queue
        ));
    }
    if let Some(limit) = flags.rate_limit {
        let scope = match flags.rate_limit_scope {
            RateLimitScope::Caller => "per caller",
            RateLimitScope::Global => "for everybody",
        };
        let store = flags
            .redis
            .as_deref()
            .map_or(String::from("in memory"), |url| {
                format!("in Redis at {}", masked(url))
            });
        lines.push(format!(
            "rate limit: {} {budget}, {scope}, {store}",
            limit.scope(flags.rate_limit_scope)
        ));
    }
    if let Some(limit) = flags.timeout {
        lines.push(format!(
            "time limit: {} per call",
            humantime::format_duration(limit)
        ));
    }
    if let Some(path) = &flags.auth_tokens {
        let who = match (flags.stdio, flags.allow_anonymous) {
            (true, _) => {
                "stdio carries none, so a capability that needs credentials answers AUTH_REQUIRED there"
            }
            (false, false) => "every HTTP request needs a valid one (else 401)",
            (false, true) => {
                "a request without one is served, and sees only what needs no credentials"
            }
        };
        lines.push(format!("bearer tokens: {} ({who})", path.display()));
    }
    lines
}
