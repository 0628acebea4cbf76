//! What the commands for the rest of a server's surface (`resources`,
//! `templates`, `read`, `prompts`, `prompt`, `complete`) share: their
//! positional words, `key=value` pairs, and one request run with
//! `fusion call`'s connection, error output and exit codes.

use std::collections::BTreeMap;
use std::process::ExitCode;

use mcp_fusion::client::{FusionClient, FusionClientError, Target, ToolFailure, check_result};
use mcp_fusion::envelope::META_KEY;
use mcp_fusion::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::{Value, json};

use crate::call_cmd;
use crate::output;
use crate::target::{self, ConnectArgs, EXIT_OK, EXIT_USAGE_OR_CONNECTION, TargetArgs, UsageError};

/// The `--help` text after the options of these commands: how TARGET is
/// given, then their exit codes (those of `fusion call` but 1, which only a
/// tool reports).
macro_rules! surface_help {
    () => {
        crate::target::after_help!(
            "\
Exit codes:
  0  success
  2  usage error, connection error, or protocol error (including a JSON-RPC
     error such as an unknown resource, prompt or argument)"
        )
    };
}
pub(crate) use surface_help;

/// The target and the words after it: `[URL] WORDS…`, the URL left out with
/// `--cmd`; `what` names the first word expected after it (e.g. `the
/// resource URI`), which must be there.
pub fn target_and_words(
    words: &[String],
    connect: &ConnectArgs,
    what: &str,
) -> Result<(Target, Vec<String>), UsageError> {
    let mut rest = words.iter().cloned();
    let url = match connect.cmd {
        Some(_) => None,
        None => rest.next(),
    };
    let rest: Vec<String> = rest.collect();
    if rest.is_empty() {
        return Err(UsageError(match &url {
            None if connect.cmd.is_some() => format!("missing {what}"),
            _ => format!(
                "missing {what} after the URL (or use --cmd 'COMMAND ARGS' for a stdio server)"
            ),
        }));
    }
    Ok((connect.target(url.as_deref())?, rest))
}

/// The one word left after the target (a URI, a name): more are a usage
/// error, naming a URL given with `--cmd` as such.
pub fn one_word(
    words: Vec<String>,
    connect: &ConnectArgs,
    what: &str,
) -> Result<String, UsageError> {
    let mut words = words.into_iter();
    let first = words.next().unwrap_or_default();
    let extra: Vec<String> = words.map(|w| format!("`{w}`")).collect();
    if extra.is_empty() {
        return Ok(first);
    }
    if connect.cmd.is_some() && target::is_http_url(&first) {
        return Err(UsageError(format!(
            "both --cmd and a URL (`{first}`) were given; use one of them"
        )));
    }
    Err(UsageError(format!(
        "expected one {what}, got more words: `{first}` {}",
        extra.join(" ")
    )))
}

/// `key=value` words as a map (the first `=` splits), in key order.
///
/// # Errors
/// A word without `=`, with an empty key, or a key given twice; `flag`
/// names where the words came from in the message.
pub fn key_values(words: &[String], flag: &str) -> Result<BTreeMap<String, String>, UsageError> {
    let mut pairs = BTreeMap::new();
    for word in words {
        let Some((key, value)) = word.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            return Err(UsageError(format!(
                "{flag}: expected key=value, got `{word}`"
            )));
        };
        if pairs.insert(key.to_owned(), value.to_owned()).is_some() {
            return Err(UsageError(format!("{flag}: `{key}` is given twice")));
        }
    }
    Ok(pairs)
}

/// Connects to `target`, sends `request`, and prints its answer (exit 0):
/// as its JSON on stdout with `json`, else with `text`; a failure
/// (connection, JSON-RPC, transport, time-out) is printed as `fusion call`
/// prints it, on stdout as `{"error": {...}}` with `json`, else on stderr:
/// an mcp-fusion envelope in the error's `data` as `fusion call` prints a
/// tool failure, any other error with `listing` as the hint after a
/// `-32602`, `-32601` or `-32002` (exit 2).
pub fn run<T: serde::Serialize>(
    target: &Target,
    connect: &ConnectArgs,
    json: bool,
    listing: &str,
    request: impl AsyncFnOnce(&FusionClient) -> Result<T, FusionClientError>,
    text: impl FnOnce(&FusionClient, T),
) -> ExitCode {
    target::block_on(async move {
        let client = match FusionClient::connect(target, connect.client_options()).await {
            Ok(client) => client,
            Err(err) => return report(&err, None, connect, json, listing),
        };
        let code = match request(&client).await {
            Ok(answer) if json => {
                output::out_json(&to_json(&answer));
                ExitCode::from(EXIT_OK)
            }
            Ok(answer) => {
                text(&client, answer);
                ExitCode::from(EXIT_OK)
            }
            Err(err) => report(&err, client.server_stderr(), connect, json, listing),
        };
        client.close().await;
        code
    })
}

/// A listing command's run: the target from `server` (a usage error exits
/// 2), then `request` as [`run`] sends it, `text` given the target for the
/// heading.
pub fn list<T: serde::Serialize>(
    server: &TargetArgs,
    json: bool,
    listing: &str,
    request: impl AsyncFnOnce(&FusionClient) -> Result<T, FusionClientError>,
    text: impl FnOnce(&FusionClient, &Target, T),
) -> ExitCode {
    let target = match server.target() {
        Ok(target) => target,
        Err(err) => return target::usage(err),
    };
    run(
        &target,
        &server.connect,
        json,
        listing,
        request,
        |client, answer| text(client, &target, answer),
    )
}

/// Prints a failure as JSON on stdout or readably on stderr; exit code 2.
fn report(
    err: &FusionClientError,
    server_stderr: Option<String>,
    connect: &ConnectArgs,
    json: bool,
    listing: &str,
) -> ExitCode {
    if json {
        let mut error = err.to_json();
        if let (Some(text), Value::Object(map)) = (&server_stderr, &mut error) {
            map.entry("server_stderr").or_insert_with(|| json!(text));
        }
        output::out_json(&json!({ "error": error }));
    } else if let Some((code, failure)) = envelope_failure(err) {
        let paint = connect.paint_stderr();
        let what = format!(
            "{} the server answered with a JSON-RPC error {code}:",
            paint.red_bold("error:")
        );
        output::err(format_args!(
            "{}",
            call_cmd::failure_report_as(&failure, &paint, &what)
        ));
    } else {
        target::print_failure_with_hint(err, server_stderr, connect, listing);
    }
    ExitCode::from(EXIT_USAGE_OR_CONNECTION)
}

/// A JSON-RPC error whose `data` is an mcp-fusion envelope's JSON twin
/// (`{"code", "severity", "message", ...}`, as a prompt or resource handler's
/// failure is sent, wire contract §1), read as `fusion call` reads a tool's
/// failure; `None` for any other error.
fn envelope_failure(err: &FusionClientError) -> Option<(i32, ToolFailure)> {
    let FusionClientError::JsonRpc {
        code,
        message,
        data: Some(data),
    } = err
    else {
        return None;
    };
    let is_envelope = ["code", "severity", "message"]
        .iter()
        .all(|key| data.get(key).is_some_and(Value::is_string));
    if !is_envelope {
        return None;
    }
    let mut result = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    let mut meta = serde_json::Map::new();
    meta.insert(META_KEY.to_owned(), data.clone());
    result.meta = Some(MetaObject(meta));
    match check_result(result) {
        Err(FusionClientError::Tool(failure)) => Some((*code, *failure)),
        _ => None,
    }
}

/// The heading of a list: `NAME VERSION (N things)`, the target when the
/// server gave no name.
pub fn heading(client: &FusionClient, target: &Target, count: usize, noun: &str) -> String {
    let server = client
        .server_name()
        .map(|(name, version)| format!("{name} {version}"))
        .unwrap_or_else(|| target.to_string());
    let count = match count {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    };
    format!("{server} ({count})")
}

/// `value` as JSON for `--json` output (the spec's shapes, as rmcp writes
/// them).
pub fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn key_values_split_at_the_first_equals_sign() {
        let pairs = key_values(&words(&["b=2", "a=x=y", "c="]), "ARGS").unwrap();
        assert_eq!(
            pairs.into_iter().collect::<Vec<_>>(),
            [
                (String::from("a"), String::from("x=y")),
                (String::from("b"), String::from("2")),
                (String::from("c"), String::new()),
            ]
        );
        assert_eq!(
            key_values(&words(&["a"]), "--context").unwrap_err().0,
            "--context: expected key=value, got `a`"
        );
        assert_eq!(
            key_values(&words(&["=1"]), "ARGS").unwrap_err().0,
            "ARGS: expected key=value, got `=1`"
        );
        assert_eq!(
            key_values(&words(&["a=1", "a=2"]), "ARGS").unwrap_err().0,
            "ARGS: `a` is given twice"
        );
    }
}
