//! `fusion resources`, `templates`, `read`, `prompts`, `prompt` and
//! `complete` against the conformance example (`fusion serve --example
//! conformance`): over stdio (`--cmd`), and over Streamable HTTP on both
//! protocol revisions; their readable and `--json` output, and the exit
//! codes of `fusion call` (0 success, 2 usage, connection or protocol error).

use serde_json::{Value, json};

use crate::run::{FUSION, Run, fusion};
use crate::support::HttpServer;

/// The `--cmd` of the conformance example over stdio.
fn conformance() -> String {
    format!("'{FUSION}' serve --stdio --example conformance")
}

/// `fusion COMMAND --cmd CONFORMANCE WORDS…`.
fn over_stdio(command: &str, words: &[&str]) -> Run {
    let cmd = conformance();
    let mut args = vec![command, "--cmd", &cmd];
    args.extend_from_slice(words);
    fusion(&args)
}

/// The heading line of a list from the conformance example.
fn heading(count: &str) -> String {
    format!(
        "mcp-fusion-conformance {} ({count})",
        env!("CARGO_PKG_VERSION")
    )
}

#[track_caller]
fn assert_ok(run: &Run, stdout: &str) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, stdout);
    assert_eq!(run.stderr, "");
}

/// `fusion COMMAND --cmd CONFORMANCE WORDS…`, which must exit 0: its
/// stdout's JSON.
#[track_caller]
fn json_over_stdio(command: &str, words: &[&str]) -> Value {
    let run = over_stdio(command, words);
    assert_eq!(run.code, 0, "{}", run.stderr);
    json_of(&run.stdout)
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn resources_are_a_table_of_uri_name_mime_type_and_description() {
    let run = over_stdio("resources", &[]);
    assert_ok(
        &run,
        &format!(
            "{}\n\n\
             URI                      NAME                    MIME TYPE   DESCRIPTION\n\
             test://static-text       Static Text Resource    text/plain  A static text resource for testing\n\
             test://static-binary     Static Binary Resource  image/png   A static binary resource (image) for testing\n\
             test://watched-resource  Watched Resource        text/plain  A resource that can be subscribed to\n",
            heading("3 resources")
        ),
    );
    let json = json_over_stdio("resources", &["--json"]);
    assert_eq!(
        json[0],
        json!({
            "uri": "test://static-text",
            "name": "Static Text Resource",
            "description": "A static text resource for testing",
            "mimeType": "text/plain"
        })
    );
}

#[test]
fn templates_are_a_table_of_uri_template_name_mime_type_and_description() {
    let run = over_stdio("templates", &[]);
    assert_ok(
        &run,
        &format!(
            "{}\n\n\
             URI TEMPLATE               NAME               MIME TYPE         DESCRIPTION\n\
             test://template/{{id}}/data  Resource Template  application/json  A resource template with parameter substitution\n",
            heading("1 template")
        ),
    );
    let json = json_over_stdio("templates", &["--json"]);
    assert_eq!(
        json,
        json!([{
            "uriTemplate": "test://template/{id}/data",
            "name": "Resource Template",
            "description": "A resource template with parameter substitution",
            "mimeType": "application/json"
        }])
    );
}

#[test]
fn read_prints_text_as_it_is_and_summarizes_a_blob() {
    assert_ok(
        &over_stdio("read", &["test://static-text"]),
        "This is the content of the static text resource.\n",
    );
    assert_ok(
        &over_stdio("read", &["test://template/7/data"]),
        "{\"id\":\"7\",\"templateTest\":true,\"data\":\"Data for ID: 7\"}\n",
    );
    assert_ok(
        &over_stdio("read", &["test://static-binary"]),
        "[blob image/png, 70 bytes]\n",
    );
    let json = json_over_stdio("read", &["--json", "test://static-binary"]);
    let contents = &json["contents"];
    assert_eq!(contents[0]["uri"], "test://static-binary");
    assert_eq!(contents[0]["mimeType"], "image/png");
    assert_eq!(
        contents[0]["blob"].as_str().map(str::len),
        Some(96),
        "{contents}"
    );
}

const UNKNOWN_RESOURCE: &str = "There is no resource named \"test://nope\". Valid: test://static-text, test://static-binary, test://watched-resource, test://template/{id}/data.";

#[test]
fn an_unknown_resource_is_the_servers_error_with_its_uri_and_exit_2() {
    let run = over_stdio("read", &["test://nope"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: the server answered with a JSON-RPC error -32002: {UNKNOWN_RESOURCE}\n  \
             data: {{\"uri\":\"test://nope\",\"closest\":null,\"valid\":[\"test://static-text\",\"test://static-binary\",\"test://watched-resource\",\"test://template/{{id}}/data\"]}}\n  \
             hint: `fusion resources` and `fusion templates` list what this server serves\n"
        )
    );
    let run = over_stdio("read", &["--json", "test://nope"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "");
    let error = &json_of(&run.stdout)["error"];
    assert_eq!(error["kind"], "jsonrpc");
    assert_eq!(error["code"], -32002);
    assert_eq!(error["message"], UNKNOWN_RESOURCE);
    assert_eq!(error["data"]["uri"], "test://nope");
}

#[test]
fn prompts_are_listed_with_their_arguments_required_marked() {
    let run = over_stdio("prompts", &[]);
    assert_ok(
        &run,
        &format!(
            "{}\n\n\
             test_simple_prompt                  A simple prompt without arguments\n\
             test_prompt_with_arguments          A prompt with required arguments\n  \
             arg1 (required)  First test argument\n  \
             arg2 (required)  Second test argument\n\
             test_prompt_with_embedded_resource  A prompt that includes an embedded resource\n  \
             resourceUri (required)  URI of the resource to embed\n\
             test_prompt_with_image              A prompt that includes image content\n\
             test_input_required_result_prompt   MRTR: a prompt that asks the user for its context\n",
            heading("5 prompts")
        ),
    );
    let json = json_over_stdio("prompts", &["--json"]);
    assert_eq!(
        json[1]["arguments"],
        json!([
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": true}
        ])
    );
}

#[test]
fn a_prompt_takes_key_value_pairs_or_one_json_object_and_prints_its_messages() {
    let expected = "A prompt with required arguments\n\n\
                    user:\n  \
                    Prompt with arguments: arg1='paris', arg2='big city'\n";
    assert_ok(
        &over_stdio(
            "prompt",
            &["test_prompt_with_arguments", "arg1=paris", "arg2=big city"],
        ),
        expected,
    );
    assert_ok(
        &over_stdio(
            "prompt",
            &[
                "test_prompt_with_arguments",
                r#"{"arg1": "paris", "arg2": "big city"}"#,
            ],
        ),
        expected,
    );
    assert_ok(
        &over_stdio(
            "prompt",
            &["test_prompt_with_embedded_resource", "resourceUri=test://x"],
        ),
        "A prompt that includes an embedded resource\n\n\
         user:\n  \
         [resource test://x]\n  \
         Embedded resource content for testing.\n\n\
         user:\n  \
         Please process the embedded resource above.\n",
    );
    let json = json_over_stdio("prompt", &["--json", "test_simple_prompt"]);
    assert_eq!(
        json["messages"],
        json!([{
            "role": "user",
            "content": {"type": "text", "text": "This is a simple prompt for testing."}
        }])
    );
}

#[test]
fn an_unknown_prompt_and_bad_arguments_exit_2() {
    let run = over_stdio("prompt", &["test_nope"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[0],
        "error: the server answered with a JSON-RPC error -32602: There is no prompt named \"test_nope\". Valid: test_simple_prompt, test_prompt_with_arguments, test_prompt_with_embedded_resource, test_prompt_with_image, test_input_required_result_prompt."
    );
    assert_eq!(
        lines[2],
        "  hint: `fusion prompts` lists the prompts this server has, with their arguments"
    );
    // Arguments the prompt refuses: its <validation_error>, read as
    // `fusion call` reads a tool's.
    let run = over_stdio("prompt", &["test_prompt_with_arguments", "arg1=x"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: the server answered with a JSON-RPC error -32602: VALIDATION_ERROR (severity: error)\n  \
         action:            test_prompt_with_arguments\n  \
         message:           The arguments for test_prompt_with_arguments are not valid (1 problem).\n  \
         recovery:          Fix the fields below and call test_prompt_with_arguments again. Do not explain the error.\n  \
         fields:\n    \
         arg2: Missing required field. You sent: (missing). Expected a string.\n"
    );
    // A word that is not key=value: a usage error before connecting.
    let run = over_stdio("prompt", &["test_prompt_with_arguments", "arg1"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: the prompt's arguments (KEY=VALUE or one JSON object): expected key=value, got `arg1`\n\n\
         For more information, try '--help'.\n"
    );
}

#[test]
fn complete_prints_one_value_a_line() {
    assert_ok(
        &over_stdio(
            "complete",
            &[
                "--prompt",
                "test_prompt_with_arguments",
                "--argument",
                "arg1",
                "--value",
                "pa",
            ],
        ),
        "paris\npark\nparty\n",
    );
    assert_ok(
        &over_stdio(
            "complete",
            &[
                "--template",
                "test://template/{id}/data",
                "--argument",
                "id",
                "--context",
                "other=1",
            ],
        ),
        "123\n456\n789\n",
    );
    let json = json_over_stdio(
        "complete",
        &[
            "--json",
            "--template",
            "test://template/{id}/data",
            "--argument",
            "id",
            "--value",
            "4",
        ],
    );
    assert_eq!(
        json,
        json!({"values": ["456"], "total": 1, "hasMore": false})
    );
    // No value starts with it: nothing on stdout, a note on stderr.
    let run = over_stdio(
        "complete",
        &[
            "--prompt",
            "test_prompt_with_arguments",
            "--argument",
            "arg1",
            "--value",
            "zz",
        ],
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "(no values)\n")
    );
}

#[test]
fn complete_needs_a_prompt_or_a_template_and_an_unknown_one_exits_2() {
    let run = over_stdio("complete", &["--argument", "arg1"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "error: the following required arguments were not provided:\n  <--prompt <NAME>|--template <URI_TEMPLATE>>\n"
        ),
        "{}",
        run.stderr
    );
    let run = over_stdio("complete", &["--prompt", "test_nope", "--argument", "arg1"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "error: the server answered with a JSON-RPC error -32602: There is no prompt named \"test_nope\"."
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with(
            "  hint: `fusion prompts` and `fusion templates` list the prompts and templates this server completes\n"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn read_needs_a_uri_after_the_url() {
    let run = fusion(&["read", "http://127.0.0.1:1/mcp"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: missing the resource URI after the URL (or use --cmd 'COMMAND ARGS' for a stdio server)\n\n\
         For more information, try '--help'.\n"
    );
}

/// Every command over Streamable HTTP, on 2025-11-25 and on 2026-07-28
/// (where an unknown resource is `-32602`, server/resources "Error
/// Handling").
#[test]
fn every_command_works_over_http_on_both_revisions() {
    let server = HttpServer::start_example("conformance");
    let url = server.url.as_str();
    for (revision, unknown_code) in [("2025-11-25", "-32002"), ("2026-07-28", "-32602")] {
        let run_with = |command: &str, words: &[&str]| {
            let mut args = vec![command, url, "--protocol-version", revision];
            args.extend_from_slice(words);
            fusion(&args)
        };
        let run = run_with("resources", &[]);
        assert_eq!(run.code, 0, "{revision}: {}", run.stderr);
        assert_eq!(
            run.stdout.lines().nth(4),
            Some(
                "test://static-binary     Static Binary Resource  image/png   A static binary resource (image) for testing"
            ),
            "{revision}"
        );
        let run = run_with("templates", &["--json"]);
        assert_eq!(
            json_of(&run.stdout)[0]["uriTemplate"],
            "test://template/{id}/data"
        );
        assert_ok(
            &run_with("read", &["test://static-text"]),
            "This is the content of the static text resource.\n",
        );
        let run = run_with("read", &["test://nope"]);
        assert_eq!(run.code, 2, "{revision}");
        assert_eq!(
            run.stderr.lines().next(),
            Some(
                format!("error: the server answered with a JSON-RPC error {unknown_code}: {UNKNOWN_RESOURCE}")
                    .as_str()
            ),
            "{revision}"
        );
        let run = run_with("prompts", &[]);
        assert_eq!(run.code, 0, "{revision}: {}", run.stderr);
        assert_eq!(
            run.stdout.lines().nth(5),
            Some("  arg2 (required)  Second test argument")
        );
        assert_ok(
            &run_with(
                "prompt",
                &["test_prompt_with_arguments", "arg1=a", "arg2=b"],
            ),
            "A prompt with required arguments\n\nuser:\n  Prompt with arguments: arg1='a', arg2='b'\n",
        );
        assert_ok(
            &run_with(
                "complete",
                &[
                    "--prompt",
                    "test_prompt_with_arguments",
                    "--argument",
                    "arg2",
                    "--value",
                    "w",
                ],
            ),
            "world\nwonder\n",
        );
    }
}
