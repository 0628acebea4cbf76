//! `fusion`: serve the example server, call MCP servers and read their
//! resources, prompts, completions and skills, render and parse envelopes, lock and
//! diff contracts.

mod call_cmd;
#[cfg(all(test, feature = "example", feature = "otel"))]
mod cli_reference;
mod complete_cmd;
mod diff_cmd;
mod diff_table;
mod envelope_cmd;
mod fetch;
mod gateway_cmd;
mod lock_cmd;
mod output;
mod prompts_cmd;
mod resources_cmd;
#[cfg(feature = "example")]
mod serve_cmd;
mod server_flags;
mod signing_flags;
mod skills_cmd;
mod surface;
mod target;
mod telemetry;
mod tools_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mcp-fusion's command-line tool.
#[derive(Debug, Parser)]
#[cfg_attr(feature = "example", command(about))]
#[cfg_attr(
    not(feature = "example"),
    command(
        about = "The `fusion` command: call and list the tools of any MCP server, read its \
resources, prompts and completions, render and parse error envelopes, lock and diff contracts. This build has no `serve`: serving the billing \
example needs the `example` feature (on by default)."
    )
)]
#[command(
    name = "fusion",
    version,
    long_about = None,
    after_help = "Exit codes: 0 success; 1 the thing asked for failed (a tool error, a changed \
contract, no envelope found, a server that could not start); 2 usage, connection or protocol \
error. Each command's --help gives its own."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// `defer`: a subcommand's arguments are made only when it is the one run
// (or its help is asked for), so that `fusion serve --stdio`, started by a
// client for every session, does not build the other twelve's.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Render or parse error envelopes (wire contract §2).
    #[command(subcommand)]
    Envelope(envelope_cmd::EnvelopeCommand),
    /// Serve an example server: billing (the default), conformance, bench,
    /// bench-presented or actionability (Streamable HTTP on 127.0.0.1:8080,
    /// or --stdio).
    #[cfg(feature = "example")]
    Serve(Box<serve_cmd::ServeArgs>),
    /// Front upstream MCP servers, each under a namespace, with one server
    /// (Streamable HTTP on 127.0.0.1:8080, or --stdio): `--config gateway.toml`.
    Gateway(Box<gateway_cmd::GatewayArgs>),
    /// Call one tool of any MCP server and print the result or its error readably.
    Call(call_cmd::CallArgs),
    /// List the tools of any MCP server, with their actions and required fields.
    Tools(tools_cmd::ToolsArgs),
    /// List the resources of any MCP server: URI, name, MIME type, description.
    Resources(resources_cmd::ResourcesArgs),
    /// List the resource templates of any MCP server.
    Templates(resources_cmd::TemplatesArgs),
    /// Read one resource of any MCP server and print its contents.
    Read(resources_cmd::ReadArgs),
    /// List the prompts of any MCP server, with their arguments.
    Prompts(prompts_cmd::PromptsArgs),
    /// Get one prompt of any MCP server, with arguments, and print its messages.
    Prompt(prompts_cmd::PromptArgs),
    /// Ask any MCP server to complete a prompt argument or a template variable.
    Complete(complete_cmd::CompleteArgs),
    /// List the skills of any MCP server (SEP-2640): URI, name, files, description.
    Skills(skills_cmd::SkillsArgs),
    /// Fetch one skill of any MCP server: its files, and its SKILL.md checked against its digest.
    Skill(skills_cmd::SkillArgs),
    /// Write the contract lockfile of any MCP server, or --check it (for CI).
    Lock(lock_cmd::LockArgs),
    /// Show the contract changes between two lockfiles, or a lockfile and a server.
    Diff(diff_cmd::DiffArgs),
}

impl Command {
    /// The connection options of a command that reaches a server.
    fn connect_args(&self) -> Option<&target::ConnectArgs> {
        match self {
            Command::Call(args) => Some(&args.connect),
            Command::Tools(args) => Some(&args.server.connect),
            Command::Resources(args) => Some(&args.server.connect),
            Command::Templates(args) => Some(&args.server.connect),
            Command::Read(args) => Some(&args.connect),
            Command::Prompts(args) => Some(&args.server.connect),
            Command::Prompt(args) => Some(&args.connect),
            Command::Complete(args) => Some(&args.connect),
            Command::Skills(args) => Some(&args.server.connect),
            Command::Skill(args) => Some(&args.connect),
            Command::Lock(args) => Some(&args.connect),
            Command::Diff(args) => Some(&args.connect),
            _ => None,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A client command's log and OpenTelemetry; `fusion serve` and `fusion
    // gateway` install theirs with their own flags.
    let telemetry = match cli
        .command
        .connect_args()
        .map(|c| target::install_log(c.otel))
    {
        Some(Ok(telemetry)) => Some(telemetry),
        Some(Err(e)) => return target::usage(target::UsageError(e)),
        None => None,
    };
    let code = match cli.command {
        Command::Envelope(cmd) => envelope_cmd::run(cmd),
        #[cfg(feature = "example")]
        Command::Serve(args) => serve_cmd::run(*args),
        Command::Gateway(args) => gateway_cmd::run(*args),
        Command::Call(args) => call_cmd::run(args),
        Command::Tools(args) => tools_cmd::run(args),
        Command::Resources(args) => resources_cmd::run_resources(args),
        Command::Templates(args) => resources_cmd::run_templates(args),
        Command::Read(args) => resources_cmd::run_read(args),
        Command::Prompts(args) => prompts_cmd::run_prompts(args),
        Command::Prompt(args) => prompts_cmd::run_prompt(args),
        Command::Complete(args) => complete_cmd::run(args),
        Command::Skills(args) => skills_cmd::run_skills(args),
        Command::Skill(args) => skills_cmd::run_skill(args),
        Command::Lock(args) => lock_cmd::run(args),
        Command::Diff(args) => diff_cmd::run(args),
    };
    // After the command's runtime has ended: what OpenTelemetry buffered is
    // sent (blocking) before the process exits.
    drop(telemetry);
    code
}
