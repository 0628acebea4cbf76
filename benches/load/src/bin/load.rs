//! `load`: a closed-loop load driver for an MCP server's `get_invoice` tool,
//! speaking raw JSON-RPC (no MCP SDK).
//!
//! Over stdio (`load [OPTIONS] -- COMMAND ARGS…`) it spawns the server,
//! does the handshake (protocol version 2025-06-18) and keeps `--workers`
//! calls in flight. Over Streamable HTTP (`load --url URL`) it opens
//! `--connections` sessions, each with `--workers` calls in flight. After a
//! warm-up it measures for `--duration` (or `--calls` answers), checks every
//! answer (its id was sent and is answered once; `--path ok`: `isError`
//! false or absent and the text `{"id":"inv_1","status":"open"}`; `--path
//! fail`: `isError` true with a text naming the three fields) and prints calls/s, p50 and
//! p99 latency in µs, the answers by kind and the server's RSS (VmRSS, MiB)
//! idle after the handshake and after the run: one line, or one JSON object
//! with `--json` (the fields of `load_bench::Report`).

use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser, error::ErrorKind};
use load_bench::http::{self, HttpOptions};
use load_bench::stdio::{self, StdioOptions};
use load_bench::{CallPath, Measure, Report, RunPlan};

/// Closed-loop load driver for an MCP server's get_invoice tool (raw JSON-RPC).
#[derive(Parser, Debug)]
#[command(
    name = "load",
    version,
    after_help = "Examples:
  load --path fail -w 32 -- target/release/fusion serve --example bench --stdio
  load --url http://127.0.0.1:8080/mcp --pid 1234 -k 16 --path ok --json

Exit codes: 0 when every call got the answer its path expects; 1 when an answer was \
unexpected (wrong result, JSON-RPC error, HTTP error status, unknown or repeated id) or \
missing (the report is printed, and the first problems on stderr); 2 for invalid options, \
a server that cannot be started, exits during the run or does not answer the handshake."
)]
struct Args {
    /// The server's Streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp
    /// (instead of a command after `--`).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The HTTP server's process id, to report its memory (stdio: the
    /// spawned server's).
    #[arg(long, value_name = "PID", requires = "url")]
    pid: Option<u32>,
    /// The call repeated: fail (three failed checks) or ok (a success) of
    /// get_invoice; show, show-plain, list or list-plain: a presented twin of
    /// `fusion serve --example bench-presented` (one invoice, a list of 100
    /// cut to 10; -plain: the same value without a presenter).
    #[arg(long, value_enum, default_value = "fail")]
    path: CallPath,
    /// The tool called, or the name a gateway mounts it under (e.g.
    /// bench.get_invoice) [default: the path's: get_invoice for fail and ok,
    /// show_invoice, show_invoice_plain, list_invoices, list_invoices_plain].
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// Send tools/list after the handshake (over HTTP: in the first session)
    /// and wait for its answer before the first call: a gateway answers it
    /// once its upstreams are connected.
    #[arg(long)]
    list_tools: bool,
    /// Calls in flight: in all over stdio, per connection over HTTP.
    #[arg(short = 'w', long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    workers: u32,
    /// HTTP connections, each its own MCP session.
    #[arg(short = 'k', long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    connections: u32,
    /// How long to measure, after the warm-up (e.g. 3s, 500ms).
    #[arg(long, default_value = "3s", value_parser = positive_duration)]
    duration: Duration,
    /// Measure this many answers instead of a duration.
    #[arg(long, value_name = "N", conflicts_with = "duration", value_parser = clap::value_parser!(u64).range(1..))]
    calls: Option<u64>,
    /// Calls made and checked, not measured, before measuring.
    #[arg(long, default_value = "500ms", value_parser = humantime::parse_duration)]
    warmup: Duration,
    /// The longest wait for one answer (or the handshake); past it the calls
    /// in flight count as missing and the run ends.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    timeout: Duration,
    /// The longest the whole run may take [default: warm-up + duration + 2 ×
    /// timeout + 10s; with --calls, 5m].
    #[arg(long, value_parser = humantime::parse_duration)]
    deadline: Option<Duration>,
    /// How long a stdio server may take to exit once its stdin is closed
    /// after the run, before it is killed (longer for a server run under
    /// valgrind, which writes its profile on exit).
    #[arg(long, default_value = "2s", value_parser = humantime::parse_duration)]
    exit_grace: Duration,
    /// The server's name in the report.
    #[arg(long, default_value = "")]
    label: String,
    /// Print one JSON object instead of one line.
    #[arg(long)]
    json: bool,
    /// Threads of the driver's runtime (1: a single-threaded runtime).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
    /// The stdio server's command and arguments.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// `--duration`: a humantime duration longer than zero.
fn positive_duration(s: &str) -> Result<Duration, String> {
    match humantime::parse_duration(s) {
        Ok(d) if d.is_zero() => Err("must be longer than zero".into()),
        Ok(d) => Ok(d),
        Err(e) => Err(format!("{e} (write e.g. 500ms, 3s)")),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(pid) = args.pid
        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
    {
        eprintln!("load: --pid {pid}: no such process (the server exited?)");
        return ExitCode::from(2);
    }
    // Both, or neither.
    if args.url.is_some() != args.command.is_empty() {
        Args::command()
            .error(
                ErrorKind::MissingRequiredArgument,
                "give either --url URL (Streamable HTTP) or the server command after `--` (stdio)",
            )
            .exit();
    }
    let runtime = if args.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(usize::from(args.threads))
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("load: cannot start the runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let measure = match args.calls {
        Some(calls) => Measure::Calls(calls),
        None => Measure::For(args.duration),
    };
    let plan = RunPlan {
        warmup: args.warmup,
        measure,
        timeout: args.timeout,
        deadline: args.deadline.unwrap_or(match measure {
            Measure::For(length) => {
                args.warmup + length + 2 * args.timeout + Duration::from_secs(10)
            }
            Measure::Calls(_) => Duration::from_secs(300),
        }),
    };
    let tool = args
        .tool
        .clone()
        .unwrap_or_else(|| args.path.tool().to_owned());
    let result = runtime.block_on(async {
        match &args.url {
            Some(url) => {
                http::run(&HttpOptions {
                    url: url.clone(),
                    pid: args.pid,
                    path: args.path,
                    tool: tool.clone(),
                    list_tools: args.list_tools,
                    connections: args.connections,
                    workers: args.workers,
                    plan,
                    label: args.label.clone(),
                })
                .await
            }
            None => {
                stdio::run(&StdioOptions {
                    command: args.command.clone(),
                    path: args.path,
                    tool: tool.clone(),
                    list_tools: args.list_tools,
                    workers: args.workers,
                    plan,
                    label: args.label.clone(),
                    exit_grace: args.exit_grace,
                })
                .await
            }
        }
    });
    match result {
        Ok(report) => print(&report, args.json),
        Err(error) => {
            eprintln!("load: {error}");
            ExitCode::from(2)
        }
    }
}

/// Prints the report; the exit code says whether every answer was as
/// expected.
fn print(report: &Report, json: bool) -> ExitCode {
    if json {
        match serde_json::to_string(report) {
            Ok(line) => println!("{line}"),
            Err(error) => {
                eprintln!("load: cannot write the report as JSON: {error}");
                return ExitCode::from(2);
            }
        }
    } else {
        println!("{}", report.line());
    }
    if report.outcomes.passed() {
        return ExitCode::SUCCESS;
    }
    let o = &report.outcomes;
    eprintln!(
        "load: {} unexpected, {} JSON-RPC errors, {} missing answers; the first problems:",
        o.unexpected, o.rpc_error, o.missing
    );
    for sample in &o.samples {
        eprintln!("  {sample}");
    }
    ExitCode::from(1)
}
