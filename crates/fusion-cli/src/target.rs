//! The server a `fusion call` / `fusion tools` talks to, and what the two
//! commands share: connection options, the async runtime, colour, exit codes.

use std::future::Future;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcp_fusion::client::{
    AuthorizationError, ClientAssertionAlgorithm, ClientAssertionKey, ClientOptions, ConnectCause,
    FusionClient, FusionClientError, OAuthGrant, OAuthOptions, ProtocolRevision, ServerStderr,
    Target,
};

use crate::output::{Paint, err_line};
use crate::telemetry::{self, LogLayer, OtelFlag, Telemetry, otel_help};

/// Exit code: the call succeeded (warnings, if any, went to stderr).
pub const EXIT_OK: u8 = 0;
/// Exit code: the tool ran and reported a failure (`isError: true`).
pub const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code: bad usage, no connection, or a protocol / JSON-RPC error.
pub const EXIT_USAGE_OR_CONNECTION: u8 = 2;

/// Where `fusion serve` listens when started without `--host` and `--port`.
const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:8080/mcp";

/// The `--help` text after the options of a command that reaches a server
/// (`call`, `tools`): how TARGET is given, when colour is used, then
/// `$exit_codes`.
macro_rules! after_help {
    ($exit_codes:literal) => {
        concat!(
            "\
TARGET is either an http:// or https:// URL of a Streamable HTTP endpoint
(e.g. http://127.0.0.1:8080/mcp), or --cmd 'COMMAND ARGS': a command started
by fusion and spoken to over its stdin/stdout. The command line is split like a
POSIX shell would split it (quotes, backslashes), but no shell is run.

Colour is used only when the output is a terminal and NO_COLOR is not set
(--color overrides).

",
            $exit_codes
        )
    };
}
pub(crate) use after_help;

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When the stream is a terminal and NO_COLOR is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The OAuth grant `--oauth-grant` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GrantChoice {
    /// Authorization code with PKCE: open the printed URL in a browser.
    AuthorizationCode,
    /// Client credentials: --oauth-client-id with --oauth-client-secret or
    /// --oauth-private-key.
    ClientCredentials,
}

/// The PEM text of `--oauth-private-key FILE`, read when the flags are
/// parsed. `Debug` shows the file's path only.
#[derive(Clone)]
pub struct PrivateKeyFile {
    /// The path given.
    pub path: std::path::PathBuf,
    /// The file's text.
    pem: String,
}

impl std::fmt::Debug for PrivateKeyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateKeyFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Reads `--oauth-private-key FILE`: a PEM private key (a `-----BEGIN …
/// PRIVATE KEY-----` block); the usage error names the file and says why.
fn private_key_file(path: &str) -> Result<PrivateKeyFile, String> {
    let pem = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let begins = pem
        .lines()
        .any(|line| line.starts_with("-----BEGIN ") && line.ends_with("PRIVATE KEY-----"));
    if !begins {
        return Err(format!(
            "`{path}` holds no PEM private key (a -----BEGIN PRIVATE KEY----- block, or BEGIN RSA / EC PRIVATE KEY)"
        ));
    }
    Ok(PrivateKeyFile {
        path: path.into(),
        pem,
    })
}

// Connection options shared by every command that reaches a server
// (`fusion call`, `tools`, `resources`, `templates`, `read`, `prompts`,
// `prompt`, `complete`, `lock`, `diff`). (Not a doc comment: the
// subcommands are deferred, and clap would show it as their about.)
#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// Start this command and speak MCP over its stdio, e.g.
    /// --cmd 'npx @modelcontextprotocol/server-everything stdio'.
    #[arg(long, value_name = "'COMMAND ARGS'")]
    pub cmd: Option<String>,
    /// Seconds to wait for the connection, and for each answer.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, value_parser = positive_seconds)]
    pub timeout: f64,
    /// The argument key grouped tools read their action from (`tool.action`
    /// names are sent as tool `tool` with `{KEY: "action", ...}`).
    #[arg(long, value_name = "KEY", default_value = "action")]
    pub discriminator: String,
    /// Show the server's own stderr (logs) as it runs. By default it is kept
    /// and shown only if the server fails.
    #[arg(long)]
    pub server_stderr: bool,
    /// When to use colour.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[arg(long, value_name = "MODE", env = "FUSION_OTEL", help = otel_help!())]
    pub otel: Option<OtelFlag>,
    /// The MCP revision to speak: 2025-11-25 (the `initialize` handshake,
    /// which every server answers), 2026-07-28 (`server/discover`, then
    /// self-contained requests), or auto (`server/discover` first, the
    /// 2025-11-25 handshake when the server does not know it). Either way
    /// fusion declares neither elicitation, sampling and roots nor the tasks
    /// extension: a tool that asks the client is answered
    /// CLIENT_CAPABILITY_MISSING, a task-optional tool runs directly.
    #[arg(long, value_name = "REVISION", default_value_t = ProtocolRevision::V2025_11_25)]
    pub protocol_version: ProtocolRevision,
    /// Send this bearer token (HTTP `Authorization: Bearer TOKEN`); also read
    /// from the FUSION_BEARER environment variable. Ignored with --cmd.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "FUSION_BEARER",
        hide_env_values = true,
        conflicts_with_all = ["oauth_client_id", "oauth_client_secret", "oauth_private_key", "oauth_grant"]
    )]
    pub bearer: Option<String>,
    /// OAuth client id registered with the server's authorization server;
    /// also read from FUSION_OAUTH_CLIENT_ID. Without it, a server that
    /// answers 401 gets the authorization code grant with a client
    /// registered on the spot (dynamic client registration).
    #[arg(long, value_name = "ID", env = "FUSION_OAUTH_CLIENT_ID")]
    pub oauth_client_id: Option<String>,
    /// The OAuth client's secret; also read from FUSION_OAUTH_CLIENT_SECRET.
    /// With --oauth-client-id, the token comes from the client credentials
    /// grant (no browser) unless --oauth-grant says otherwise.
    #[arg(
        long,
        value_name = "SECRET",
        env = "FUSION_OAUTH_CLIENT_SECRET",
        hide_env_values = true,
        requires = "oauth_client_id",
        group = "oauth_credential"
    )]
    pub oauth_client_secret: Option<String>,
    /// A PEM file with the OAuth client's private key: with --oauth-client-id,
    /// the client credentials grant authenticates the client with a JWT signed
    /// by it (private_key_jwt, RFC 7523) instead of a secret. The
    /// authorization server holds the public key.
    #[arg(
        long,
        value_name = "FILE",
        value_parser = private_key_file,
        requires = "oauth_client_id",
        group = "oauth_credential"
    )]
    pub oauth_private_key: Option<PrivateKeyFile>,
    /// The JWS algorithm of --oauth-private-key's signatures: ES256 (P-256
    /// keys), ES384 (P-384 keys), RS256, RS384 or RS512 (RSA keys). Default:
    /// the one the key is for (RS256 for RSA).
    #[arg(
        long,
        value_name = "ALG",
        value_parser = |s: &str| s.parse::<ClientAssertionAlgorithm>().map_err(|e| e.to_string())
    )]
    pub oauth_signing_alg: Option<ClientAssertionAlgorithm>,
    /// The OAuth grant: client-credentials (the default with a secret or a
    /// private key) or authorization-code (the default without).
    #[arg(
        long,
        value_name = "GRANT",
        value_enum,
        requires_if("client-credentials", "oauth_credential")
    )]
    pub oauth_grant: Option<GrantChoice>,
    /// The https:// URL of this client's Client ID Metadata Document, used as
    /// its client id by authorization servers that support them.
    #[arg(long, value_name = "URL", value_parser = client_metadata_url)]
    pub oauth_client_metadata_url: Option<String>,
    /// Seconds to wait for the browser's redirect after printing the
    /// authorization URL (authorization code grant).
    #[arg(long, value_name = "SECS", default_value_t = 300.0, value_parser = positive_seconds)]
    pub oauth_redirect_timeout: f64,
    /// Answer a server's 401 with an error instead of obtaining a token.
    #[arg(long, conflicts_with_all = ["oauth_client_id", "oauth_client_secret", "oauth_private_key", "oauth_grant", "oauth_client_metadata_url"])]
    pub no_oauth: bool,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => Ok(secs),
        _ => Err(format!(
            "`{s}` is not a number of seconds above 0 and at most 86400"
        )),
    }
}

/// A Client ID Metadata Document URL: `https://` with a host and a path
/// other than `/` (MCP 2025-11-25 "Client ID Metadata Documents"; the
/// OAuth Client ID Metadata Document draft §3).
fn client_metadata_url(s: &str) -> Result<String, String> {
    match url::Url::parse(s) {
        Ok(url) if url.scheme() == "https" && url.host_str().is_some() && url.path() != "/" => {
            Ok(s.to_owned())
        }
        _ => Err(format!(
            "`{s}` is not an https:// URL with a path: a client ID metadata document URL must be https:// with a path, e.g. https://client.example.com/fusion.json"
        )),
    }
}

// The server a listing command (`fusion tools`, `resources`, `templates`,
// `prompts`) reaches: its URL as the one positional word, or `--cmd`, with
// the connection options. (Not a doc comment, as above.)
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The server's Streamable HTTP URL (omit with --cmd).
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

impl TargetArgs {
    /// The target: `--cmd` or the URL ([`ConnectArgs::target`]).
    ///
    /// # Errors
    /// Both or neither given, a URL that is not `http(s)://`, or an unusable
    /// `--cmd` or connection option.
    pub fn target(&self) -> Result<Target, UsageError> {
        self.connect.target(self.url.as_deref())
    }
}

/// A usage error: printed as `error: ...` and exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl ConnectArgs {
    /// The target: `--cmd` split into words, or `url` (which must then be an
    /// `http(s)://` URL). Exactly one of the two must be given.
    pub fn target(&self, url: Option<&str>) -> Result<Target, UsageError> {
        self.check_signing_alg()?;
        match (&self.cmd, url) {
            (Some(_), Some(url)) => Err(UsageError(format!(
                "both --cmd and a URL (`{url}`) were given; use one of them"
            ))),
            (Some(cmd), None) => command_target(cmd),
            (None, Some(url)) => url_target(url),
            (None, None) => Err(UsageError(
                "no target: give an http(s):// URL, or --cmd 'COMMAND ARGS'".into(),
            )),
        }
    }

    /// The algorithm --oauth-private-key's key signs with: the one it is
    /// for ([`ClientAssertionAlgorithm::for_key`]) unless
    /// --oauth-signing-alg names another that suits it; RS256 when the key
    /// is none of those fusion reads (rmcp's signer then says why).
    fn signing_alg(&self, key: &PrivateKeyFile) -> ClientAssertionAlgorithm {
        let read = ClientAssertionAlgorithm::for_key(&key.pem);
        match (self.oauth_signing_alg, read) {
            (Some(given), _) => given,
            (None, Ok(read)) => read,
            (None, Err(_)) => ClientAssertionAlgorithm::Rs256,
        }
    }

    /// A usage error when --oauth-signing-alg does not suit the key of
    /// --oauth-private-key, naming the algorithm the key needs.
    fn check_signing_alg(&self) -> Result<(), UsageError> {
        let (Some(key), Some(given)) = (&self.oauth_private_key, self.oauth_signing_alg) else {
            return Ok(());
        };
        match ClientAssertionAlgorithm::for_key(&key.pem) {
            Ok(needed) if !given.suits(needed) => {
                let kind = match needed {
                    ClientAssertionAlgorithm::Es256 => "a P-256 key",
                    ClientAssertionAlgorithm::Es384 => "a P-384 key",
                    _ => "an RSA key",
                };
                let needs = match needed {
                    ClientAssertionAlgorithm::Es256 | ClientAssertionAlgorithm::Es384 => {
                        needed.to_string()
                    }
                    _ => String::from("RS256, RS384 or RS512"),
                };
                Err(UsageError(format!(
                    "--oauth-signing-alg {given} does not suit --oauth-private-key `{}`: it holds {kind}, which signs with {needs} (leave --oauth-signing-alg out to use it)",
                    key.path.display()
                )))
            }
            _ => Ok(()),
        }
    }

    /// The client options these flags ask for.
    pub fn client_options(&self) -> ClientOptions {
        let limit = Duration::from_secs_f64(self.timeout);
        let options = match (&self.bearer, self.oauth_options()) {
            (Some(token), _) => ClientOptions::default().bearer(token.clone()),
            (None, Some(oauth)) => ClientOptions::default().oauth(oauth),
            (None, None) => ClientOptions::default(),
        };
        options
            .discriminator(self.discriminator.clone())
            .protocol(self.protocol_version)
            .connect_timeout(limit)
            .call_timeout(limit)
            .stderr(if self.server_stderr {
                ServerStderr::Inherit
            } else {
                ServerStderr::Capture
            })
    }

    /// How a server's 401 is answered: `None` with --no-oauth or --bearer;
    /// else client credentials when a secret or a private key is given (or
    /// --oauth-grant client-credentials; with a key, private_key_jwt), the
    /// authorization code grant otherwise, its URL printed on stderr.
    pub fn oauth_options(&self) -> Option<OAuthOptions> {
        if self.no_oauth || self.bearer.is_some() {
            return None;
        }
        let grant = match self.oauth_grant {
            Some(GrantChoice::ClientCredentials) => OAuthGrant::ClientCredentials,
            Some(GrantChoice::AuthorizationCode) => OAuthGrant::AuthorizationCode,
            None if self.oauth_client_secret.is_some() || self.oauth_private_key.is_some() => {
                OAuthGrant::ClientCredentials
            }
            None => OAuthGrant::AuthorizationCode,
        };
        let client_id = self.oauth_client_id.clone().unwrap_or_default();
        let mut options = match (grant, &self.oauth_private_key) {
            (OAuthGrant::ClientCredentials, Some(key)) => OAuthOptions::client_credentials_jwt(
                client_id,
                ClientAssertionKey::new(key.pem.clone(), self.signing_alg(key)),
            ),
            (OAuthGrant::ClientCredentials, None) => OAuthOptions::client_credentials(
                client_id,
                self.oauth_client_secret.clone().unwrap_or_default(),
            ),
            _ => OAuthOptions::authorization_code(),
        };
        if grant == OAuthGrant::AuthorizationCode {
            if let Some(id) = &self.oauth_client_id {
                options = options.client_id(id.clone());
            }
            if let Some(secret) = &self.oauth_client_secret {
                options = options.client_secret(secret.clone());
            }
        }
        if let Some(url) = &self.oauth_client_metadata_url {
            options = options.client_metadata_url(url.clone());
        }
        let paint = self.paint_stderr();
        Some(
            options
                .client_name("fusion")
                .request_timeout(Duration::from_secs_f64(self.timeout))
                .redirect_timeout(Duration::from_secs_f64(self.oauth_redirect_timeout))
                .on_authorization_url(move |url| {
                    err_line(format_args!(
                        "{} the server needs authorization: open this URL in a browser (waiting for its redirect):\n  {url}",
                        paint.bold("fusion:")
                    ));
                }),
        )
    }

    /// Whether to colour a stream that is a terminal or not.
    pub fn paint(&self, is_terminal: bool) -> Paint {
        let enabled = match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Paint { enabled }
    }

    /// [`paint`](Self::paint) for stdout.
    pub fn paint_stdout(&self) -> Paint {
        self.paint(std::io::stdout().is_terminal())
    }

    /// [`paint`](Self::paint) for stderr.
    pub fn paint_stderr(&self) -> Paint {
        self.paint(std::io::stderr().is_terminal())
    }
}

fn command_target(cmd: &str) -> Result<Target, UsageError> {
    let words = shlex::split(cmd)
        .ok_or_else(|| UsageError(format!("--cmd: unbalanced quotes in `{cmd}`")))?;
    let mut words = words.into_iter();
    let program = words
        .next()
        .ok_or_else(|| UsageError("--cmd is empty: give the command to start".into()))?;
    Ok(Target::stdio(program, words))
}

/// Whether `text` starts with `http://` or `https://` (any case).
pub fn is_http_url(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The usage error for a URL typed without its scheme, when `text` reads as
/// `HOST:PORT` or `HOST:PORT/PATH` (a host name, an IPv4 address or a
/// bracketed IPv6 address, then a port of 1 to 5 digits): it suggests
/// `http://TEXT`. `None` for anything else.
pub fn missing_scheme(text: &str) -> Option<UsageError> {
    let (authority, path) = match text.find('/') {
        Some(slash) => text.split_at(slash),
        None => (text, ""),
    };
    let (host, port) = authority.rsplit_once(':')?;
    let host_ok = match host.strip_prefix('[') {
        Some(v6) => v6.strip_suffix(']').is_some_and(|v6| {
            !v6.is_empty() && v6.chars().all(|c| c.is_ascii_hexdigit() || c == ':')
        }),
        None => {
            !host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        }
    };
    let port_ok = (1..=5).contains(&port.len()) && port.bytes().all(|b| b.is_ascii_digit());
    if !host_ok || !port_ok || path.chars().any(char::is_whitespace) {
        return None;
    }
    let endpoint = if path.is_empty() {
        format!(" (the endpoint of `fusion serve` is http://{authority}/mcp)")
    } else {
        String::new()
    };
    Some(UsageError(format!(
        "`{text}` has no scheme: did you mean `http://{text}`?{endpoint} A URL starts with http:// or https://."
    )))
}

fn url_target(url: &str) -> Result<Target, UsageError> {
    if is_http_url(url) {
        return Ok(Target::http(url));
    }
    if let Some(err) = missing_scheme(url) {
        return Err(err);
    }
    Err(UsageError(format!(
        "`{url}` is not an http:// or https:// URL; for a server spoken to over stdio use --cmd '{url}'"
    )))
}

/// Connects, printing a connection error (with the server's stderr, if it
/// wrote any) on failure.
pub async fn connect(target: &Target, args: &ConnectArgs) -> Result<FusionClient, ExitCode> {
    FusionClient::connect(target, args.client_options())
        .await
        .map_err(|err| {
            print_failure(&err, None, args);
            ExitCode::from(EXIT_USAGE_OR_CONNECTION)
        })
}

/// Prints an error that is not a tool failure on stderr: `error: ...`, plus
/// the server's stderr when there is one, plus a hint when one helps.
pub fn print_failure(err: &FusionClientError, server_stderr: Option<String>, args: &ConnectArgs) {
    print_failure_with_hint(
        err,
        server_stderr,
        args,
        "`fusion tools` lists the tools this server has",
    );
}

/// [`print_failure`], with `listing` as the hint after a `-32602`,
/// `-32601` or `-32002` JSON-RPC error (which command lists what the server has).
pub fn print_failure_with_hint(
    err: &FusionClientError,
    server_stderr: Option<String>,
    args: &ConnectArgs,
    listing: &str,
) {
    let paint = args.paint_stderr();
    let label = paint.red_bold("error:");
    match err {
        FusionClientError::JsonRpc {
            code,
            message,
            data,
        } => {
            err_line(format_args!(
                "{label} the server answered with a JSON-RPC error {code}: {message}"
            ));
            if let Some(data) = data {
                err_line(format_args!("  data: {data}"));
            }
            if [-32602, -32601, -32002].contains(code) {
                err_line(format_args!("  {} {listing}", paint.dim("hint:")));
            }
        }
        FusionClientError::Connect {
            server_stderr: captured,
            cause,
            ..
        } => {
            err_line(format_args!("{label} {err}"));
            if *cause == ConnectCause::Refused {
                err_line(format_args!(
                    "  {} start one with `fusion serve` (it listens on {DEFAULT_ENDPOINT}), or check the URL's host and port",
                    paint.dim("hint:")
                ));
            }
            if *cause == ConnectCause::Unauthorized {
                err_line(format_args!(
                    "  {} give a token the server takes: --bearer TOKEN (or FUSION_BEARER), or let fusion obtain one: without --no-oauth a 401 starts the authorization code grant, and --oauth-client-id with --oauth-client-secret (or --oauth-private-key) use client credentials",
                    paint.dim("hint:")
                ));
            }
            print_server_stderr(captured.clone().or(server_stderr), &paint);
        }
        FusionClientError::Transport { message, .. } if err.insufficient_scope().is_some() => {
            err_line(format_args!("{label} {message}"));
            let scopes = err.insufficient_scope().unwrap_or_default();
            let lacks = if scopes.is_empty() {
                String::from("a scope the server's challenge does not name")
            } else {
                format!("scope {}", scopes.join(" "))
            };
            let fix = if args.bearer.is_some() {
                "get a token with it, or drop --bearer (and FUSION_BEARER) to let fusion authorize"
            } else {
                "get a token with it (--bearer TOKEN)"
            };
            err_line(format_args!(
                "  {} the token lacks {lacks}: {fix}",
                paint.dim("hint:")
            ));
        }
        FusionClientError::Authorization { source, .. } => {
            err_line(format_args!("{label} {err}"));
            err_line(format_args!(
                "  {} {}",
                paint.dim("hint:"),
                authorization_hint(source, args)
            ));
        }
        other => {
            err_line(format_args!("{label} {other}"));
            print_server_stderr(server_stderr, &paint);
        }
    }
}

/// The one-line hint after an [`AuthorizationError`]: what the user (or
/// the server's operator) can do about its stage; for a token request the
/// authorization server refused, by its RFC 6749 §5.2 `error`; for a client
/// assertion that could not be signed, the key and algorithm; else where a
/// static token or the OAuth flags go.
fn authorization_hint(source: &AuthorizationError, args: &ConnectArgs) -> String {
    match source {
        AuthorizationError::NoMetadata { .. } => {
            String::from("give the token it takes: --bearer TOKEN (or FUSION_BEARER)")
        }
        AuthorizationError::InsufficientScope { missing, .. }
        | AuthorizationError::StepUpRefused { missing, .. } => {
            let scopes = if missing.is_empty() {
                String::from("the scopes the server asks for")
            } else {
                missing.join(" ")
            };
            format!(
                "the authorization server granted less than fusion asked for: ask its administrator to allow this client (and user) {scopes}"
            )
        }
        AuthorizationError::TokenRefused { .. } => String::from(
            "the server does not take the tokens its authorization server issued to fusion: its operator should check that the authorization server knows the server as a resource (the token's audience, RFC 8707) and that the server trusts that authorization server",
        ),
        AuthorizationError::InsecureEndpoint { .. } => String::from(
            "the server's operator should publish an https:// authorization server; a server that takes a static token wants --bearer TOKEN (or FUSION_BEARER)",
        ),
        AuthorizationError::TimedOut { .. } => String::from(
            "--timeout SECS bounds each exchange with the authorization server (RUST_LOG=rmcp=debug shows each OAuth request)",
        ),
        _ => token_request_hint(source, args),
    }
}

/// The hint after a token request the authorization server refused (by its
/// RFC 6749 §5.2 `error`) or a client assertion that could not be signed;
/// else where a static token or the OAuth flags go.
fn token_request_hint(source: &AuthorizationError, args: &ConnectArgs) -> String {
    let credential = if args.oauth_private_key.is_some() {
        "that --oauth-private-key holds the key the authorization server has for this client"
    } else {
        "--oauth-client-secret (FUSION_OAUTH_CLIENT_SECRET)"
    };
    if source.is_signing_error() {
        return String::from(
            "fusion could not sign the client assertion: check that --oauth-private-key holds the client's RSA, P-256 or P-384 private key (PEM) and that --oauth-signing-alg suits it (ES256 for P-256, ES384 for P-384, RS256, RS384 or RS512 for RSA; left out, the key's own)",
        );
    }
    match source.token_error_code().as_deref() {
        Some("invalid_client") => format!(
            "the authorization server does not know this client or did not authenticate it: check --oauth-client-id (FUSION_OAUTH_CLIENT_ID) and {credential}"
        ),
        Some("invalid_scope") => String::from(
            "the authorization server does not allow this client the scopes fusion asked for (RUST_LOG=mcp_fusion::client=debug shows them): ask its administrator to allow them",
        ),
        Some("unauthorized_client") => String::from(
            "the authorization server does not allow this client the grant fusion used: ask its administrator, or choose another with --oauth-grant",
        ),
        Some(_) => String::from(
            "the authorization server refused the token request: check the client's registration there (RUST_LOG=rmcp=debug shows each OAuth request)",
        ),
        None => String::from(
            "a server that takes a static token wants --bearer TOKEN (or FUSION_BEARER); for OAuth, check --oauth-client-id / --oauth-client-secret (FUSION_OAUTH_CLIENT_ID / FUSION_OAUTH_CLIENT_SECRET) or --oauth-private-key / --oauth-signing-alg and that the authorization server knows this server as a resource (RUST_LOG=rmcp=debug shows each OAuth request)",
        ),
    }
}

/// Prints `text`, the last lines the server wrote on stderr, under a dim
/// heading, each line indented; nothing for `None`.
fn print_server_stderr(text: Option<String>, paint: &Paint) {
    if let Some(text) = text {
        err_line(format_args!("{}", paint.dim("server stderr (last lines):")));
        for line in text.lines() {
            err_line(format_args!("  {line}"));
        }
    }
}

/// Prints a usage error and returns exit code 2.
pub fn usage(err: UsageError) -> ExitCode {
    err_line(format_args!("error: {}", err.0));
    err_line(format_args!("\nFor more information, try '--help'."));
    ExitCode::from(EXIT_USAGE_OR_CONNECTION)
}

/// Installs a log on stderr for a client command (`call`, `tools`, `lock`,
/// `diff`) when RUST_LOG is set, at the levels it names (e.g.
/// `RUST_LOG=rmcp=debug`: each OAuth request), coloured on a terminal
/// unless NO_COLOR is set; without RUST_LOG nothing is logged, so that
/// stderr holds only the command's own lines. With `otel`, OpenTelemetry
/// as it says (the log's filter does not apply to its spans).
///
/// # Errors
///
/// Why OpenTelemetry could not be set up.
pub fn install_log(otel: Option<OtelFlag>) -> Result<Telemetry, String> {
    let log = std::env::var_os("RUST_LOG").map(|_| {
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
            && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
        let layer: LogLayer = Box::new(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(ansi),
        );
        (layer, tracing_subscriber::EnvFilter::from_default_env())
    });
    telemetry::install(log, otel)
}

/// Runs `fut` to completion on a fresh runtime, or on the current one when
/// called from inside a multi-thread runtime.
pub fn block_on<F: Future<Output = ExitCode>>(fut: F) -> ExitCode {
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        return tokio::task::block_in_place(|| handle.block_on(fut));
    }
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(fut),
        Err(e) => {
            err_line(format_args!("error: cannot start the async runtime: {e}"));
            ExitCode::from(EXIT_USAGE_OR_CONNECTION)
        }
    }
}

#[cfg(test)]
mod tests;
