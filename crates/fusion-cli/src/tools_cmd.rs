//! `fusion tools TARGET`: the server's tools, their actions and required fields.

use std::process::ExitCode;

use clap::Args;
use mcp_fusion::capability::{ActionListing, ToolListing};
use serde_json::{Value, json};

use crate::output::{self, Paint};
use crate::target::{self, EXIT_OK, EXIT_USAGE_OR_CONNECTION, TargetArgs};

// Options of `fusion tools`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion tools [OPTIONS] <URL>\n       \
                      fusion tools [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = target::after_help!(
        "\
Exit codes:
  0  success
  2  usage error, connection error, or protocol error"
    )
)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub(crate) server: TargetArgs,
    /// Print the tools as JSON: [{"name", "description", "required",
    /// "actions": [{"name", "required"}], "input_schema"}].
    #[arg(long)]
    json: bool,
}

/// Runs `fusion tools`.
pub fn run(args: ToolsArgs) -> ExitCode {
    let target = match args.server.target() {
        Ok(target) => target,
        Err(err) => return target::usage(err),
    };
    target::block_on(async move {
        let client = match target::connect(&target, &args.server.connect).await {
            Ok(client) => client,
            Err(code) => return code,
        };
        let code = match client.list_tools().await {
            Ok(tools) => {
                let discriminator = &client.options().discriminator;
                if args.json {
                    let list: Vec<Value> = tools
                        .iter()
                        .map(|tool| {
                            let mut value = listing_json(&ToolListing::of(tool, discriminator));
                            value["input_schema"] = Value::Object((*tool.input_schema).clone());
                            value
                        })
                        .collect();
                    output::out_json(&Value::Array(list));
                } else {
                    let server = client
                        .server_name()
                        .map(|(name, version)| format!("{name} {version}"))
                        .unwrap_or_else(|| target.to_string());
                    let listings: Vec<ToolListing> = tools
                        .iter()
                        .map(|tool| ToolListing::of(tool, discriminator))
                        .collect();
                    output::out(format_args!(
                        "{}",
                        tools_report(&server, &listings, &args.server.connect.paint_stdout())
                    ));
                }
                ExitCode::from(EXIT_OK)
            }
            Err(err) => {
                target::print_failure(&err, client.server_stderr(), &args.server.connect);
                ExitCode::from(EXIT_USAGE_OR_CONNECTION)
            }
        };
        client.close().await;
        code
    })
}

fn listing_json(listing: &ToolListing) -> Value {
    let actions: Vec<Value> = actions(listing)
        .iter()
        .map(|a| json!({"name": a.name, "required": a.required()}))
        .collect();
    json!({
        "name": listing.name,
        "description": first_line(&listing.description),
        "required": listing.required(),
        "actions": actions,
    })
}

/// A grouped tool's actions; none for a plain tool.
fn actions(listing: &ToolListing) -> &[ActionListing] {
    match listing.discriminator {
        Some(_) => &listing.actions,
        None => &[],
    }
}

/// The first line of a description that is not blank.
fn first_line(description: &str) -> Option<&str> {
    description
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
}

/// The tool list for a person: each tool with the first line of its
/// description and its required fields; a grouped tool with one line per
/// action, named as `fusion call` takes it (`tool.action`).
fn tools_report(server: &str, tools: &[ToolListing], paint: &Paint) -> String {
    let count = match tools.len() {
        1 => "1 tool".to_owned(),
        n => format!("{n} tools"),
    };
    let mut out = format!(
        "{} {}\n\n",
        paint.bold(server),
        paint.dim(&format!("({count})"))
    );
    let column = tools
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(0)
        .clamp(8, 28)
        + 2;
    let indent = " ".repeat(column);
    for tool in tools {
        let pad = " ".repeat(column.saturating_sub(tool.name.len()).max(2));
        let description = first_line(&tool.description).unwrap_or("");
        out.push_str(&format!(
            "{}{pad}{}\n",
            paint.green(&tool.name),
            paint.dim(description)
        ));
        let required = tool.required();
        if !required.is_empty() {
            out.push_str(&format!(
                "{indent}{} {}\n",
                paint.cyan("required:"),
                required.join(", ")
            ));
        }
        let width = actions(tool)
            .iter()
            .map(|a| tool.name.len() + 1 + a.name.len())
            .max()
            .unwrap_or(0);
        for action in actions(tool) {
            let dotted = format!("{}.{}", tool.name, action.name);
            let required = action.required();
            let required = if required.is_empty() {
                String::new()
            } else {
                format!(
                    "{}  {} {}",
                    " ".repeat(width.saturating_sub(dotted.len())),
                    paint.cyan("requires:"),
                    required.join(", ")
                )
            };
            out.push_str(&format!("  {}{required}\n", paint.green(&dotted)));
        }
    }
    out
}
