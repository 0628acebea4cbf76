//! `fusion`: serve the example server, call MCP servers, render and parse envelopes.

mod envelope_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mcp-fusion's command-line tool.
#[derive(Debug, Parser)]
#[command(name = "fusion", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render or parse error envelopes (wire contract §2).
    #[command(subcommand)]
    Envelope(envelope_cmd::EnvelopeCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Envelope(cmd) => envelope_cmd::run(cmd),
    }
}
