//! `fusion envelope render|parse`, run as the real binary: exact stdout,
//! stderr and exit code.

use crate::run::{Run, fusion_with};

/// The issue's "Done when" input.
const SEED_JSON: &str = r#"{"code":"NOT_FOUND","message":"No invoice with that ID","recovery":"List invoices first, then retry with a real ID","available_actions":["billing.list_invoices"],"details":{"requestedId":"inv_2026_9999"},"retry_after_seconds":30}"#;

/// The seed's example (wire contract §2).
const SEED_XML: &str = r#"<tool_error code="NOT_FOUND" severity="error">
  <message>No invoice with that ID</message>
  <recovery>List invoices first, then retry with a real ID</recovery>
  <available_actions>
    <action>billing.list_invoices</action>
  </available_actions>
  <details>
    <detail key="requestedId">inv_2026_9999</detail>
  </details>
  <retry_after>30 seconds</retry_after>
</tool_error>"#;

/// The seed's `_meta` twin, as `--meta` and `parse` print it.
const SEED_META: &str = r#"{
  "code": "NOT_FOUND",
  "severity": "error",
  "message": "No invoice with that ID",
  "recovery": "List invoices first, then retry with a real ID",
  "available_actions": [
    "billing.list_invoices"
  ],
  "details": {
    "requestedId": "inv_2026_9999"
  },
  "retry_after_seconds": 30
}
"#;

fn fusion(args: &[&str], stdin: &[u8]) -> Run {
    fusion_with(args, &[], stdin)
}

fn render(json: &str) -> Run {
    fusion(&["envelope", "render"], json.as_bytes())
}

/// Asserts a successful run printed exactly `stdout`.
fn assert_ok(run: &Run, stdout: &str) {
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout, stdout);
    assert_eq!(run.code, 0);
}

/// Asserts a failed run: nothing on stdout, exactly one line on stderr.
fn assert_fails(run: &Run, code: i32, stderr_line: &str) {
    assert_eq!(run.stdout, "", "stdout of a failed run");
    assert_eq!(run.stderr, format!("{stderr_line}\n"));
    assert_eq!(run.code, code, "{}", run.stderr);
}

// ---------------------------------------------------------------- render

#[test]
fn guide_run_command_prints_what_the_guide_shows() {
    let readme = include_str!("../../../../docs/guide/client-and-cli.md");
    let run = &readme[readme
        .find("## Envelopes from the command line")
        .expect("an envelope section")..];
    let command = run
        .lines()
        .find(|l| l.starts_with("echo '"))
        .expect("the echo command");
    let json = command
        .strip_prefix("echo '")
        .and_then(|rest| rest.split_once("' | "))
        .map(|(json, tail)| {
            assert_eq!(tail, "cargo run -q -p fusion-cli -- envelope render");
            json
        })
        .expect("echo '<json>' | cargo run ...");
    assert_eq!(json, SEED_JSON);
    let shown = run
        .split("```xml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    assert_ok(&render(&format!("{json}\n")), shown);
    assert_eq!(shown, format!("{SEED_XML}\n"));
}

#[test]
fn done_when_command_prints_the_seed_example() {
    // `echo '…' | fusion envelope render`: echo adds a newline to the input.
    assert_ok(&render(&format!("{SEED_JSON}\n")), &format!("{SEED_XML}\n"));
}

#[test]
fn meta_flag_prints_the_json_twin() {
    assert_ok(
        &fusion(&["envelope", "render", "--meta"], SEED_JSON.as_bytes()),
        SEED_META,
    );
}

#[test]
fn details_as_pairs_and_scalar_values() {
    let head = "<tool_error code=\"CONFLICT\" severity=\"critical\">\n  <message>m</message>\n  \
                <details>\n    <detail key=\"b\">2</detail>\n    <detail key=\"a\">1.5</detail>\n    \
                <detail key=\"ok\">true</detail>\n  </details>\n</tool_error>\n";
    assert_ok(
        &render(
            r#"{"code":"CONFLICT","severity":"critical","message":"m","details":{"b":2,"a":1.5,"ok":true}}"#,
        ),
        head,
    );
    assert_ok(
        &render(
            r#"{"code":"CONFLICT","severity":"critical","message":"m","details":[["b",2],["a",1.5],["ok",true]]}"#,
        ),
        head,
    );
}

#[test]
fn optional_members_may_be_null_or_empty() {
    assert_ok(
        &render(
            r#"{"code":"TIMEOUT","severity":null,"message":"","recovery":"","available_actions":[],"details":{},"retry_after_seconds":0}"#,
        ),
        "<tool_error code=\"TIMEOUT\" severity=\"error\">\n  \
         <message>The action took too long and was cancelled.</message>\n</tool_error>\n",
    );
}

#[test]
fn warning_severity() {
    assert_ok(
        &render(r#"{"code":"DEPRECATED","severity":"warning","message":"Use v2"}"#),
        "<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>Use v2</message>\n</tool_error>\n",
    );
}

#[test]
fn retry_after_seconds_values() {
    for (secs, line) in [
        ("0", None),
        ("0.4", Some("1 second")),
        ("1", Some("1 second")),
        ("1.5", Some("2 seconds")),
        ("30", Some("30 seconds")),
        ("1e12", Some("86400 seconds")),
        ("18446744073709551615", Some("86400 seconds")),
    ] {
        let run = render(&format!(
            r#"{{"code":"RATE_LIMITED","message":"m","retry_after_seconds":{secs}}}"#
        ));
        let retry = line.map_or(String::new(), |l| {
            format!("  <retry_after>{l}</retry_after>\n")
        });
        assert_ok(
            &run,
            &format!(
                "<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  <message>m</message>\n\
                 {retry}</tool_error>\n"
            ),
        );
    }
}

#[test]
fn escaping_table_and_custom_code() {
    let run = render(
        r#"{"code":"My \"Code\" <x>","message":"a < b & c > d \"q\" 'r'","details":{"a < b & c > d \"q\" 'r'":"v"}}"#,
    );
    assert_ok(
        &run,
        "<tool_error code=\"My &quot;Code&quot; &lt;x&gt;\" severity=\"error\">\n  \
         <message>a &lt; b &amp; c > d \"q\" 'r'</message>\n  <details>\n    \
         <detail key=\"a &lt; b &amp; c &gt; d &quot;q&quot; &apos;r&apos;\">v</detail>\n  \
         </details>\n</tool_error>\n",
    );
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_field() {
    let retry = "retry_after_seconds: expected a number of seconds >= 0";
    let cases: &[(&str, &str)] = &[
        (
            "",
            "error: input: expected one JSON object on stdin, got nothing",
        ),
        (
            "  \n",
            "error: input: expected one JSON object on stdin, got nothing",
        ),
        (
            "not json",
            "error: input: expected one JSON object, got invalid JSON (expected ident at line 1 column 2)",
        ),
        (
            "[1, 2]",
            "error: input: expected one JSON object, got an array",
        ),
        (
            "\"text\"",
            "error: input: expected one JSON object, got the string \"text\"",
        ),
        (
            r#"{"code":"X","message":"m"} {}"#,
            "error: input: expected one JSON object, got invalid JSON (trailing characters at line 1 column 28)",
        ),
        (
            r#"{"message":"m"}"#,
            "error: code: expected a non-empty string (a canonical code such as NOT_FOUND, or a custom code), got nothing (the member is required)",
        ),
        (
            r#"{"code":"","message":"m"}"#,
            "error: code: expected a non-empty string (a canonical code such as NOT_FOUND, or a custom code), got an empty string",
        ),
        (
            r#"{"code":404,"message":"m"}"#,
            "error: code: expected a non-empty string (a canonical code such as NOT_FOUND, or a custom code), got the number 404",
        ),
        (
            r#"{"code":"X"}"#,
            "error: message: expected a string, got nothing (the member is required)",
        ),
        (
            r#"{"code":"X","message":null}"#,
            "error: message: expected a string, got null",
        ),
        (
            r#"{"code":"X","message":["m"]}"#,
            "error: message: expected a string, got an array",
        ),
        (
            r#"{"code":"X","message":"m","severity":"fatal"}"#,
            "error: severity: expected one of \"error\", \"critical\", \"warning\", got the string \"fatal\"",
        ),
        (
            r#"{"code":"X","message":"m","severity":1}"#,
            "error: severity: expected one of \"error\", \"critical\", \"warning\", got the number 1",
        ),
        (
            r#"{"code":"X","message":"m","recovery":false}"#,
            "error: recovery: expected a string, got the boolean false",
        ),
        (
            r#"{"code":"X","message":"m","available_actions":"a.b"}"#,
            "error: available_actions: expected an array of strings, got the string \"a.b\"",
        ),
        (
            r#"{"code":"X","message":"m","available_actions":["a",2]}"#,
            "error: available_actions[1]: expected a string, got the number 2",
        ),
        (
            r#"{"code":"X","message":"m","details":"k=v"}"#,
            "error: details: expected an object of string, number or boolean values, or an array of [key, value] pairs, got the string \"k=v\"",
        ),
        (
            r#"{"code":"X","message":"m","details":{"k":null}}"#,
            "error: details[\"k\"]: expected a string, number or boolean, got null",
        ),
        (
            r#"{"code":"X","message":"m","details":{"k":{"a":1}}}"#,
            "error: details[\"k\"]: expected a string, number or boolean, got an object",
        ),
        (
            r#"{"code":"X","message":"m","details":[["k"]]}"#,
            "error: details[0]: expected a [key, value] pair with a string key, got an array",
        ),
        (
            r#"{"code":"X","message":"m","details":[[1,"v"]]}"#,
            "error: details[0]: expected a [key, value] pair with a string key, got an array",
        ),
        (
            r#"{"code":"X","message":"m","details":[["k",[1]]]}"#,
            "error: details[0][1]: expected a string, number or boolean, got an array",
        ),
        (
            r#"{"code":"X","message":"m","retry_after_seconds":-1}"#,
            &format!("error: {retry}, got the number -1"),
        ),
        (
            r#"{"code":"X","message":"m","retry_after_seconds":-0.5}"#,
            &format!("error: {retry}, got the number -0.5"),
        ),
        (
            r#"{"code":"X","message":"m","retry_after_seconds":"30"}"#,
            &format!("error: {retry}, got the string \"30\""),
        ),
        (
            r#"{"code":"X","message":"m","retry_after_seconds":true}"#,
            &format!("error: {retry}, got the boolean true"),
        ),
        (
            r#"{"code":"X","message":"m","retry_after_seconds":NaN}"#,
            &format!(
                "error: {retry}, got NaN, which is not valid JSON (expected value at line 1 column 49)"
            ),
        ),
        (
            "{\"code\":\"X\",\"message\":\"m\",\n  \"retry_after_seconds\": -Infinity}",
            &format!(
                "error: {retry}, got -Infinity, which is not valid JSON (invalid number at line 2 column 27)"
            ),
        ),
        (
            r#"{"code":"X","message":"m","retryAfter":5}"#,
            "error: unknown key \"retryAfter\": expected only code, severity, message, next_step, recovery, available_actions, details, retry_after_seconds",
        ),
        (
            "{\"code\":\"X\",\"message\":\"m\",\"two\\nlines\":5}",
            "error: unknown key \"two\\nlines\": expected only code, severity, message, next_step, recovery, available_actions, details, retry_after_seconds",
        ),
    ];
    for (input, line) in cases {
        let run = render(input);
        assert_fails(&run, 2, line);
    }
}

#[test]
fn input_that_is_not_utf8_exits_2() {
    let run = fusion(&["envelope", "render"], b"{\"code\":\"\xff\"}");
    assert_fails(
        &run,
        2,
        "error: stdin: expected UTF-8 text, got an invalid byte at offset 9",
    );
    let run = fusion(&["envelope", "parse"], b"\xfe");
    assert_fails(
        &run,
        2,
        "error: stdin: expected UTF-8 text, got an invalid byte at offset 0",
    );
}

#[test]
fn long_multibyte_message_is_cut() {
    let long: String = "é漢👍🏽".chars().cycle().take(10_000).collect();
    let run = render(&serde_json::json!({"code": "X", "message": long}).to_string());
    let cut: String = long.chars().take(1_999).collect();
    assert_ok(
        &run,
        &format!(
            "<tool_error code=\"X\" severity=\"error\">\n  <message>{cut}…</message>\n</tool_error>\n"
        ),
    );
}

// ---------------------------------------------------------------- parse

#[test]
fn parse_prints_the_json_twin() {
    let text = format!("Some output & <b>markup</b> first.\n{SEED_XML}\ntrailing text");
    assert_ok(&fusion(&["envelope", "parse"], text.as_bytes()), SEED_META);
}

#[test]
fn render_then_parse_equals_meta() {
    let input = r#"{"code":"My \"Code\" <x>","severity":"warning","message":"a < b & c\r\nd","recovery":"]]> </message>","available_actions":["x.y"],"details":[["k\"q","v\tw"]],"retry_after_seconds":1.5}"#;
    let xml = render(input);
    assert_eq!(xml.code, 0, "{}", xml.stderr);
    let parsed = fusion(&["envelope", "parse"], xml.stdout.as_bytes());
    let meta = fusion(&["envelope", "render", "--meta"], input.as_bytes());
    assert_ok(&parsed, &meta.stdout);
    assert_eq!(
        meta.stdout,
        r#"{
  "code": "My \"Code\" <x>",
  "severity": "warning",
  "message": "a < b & c\nd",
  "recovery": "]]> </message>",
  "available_actions": [
    "x.y"
  ],
  "details": {
    "k\"q": "v\tw"
  },
  "retry_after_seconds": 2
}
"#
    );
}

/// A foreign envelope with a bad part keeps the rest (wire contract §8).
#[test]
fn parse_keeps_an_envelope_whose_retry_after_is_foreign() {
    let text = "<tool_error code=\"RATE_LIMITED\" severity=\"loud\">\n  \
                <message>Too many calls</message>\n  \
                <details><detail>no key</detail><detail key=\"limit\">2/min</detail></details>\n  \
                <retry_after>1.5 seconds</retry_after>\n</tool_error>";
    assert_ok(
        &fusion(&["envelope", "parse"], text.as_bytes()),
        r#"{
  "code": "RATE_LIMITED",
  "severity": "error",
  "message": "Too many calls",
  "details": {
    "limit": "2/min"
  },
  "retry_after_seconds": 2
}
"#,
    );
    let text = text.replace("1.5 seconds", "-1 seconds");
    assert_ok(
        &fusion(&["envelope", "parse"], text.as_bytes()),
        r#"{
  "code": "RATE_LIMITED",
  "severity": "error",
  "message": "Too many calls",
  "details": {
    "limit": "2/min"
  }
}
"#,
    );
}

#[test]
fn parse_validation_envelope() {
    let text = "Fix the fields below and call billing again.\n<validation_error action=\"billing.get_invoice\">\n  \
                <field name=\"email\">Invalid email format. You sent: 'x'.</field>\n  \
                <recovery>Do not explain the error.</recovery>\n\
                </validation_error>";
    assert_ok(
        &fusion(&["envelope", "parse"], text.as_bytes()),
        r#"{
  "code": "VALIDATION_ERROR",
  "severity": "error",
  "message": "The arguments for billing.get_invoice are not valid (1 problem).",
  "recovery": "Fix the fields below and call billing again. Do not explain the error.",
  "action": "billing.get_invoice",
  "fields": [
    {
      "path": "email",
      "message": "Invalid email format. You sent: 'x'."
    }
  ]
}
"#,
    );
}

#[test]
fn parse_without_an_envelope_exits_1() {
    for (text, line) in [
        (
            "",
            "error: no <tool_error> or <validation_error> element in the text",
        ),
        (
            "All good, nothing failed.",
            "error: no <tool_error> or <validation_error> element in the text",
        ),
        (
            "<tool_error code=\"X\"><message>cut",
            "error: unclosed <tool_error> envelope: the text ends before </tool_error>",
        ),
        (
            "<tool_error severity=\"error\"><message>m</message></tool_error>",
            "error: malformed <tool_error> envelope at byte 62: <tool_error> has no code attribute",
        ),
    ] {
        assert_fails(&fusion(&["envelope", "parse"], text.as_bytes()), 1, line);
    }
}

// ---------------------------------------------------------------- help

#[test]
fn help_documents_input_and_exit_codes() {
    let run = fusion(&["envelope", "render", "--help"], b"");
    assert_eq!(run.code, 0);
    for needle in [
        "retry_after_seconds",
        "array of [key, value] pairs",
        "members other than these are rejected",
        "Exit codes:",
        "  2  bad input",
        "--meta",
    ] {
        assert!(
            run.stdout.contains(needle),
            "render --help lacks {needle:?}"
        );
    }
    let run = fusion(&["envelope", "parse", "--help"], b"");
    assert_eq!(run.code, 0);
    for needle in ["Exit codes:", "  1  no envelope", "\"fields\""] {
        assert!(run.stdout.contains(needle), "parse --help lacks {needle:?}");
    }
}
