//! `fusion resources TARGET`, `fusion templates TARGET` and `fusion read
//! TARGET URI`: a server's resources and resource templates, and one
//! resource's contents (MCP 2025-11-25 server/resources).

use std::process::ExitCode;

use clap::Args;
use mcp_fusion::model::{ReadResourceResult, ResourceContents};
use serde_json::Value;

use crate::output::{self, Paint};
use crate::surface::{self, surface_help};
use crate::target::{self, ConnectArgs};

/// The hint after an unknown resource or a server without resources.
const LISTING: &str = "`fusion resources` and `fusion templates` list what this server serves";

/// Options of `fusion resources`.
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion resources [OPTIONS] <URL>\n       \
                      fusion resources [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = surface_help!()
)]
pub struct ResourcesArgs {
    /// The server's Streamable HTTP URL (omit with --cmd).
    #[arg(value_name = "URL")]
    url: Option<String>,
    #[command(flatten)]
    connect: ConnectArgs,
    /// Print the resources as JSON, as the server listed them: [{"uri",
    /// "name", "title"?, "description"?, "mimeType"?, "size"?}].
    #[arg(long)]
    json: bool,
}

/// Options of `fusion templates`.
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion templates [OPTIONS] <URL>\n       \
                      fusion templates [OPTIONS] --cmd '<COMMAND ARGS>'",
    after_help = surface_help!()
)]
pub struct TemplatesArgs {
    /// The server's Streamable HTTP URL (omit with --cmd).
    #[arg(value_name = "URL")]
    url: Option<String>,
    #[command(flatten)]
    connect: ConnectArgs,
    /// Print the templates as JSON, as the server listed them:
    /// [{"uriTemplate", "name", "title"?, "description"?, "mimeType"?}].
    #[arg(long)]
    json: bool,
}

/// Options of `fusion read`.
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
    connect: ConnectArgs,
    /// Print the result as JSON, as the server sent it: {"contents": [{"uri",
    /// "mimeType"?, "text" | "blob"}]}.
    #[arg(long)]
    json: bool,
}

/// Runs `fusion resources`.
pub fn run_resources(args: ResourcesArgs) -> ExitCode {
    let target = match args.connect.target(args.url.as_deref()) {
        Ok(target) => target,
        Err(err) => return target::usage(err),
    };
    target::block_on(surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| client.list_resources().await,
        |client, resources| {
            if args.json {
                return output::out_json(&surface::to_json(&resources));
            }
            let rows: Vec<Vec<String>> = resources
                .iter()
                .map(|r| {
                    vec![
                        r.uri.clone(),
                        r.name.clone(),
                        r.mime_type.clone().unwrap_or_default(),
                        first_line(r.description.as_deref()),
                    ]
                })
                .collect();
            let heading = surface::heading(client, &target, rows.len(), "resource");
            let paint = args.connect.paint_stdout();
            print_table(
                &paint,
                &heading,
                &["URI", "NAME", "MIME TYPE", "DESCRIPTION"],
                &rows,
            );
        },
    ))
}

/// Runs `fusion templates`.
pub fn run_templates(args: TemplatesArgs) -> ExitCode {
    let target = match args.connect.target(args.url.as_deref()) {
        Ok(target) => target,
        Err(err) => return target::usage(err),
    };
    target::block_on(surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| client.list_resource_templates().await,
        |client, templates| {
            if args.json {
                return output::out_json(&surface::to_json(&templates));
            }
            let rows: Vec<Vec<String>> = templates
                .iter()
                .map(|t| {
                    vec![
                        t.uri_template.clone(),
                        t.name.clone(),
                        t.mime_type.clone().unwrap_or_default(),
                        first_line(t.description.as_deref()),
                    ]
                })
                .collect();
            let heading = surface::heading(client, &target, rows.len(), "template");
            let paint = args.connect.paint_stdout();
            print_table(
                &paint,
                &heading,
                &["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
                &rows,
            );
        },
    ))
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
    target::block_on(surface::run(
        &target,
        &args.connect,
        args.json,
        LISTING,
        async |client| client.read_resource(&uri).await,
        |_, result| {
            if args.json {
                output::out_json(&surface::to_json(&result));
            } else {
                output::out(format_args!(
                    "{}",
                    contents_text(&result, &args.connect.paint_stdout())
                ));
            }
        },
    ))
}

/// The heading, a blank line, then the table (none for an empty list).
fn print_table(paint: &Paint, heading: &str, headers: &[&str], rows: &[Vec<String>]) {
    output::out_line(format_args!("{}", paint.bold(heading)));
    if !rows.is_empty() {
        output::out(format_args!("\n{}", output::table(paint, headers, rows)));
    }
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
