//! `fusion lock TARGET [-o fusion.lock]`: write the contract lockfile of any
//! MCP server; `fusion lock --check TARGET [--lock fusion.lock]`: compare it
//! with the server, for CI (`docs/contracts.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use mcp_fusion::client::Target;
use mcp_fusion::contract::{Lockfile, ServerContract, diff};

use crate::diff_table::table;
use crate::fetch::fetch_contract;
use crate::output;
use crate::target::{self, ConnectArgs, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE_OR_CONNECTION};

/// The `--help` text about targets and exit codes of `fusion lock`.
const LOCK_HELP: &str = "\
TARGET is either an http:// or https:// URL of a Streamable HTTP endpoint
(e.g. http://127.0.0.1:8080/mcp), or --cmd 'COMMAND ARGS': a command started
by fusion and spoken to over its stdin/stdout (split like a POSIX shell would,
but no shell is run). Any MCP server works: tools of an mcp-fusion server are
locked action by action, any other tool as one action.

The lockfile holds each action's full input and output schemas, annotations,
deprecation, required scopes and guard settings, with SHA-256 digests; its
bytes depend only on the contract (sorted keys, no timestamp), so commit it.

Colour is used only when the output is a terminal and NO_COLOR is not set
(--color overrides).

Exit codes:
  0  the lockfile was written; with --check: the server matches it
  1  with --check: the server's contract differs (the changes are printed)
  2  usage error, unreadable lockfile, connection or protocol error";

// Options of `fusion lock`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion lock [OPTIONS] <URL> [-o FILE]\n       \
                      fusion lock [OPTIONS] --cmd '<COMMAND ARGS>' [-o FILE]\n       \
                      fusion lock --check [OPTIONS] (<URL> | --cmd '<COMMAND ARGS>') [--lock FILE]",
    after_help = LOCK_HELP
)]
pub struct LockArgs {
    /// The server's Streamable HTTP URL (omit with --cmd).
    #[arg(value_name = "URL")]
    url: Option<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Where to write the lockfile.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        default_value = "fusion.lock"
    )]
    output: PathBuf,
    /// Do not write: compare the server with the lockfile (--lock) and exit 1
    /// with the changes when they differ.
    #[arg(long, conflicts_with = "output")]
    check: bool,
    /// The lockfile --check compares with (only with --check: the lockfile
    /// written is -o FILE).
    #[arg(
        long = "lock",
        value_name = "FILE",
        default_value = "fusion.lock",
        requires = "check"
    )]
    lock: PathBuf,
}

/// Runs `fusion lock`.
pub fn run(args: LockArgs) -> ExitCode {
    let target = match args.connect.target(args.url.as_deref()) {
        Ok(target) => target,
        Err(err) => return target::usage(err),
    };
    let locked = if args.check {
        match Lockfile::read(&args.lock) {
            Ok(lockfile) => Some(lockfile),
            Err(err) => {
                output::err_line(format_args!(
                    "{} {}: {err}",
                    args.connect.paint_stderr().red_bold("error:"),
                    args.lock.display()
                ));
                return ExitCode::from(EXIT_USAGE_OR_CONNECTION);
            }
        }
    } else {
        None
    };
    target::block_on(async move {
        let (contract, server) = match fetch_contract(&target, &args.connect).await {
            Ok(fetched) => fetched,
            Err(code) => return code,
        };
        match locked {
            Some(lockfile) => check(&lockfile, &contract, &args, &target),
            None => write(Lockfile::new(contract, server), &args),
        }
    })
}

fn write(lockfile: Lockfile, args: &LockArgs) -> ExitCode {
    if let Err(err) = lockfile.write(&args.output) {
        output::err_line(format_args!(
            "{} {err}",
            args.connect.paint_stderr().red_bold("error:")
        ));
        return ExitCode::from(EXIT_USAGE_OR_CONNECTION);
    }
    output::out_line(format_args!(
        "wrote {}: {} ({})",
        args.output.display(),
        counts(&lockfile.contract),
        lockfile.contract.digest()
    ));
    ExitCode::from(EXIT_OK)
}

fn check(
    lockfile: &Lockfile,
    current: &ServerContract,
    args: &LockArgs,
    target: &Target,
) -> ExitCode {
    let paint = args.connect.paint_stdout();
    let lock = args.lock.display();
    if lockfile.contract.digest() == current.digest() {
        output::out_line(format_args!(
            "{} {lock} is up to date: {} ({})",
            paint.green("ok:"),
            counts(current),
            current.digest()
        ));
        return ExitCode::from(EXIT_OK);
    }
    let changes = diff(&lockfile.contract, current);
    output::out(format_args!(
        "{}",
        table(&changes, &format!("{lock} → {target}"), &paint)
    ));
    let max = changes
        .max_severity()
        .map_or_else(String::new, |s| format!(", the most severe {s}"));
    output::out_line(format_args!(
        "\n{} {lock} is out of date: {} {}{max}. Review them, then run `fusion lock` to update it.",
        paint.red_bold("changed:"),
        changes.deltas.len(),
        if changes.deltas.len() == 1 {
            "change"
        } else {
            "changes"
        },
    ));
    ExitCode::from(EXIT_TOOL_ERROR)
}

/// `2 tools, 9 actions`.
fn counts(contract: &ServerContract) -> String {
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "{}, {}",
        plural(contract.tools.len(), "tool"),
        plural(contract.action_count(), "action")
    )
}
