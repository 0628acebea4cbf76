//! `fusion gateway`: upstream MCP servers mounted under namespaces behind
//! one server (Streamable HTTP by default, or stdio), with `fusion serve`'s
//! guard, auth, HTTP and session flags.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use mcp_fusion::client::Target;
use mcp_fusion::gateway::{Exposure, Gateway, GatewayConfig, UpstreamConfig};
use mcp_fusion::guard::{RedisRateLimitStore, StaticTokens};
use mcp_fusion::server::ServerBuilder;

use crate::server_flags::{ServerFlags, guard_lines, say, serve_built};

/// The scope a bearer token needs to call mounted tools (with `--auth-tokens`).
pub const GATEWAY_SCOPE: &str = "gateway:call";

// Options of `fusion gateway`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    after_help = "The gateway logs to stderr (RUST_LOG sets the level; default info, and error for rmcp);\n\
upstream failures are logged there and never shown to the model.\n\
Guards (--max-active, --rate-limit, --timeout) apply to every call of a mounted tool, before it\n\
is forwarded; with --auth-tokens such calls need a token with the scope gateway:call.\n\
A caller's token is never forwarded: an upstream gets the gateway's own credentials from the config\n\
(bearer_env, [upstream.oauth]); one that refuses them answers the model UNAUTHORIZED and is asked\n\
again once per reconnect_max.\n\
Exit codes: 0 after a clean shutdown (Ctrl-C or SIGTERM, or end of stdin with --stdio),\n\
1 when the configuration, the token file, the lockfile or a setting cannot be used, or the port\n\
cannot be bound; 2 for invalid options."
)]
pub struct GatewayArgs {
    /// The gateway's configuration (TOML): one [[upstream]] table per mounted
    /// server with namespace and command = ["program", "arg", …] (stdio) or
    /// url = "http://…/mcp" (Streamable HTTP); optional exposure ("always",
    /// the default, or "handoff"), description, connect_timeout,
    /// call_timeout, reconnect_initial and reconnect_max (e.g. "10s"); for
    /// a url upstream, the gateway's own credentials: bearer_env = "VAR" (a
    /// bearer token from that environment variable) or an [upstream.oauth]
    /// table (client_id, client_secret_env, scopes: the OAuth client
    /// credentials grant); and an optional [handoffs] table (max_callers,
    /// ttl). A caller's own token is never forwarded.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// List every upstream to every caller, the handoff ones included
    /// (connected from the start, called without a handoff): for `fusion
    /// lock --cmd 'fusion gateway --stdio --list-every-upstream …'`, so that
    /// the lockfile records every mounted contract. The same as
    /// list_every_upstream = true in the config.
    #[arg(long)]
    list_every_upstream: bool,
    /// The name the gateway gives in the MCP handshake.
    #[arg(long, value_name = "NAME", default_value = "fusion-gateway")]
    name: String,
    #[command(flatten)]
    flags: ServerFlags,
}

/// Runs `fusion gateway` until shutdown.
pub fn run(args: GatewayArgs) -> ExitCode {
    let format = args.flags.log_format;
    // Dropped when this returns, after the runtime has ended: what
    // OpenTelemetry buffered is sent then, whatever the exit path.
    let _telemetry = match format.install(args.flags.otel) {
        Ok(telemetry) => telemetry,
        Err(e) => {
            format.fail(&format!("fusion gateway: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let config = match GatewayConfig::read(&args.config) {
        Ok(config) if args.list_every_upstream => config.list_every_upstream(true),
        Ok(config) => config,
        Err(e) => {
            format.fail(&format!("fusion gateway: {}: {e}", args.config.display()));
            return ExitCode::FAILURE;
        }
    };
    format.run("fusion gateway", serve(&args, config))
}

/// One banner line per upstream.
fn upstream_line(upstream: &UpstreamConfig, exposure: Exposure) -> String {
    let (namespace, target) = (&upstream.namespace, &upstream.target);
    let how = match target {
        Target::Stdio { .. } => "stdio",
        Target::Http { .. } => "Streamable HTTP",
        _ => "another transport",
    };
    let who = match exposure {
        Exposure::Always => "listed to every caller",
        Exposure::Handoff => "listed after a handoff",
    };
    match &upstream.credentials {
        Some(credentials) => format!(
            "{namespace}.*: {target} ({how}, {who}, {})",
            credentials.describe()
        ),
        None => format!("{namespace}.*: {target} ({how}, {who})"),
    }
}

async fn serve(args: &GatewayArgs, config: GatewayConfig) -> Result<(), String> {
    let flags = &args.flags;
    let format = flags.log_format;
    say!(
        format,
        "fusion gateway: {} upstream(s) from {}",
        config.upstreams.len(),
        args.config.display()
    );
    for upstream in &config.upstreams {
        let exposure = if config.list_every_upstream {
            Exposure::Always
        } else {
            upstream.exposure
        };
        say!(format, "  {}", upstream_line(upstream, exposure));
    }
    let gateway = Gateway::new(config).map_err(|e| e.to_string())?;
    let mut builder = ServerBuilder::new(args.name.clone(), env!("CARGO_PKG_VERSION"));
    if let Some(path) = &flags.auth_tokens {
        builder = builder.auth(StaticTokens::from_file(path).map_err(|e| e.to_string())?);
    }
    if let Some(url) = &flags.redis
        && flags.rate_limit.is_some()
    {
        let store = RedisRateLimitStore::new(url)
            .map_err(|e| e.to_string())?
            .fail_mode(flags.redis_fail);
        builder = builder.rate_limit_store(store);
    }
    // Applied to each mounted tool as its upstream lists it, and to the
    // handoff tool; the gateway makes the concurrency limit one all mounted
    // tools share.
    let (max_active, max_queue) = (flags.max_active, flags.max_queue);
    let rate_limit = flags
        .rate_limit
        .map(|limit| limit.scope(flags.rate_limit_scope));
    let (timeout, scoped) = (flags.timeout, flags.has_auth());
    let builder = gateway.install_with(builder, move |mut tool| {
        if let Some(active) = max_active {
            tool = tool.concurrency(active, max_queue);
        }
        if let Some(limit) = rate_limit {
            tool = tool.rate_limit(limit);
        }
        if let Some(limit) = timeout {
            tool = tool.timeout(limit);
        }
        if scoped {
            tool = tool.requires_scopes([GATEWAY_SCOPE]);
        }
        tool
    });
    for line in guard_lines(flags, "for all mounted tools together", "per mounted tool") {
        say!(format, "  {line}");
    }
    serve_built(flags, builder).await
}
