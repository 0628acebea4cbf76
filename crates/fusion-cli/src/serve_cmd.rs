//! `fusion serve`: an example server (billing, the default, conformance or bench) over Streamable HTTP (default) or stdio.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcp_fusion::guard::{RedisRateLimitStore, StaticTokens};
use mcp_fusion::server::tasks::{DEFAULT_TASK_LEASE, RedisTaskStore};

use crate::server_flags::{
    LogFormat, ServerFlags, guard_lines, positive_duration, say, serve_built,
};

/// The example servers `fusion serve` has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Example {
    /// Invoices in SQLite: the billing group and its guards.
    Billing,
    /// The conformance suite's fixtures.
    Conformance,
    /// One plain tool, get_invoice, with three checks and no database: the
    /// server benches/load/compare.sh measures against other stacks.
    Bench,
    /// The bench's get_invoice and the presented twins of
    /// bench_example::presented: what benches/load/callgrind.sh measures a
    /// presenter's cost with.
    BenchPresented,
    /// The billing example plus a reminders group (date-time, uri and enum
    /// fields): the server actionability/run.sh measures.
    Actionability,
}

impl Example {
    /// The name `--example` takes.
    fn name(self) -> &'static str {
        match self {
            Example::Billing => "billing",
            Example::Conformance => "conformance",
            Example::Bench => "bench",
            Example::BenchPresented => "bench-presented",
            Example::Actionability => "actionability",
        }
    }
}

// Options of `fusion serve`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    after_help = "The server logs to stderr (RUST_LOG sets the level; default info, and error for rmcp,\n\
which logs every JSON-RPC error answer as a warning; failures are counted in /metrics;\n\
--log-format json writes one JSON object per line, the banner too).\n\
Exit codes: 0 after a clean shutdown (Ctrl-C or SIGTERM, or end of stdin with --stdio),\n\
1 when the database, the token file, the lockfile or a setting cannot be used, or the port\n\
cannot be bound; 2 for invalid options, or a --db whose folder does not exist (without --create-dirs)."
)]
pub struct ServeArgs {
    /// Which example server to serve: billing (invoices in SQLite),
    /// conformance (every fixture of the official MCP conformance suite:
    /// tools, resources, prompts, completion, logging, progress, sampling,
    /// elicitation), bench (one tool, get_invoice, with no database: the
    /// server benches/load/compare.sh measures), bench-presented (the bench's
    /// tool and presented twins, for benches/load/callgrind.sh) or
    /// actionability (billing
    /// plus a reminders group: the server actionability/run.sh measures;
    /// every billing flag applies).
    #[arg(long, value_enum, default_value = "billing")]
    example: Example,
    /// The SQLite file of invoices; created and seeded when missing (its
    /// folder must exist, see --create-dirs)
    /// [default: $XDG_DATA_HOME/mcp-fusion/billing.db or ~/.local/share/mcp-fusion/billing.db,
    /// whose folder is created when missing].
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Also create the folder of --db, and its parents, when missing. Without
    /// it a missing folder is an error (exit 2), so that a mistyped path does
    /// not become a new directory tree.
    #[arg(long, requires = "db")]
    create_dirs: bool,
    /// How long billing.generate_report works, e.g. 200ms, 2s.
    #[arg(long, value_name = "DURATION", default_value = "200ms", value_parser = positive_duration)]
    report_ms: Duration,
    /// Where the tasks of actions that run as tasks (the MCP Tasks
    /// extension) are kept: memory (this process, the default) or a Redis
    /// URL, e.g. redis://127.0.0.1:6379/0, shared by every replica using it
    /// (a task started on one is read and cancelled on another).
    #[arg(long, value_name = "memory|URL", default_value = "memory", value_parser = task_store)]
    task_store: TaskStoreChoice,
    /// With a Redis --task-store: how long, in seconds (1 to 3600), the
    /// lease of a running task lasts. This server renews it every third of
    /// that while the task runs; when this process stops (kill -9) its
    /// tasks read failed on every replica this long after its last renewal
    /// [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    task_lease_seconds: Option<u64>,
    /// List only the search_tools meta-tool in tools/list: the model finds
    /// the other tools by searching their names, descriptions and parameter
    /// names (BM25), and calls them by name (fusion gateway: a [search]
    /// table in its --config).
    #[arg(long)]
    tool_search: bool,
    /// Also serve the skills below DIR (SEP-2640: skills/list, skills/get,
    /// resources/directory/read, and each skill's files as skill://
    /// resources), beside the example's tools, e.g. examples/skills. Each
    /// folder with a SKILL.md is a skill; hidden files are not served. The
    /// files are read at start-up; a DIR that cannot be read stops the
    /// server (exit 1).
    #[arg(long, value_name = "DIR")]
    skills: Option<PathBuf>,
    #[command(flatten)]
    flags: ServerFlags,
}

/// `builder` with tool search on when `--tool-search` says so.
fn with_tool_search(
    builder: mcp_fusion::ServerBuilder,
    args: &ServeArgs,
) -> mcp_fusion::ServerBuilder {
    match args.tool_search {
        true => builder.tool_search(mcp_fusion::capability::ToolSearch::new()),
        false => builder,
    }
}

/// Runs `fusion serve` until shutdown.
pub fn run(args: ServeArgs) -> ExitCode {
    let format = args.flags.log_format;
    // Dropped when this returns, after the runtime has ended: what
    // OpenTelemetry buffered is sent then, whatever the exit path.
    let _telemetry = match format.install(args.flags.otel) {
        Ok(telemetry) => telemetry,
        Err(e) => {
            format.fail(&format!("fusion serve: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let opened = match args.example {
        Example::Billing | Example::Actionability => {
            match open_db(args.db.clone(), args.create_dirs, format) {
                Ok(opened) => Some(opened),
                Err(code) => return code,
            }
        }
        Example::Conformance | Example::Bench | Example::BenchPresented => {
            if let Some(flag) = billing_only_flag(&args) {
                format.fail(&format!(
                    "fusion serve: {flag} applies to the billing example only; leave it out with --example {}",
                    args.example.name()
                ));
                return ExitCode::from(2);
            }
            None
        }
    };
    if args.task_lease_seconds.is_some() && args.task_store == TaskStoreChoice::Memory {
        format.fail(
            "fusion serve: --task-lease-seconds applies to a Redis task store only (--task-store redis://…): a task kept in memory ends with its process",
        );
        return ExitCode::from(2);
    }
    format.run("fusion serve", serve(args, opened))
}

/// The first flag given that only the billing example reads.
fn billing_only_flag(args: &ServeArgs) -> Option<&'static str> {
    [
        (args.db.is_some(), "--db"),
        (args.flags.max_active.is_some(), "--max-active"),
        (args.flags.rate_limit.is_some(), "--rate-limit"),
        (args.flags.timeout.is_some(), "--timeout"),
        (args.flags.auth_tokens.is_some(), "--auth-tokens"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// The billing database, opened before the server starts.
struct OpenedDb {
    path: PathBuf,
    /// Whether the file was there before (else it was created and seeded).
    existed: bool,
    db: billing_example::Db,
}

/// Opens `--db PATH` (its folder must exist unless `create_dirs`), or the
/// default database (whose folder is created). On failure prints why and
/// returns the exit code: 2 for a missing folder (a usage error: the path is
/// probably mistyped), 1 otherwise.
fn open_db(
    db: Option<PathBuf>,
    create_dirs: bool,
    format: LogFormat,
) -> Result<OpenedDb, ExitCode> {
    let (path, create_dirs) = match db {
        Some(path) => (path, create_dirs),
        None => (billing_example::default_db_path(), true),
    };
    let existed = path.exists();
    let opened = if create_dirs {
        billing_example::Db::open_creating_folders(&path)
    } else {
        billing_example::Db::open(&path)
    };
    match opened {
        Ok(db) => Ok(OpenedDb { path, existed, db }),
        Err(err @ billing_example::DbError::MissingFolder { .. }) => {
            let fix = match &err {
                billing_example::DbError::MissingFolder { folder, .. } if !folder.exists() => {
                    "Check the path, or add --create-dirs to create the folder."
                }
                _ => "Check the path.",
            };
            format.fail(&format!(
                "fusion serve: cannot create the database {}: {err}. {fix}",
                path.display()
            ));
            Err(ExitCode::from(2))
        }
        Err(err) => {
            format.fail(&format!("fusion serve: {}: {err}", path.display()));
            Err(ExitCode::FAILURE)
        }
    }
}

/// Where `--task-store` keeps tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TaskStoreChoice {
    Memory,
    Redis(String),
}

fn task_store(value: &str) -> Result<TaskStoreChoice, String> {
    if value == "memory" {
        Ok(TaskStoreChoice::Memory)
    } else if value.starts_with("redis://") || value.starts_with("rediss://") {
        Ok(TaskStoreChoice::Redis(value.to_owned()))
    } else {
        Err(String::from(
            "expected memory or a Redis URL (redis://host:port/db)",
        ))
    }
}

/// `builder` serving the skills of `--skills DIR`, if given, said in the
/// banner.
fn with_skills(builder: mcp_fusion::ServerBuilder, args: &ServeArgs) -> mcp_fusion::ServerBuilder {
    match &args.skills {
        Some(dir) => {
            say!(args.flags.log_format, "  skills: {}", dir.display());
            builder.skills_dir(dir)
        }
        None => builder,
    }
}

/// `builder` keeping its tasks where `--task-store` says; the banner line
/// naming a Redis store.
fn with_task_store(
    builder: mcp_fusion::ServerBuilder,
    args: &ServeArgs,
) -> Result<(mcp_fusion::ServerBuilder, Option<String>), String> {
    match &args.task_store {
        TaskStoreChoice::Memory => Ok((builder, None)),
        TaskStoreChoice::Redis(url) => {
            let lease = args
                .task_lease_seconds
                .map_or(DEFAULT_TASK_LEASE, Duration::from_secs);
            let store = RedisTaskStore::new(url)
                .map_err(|e| e.to_string())?
                .lease(lease)
                .map_err(|e| e.to_string())?;
            let line = format!(
                "tasks: kept in Redis at {}, each running task's lease {} s",
                store.url(),
                lease.as_secs()
            );
            Ok((builder.task_store(store), Some(line)))
        }
    }
}

/// The builder of an example without a database (bench, its presented
/// twins, or conformance), its banner line said.
fn without_database(args: &ServeArgs) -> mcp_fusion::ServerBuilder {
    let format = args.flags.log_format;
    if args.example == Example::Bench {
        say!(
            format,
            "fusion serve: bench example (one tool, get_invoice, no database)"
        );
        bench_example::builder()
    } else if args.example == Example::BenchPresented {
        say!(
            format,
            "fusion serve: bench example with presented twins (no database)"
        );
        bench_example::presented_builder()
    } else {
        say!(
            format,
            "fusion serve: conformance example (the MCP conformance suite's fixtures)"
        );
        conformance_example::builder()
    }
}

async fn serve(args: ServeArgs, opened: Option<OpenedDb>) -> Result<(), String> {
    let format = args.flags.log_format;
    let Some(opened) = opened else {
        let builder = without_database(&args);
        let (builder, line) = with_task_store(builder, &args)?;
        if let Some(line) = line {
            say!(format, "  {line}");
        }
        let builder = with_skills(with_tool_search(builder, &args), &args);
        return serve_built(&args.flags, builder).await;
    };
    let OpenedDb { path, existed, db } = opened;
    let options = billing_example::Options {
        report_work: args.report_ms,
        scopes: args.flags.has_auth(),
        guards: billing_example::GroupGuards {
            concurrency: args.flags.max_active.map(|n| (n, args.flags.max_queue)),
            rate_limit: args
                .flags
                .rate_limit
                .map(|r| r.scope(args.flags.rate_limit_scope)),
            timeout: args.flags.timeout,
        },
    };
    let mut builder = if args.example == Example::Actionability {
        actionability_example::builder_with(&db, &options)
    } else {
        billing_example::builder_with(&db, &options)
    };
    if let Some(path) = &args.flags.auth_tokens {
        builder = builder.auth(StaticTokens::from_file(path).map_err(|e| e.to_string())?);
    }
    let state = if existed {
        "opened"
    } else {
        "created and seeded"
    };
    if args.example == Example::Actionability {
        say!(
            format,
            "fusion serve: actionability example (billing, plus the reminders group)"
        );
    } else {
        say!(format, "fusion serve: billing example");
    }
    say!(format, "  database: {} ({state})", path.display());
    for line in guard_lines(&args.flags, "per action", "per action") {
        say!(format, "  {line}");
    }
    if let Some(url) = &args.flags.redis
        && args.flags.rate_limit.is_some()
    {
        let store = RedisRateLimitStore::new(url)
            .map_err(|e| e.to_string())?
            .fail_mode(args.flags.redis_fail);
        builder = builder.rate_limit_store(store);
    }
    let (builder, line) = with_task_store(builder, &args)?;
    if let Some(line) = line {
        say!(format, "  {line}");
    }
    let builder = with_skills(with_tool_search(builder, &args), &args);
    serve_built(&args.flags, builder).await
}
