//! `fusion prompts TARGET` and `fusion prompt TARGET NAME [ARGS]`: a
//! server's prompts with their arguments, and one prompt's messages (MCP
//! 2025-11-25 server/prompts).

use std::process::ExitCode;

use clap::Args;
use mcp_fusion::model::{GetPromptResult, Prompt, ResourceContents, Role};
use serde_json::Value;

use crate::call_cmd;
use crate::output::{self, Paint};
use crate::surface::{self, surface_help};
use crate::target::{self, ConnectArgs, TargetArgs, UsageError};

/// The hint after an unknown prompt or arguments it refuses.
const LISTING: &str = "`fusion prompts` lists the prompts this server has, with their arguments";

// Options of `fusion prompts`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion prompts [OPTIONS] <URL>\n       \
                      fusion prompts [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = surface_help!()
)]
pub struct PromptsArgs {
    #[command(flatten)]
    pub(crate) server: TargetArgs,
    /// Print the prompts as JSON, as the server listed them: [{"name",
    /// "title"?, "description"?, "arguments"?: [{"name", "description"?,
    /// "required"?}]}].
    #[arg(long)]
    json: bool,
}

// Options of `fusion prompt`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion prompt [OPTIONS] <URL> <NAME> [KEY=VALUE... | JSON]\n       \
                      fusion prompt [OPTIONS] --cmd '<COMMAND ARGS>' <NAME> [KEY=VALUE... | JSON]",
    after_help = surface_help!()
)]
pub struct PromptArgs {
    /// <URL> <NAME> [ARGS], or <NAME> [ARGS] with --cmd. ARGS are the
    /// prompt's arguments: `key=value` words (e.g. arg1=paris 'arg2=big
    /// city'), or as `fusion call` takes them, ONE JSON object in single
    /// quotes (e.g. '{"arg1": "paris"}'; `-` reads it from stdin).
    #[arg(value_name = "ARGS", num_args = 1.., required = true)]
    args: Vec<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Print the result as JSON, as the server sent it: {"description"?,
    /// "messages": [{"role", "content"}]}.
    #[arg(long)]
    json: bool,
}

/// Runs `fusion prompts`.
pub fn run_prompts(args: PromptsArgs) -> ExitCode {
    surface::list(
        &args.server,
        args.json,
        LISTING,
        async |client| client.list_prompts().await,
        |client, target, prompts| {
            let heading = surface::heading(client, target, prompts.len(), "prompt");
            output::out(format_args!(
                "{}",
                prompts_text(&heading, &prompts, &args.server.connect.paint_stdout())
            ));
        },
    )
}

/// Runs `fusion prompt`.
pub fn run_prompt(args: PromptArgs) -> ExitCode {
    let parsed = surface::target_and_words(&args.args, &args.connect, "the prompt NAME").and_then(
        |(target, words)| {
            let name = words[0].clone();
            if args.connect.cmd.is_some() && target::is_http_url(&name) {
                return Err(UsageError(format!(
                    "both --cmd and a URL (`{name}`) were given; use one of them"
                )));
            }
            Ok((target, name, prompt_arguments(&words[1..])?))
        },
    );
    let (target, name, arguments) = match parsed {
        Ok(parts) => parts,
        Err(err) => return target::usage(err),
    };
    surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| client.get_prompt(&name, arguments).await,
        |_, result| {
            output::out(format_args!(
                "{}",
                messages_text(&result, &args.connect.paint_stdout())
            ));
        },
    )
}

/// The prompt's arguments: none, ONE JSON object word (or `-`, stdin) as
/// `fusion call` reads it, or `key=value` words.
fn prompt_arguments(words: &[String]) -> Result<Value, UsageError> {
    match words {
        [] => Ok(Value::Null),
        [one] if one == "-" || one.trim_start().starts_with('{') => call_cmd::arguments(Some(one)),
        pairs => {
            let map = surface::key_values(
                pairs,
                "the prompt's arguments (KEY=VALUE or one JSON object)",
            )?;
            Ok(Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect(),
            ))
        }
    }
}

/// The prompt list for a person: each prompt with the first line of its
/// description, then one line per argument (`(required)` marked) with its
/// description.
fn prompts_text(heading: &str, prompts: &[Prompt], paint: &Paint) -> String {
    let mut out = format!("{}\n", paint.bold(heading));
    if prompts.is_empty() {
        return out;
    }
    out.push('\n');
    let column = prompts.iter().map(|p| p.name.len()).max().unwrap_or(0) + 2;
    for prompt in prompts {
        let description = prompt
            .description
            .as_deref()
            .and_then(|d| d.lines().next())
            .unwrap_or("");
        if description.is_empty() {
            out.push_str(&format!("{}\n", paint.green(&prompt.name)));
        } else {
            let pad = " ".repeat(column.saturating_sub(prompt.name.len()).max(2));
            out.push_str(&format!(
                "{}{pad}{}\n",
                paint.green(&prompt.name),
                paint.dim(description)
            ));
        }
        let arguments = prompt.arguments.as_deref().unwrap_or_default();
        let labels: Vec<String> = arguments
            .iter()
            .map(|a| match a.required {
                Some(true) => format!("{} (required)", a.name),
                _ => a.name.clone(),
            })
            .collect();
        let width = labels.iter().map(String::len).max().unwrap_or(0);
        for (argument, label) in arguments.iter().zip(&labels) {
            let description = argument
                .description
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or("");
            let line = if description.is_empty() {
                format!("  {label}")
            } else {
                let pad = " ".repeat(width - label.len() + 2);
                format!("  {label}{pad}{}", paint.dim(description))
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// A prompt's messages for a person: the description (when given), then
/// each message as its role (`user:`, `assistant:`) and its content
/// indented, a blank line between messages; text as it is, an embedded text resource as `[resource URI]`
/// and its text, other content in one line.
fn messages_text(result: &GetPromptResult, paint: &Paint) -> String {
    let mut out = String::new();
    if let Some(description) = &result.description {
        out.push_str(&paint.dim(description));
        out.push_str("\n\n");
    }
    for (index, message) in result.messages.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        out.push_str(&paint.cyan(&format!("{role}:")));
        out.push('\n');
        let content = &message.content;
        let text = match content.as_text() {
            Some(text) => text.text.clone(),
            None => {
                let mut text = output::describe_block(content);
                if let Some(resource) = content.as_resource()
                    && let ResourceContents::TextResourceContents { text: inner, .. } =
                        &resource.resource
                {
                    text.push('\n');
                    text.push_str(inner);
                }
                text
            }
        };
        for line in text.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}
