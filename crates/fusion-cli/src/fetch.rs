//! Fetching a live server's contract for `fusion lock` and `fusion diff`:
//! connect, list the tools, read their contract, with a progress line.

use std::io::IsTerminal;
use std::process::ExitCode;

use mcp_fusion::client::Target;
use mcp_fusion::contract::{ServerContract, ServerInfo};

use crate::output;
use crate::target::{self, ConnectArgs, EXIT_USAGE_OR_CONNECTION};

/// Connects to `target`, lists its tools and reads their contract, with a
/// progress line on stderr (rewritten in place on a terminal). Errors are
/// printed; the exit code is returned.
pub(crate) async fn fetch_contract(
    target: &Target,
    connect: &ConnectArgs,
) -> Result<(ServerContract, Option<ServerInfo>), ExitCode> {
    let mut progress = Progress::new();
    progress.step(&format!("fusion: connecting to {target}…"));
    let client = match target::connect(target, connect).await {
        Ok(client) => client,
        Err(code) => {
            progress.clear();
            return Err(code);
        }
    };
    let server = client
        .server_name()
        .map(|(name, version)| ServerInfo { name, version });
    let who = server.as_ref().map_or_else(
        || target.to_string(),
        |s| format!("{} {}", s.name, s.version),
    );
    progress.step(&format!("fusion: listing the tools of {who}…"));
    let listed = client.contract_tools().await;
    progress.clear();
    let result = match listed {
        Ok(tools) => ServerContract::from_tools(&tools).map_err(|err| {
            output::err_line(format_args!(
                "{} the tools of {who} do not describe a readable contract: {err}",
                connect.paint_stderr().red_bold("error:")
            ));
            ExitCode::from(EXIT_USAGE_OR_CONNECTION)
        }),
        Err(err) => {
            target::print_failure(&err, client.server_stderr(), connect);
            Err(ExitCode::from(EXIT_USAGE_OR_CONNECTION))
        }
    };
    client.close().await;
    result.map(|contract| (contract, server))
}

/// A progress line on stderr: rewritten in place on a terminal, one plain
/// line per step otherwise (so CI logs show what was tried).
struct Progress {
    terminal: bool,
    shown: bool,
}

impl Progress {
    fn new() -> Self {
        Progress {
            terminal: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    fn step(&mut self, text: &str) {
        if self.terminal {
            output::err(format_args!("\r\x1b[2K{text}"));
        } else {
            output::err_line(format_args!("{text}"));
        }
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.terminal && self.shown {
            output::err(format_args!("\r\x1b[2K"));
        }
        self.shown = false;
    }
}
