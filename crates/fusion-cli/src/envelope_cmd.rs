//! `fusion envelope render|parse`.

use std::process::ExitCode;

use clap::Subcommand;

/// The `fusion envelope` subcommands.
#[derive(Debug, Subcommand)]
pub enum EnvelopeCommand {
    /// Read one JSON object on stdin and print its envelope.
    Render {
        /// Print the `_meta` JSON twin instead of the XML.
        #[arg(long)]
        meta: bool,
    },
    /// Read text on stdin and print the envelope it holds as JSON.
    Parse,
}

/// Runs one `fusion envelope` subcommand.
pub fn run(_cmd: EnvelopeCommand) -> ExitCode {
    ExitCode::FAILURE
}
