//! `fusion complete TARGET (--prompt NAME | --template URI_TEMPLATE)
//! --argument NAME [--value PARTIAL] [--context KEY=VALUE]...`: the values a
//! server suggests for a prompt argument or a template variable (MCP
//! 2025-11-25 server/utilities/completion).

use std::collections::HashMap;
use std::process::ExitCode;

use clap::{ArgGroup, Args};
use mcp_fusion::model::{CompletionInfo, Reference};

use crate::output::{self, Paint};
use crate::surface::{self, surface_help};
use crate::target::{self, ConnectArgs};

/// The hint after an unknown prompt, template or argument.
const LISTING: &str =
    "`fusion prompts` and `fusion templates` list the prompts and templates this server completes";

// Options of `fusion complete`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion complete [OPTIONS] <URL> (--prompt <NAME> | --template <URI_TEMPLATE>) --argument <NAME> [--value <PARTIAL>]\n       \
                      fusion complete [OPTIONS] --cmd '<COMMAND ARGS>' (--prompt <NAME> | --template <URI_TEMPLATE>) --argument <NAME> [--value <PARTIAL>]",
    group(ArgGroup::new("reference").required(true).args(["prompt", "template"])),
    after_help = surface_help!()
)]
pub struct CompleteArgs {
    /// The server's Streamable HTTP URL (omit with --cmd).
    #[arg(value_name = "URL")]
    url: Option<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Complete an argument of this prompt (`ref/prompt`).
    #[arg(long, value_name = "NAME")]
    prompt: Option<String>,
    /// Complete a variable of this resource template, its URI template as
    /// listed (`ref/resource`), e.g. 'test://template/{id}/data'.
    #[arg(long, value_name = "URI_TEMPLATE")]
    template: Option<String>,
    /// The argument (or template variable) to complete.
    #[arg(long, value_name = "NAME")]
    argument: String,
    /// What was typed of it so far.
    #[arg(long, value_name = "PARTIAL", default_value = "")]
    value: String,
    /// An argument already chosen, sent as context (repeat for more).
    #[arg(long, value_name = "KEY=VALUE")]
    context: Vec<String>,
    /// Print the completion as JSON, as the server sent it: {"values",
    /// "total"?, "hasMore"?}.
    #[arg(long)]
    json: bool,
}

/// Runs `fusion complete`.
pub fn run(args: CompleteArgs) -> ExitCode {
    let parsed = args.connect.target(args.url.as_deref()).and_then(|target| {
        let context = surface::key_values(&args.context, "--context")?;
        Ok((target, context.into_iter().collect::<HashMap<_, _>>()))
    });
    let (target, context) = match parsed {
        Ok(parts) => parts,
        Err(err) => return target::usage(err),
    };
    let reference = match (&args.prompt, &args.template) {
        (Some(prompt), _) => Reference::for_prompt(prompt),
        (None, Some(template)) => Reference::for_resource(template),
        // clap's group requires one of the two.
        (None, None) => Reference::for_prompt(""),
    };
    surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| {
            client
                .complete(reference, &args.argument, &args.value, context)
                .await
        },
        |_, completion| {
            for value in &completion.values {
                output::out_line(format_args!("{value}"));
            }
            if let Some(note) = summary(&completion, &args.connect.paint_stderr()) {
                output::err_line(format_args!("{note}"));
            }
        },
    )
}

/// The line after the values, on stderr: how many there are in all and
/// whether there are more (`(3 of 10 values, more available)`), or that
/// there are none; `None` when the server said nothing of either.
fn summary(completion: &CompletionInfo, paint: &Paint) -> Option<String> {
    let shown = completion.values.len();
    let more = completion.has_more == Some(true);
    let text = match (completion.total, more) {
        _ if shown == 0 && !more => String::from("(no values)"),
        (Some(total), true) => format!("({shown} of {total} values, more available)"),
        (Some(total), false) if total as usize != shown => {
            format!("({shown} of {total} values)")
        }
        (None, true) => format!("({shown} values, more available)"),
        _ => return None,
    };
    Some(paint.dim(&text))
}
