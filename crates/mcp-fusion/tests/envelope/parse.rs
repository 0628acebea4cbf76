//! Reading envelopes back (wire contract §2, §4, §8): found anywhere in a
//! text, root-scoped, forward compatible, and an error value (never a panic)
//! when the envelope is absent, malformed or unclosed.

use std::time::Duration;

use mcp_fusion::envelope::{ParseError, ParsedEnvelope, parse};
use mcp_fusion::error::{FieldError, ValidationFailure};
use mcp_fusion::{ErrorCode, Severity, ToolError};
use serde_json::json;

const SEED: &str = r#"<tool_error code="NOT_FOUND" severity="error">
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

fn seed() -> ToolError {
    ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .detail("requestedId", "inv_2026_9999")
        .retry_after(30)
}

fn tool(text: &str) -> ToolError {
    match parse(text) {
        Ok(ParsedEnvelope::Tool(err)) => err,
        other => panic!("expected a tool error in {text:?}, got {other:?}"),
    }
}

fn malformed_reason(text: &str) -> String {
    match parse(text) {
        Err(ParseError::Malformed { reason, .. }) => reason,
        other => panic!("expected Malformed for {text:?}, got {other:?}"),
    }
}

// ---------------------------------------------------------------- finding it

#[test]
fn seed_example_reads_every_field() {
    let err = tool(SEED);
    assert_eq!(err, seed());
    assert_eq!(err.retry_after, Some(Duration::from_secs(30)));
    assert_eq!(
        err.details,
        [("requestedId".into(), "inv_2026_9999".into())]
    );
}

#[test]
fn envelope_after_prose_and_other_xml() {
    let text = format!(
        "Here is what happened: a < b && c > d.\n<result><b>partial</b></result>\n\
         Mentioning <tool_error> & friends in prose is fine.\n{SEED}\ntrailing & <junk"
    );
    assert_eq!(tool(&text), seed());
}

#[test]
fn first_complete_envelope_wins() {
    let other = SEED.replace("NOT_FOUND", "CONFLICT");
    assert_eq!(tool(&format!("{SEED}\n{other}")).code, ErrorCode::NotFound);
    assert_eq!(tool(&format!("{other}{SEED}")).code, ErrorCode::Conflict);
    // A broken first envelope does not hide a good one after it.
    let broken = "<tool_error code=\"X\"><message>a</b></message></tool_error>";
    assert_eq!(tool(&format!("{broken}\n{SEED}")), seed());
    // Nested inside other XML.
    assert_eq!(tool(&format!("<reply><part>{SEED}</part></reply>")), seed());
}

#[test]
fn warning_after_normal_output() {
    let text = "Invoice inv_1: 12.50 EUR\n\
                <tool_error code=\"DEPRECATED\" severity=\"warning\">\n  \
                <message>`format` is deprecated</message>\n</tool_error>";
    let parsed = parse(text).unwrap();
    assert!(!parsed.is_error());
    assert_eq!(parsed.severity(), Severity::Warning);
    assert_eq!(parsed.code(), ErrorCode::Deprecated);
    assert_eq!(parsed.message(), "`format` is deprecated");
}

// ---------------------------------------------------------------- values

#[test]
fn values_come_back_unescaped() {
    let text = "<tool_error code='A &quot;B&quot; &lt;C&gt; &apos;D&apos; &amp;' severity='critical'>\
                <message>x &lt; y &amp;&amp; y > z \"q\" 'r' &#x1F44D; &#233; &#9;|</message>\
                <recovery><![CDATA[raw <b> & ]]]]><![CDATA[> kept]]></recovery>\
                <details><detail key=\"a&#9;b&#10;c&#13;d\">v</detail></details>\
                </tool_error>";
    let err = tool(text);
    assert_eq!(err.code, ErrorCode::Custom("A \"B\" <C> 'D' &".into()));
    assert_eq!(err.severity, Severity::Critical);
    assert_eq!(err.message, "x < y && y > z \"q\" 'r' 👍 é \t|");
    assert_eq!(err.recovery.as_deref(), Some("raw <b> & ]]> kept"));
    assert_eq!(err.details, [("a\tb\nc\rd".into(), "v".into())]);
}

#[test]
fn text_keeps_whitespace_and_normalises_line_ends() {
    let err =
        tool("<tool_error code=\"X\"><message>  two\r\nlines\rthree  </message></tool_error>");
    assert_eq!(err.message, "  two\nlines\nthree  ");
    // Literal whitespace in an attribute is normalised to spaces, as XML requires.
    let err = tool("<tool_error code=\"A\tB\nC\"><message>m</message></tool_error>");
    assert_eq!(err.code, ErrorCode::Custom("A B C".into()));
}

#[test]
fn markup_nested_in_a_value_contributes_its_text() {
    let err = tool(
        "<tool_error code=\"X\"><message>Use <code>v2</code> <!-- note -->now</message></tool_error>",
    );
    assert_eq!(err.message, "Use v2 now");
}

#[test]
fn severity_missing_or_unknown_reads_as_error() {
    for attrs in [
        "",
        " severity=\"fatal\"",
        " severity=\"Warning\"",
        " severity=\"\"",
    ] {
        let text = format!("<tool_error code=\"X\"{attrs}><message>m</message></tool_error>");
        assert_eq!(tool(&text).severity, Severity::Error, "{attrs}");
    }
    for severity in Severity::ALL {
        let text = format!(
            "<tool_error code=\"X\" severity=\"{severity}\"><message>m</message></tool_error>"
        );
        assert_eq!(tool(&text).severity, severity);
    }
}

#[test]
fn retry_after_forms() {
    let read = |t: &str| {
        tool(&format!(
            "<tool_error code=\"X\"><message>m</message><retry_after>{t}</retry_after></tool_error>"
        ))
        .retry_after
    };
    let secs = |s: u64| Some(Duration::from_secs(s));
    assert_eq!(read("1 second"), secs(1));
    assert_eq!(read("30 seconds"), secs(30));
    assert_eq!(read("\n  86400 seconds \n"), secs(86_400));
    assert_eq!(read("0 seconds"), None);
    // A bare number of seconds.
    assert_eq!(read("30"), secs(30));
    assert_eq!(read(" 45 "), secs(45));
    // Clamped by the contract's rules: rounded up, at most one day.
    assert_eq!(read("1.5 seconds"), secs(2));
    assert_eq!(read("0.2"), secs(1));
    assert_eq!(read("86401 seconds"), secs(86_400));
    assert_eq!(read("99999999999999999999 seconds"), secs(86_400));
    // Not a plain non-negative number: dropped whole, never half-read.
    for bad in [
        "soon",
        "-1",
        "-1 seconds",
        "NaN",
        "NaN seconds",
        "inf",
        "30abc",
        "1e3",
        "1e3x",
        "thirty",
        "30 minutes",
        "",
    ] {
        assert_eq!(read(bad), None, "{bad:?}");
    }
}

#[test]
fn a_bad_retry_after_keeps_the_rest_of_the_envelope() {
    for bad in ["1.5x seconds", "-1 seconds", "NaN", "thirty", "1e3x"] {
        let text = format!(
            "<tool_error code=\"RATE_LIMITED\" severity=\"critical\">\n  \
             <message>Too many calls</message>\n  \
             <recovery>Wait, then call again</recovery>\n  \
             <available_actions><action>billing.list_invoices</action></available_actions>\n  \
             <details><detail key=\"limit\">2/min</detail></details>\n  \
             <retry_after>{bad}</retry_after>\n</tool_error>"
        );
        assert_eq!(
            tool(&text),
            ToolError::rate_limited("Too many calls")
                .critical()
                .suggest("Wait, then call again")
                .actions(["billing.list_invoices"])
                .detail("limit", "2/min"),
            "{bad:?}"
        );
    }
    // The first readable <retry_after> counts.
    let text = "<tool_error code=\"X\"><message>m</message>\
                <retry_after>-5 seconds</retry_after><retry_after>1.5</retry_after>\
                <retry_after>9 seconds</retry_after></tool_error>";
    assert_eq!(tool(text).retry_after, Some(Duration::from_secs(2)));
}

#[test]
fn a_bad_part_is_dropped_and_the_rest_kept() {
    let err = tool(
        "<tool_error code=\"NOT_FOUND\" code=\"SHADOW\" severity=\"fatal\" lang=en>\n\
         <message>Tom & Jerry &nbsp;left&#0;</message>\n\
         <recovery>List first</recovery>\n\
         <details>\n\
           <detail>no key</detail>\n\
           <detail key=unquoted>no key either</detail>\n\
           <detail key=\"id\">inv_9</detail>\n\
           <detail key=\"&bogus;\">unreadable key</detail>\n\
         </details>\n\
         <hint level=\"1\" broken>x</hint>\n\
         <retry_after>soon</retry_after>\n\
         </tool_error>",
    );
    assert_eq!(
        err,
        ToolError::not_found("Tom & Jerry &nbsp;left\u{fffd}")
            .suggest("List first")
            .detail("id", "inv_9")
    );
}

#[test]
fn a_missing_message_reads_as_empty() {
    let parsed =
        parse("<tool_error code=\"NOT_FOUND\"><recovery>r</recovery></tool_error>").unwrap();
    let ParsedEnvelope::Tool(err) = &parsed else {
        panic!("expected a tool error, got {parsed:?}");
    };
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(err.message, "");
    assert_eq!(err.recovery.as_deref(), Some("r"));
    // Written back, the code's default sentence takes its place (§2).
    assert_eq!(
        parsed.to_meta()["message"],
        json!(ErrorCode::NotFound.default_message())
    );
}

#[test]
fn empty_value_elements() {
    let err = tool(
        "<tool_error code=\"\"><message/><recovery></recovery>\
         <available_actions><action/></available_actions>\
         <details><detail key=\"\"/></details></tool_error>",
    );
    assert_eq!(err.code, ErrorCode::Custom(String::new()));
    assert_eq!(err.message, "");
    assert_eq!(err.recovery.as_deref(), Some(""));
    assert_eq!(err.available_actions, [""]);
    assert_eq!(err.details, [(String::new(), String::new())]);
}

#[test]
fn repeated_elements() {
    let err = tool(
        "<tool_error code=\"X\">\
         <message>first</message><message>second</message>\
         <recovery>r1</recovery><recovery>r2</recovery>\
         <available_actions><action>a</action></available_actions>\
         <available_actions><action>b</action></available_actions>\
         <details><detail key=\"k\">1</detail><detail key=\"j\">2</detail>\
         <detail key=\"k\">3</detail></details>\
         <retry_after>5 seconds</retry_after><retry_after>9 seconds</retry_after>\
         </tool_error>",
    );
    assert_eq!(err.message, "first");
    assert_eq!(err.recovery.as_deref(), Some("r1"));
    assert_eq!(err.available_actions, ["a", "b"]);
    assert_eq!(
        err.details,
        [("k".into(), "3".into()), ("j".into(), "2".into())]
    );
    assert_eq!(err.retry_after, Some(Duration::from_secs(5)));
}

// ---------------------------------------------------------------- scoping

#[test]
fn elements_count_only_where_the_contract_puts_them() {
    let err = tool(
        "<tool_error code=\"X\" severity=\"error\" version=\"2\">\n\
         <hint level=\"1\">ignored <message>not this</message></hint>\n\
         <action>stray.action</action>\n\
         <detail key=\"stray\">v</detail>\n\
         <message lang=\"en\">the message</message>\n\
         <available_actions>\n\
           <action>a.real</action>\n\
           <group><action>a.nested</action></group>\n\
           <detail key=\"wrong\">v</detail>\n\
         </available_actions>\n\
         <details>\n\
           <action>not.an.action</action>\n\
           <detail key=\"k\" unit=\"s\">v</detail>\n\
           <more><detail key=\"deep\">v</detail></more>\n\
         </details>\n\
         <future><retry_after>9 seconds</retry_after></future>\n\
         </tool_error>",
    );
    assert_eq!(
        err,
        ToolError::new("X", "the message")
            .actions(["a.real"])
            .detail("k", "v")
    );
}

#[test]
fn validation_envelope_and_its_unknown_sections() {
    let text = "Fix the fields below and call billing again.\n<validation_error action=\"billing.get_invoice\" extra=\"1\">\n  \
                <field name=\"email\">Invalid email format. You sent: 'x'.</field>\n  \
                <field name=\"items.2.price\">Must be &gt;= 0. You sent: -1.</field>\n  \
                <recovery>Do not explain the error.</recovery>\n  \
                <contract_awareness action=\"billing.get_invoice\">\n    \
                <field name=\"nested\">not a field line</field>\n  </contract_awareness>\n\
                </validation_error>";
    let parsed = parse(text).unwrap();
    assert_eq!(
        parsed,
        ParsedEnvelope::Validation(ValidationFailure::new(
            "billing.get_invoice",
            vec![
                FieldError::new("email", "Invalid email format. You sent: 'x'."),
                FieldError::new("items.2.price", "Must be >= 0. You sent: -1."),
            ],
        ))
    );
    assert!(parsed.is_error());
    assert_eq!(parsed.code(), ErrorCode::ValidationError);
    assert_eq!(
        parsed.message(),
        "The arguments for billing.get_invoice are not valid (2 problems)."
    );
    assert_eq!(parsed.to_meta()["code"], json!("VALIDATION_ERROR"));
    assert_eq!(
        parsed.to_meta()["fields"][1],
        json!({"path": "items.2.price", "message": "Must be >= 0. You sent: -1."})
    );
    // A tool_error's sections mean nothing in a validation_error, and vice versa.
    let text = "Fix the fields below and call a again.\n<validation_error action=\"a\"><message>m</message></validation_error>";
    assert_eq!(
        parse(text),
        Ok(ParsedEnvelope::Validation(ValidationFailure::new(
            "a",
            vec![]
        )))
    );
    let text =
        "<tool_error code=\"X\"><message>m</message><field name=\"f\">x</field></tool_error>";
    assert_eq!(tool(text), ToolError::new("X", "m"));
}

#[test]
fn helpers_give_meta_and_canonical_xml() {
    let parsed = parse(&format!("prefix {SEED}")).unwrap();
    assert_eq!(parsed.render(), SEED);
    assert_eq!(parsed.to_meta(), mcp_fusion::envelope::to_meta(&seed()));
    assert_eq!(parsed.code(), ErrorCode::NotFound);
    assert_eq!(parsed.severity(), Severity::Error);
    assert_eq!(parsed.message(), "No invoice with that ID");
}

// ---------------------------------------------------------------- errors

#[test]
fn no_envelope_is_not_found() {
    for text in [
        "",
        "all good",
        "<tool_errors code=\"X\"><message>m</message></tool_errors>",
        "<tool_error_v2 code=\"X\"><message>m</message></tool_error_v2>",
        "<x:tool_error code=\"X\"><message>m</message></x:tool_error>",
        "tool_error code=\"X\"",
        "<validation_errors/>",
    ] {
        assert_eq!(parse(text), Err(ParseError::NotFound), "{text}");
    }
    assert_eq!(
        ParseError::NotFound.to_string(),
        "no <tool_error> or <validation_error> element in the text"
    );
}

#[test]
fn truncated_envelope_is_unclosed() {
    for end in [
        SEED.len() - "</tool_error>".len(),
        SEED.find("<details>").unwrap(),
    ] {
        assert_eq!(
            parse(&SEED[..end]),
            Err(ParseError::Unclosed {
                element: "tool_error".into()
            }),
            "{}",
            &SEED[..end]
        );
    }
    assert_eq!(
        parse("Fix the fields below and call a again.\n<validation_error action=\"a\">"),
        Err(ParseError::Unclosed {
            element: "validation_error".into()
        })
    );
    assert_eq!(
        parse("x <tool_error code=\"X\"><message>m")
            .unwrap_err()
            .to_string(),
        "unclosed <tool_error> envelope: the text ends before </tool_error>"
    );
    // Cut inside a tag: not well-formed.
    assert!(matches!(
        parse(&SEED[..SEED.len() - 1]),
        Err(ParseError::Malformed { .. })
    ));
}

#[test]
fn malformed_envelopes() {
    for (text, reason) in [
        (
            "<tool_error severity=\"error\"><message>m</message></tool_error>",
            "<tool_error> has no code attribute",
        ),
        (
            "<tool_error code=X><message>m</message></tool_error>",
            "<tool_error> has no code attribute",
        ),
        (
            "<tool_error code=\"A&nbsp;B\"><message>m</message></tool_error>",
            "<tool_error> has no code attribute",
        ),
    ] {
        assert_eq!(malformed_reason(text), reason, "{text}");
    }
    // Structure errors come from the XML reader; the reason is its message.
    for text in [
        "<tool_error code=\"X\"><message>m</messag></tool_error>",
        "<tool_error code=\"X\"><message>a < b</message></tool_error>",
        "<tool_error code=\"X\"><message>m</message></tool_error",
    ] {
        assert!(!malformed_reason(text).is_empty(), "{text}");
    }
}

#[test]
fn validation_envelope_with_bad_parts_keeps_the_good_lines() {
    assert_eq!(
        parse(
            "Fix the fields below and call a again.\n<validation_error action=\"a\"><field>no name</field>\
             <field name=\"f\">x</field></validation_error>"
        ),
        Ok(ParsedEnvelope::Validation(ValidationFailure::new(
            "a",
            vec![FieldError::new("f", "x")]
        )))
    );
    let parsed = parse("<validation_error><field name=\"f\">x</field></validation_error>").unwrap();
    assert_eq!(
        parsed,
        ParsedEnvelope::Validation(ValidationFailure::new("", vec![FieldError::new("f", "x")]))
    );
    assert_eq!(parsed.message(), "The arguments are not valid (1 problem).");
}

#[test]
fn malformed_reports_the_offset_in_the_whole_text() {
    let text = "prose\n<tool_error code=\"X\"><message>a</b></message></tool_error>";
    let Err(err @ ParseError::Malformed { offset, .. }) = parse(text) else {
        panic!("expected Malformed");
    };
    assert_eq!(offset, text.find("</b>").unwrap());
    assert!(
        err.to_string().starts_with(&format!(
            "malformed <tool_error> envelope at byte {offset}: "
        )),
        "{err}"
    );
}

#[test]
fn the_first_mention_decides_the_error_when_none_parses() {
    let text =
        "<tool_error code=\"X\"><message>a</b></message></tool_error>\n<tool_error code=\"Y\">";
    assert!(matches!(parse(text), Err(ParseError::Malformed { .. })));
    let text = "<tool_error code=\"Y\"><message>m</message>\n<tool_error><message>m</message></tool_error>";
    assert_eq!(
        parse(text),
        Err(ParseError::Unclosed {
            element: "tool_error".into()
        })
    );
}

#[test]
fn only_the_first_mentions_are_tried() {
    // `parse` tries the first 16 mentions of a start tag (its documentation).
    const MAX_CANDIDATES: usize = 16;

    let broken = "<tool_error code=\"X\"><message>a</b></message></tool_error>\n";
    let within = format!("{}{SEED}", broken.repeat(MAX_CANDIDATES - 1));
    assert_eq!(tool(&within), seed());
    let beyond = format!("{}{SEED}", broken.repeat(MAX_CANDIDATES));
    assert!(matches!(
        parse(&beyond),
        Err(ParseError::Malformed { offset: 31, .. })
    ));
    // Many unclosed mentions stay cheap.
    let many = "<tool_error code=\"X\">".repeat(20_000);
    assert_eq!(
        parse(&many),
        Err(ParseError::Unclosed {
            element: "tool_error".into()
        })
    );
}

#[test]
fn the_line_just_before_a_failure_is_its_next_step() {
    let step = "Set \"action\" to \"pay\" &amp; call billing again.";
    let ParsedEnvelope::Tool(err) = parse(&format!("Some prose.\n{step}\n{SEED}")).unwrap() else {
        panic!("a tool error")
    };
    assert_eq!(
        err.next_step.as_deref(),
        Some("Set \"action\" to \"pay\" & call billing again.")
    );
    assert_eq!(
        err,
        seed().next_step("Set \"action\" to \"pay\" & call billing again.")
    );
    // Not a line with markup, not a blank line, not text on the envelope's line.
    for before in ["<b>bold</b>\n", "Step.\n\n", "Step. ", "  \n"] {
        assert_eq!(
            tool(&format!("{before}{SEED}")).next_step,
            None,
            "{before:?}"
        );
    }
    // Before a warning, the line is the result itself.
    let warning = SEED.replace("severity=\"error\"", "severity=\"warning\"");
    assert_eq!(tool(&format!("Done.\n{warning}")).next_step, None);
}
