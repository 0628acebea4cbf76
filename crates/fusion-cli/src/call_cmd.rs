//! `fusion call TARGET NAME [JSON]`: call one tool and print what came back,
//! a failure readably (wire contract §8).

use std::io::Read;
use std::process::ExitCode;

use clap::Args;
use mcp_fusion::client::{FailureSource, FusionClientError, RetryPolicy, Success, ToolFailure};
use mcp_fusion::envelope::{self, META_KEY, ParsedEnvelope, to_meta};
use mcp_fusion::error::{AwarenessDelta, ChangeSeverity, ContractAwareness};
use mcp_fusion::model::CallToolResult;
use mcp_fusion::{Severity, ToolError};
use serde_json::{Value, json};

use crate::output::{self, Paint};
use crate::target::{
    self, ConnectArgs, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE_OR_CONNECTION, UsageError,
};

// Options of `fusion call`. (Not a doc comment: the subcommands are
// deferred, and clap would show it as the command's about.)
#[derive(Debug, Args)]
#[command(
    override_usage = "fusion call [OPTIONS] <URL> <NAME> [JSON]\n       \
                      fusion call [OPTIONS] --cmd '<COMMAND ARGS>' <NAME> [JSON]",
    after_help = target::after_help!(
        "\
Exit codes:
  0  success (a presenter's guidance, the stale-reads and egress notices
     and warnings, if any, are printed on stderr)
  1  the tool reported an error (isError: true)
  2  usage error, connection error, or protocol error (including a JSON-RPC
     error such as an unknown tool on servers that answer it that way)"
    )
)]
pub struct CallArgs {
    /// <URL> <NAME> [JSON], or <NAME> [JSON] with --cmd. NAME is a tool, or
    /// `tool.action` for a grouped tool. JSON is the arguments object
    /// (default {}), as ONE word: put it in single quotes, e.g.
    /// '{"id": "inv_1"}'; `-` reads it from stdin.
    // More words than that are accepted here only to be reported with the
    // cause (a JSON object the shell split) and the fix, not clap's words.
    #[arg(value_name = "ARGS", num_args = 1.., required = true)]
    args: Vec<String>,
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Print the outcome as one JSON object: {"result": ..., "warnings": [...]}
    /// on success, {"error": {"kind", "code", "message", ...}} on failure.
    #[arg(long, conflicts_with = "raw")]
    json: bool,
    /// Print the raw CallToolResult as the server sent it (pretty JSON).
    #[arg(long)]
    raw: bool,
    /// Retry RATE_LIMITED, SERVER_BUSY and HANDOFF_CONNECTING failures after
    /// their retry_after, making at most this many calls in all.
    #[arg(long, value_name = "ATTEMPTS")]
    retry: Option<u32>,
}

/// The parsed positional arguments.
struct Positionals {
    url: Option<String>,
    name: String,
    json: Option<String>,
}

fn positionals(args: &CallArgs) -> Result<Positionals, UsageError> {
    let mut rest = args.args.iter().cloned();
    let url = if args.connect.cmd.is_some() {
        None
    } else {
        rest.next()
    };
    let name = rest.next().ok_or_else(|| {
        UsageError(if args.connect.cmd.is_some() {
            "missing the tool NAME".into()
        } else {
            "missing the tool NAME after the URL (or use --cmd 'COMMAND ARGS' for a stdio server)"
                .into()
        })
    })?;
    if args.connect.cmd.is_some() && target::is_http_url(&name) {
        return Err(UsageError(format!(
            "both --cmd and a URL (`{name}`) were given; use one of them"
        )));
    }
    let json = rest.next();
    let extra: Vec<String> = rest.collect();
    if !extra.is_empty() {
        let words: Vec<String> = json
            .iter()
            .chain(&extra)
            .map(|word| format!("`{word}`"))
            .collect();
        let target = match (&args.connect.cmd, &url) {
            (Some(cmd), _) => format!("--cmd '{cmd}'"),
            (None, Some(url)) => url.clone(),
            (None, None) => String::from("URL"),
        };
        return Err(UsageError(format!(
            "expected one JSON argument after {name}, got {} words: {}. \
             The arguments must be ONE JSON object in single quotes (without them the \
             shell splits it into words at its spaces and removes its double quotes), e.g.\n  \
             fusion call {target} {name} '{{\"id\": \"inv_1\"}}'",
            words.len(),
            words.join(" "),
        )));
    }
    Ok(Positionals { url, name, json })
}

/// The arguments object of one JSON word (`fusion call`'s and `fusion
/// prompt`'s convention): `{}` when none, `-` read from stdin, `null` as `{}`.
pub(crate) fn arguments(json: Option<&str>) -> Result<Value, UsageError> {
    let text = match json {
        None => return Ok(json!({})),
        Some("-") => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map_err(|e| UsageError(format!("cannot read the arguments from stdin: {e}")))?;
            buf
        }
        Some(text) => text.to_owned(),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        // Without single quotes the shell removes the double quotes JSON needs.
        let hint = if json == Some("-") {
            ""
        } else {
            "; put the JSON object in single quotes, e.g. '{\"id\": \"inv_1\"}'"
        };
        UsageError(format!(
            "the arguments are not valid JSON ({e}): {text}{hint}"
        ))
    })?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(json!({})),
        _ => Err(UsageError(format!(
            "the arguments must be a JSON object, like '{{\"id\": 1}}'; got: {text}"
        ))),
    }
}

/// Runs `fusion call`.
pub fn run(args: CallArgs) -> ExitCode {
    let (target, name, call_args) = match positionals(&args).and_then(|p| {
        let target = args.connect.target(p.url.as_deref())?;
        Ok((target, p.name, arguments(p.json.as_deref())?))
    }) {
        Ok(parts) => parts,
        Err(err) => return target::usage(err),
    };
    target::block_on(async move {
        let mut connect = args.connect.client_options();
        if let Some(attempts) = args.retry {
            connect = connect.retry(RetryPolicy::new(attempts));
        }
        let client = match mcp_fusion::client::FusionClient::connect(&target, connect).await {
            Ok(client) => client,
            Err(err) => return report_other(&err, None, &args),
        };
        let code = if args.raw {
            match client.call(&name, call_args).await {
                Ok(result) => print_raw(&result),
                Err(err) => report_other(&err, client.server_stderr(), &args),
            }
        } else {
            match client.call_checked(&name, call_args).await {
                Ok(success) => print_success(&success, &args),
                Err(FusionClientError::Tool(failure)) => print_tool_failure(&failure, &args),
                Err(err) => report_other(&err, client.server_stderr(), &args),
            }
        };
        client.close().await;
        code
    })
}

fn print_raw(result: &CallToolResult) -> ExitCode {
    output::out_json(&serde_json::to_value(result).unwrap_or(Value::Null));
    if result.is_error == Some(true) {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::from(EXIT_OK)
    }
}

/// Pretty JSON for the human-readable output (which goes through the
/// terminal-safety pass when printed).
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// A connection, transport, protocol or JSON-RPC error: exit code 2.
fn report_other(
    err: &FusionClientError,
    server_stderr: Option<String>,
    args: &CallArgs,
) -> ExitCode {
    if args.json || args.raw {
        let mut error = err.to_json();
        if let (Some(text), Value::Object(map)) = (&server_stderr, &mut error) {
            map.entry("server_stderr").or_insert_with(|| json!(text));
        }
        output::out_json(&json!({ "error": error }));
    }
    if !args.json {
        target::print_failure(err, server_stderr, &args.connect);
    }
    ExitCode::from(EXIT_USAGE_OR_CONNECTION)
}

fn print_success(success: &Success, args: &CallArgs) -> ExitCode {
    if args.json {
        let warnings: Vec<Value> = success.warnings.iter().map(to_meta).collect();
        output::out_json(&json!({"result": success.value(), "warnings": warnings}));
    } else {
        let out = success_text(success);
        if out.is_empty() {
            output::err_line(format_args!(
                "{}",
                args.connect
                    .paint_stderr()
                    .dim("(the tool returned no content)")
            ));
        } else {
            output::out_line(format_args!("{out}"));
        }
    }
    if !args.json {
        // A presenter's guidance and the server's notices (wire contract
        // §9): on stderr, so that stdout holds the data alone.
        for text in success.result.content.iter().filter_map(|b| b.as_text()) {
            if written_for_the_model(&text.text) {
                output::err_line(format_args!("{}", text.text));
            }
        }
    }
    if !success.warnings.is_empty() {
        let paint = args.connect.paint_stderr();
        for warning in &success.warnings {
            output::err(format_args!("{}", warning_report(warning, &paint)));
        }
    }
    ExitCode::from(EXIT_OK)
}

/// Whether a text block is written for the model beside the data: a
/// presenter's guidance (wire contract §9.1) or a notice (§9.2, §9.3).
fn written_for_the_model(text: &str) -> bool {
    mcp_fusion::present::is_guidance(text) || mcp_fusion::present::is_notice(text)
}

/// The output of a success for a person: each content block that is neither
/// a presenter's guidance, a notice nor a warning, text as it is (JSON
/// pretty-printed), other blocks described in one line; the
/// `structuredContent` when there is no text.
fn success_text(success: &Success) -> String {
    let mut parts = Vec::new();
    let mut any_text = false;
    for (index, block) in success.result.content.iter().enumerate() {
        if success.is_warning_block(index) {
            continue;
        }
        if block
            .as_text()
            .is_some_and(|t| written_for_the_model(&t.text))
        {
            continue;
        }
        match block.as_text() {
            Some(text) => {
                any_text = true;
                parts.push(pretty_if_json(&text.text));
            }
            None => parts.push(output::describe_block(block)),
        }
    }
    if !any_text && let Some(structured) = success.structured() {
        parts.push(pretty(structured));
    }
    parts.join("\n")
}

fn pretty_if_json(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ (Value::Object(_) | Value::Array(_))) => pretty(&value),
        _ => text.to_owned(),
    }
}

fn print_tool_failure(failure: &ToolFailure, args: &CallArgs) -> ExitCode {
    if args.json {
        let mut error = serde_json::Map::new();
        error.insert("kind".into(), json!("tool"));
        if let Value::Object(fields) = failure.to_json() {
            error.extend(fields);
        }
        error.insert("source".into(), json!(failure.source.as_str()));
        if let Some(structured) = &failure.raw.structured_content {
            error.insert("structured_content".into(), structured.clone());
        }
        output::out_json(&json!({ "error": error }));
    } else {
        output::out(format_args!(
            "{}",
            failure_report(failure, &args.connect.paint_stdout())
        ));
    }
    ExitCode::from(EXIT_TOOL_ERROR)
}

/// One `label: value` line; continuation lines of the value are indented
/// under its first line.
fn line(out: &mut String, paint: &Paint, label: &str, value: &str) {
    const WIDTH: usize = 18;
    let pad = " ".repeat(WIDTH.saturating_sub(label.len() + 1));
    let mut lines = value.lines();
    let first = lines.next().unwrap_or("");
    out.push_str(&format!(
        "  {}{pad} {first}\n",
        paint.cyan(&format!("{label}:"))
    ));
    for more in lines {
        out.push_str(&format!("  {} {more}\n", " ".repeat(WIDTH)));
    }
}

fn headline(paint: &Paint, code: &str, severity: Severity, what: &str) -> String {
    let code = match severity {
        Severity::Critical => paint.magenta_bold(code),
        Severity::Warning => paint.yellow_bold(code),
        Severity::Error => paint.red_bold(code),
    };
    format!(
        "{what} {code} {}\n",
        paint.dim(&format!("(severity: {severity})"))
    )
}

/// A tool failure for a person: headline with code and severity, then
/// the next step (wire contract §2.1), message, recovery, validation fields,
/// actions, details and retry-after.
pub fn failure_report(f: &ToolFailure, paint: &Paint) -> String {
    failure_report_as(f, paint, "tool error")
}

/// [`failure_report`] with `what` opening the headline (e.g. `JSON-RPC
/// error -32602` for an envelope a prompt or resource answered with).
pub fn failure_report_as(f: &ToolFailure, paint: &Paint, what: &str) -> String {
    let mut out = headline(paint, f.code.as_str(), f.severity, what);
    if let Some(next_step) = &f.next_step {
        line(&mut out, paint, "next step", next_step);
    }
    if let Some(action) = &f.action {
        line(&mut out, paint, "action", action);
    }
    line(&mut out, paint, "message", &f.message);
    // Before the fields: a validation failure's recovery speaks of "the
    // fields below".
    if let Some(recovery) = &f.recovery {
        line(&mut out, paint, "recovery", recovery);
    }
    if !f.fields.is_empty() {
        out.push_str(&format!("  {}\n", paint.cyan("fields:")));
        for field in &f.fields {
            out.push_str(&format!(
                "    {}: {}\n",
                paint.bold(&field.path),
                field.message
            ));
        }
    }
    if let Some(awareness) = contract_awareness(f) {
        push_awareness(&mut out, paint, &awareness);
    }
    push_actions(&mut out, paint, &f.available_actions);
    push_details(&mut out, paint, &f.details);
    if let Some(wait) = f.retry_after_text() {
        line(&mut out, paint, "retry after", &wait);
    }
    if let Some(structured) = &f.raw.structured_content {
        line(
            &mut out,
            paint,
            "structured content",
            &structured.to_string(),
        );
    }
    match f.source {
        FailureSource::Text => out.push_str(&format!(
            "  {}\n",
            paint.dim("(plain text from the server: it sent no mcp-fusion envelope)")
        )),
        FailureSource::Empty => out.push_str(&format!(
            "  {}\n",
            paint.dim("(the server sent no text with this error)")
        )),
        // `_meta`, an envelope, or a source the library reads in the future:
        // what the server sent was structured, nothing to add.
        _ => {}
    }
    out
}

/// The `<contract_awareness>` section of a validation failure (§4.1): from
/// `_meta["mcp-fusion/error"].contract_awareness`, else from the envelope
/// text; `None` when the failure has none.
fn contract_awareness(f: &ToolFailure) -> Option<ContractAwareness> {
    let from_meta = f
        .raw
        .meta
        .as_ref()
        .and_then(|meta| meta.0.get(META_KEY))
        .and_then(|error| error.get("contract_awareness"))
        .and_then(awareness_of_json);
    from_meta.or_else(|| {
        let text: Vec<&str> = f
            .raw
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
            .collect();
        match envelope::parse(&text.join("\n")) {
            Ok(ParsedEnvelope::Validation(failure)) => failure.contract_awareness,
            _ => None,
        }
    })
}

/// `contract_awareness` of the `_meta` JSON twin: {"action", "changes",
/// "max_severity", "deltas": [{"severity", "field", "text"}]}.
fn awareness_of_json(value: &Value) -> Option<ContractAwareness> {
    let severity = |v: &Value| v.as_str()?.parse::<ChangeSeverity>().ok();
    let deltas = value
        .get("deltas")?
        .as_array()?
        .iter()
        .map(|d| {
            Some(AwarenessDelta {
                severity: severity(d.get("severity")?)?,
                field: d.get("field")?.as_str()?.to_owned(),
                text: d.get("text")?.as_str()?.to_owned(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(ContractAwareness {
        action: value.get("action")?.as_str()?.to_owned(),
        changes: usize::try_from(value.get("changes")?.as_u64()?).ok()?,
        max_severity: severity(value.get("max_severity")?)?,
        deltas,
    })
}

/// The contract changes for a person: what changed and how much, then one
/// line per change shown (`RISKY invoice_id: Field … was renamed …`).
fn push_awareness(out: &mut String, paint: &Paint, awareness: &ContractAwareness) {
    let changes = match awareness.changes {
        1 => String::from("1 change"),
        n => format!("{n} changes"),
    };
    let shown = if awareness.deltas.len() < awareness.changes {
        format!(", {} shown", awareness.deltas.len())
    } else {
        String::new()
    };
    let mut lines = vec![format!(
        "{} changed since the lockfile: {changes}{shown}, most severe {}",
        awareness.action, awareness.max_severity
    )];
    lines.extend(awareness.deltas.iter().map(|delta| {
        format!(
            "{} {}: {}",
            paint.yellow_bold(delta.severity.as_str()),
            paint.bold(&delta.field),
            delta.text
        )
    }));
    line(out, paint, "contract changes", &lines.join("\n"));
}

/// A warning for a person (printed on stderr after the output).
fn warning_report(w: &ToolError, paint: &Paint) -> String {
    let mut out = headline(paint, w.code.as_str(), w.severity, "warning");
    line(&mut out, paint, "message", &w.message);
    if let Some(recovery) = &w.recovery {
        line(&mut out, paint, "recovery", recovery);
    }
    push_actions(&mut out, paint, &w.available_actions);
    push_details(&mut out, paint, &w.details);
    if let Some(wait) = w.retry_after_text() {
        line(&mut out, paint, "retry after", &wait);
    }
    out
}

fn push_actions(out: &mut String, paint: &Paint, actions: &[String]) {
    if actions.is_empty() {
        return;
    }
    let names: Vec<String> = actions.iter().map(|a| paint.green(a)).collect();
    line(out, paint, "available actions", &names.join("\n"));
}

fn push_details(out: &mut String, paint: &Paint, details: &[(String, String)]) {
    if details.is_empty() {
        return;
    }
    let lines: Vec<String> = details.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    line(out, paint, "details", &lines.join("\n"));
}
