//! `fusion resources TARGET`, `fusion templates TARGET` and `fusion read
//! TARGET URI`: a server's resources and resource templates, and one
//! resource's contents (MCP 2025-11-25 server/resources).

use std::process::ExitCode;

use clap::Args;
use mcp_fusion::client::{FusionClient, FusionClientError};
use mcp_fusion::model::{ReadResourceResult, ResourceContents};
use serde_json::Value;

use crate::output::{self, Paint};
use crate::surface::{self, surface_help};
use crate::target::{self, ConnectArgs, TargetArgs};

/// The hint after an unknown resource or a server without resources.
const LISTING: &str = "`fusion resources` and `fusion templates` list what this server serves";

// Options of `fusion resources`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion resources [OPTIONS] <URL>\n       \
                      fusion resources [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = surface_help!()
)]
pub struct ResourcesArgs {
    #[command(flatten)]
    pub(crate) server: TargetArgs,
    /// Print the resources as JSON, as the server listed them: [{"uri",
    /// "name", "title"?, "description"?, "mimeType"?, "size"?}].
    #[arg(long)]
    json: bool,
}

// Options of `fusion templates`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion templates [OPTIONS] <URL>\n       \
                      fusion templates [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = surface_help!()
)]
pub struct TemplatesArgs {
    #[command(flatten)]
    pub(crate) server: TargetArgs,
    /// Print the templates as JSON, as the server listed them:
    /// [{"uriTemplate", "name", "title"?, "description"?, "mimeType"?}].
    #[arg(long)]
    json: bool,
}

// Options of `fusion read`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion read [OPTIONS] <URL> <URI>\n       \
                      fusion read [OPTIONS] --cmd '<COMMAND ARGS>' <URI>",
    after_help = surface_help!()
)]
pub struct ReadArgs {
    /// <URL> <URI>, or <URI> with --cmd: the resource's URI, a listed one or
    /// one a template expands to (e.g. test://template/7/data).
    #[arg(value_name = "ARGS", num_args = 1.., required = true)]
    args: Vec<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Print the result as JSON, as the server sent it: {"contents": [{"uri",
    /// "mimeType"?, "text" | "blob"}]}.
    #[arg(long)]
    json: bool,
}

/// Runs `fusion resources`.
pub fn run_resources(args: ResourcesArgs) -> ExitCode {
    run_table(
        &args.server,
        args.json,
        async |client| client.list_resources().await,
        ("resource", &["URI", "NAME", "MIME TYPE", "DESCRIPTION"]),
        |r| {
            row(
                &r.uri,
                &r.name,
                r.mime_type.as_deref(),
                r.description.as_deref(),
            )
        },
    )
}

/// Runs `fusion templates`.
pub fn run_templates(args: TemplatesArgs) -> ExitCode {
    run_table(
        &args.server,
        args.json,
        async |client| client.list_resource_templates().await,
        (
            "template",
            &["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
        ),
        |t| {
            row(
                &t.uri_template,
                &t.name,
                t.mime_type.as_deref(),
                t.description.as_deref(),
            )
        },
    )
}

/// Runs a list request and prints what it lists: its JSON with `json`,
/// else the heading (`noun` counted) and a table with `headers`, one row a
/// listed item.
fn run_table<T: serde::Serialize>(
    server: &TargetArgs,
    json: bool,
    request: impl AsyncFnOnce(&FusionClient) -> Result<Vec<T>, FusionClientError>,
    (noun, headers): (&str, &[&str]),
    row: impl Fn(&T) -> Vec<String>,
) -> ExitCode {
    surface::list(server, json, LISTING, request, |client, target, items| {
        let rows: Vec<Vec<String>> = items.iter().map(row).collect();
        let heading = surface::heading(client, target, rows.len(), noun);
        let paint = server.connect.paint_stdout();
        output::out_line(format_args!("{}", paint.bold(&heading)));
        if !rows.is_empty() {
            output::out(format_args!("\n{}", output::table(&paint, headers, &rows)));
        }
    })
}

/// Runs `fusion read`.
pub fn run_read(args: ReadArgs) -> ExitCode {
    let (target, uri) =
        match surface::target_and_words(&args.args, &args.connect, "the resource URI").and_then(
            |(target, words)| {
                Ok((
                    target,
                    surface::one_word(words, &args.connect, "resource URI")?,
                ))
            },
        ) {
            Ok(parts) => parts,
            Err(err) => return target::usage(err),
        };
    surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| client.read_resource(&uri).await,
        |_, result| {
            output::out(format_args!(
                "{}",
                contents_text(&result, &args.connect.paint_stdout())
            ));
        },
    )
}

/// A listed resource's or template's row: its URI (or URI template), name,
/// MIME type (empty when not given) and the first line of its description.
fn row(uri: &str, name: &str, mime_type: Option<&str>, description: Option<&str>) -> Vec<String> {
    vec![
        uri.to_owned(),
        name.to_owned(),
        mime_type.unwrap_or_default().to_owned(),
        first_line(description),
    ]
}

/// The first line of a description, or nothing.
fn first_line(text: Option<&str>) -> String {
    text.and_then(|t| t.lines().next())
        .unwrap_or("")
        .trim()
        .to_owned()
}

/// A read's contents for a person: text as it is (ending with a line end),
/// a blob as one line `[blob MIME, N bytes]`; when there are several, each
/// after a `--- URI` line.
fn contents_text(result: &ReadResourceResult, paint: &Paint) -> String {
    let several = result.contents.len() > 1;
    let mut out = String::new();
    for content in &result.contents {
        let value = surface::to_json(content);
        let uri = value.get("uri").and_then(Value::as_str).unwrap_or("?");
        let mime = value
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("no MIME type");
        if several {
            out.push_str(&paint.dim(&format!("--- {uri}")));
            out.push('\n');
        }
        match content {
            ResourceContents::TextResourceContents { text, .. } => {
                out.push_str(text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
            ResourceContents::BlobResourceContents { blob, .. } => {
                let bytes = output::base64_bytes(blob);
                let unit = if bytes == 1 { "byte" } else { "bytes" };
                out.push_str(&format!("[blob {mime}, {bytes} {unit}]\n"));
            }
            // A kind of contents a later revision adds: its JSON.
            #[allow(unreachable_patterns)]
            _ => {
                out.push_str(&value.to_string());
                out.push('\n');
            }
        }
    }
    if result.contents.is_empty() {
        out.push_str(&paint.dim("(the resource has no contents)"));
        out.push('\n');
    }
    out
}
