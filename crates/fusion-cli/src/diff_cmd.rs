//! `fusion diff OLD.lock NEW.lock` or `fusion diff OLD.lock TARGET`: the
//! contract changes between two lockfiles, or between a lockfile and a live
//! server, as a grouped table or JSON (`docs/contracts.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use mcp_fusion::contract::{Lockfile, ServerContract, diff};
use serde_json::json;

use crate::diff_table::table;
use crate::fetch::fetch_contract;
use crate::output;
use crate::target::{
    self, ConnectArgs, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE_OR_CONNECTION, UsageError,
};

/// The `--help` text of `fusion diff`.
const DIFF_HELP: &str = "\
NEW is a second lockfile, or a live server: an http:// or https:// URL, or
--cmd 'COMMAND ARGS' in its place (a command started by fusion and spoken to
over its stdin/stdout). Each change has a severity: BREAKING (calls that
worked will fail), RISKY (they may fail or behave differently), SAFE (they
still work) or COSMETIC (text only); docs/contracts.md has the rule table.

Colour is used only when the output is a terminal and NO_COLOR is not set
(--color overrides).

Exit codes:
  0  no BREAKING change (there may be others)
  1  at least one BREAKING change
  2  usage error, unreadable lockfile, connection or protocol error";

/// How `fusion diff` prints the changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table grouped by tool and action.
    Table,
    /// One JSON object: {"old", "new", "changes", "max_severity", "counts",
    /// "deltas": [{"tool", "action", "field", "severity", "old", "new",
    /// "description"}]}.
    Json,
}

// Options of `fusion diff`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion diff [OPTIONS] <OLD.lock> <NEW.lock>\n       \
                      fusion diff [OPTIONS] <OLD.lock> <URL>\n       \
                      fusion diff [OPTIONS] <OLD.lock> --cmd '<COMMAND ARGS>'",
    after_help = DIFF_HELP
)]
pub struct DiffArgs {
    /// The old (known-good) lockfile.
    #[arg(value_name = "OLD.lock")]
    old: PathBuf,
    /// The new lockfile, or the URL of a live server (omit with --cmd).
    #[arg(value_name = "NEW")]
    new: Option<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Print a table or JSON.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Runs `fusion diff`.
pub fn run(args: DiffArgs) -> ExitCode {
    let paint_err = args.connect.paint_stderr();
    let read = |path: &std::path::Path| {
        Lockfile::read(path).map_err(|err| {
            output::err_line(format_args!(
                "{} {}: {err}",
                paint_err.red_bold("error:"),
                path.display()
            ));
            ExitCode::from(EXIT_USAGE_OR_CONNECTION)
        })
    };
    // NEW as `HOST:PORT/PATH` that is no file: a URL typed without its scheme.
    if let (None, Some(new)) = (&args.connect.cmd, args.new.as_deref())
        && !target::is_http_url(new)
        && !std::path::Path::new(new).exists()
        && let Some(err) = target::missing_scheme(new)
    {
        return target::usage(err);
    }
    let old = match read(&args.old) {
        Ok(lockfile) => lockfile,
        Err(code) => return code,
    };
    let old_name = args.old.display().to_string();
    match (&args.connect.cmd, args.new.as_deref()) {
        (None, Some(path)) if !target::is_http_url(path) => {
            let new = match read(std::path::Path::new(path)) {
                Ok(lockfile) => lockfile,
                Err(code) => return code,
            };
            report(&old.contract, &new.contract, &old_name, path, &args)
        }
        (None, None) => target::usage(UsageError(
            "missing NEW: give a second lockfile, an http(s):// URL, or --cmd 'COMMAND ARGS'"
                .into(),
        )),
        (cmd, url) => {
            let target = match args.connect.target(url) {
                Ok(target) => target,
                Err(err) => return target::usage(err),
            };
            let new_name = if cmd.is_some() {
                format!("--cmd '{target}'")
            } else {
                target.to_string()
            };
            target::block_on(async {
                match fetch_contract(&target, &args.connect).await {
                    Ok((current, _)) => {
                        report(&old.contract, &current, &old_name, &new_name, &args)
                    }
                    Err(code) => code,
                }
            })
        }
    }
}

fn report(
    old: &ServerContract,
    new: &ServerContract,
    old_name: &str,
    new_name: &str,
    args: &DiffArgs,
) -> ExitCode {
    let changes = diff(old, new);
    match args.format {
        Format::Json => {
            let mut value = json!({"old": old_name, "new": new_name});
            if let (Some(out), serde_json::Value::Object(fields)) =
                (value.as_object_mut(), changes.to_json())
            {
                out.extend(fields);
            }
            output::out_json(&value);
        }
        Format::Table => output::out(format_args!(
            "{}",
            table(
                &changes,
                &format!("{old_name} → {new_name}"),
                &args.connect.paint_stdout()
            )
        )),
    }
    if changes.is_breaking() {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::from(EXIT_OK)
    }
}
