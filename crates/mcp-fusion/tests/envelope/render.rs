//! Exact bytes of the envelope (wire contract §1–§5): sections, escaping,
//! `retry_after`, cuts, severities and the `CallToolResult` around it.

use std::time::Duration;

use crate::support::check_envelope;
use mcp_fusion::envelope::{
    self, MAX_ENVELOPE_BYTES, META_KEY, ParsedEnvelope, attach_warning, normalize, parse, render,
    render_validation, to_call_tool_result, to_meta, validation_result,
};
use mcp_fusion::error::{FieldError, ValidationFailure};
use mcp_fusion::{ErrorCode, Severity, ToolError};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

/// The escaping table of the issue: every character that needs thought.
const TABLE: &str = r#"a < b & c > d "q" 'r'"#;
/// [`TABLE`] as element text: `&` and `<` only.
const TABLE_TEXT: &str = r#"a &lt; b &amp; c > d "q" 'r'"#;
/// [`TABLE`] as an attribute value: all five.
const TABLE_ATTR: &str = "a &lt; b &amp; c &gt; d &quot;q&quot; &apos;r&apos;";

fn tool(xml: &str) -> ToolError {
    match parse(xml) {
        Ok(ParsedEnvelope::Tool(err)) => err,
        other => panic!("expected a tool error, got {other:?}"),
    }
}

// ---------------------------------------------------------------- sections

#[test]
fn message_only() {
    assert_eq!(
        render(&ToolError::not_found("No invoice with that ID")),
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  \
         <message>No invoice with that ID</message>\n</tool_error>"
    );
}

#[test]
fn every_section_combination_keeps_the_order_and_omits_what_is_unset() {
    const HEAD: &str = "<tool_error code=\"CONFLICT\" severity=\"error\">\n";
    const MESSAGE: &str = "  <message>Invoice already paid</message>\n";
    const RECOVERY: &str = "  <recovery>Fetch the invoice again</recovery>\n";
    const ACTIONS: &str = "  <available_actions>\n    <action>billing.get_invoice</action>\n    \
                           <action>billing.refund</action>\n  </available_actions>\n";
    const DETAILS: &str = "  <details>\n    <detail key=\"status\">paid</detail>\n    \
                           <detail key=\"amount\">12.5</detail>\n    \
                           <detail key=\"final\">true</detail>\n  </details>\n";
    const RETRY: &str = "  <retry_after>5 seconds</retry_after>\n";
    const TAIL: &str = "</tool_error>";

    for mask in 0u8..16 {
        let mut err = ToolError::conflict("Invoice already paid");
        let mut expected = String::from(HEAD);
        expected.push_str(MESSAGE);
        if mask & 1 != 0 {
            err = err.suggest("Fetch the invoice again");
            expected.push_str(RECOVERY);
        }
        if mask & 2 != 0 {
            err = err.actions(["billing.get_invoice", "billing.refund"]);
            expected.push_str(ACTIONS);
        }
        if mask & 4 != 0 {
            err = err
                .detail("status", "paid")
                .detail("amount", 12.5)
                .detail("final", true);
            expected.push_str(DETAILS);
        }
        if mask & 8 != 0 {
            err = err.retry_after(5);
            expected.push_str(RETRY);
        }
        expected.push_str(TAIL);

        // The builder's call order does not matter: the envelope's order is fixed.
        let reordered = ToolError {
            code: err.code.clone(),
            message: err.message.clone(),
            ..ToolError::conflict("x")
        }
        .retry_after(err.retry_after)
        .details(err.details.clone())
        .actions(err.available_actions.clone());
        let reordered = match &err.recovery {
            Some(r) => reordered.suggest(r.clone()),
            None => reordered,
        };

        assert_eq!(render(&err), expected, "mask {mask:04b}");
        assert_eq!(render(&reordered), expected, "mask {mask:04b}");
        assert_eq!(tool(&expected), err, "mask {mask:04b}");
    }
}

#[test]
fn empty_sections_are_omitted() {
    let err = ToolError {
        code: ErrorCode::Timeout,
        severity: Severity::Error,
        message: String::new(),
        next_step: Some(" \r\n ".into()),
        recovery: Some(" \n\t".into()),
        available_actions: Vec::new(),
        details: Vec::new(),
        retry_after: Some(Duration::ZERO),
        internal: None,
    };
    assert_eq!(
        render(&err),
        "<tool_error code=\"TIMEOUT\" severity=\"error\">\n  \
         <message>The action took too long and was cancelled.</message>\n</tool_error>"
    );
    // The builder drops an empty recovery too.
    assert_eq!(ToolError::timeout("t").suggest("").recovery, None);
}

#[test]
fn empty_message_takes_the_code_default_for_every_code() {
    for code in ErrorCode::CANONICAL.into_iter().chain(ErrorCode::LIBRARY) {
        let xml = render(&ToolError {
            message: "   ".into(),
            ..ToolError::new(code.clone(), "x")
        });
        let message = format!("<message>{}</message>", code.default_message());
        assert!(xml.contains(&message), "{xml}");
    }
}

#[test]
fn severity_is_always_written() {
    for (err, severity) in [
        (ToolError::forbidden("f"), "error"),
        (ToolError::forbidden("f").critical(), "critical"),
        (ToolError::forbidden("f").warning(), "warning"),
        (ToolError::deprecated("d"), "warning"),
    ] {
        let xml = render(&err);
        let head = format!("severity=\"{severity}\">\n");
        assert!(xml.contains(&head), "{xml}");
    }
}

// ---------------------------------------------------------------- escaping

#[test]
fn escaping_table_in_every_text_section() {
    let err = ToolError::new("CODE", TABLE)
        .suggest(TABLE)
        .actions([TABLE])
        .detail("k", TABLE);
    assert_eq!(
        render(&err),
        format!(
            "<tool_error code=\"CODE\" severity=\"error\">\n  \
             <message>{TABLE_TEXT}</message>\n  \
             <recovery>{TABLE_TEXT}</recovery>\n  \
             <available_actions>\n    <action>{TABLE_TEXT}</action>\n  </available_actions>\n  \
             <details>\n    <detail key=\"k\">{TABLE_TEXT}</detail>\n  </details>\n\
             </tool_error>"
        )
    );
    assert_eq!(tool(&render(&err)), err);
}

#[test]
fn escaping_table_in_every_attribute() {
    let err = ToolError::new(TABLE, "m").detail(TABLE, "v");
    assert_eq!(
        render(&err),
        format!(
            "<tool_error code=\"{TABLE_ATTR}\" severity=\"error\">\n  \
             <message>m</message>\n  \
             <details>\n    <detail key=\"{TABLE_ATTR}\">v</detail>\n  </details>\n\
             </tool_error>"
        )
    );
    assert_eq!(tool(&render(&err)), err);

    let failure = ValidationFailure::new(TABLE, vec![FieldError::new(TABLE, TABLE)]);
    let xml = render_validation(&failure);
    assert_eq!(
        xml,
        format!(
            "Fix the fields below and call {TABLE_TEXT} again.\n<validation_error action=\"{TABLE_ATTR}\">\n  \
             <field name=\"{TABLE_ATTR}\">{TABLE_TEXT}</field>\n  \
             <recovery>Do not explain the error.</recovery>\n\
             </validation_error>"
        )
    );
    assert_eq!(parse(&xml), Ok(ParsedEnvelope::Validation(failure)));
}

#[test]
fn whitespace_in_attributes_is_written_as_character_references() {
    let err = ToolError::new("A\tB", "m").detail("line\none\r\ntwo", "v\r\nw\rx");
    let xml = render(&err);
    assert_eq!(
        xml,
        "<tool_error code=\"A&#9;B\" severity=\"error\">\n  <message>m</message>\n  \
         <details>\n    <detail key=\"line&#10;one&#13;&#10;two\">v\nw\nx</detail>\n  \
         </details>\n</tool_error>"
    );
    // Attributes come back unchanged; element text has its line ends normalised.
    let parsed = tool(&xml);
    assert_eq!(parsed.code, ErrorCode::from("A\tB"));
    assert_eq!(
        parsed.details,
        [("line\none\r\ntwo".into(), "v\nw\nx".into())]
    );
}

#[test]
fn line_ends_in_action_names_read_back_unchanged() {
    // `<action>` is element text: CR is normalised to LF before rendering, as an
    // XML parser would on reading (found by the property test).
    let err = ToolError::new("X", "m").actions(["a\rb", "c\r\nd"]);
    let xml = render(&err);
    assert!(
        xml.contains("<action>a\nb</action>\n    <action>c\nd</action>"),
        "{xml}"
    );
    assert_eq!(tool(&xml), normalize(&err));
    assert_eq!(normalize(&err).available_actions, ["a\nb", "c\nd"]);
}

#[test]
fn forbidden_characters_become_replacement_characters() {
    let err = ToolError::new("C\u{0}D", "bell\u{7} esc\u{1b} nul\u{0} \u{fffe}")
        .detail("k\u{1f}", "\u{b}");
    let xml = render(&err);
    assert_eq!(
        xml,
        "<tool_error code=\"C\u{fffd}D\" severity=\"error\">\n  \
         <message>bell\u{fffd} esc\u{fffd} nul\u{fffd} \u{fffd}</message>\n  \
         <details>\n    <detail key=\"k\u{fffd}\">\u{fffd}</detail>\n  </details>\n</tool_error>"
    );
    assert_eq!(check_envelope(&xml), Ok(()));
}

#[test]
fn cdata_end_and_tag_lookalikes_in_text() {
    let err = ToolError::new("X", "a]]>b </message><x/> ]] > >= 1 &amp;");
    let xml = render(&err);
    assert!(
        xml.contains("<message>a]]&gt;b &lt;/message>&lt;x/> ]] > >= 1 &amp;amp;</message>"),
        "{xml}"
    );
    assert_eq!(check_envelope(&xml), Ok(()));
    assert_eq!(tool(&xml).message, err.message);
}

#[test]
fn custom_code_that_needs_attribute_escaping() {
    let err = ToolError::new(r#"My "Code" <x>"#, "Custom failure");
    assert_eq!(err.code, ErrorCode::Custom(r#"My "Code" <x>"#.into()));
    let xml = render(&err);
    assert_eq!(
        xml,
        "<tool_error code=\"My &quot;Code&quot; &lt;x&gt;\" severity=\"error\">\n  \
         <message>Custom failure</message>\n</tool_error>"
    );
    assert_eq!(
        tool(&xml).code,
        ErrorCode::Custom(r#"My "Code" <x>"#.into())
    );
    assert_eq!(to_meta(&err)["code"], json!(r#"My "Code" <x>"#));
}

// ---------------------------------------------------------------- retry_after

#[test]
fn retry_after_whole_seconds_rounded_up_and_clamped() {
    let cases: [(Option<Duration>, Option<&str>, Option<u64>); 8] = [
        (None, None, None),
        (Some(Duration::ZERO), None, None),
        (Some(Duration::from_millis(400)), Some("1 second"), Some(1)),
        (Some(Duration::from_secs(1)), Some("1 second"), Some(1)),
        (
            Some(Duration::from_millis(1_500)),
            Some("2 seconds"),
            Some(2),
        ),
        (Some(Duration::from_secs(30)), Some("30 seconds"), Some(30)),
        (
            Some(Duration::from_secs(86_401)),
            Some("86400 seconds"),
            Some(86_400),
        ),
        (Some(Duration::MAX), Some("86400 seconds"), Some(86_400)),
    ];
    for (delay, text, secs) in cases {
        let err = ToolError {
            retry_after: delay,
            ..ToolError::rate_limited("Slow down")
        };
        let xml = render(&err);
        let expected = match text {
            Some(t) => format!(
                "<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  \
                 <message>Slow down</message>\n  <retry_after>{t}</retry_after>\n</tool_error>"
            ),
            None => "<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  \
                     <message>Slow down</message>\n</tool_error>"
                .to_owned(),
        };
        assert_eq!(xml, expected, "{delay:?}");
        assert_eq!(
            to_meta(&err)
                .get("retry_after_seconds")
                .and_then(|v| v.as_u64()),
            secs,
            "{delay:?}"
        );
        assert_eq!(tool(&xml).retry_after, secs.map(Duration::from_secs));
    }
}

#[test]
fn retry_after_from_the_builder_in_every_unit() {
    let secs = |err: ToolError| to_meta(&err).get("retry_after_seconds").cloned();
    let e = || ToolError::server_busy("busy");
    assert_eq!(secs(e().retry_after(0)), None);
    assert_eq!(secs(e().retry_after(0.4)), Some(json!(1)));
    assert_eq!(secs(e().retry_after(1)), Some(json!(1)));
    assert_eq!(secs(e().retry_after(1.5)), Some(json!(2)));
    assert_eq!(secs(e().retry_after(30u64)), Some(json!(30)));
    assert_eq!(secs(e().retry_after(1e300)), Some(json!(86_400)));
    assert_eq!(secs(e().retry_after(u64::MAX)), Some(json!(86_400)));
    assert_eq!(secs(e().retry_after(-1)), None);
    assert_eq!(secs(e().retry_after(f64::NAN)), None);
}

// ---------------------------------------------------------------- size

#[test]
fn ten_thousand_multibyte_characters_are_cut_on_a_char_boundary() {
    let long: String = "é漢👍🏽".chars().cycle().take(10_000).collect();
    let err = ToolError::new(ErrorCode::InternalError, long.clone());
    let xml = render(&err);

    let expected: String = long.chars().take(1_999).chain(['…']).collect();
    assert_eq!(
        xml,
        format!(
            "<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n  \
             <message>{expected}</message>\n</tool_error>"
        )
    );
    assert_eq!(check_envelope(&xml), Ok(()));
    assert_eq!(tool(&xml).message, expected);
    assert_eq!(expected.chars().count(), 2_000);
}

#[test]
fn long_values_everywhere_stay_under_16_kib_and_parse() {
    let long: String = "漢<&👍🏽".chars().cycle().take(10_000).collect();
    let err = ToolError::new(long.as_str(), long.as_str())
        .suggest(long.as_str())
        .actions(vec![long.clone(); 20])
        .details((0..20).map(|i| (format!("{i}{long}"), long.clone())))
        .retry_after(1e9);
    let xml = render(&err);
    assert!(xml.len() < MAX_ENVELOPE_BYTES, "{} bytes", xml.len());
    assert_eq!(check_envelope(&xml), Ok(()));
    let normalized = normalize(&err);
    assert_eq!(tool(&xml), normalized);
    assert!(normalized.message.ends_with('…'));
    assert_eq!(normalized.code.as_str().chars().count(), 200);

    let failure = ValidationFailure::new(
        long.as_str(),
        (0..40)
            .map(|i| FieldError::new(format!("f{i}{long}"), long.as_str()))
            .collect(),
    );
    let xml = render_validation(&failure);
    assert!(xml.len() < MAX_ENVELOPE_BYTES, "{} bytes", xml.len());
    assert_eq!(check_envelope(&xml), Ok(()));
    assert!(xml.contains("<field name=\"(more)\">"), "{xml}");
}

// ---------------------------------------------------------------- results

fn only_text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1);
    &result.content[0].as_text().expect("a text block").text
}

#[test]
fn severity_decides_is_error() {
    for (err, is_error) in [
        (ToolError::not_found("n"), true),
        (ToolError::not_found("n").critical(), true),
        (ToolError::not_found("n").warning(), false),
    ] {
        let result = to_call_tool_result(&err);
        assert_eq!(result.is_error, Some(is_error), "{}", err.severity);
        assert_eq!(result.structured_content, None);
        assert_eq!(only_text(&result), render(&err));
        let meta = result.meta.as_ref().expect("_meta");
        assert_eq!(meta.0.get(META_KEY), Some(&to_meta(&err)));
        assert_eq!(meta.0[META_KEY]["severity"], json!(err.severity.as_str()));
    }
}

#[test]
fn seed_result_on_the_wire() {
    let err = ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .detail("requestedId", "inv_2026_9999")
        .retry_after(30);
    let wire = serde_json::to_value(to_call_tool_result(&err)).unwrap();
    assert_eq!(wire["isError"], json!(true));
    assert_eq!(wire.get("structuredContent"), None);
    assert_eq!(
        wire["content"],
        json!([{"type": "text", "text": render(&err)}])
    );
    assert_eq!(
        wire["_meta"]["mcp-fusion/error"],
        json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice with that ID",
            "recovery": "List invoices first, then retry with a real ID",
            "available_actions": ["billing.list_invoices"],
            "details": {"requestedId": "inv_2026_9999"},
            "retry_after_seconds": 30
        })
    );
    // Member order is the contract's order too.
    let keys: Vec<&str> = wire["_meta"]["mcp-fusion/error"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "code",
            "severity",
            "message",
            "recovery",
            "available_actions",
            "details",
            "retry_after_seconds"
        ]
    );
}

#[test]
fn validation_result_carries_fields_in_meta() {
    let failure = ValidationFailure::new(
        "billing.get_invoice",
        vec![FieldError::new(
            "email",
            "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
        )],
    );
    assert_eq!(
        render_validation(&failure),
        "Fix the fields below and call billing again.\n<validation_error action=\"billing.get_invoice\">\n  \
         <field name=\"email\">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>\n  \
         <recovery>Do not explain the error.</recovery>\n\
         </validation_error>"
    );
    let result = validation_result(&failure);
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.structured_content, None);
    assert_eq!(only_text(&result), render_validation(&failure));
    let meta = &result.meta.as_ref().unwrap().0[META_KEY];
    assert_eq!(meta["code"], json!("VALIDATION_ERROR"));
    assert_eq!(
        meta["fields"],
        json!([{"path": "email", "message": "Invalid email format. You sent: 'not-an-email'. Expected a valid email address."}])
    );
}

#[test]
fn warning_rides_after_successful_content() {
    let mut ok = CallToolResult::success(vec![ContentBlock::text("Invoice inv_1: 12.50 EUR")]);
    ok.meta = Some(Default::default());
    ok.meta.as_mut().unwrap().0.insert("other".into(), json!(1));
    let warning = ToolError::deprecated("Parameter `format` is deprecated")
        .suggest("Use `output_format` instead");

    let result = attach_warning(ok, &warning);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    assert_eq!(result.content.len(), 2);
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "Invoice inv_1: 12.50 EUR"
    );
    let envelope_text = &result.content[1].as_text().unwrap().text;
    assert_eq!(
        envelope_text,
        "<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  \
         <message>Parameter `format` is deprecated</message>\n  \
         <recovery>Use `output_format` instead</recovery>\n</tool_error>"
    );
    let meta = &result.meta.as_ref().unwrap().0;
    assert_eq!(meta["other"], json!(1));
    assert_eq!(meta[META_KEY], to_meta(&warning));

    // A client that joins the text blocks still finds the warning after the output.
    let joined = format!("Invoice inv_1: 12.50 EUR\n{envelope_text}");
    let parsed = parse(&joined).unwrap();
    assert!(!parsed.is_error());
    assert_eq!(parsed, ParsedEnvelope::Tool(warning));
}

#[test]
fn meta_omits_absent_members() {
    assert_eq!(
        envelope::to_meta(&ToolError::unauthorized("Token expired")),
        json!({"code": "UNAUTHORIZED", "severity": "error", "message": "Token expired"})
    );
}

#[test]
fn twenty_thousand_details_keep_the_first_ones_in_budget() {
    let details: Vec<(String, usize)> = (0..20_000).map(|i| (format!("k{i}"), i)).collect();
    let err = ToolError::new("X", "m").details(details);
    assert_eq!(err.details.len(), 20_000);
    let xml = render(&err);
    assert!(xml.len() < 16 * 1024);
    check_envelope(&xml).unwrap();
    let normalized = mcp_fusion::envelope::normalize(&err);
    let kept = normalized.details.len();
    assert!(kept > 100 && kept < 20_000, "{kept}");
    for (i, (key, value)) in normalized.details.iter().enumerate() {
        assert_eq!(
            (key.as_str(), value.as_str()),
            (format!("k{i}").as_str(), i.to_string().as_str())
        );
    }
}

#[test]
fn the_next_step_is_one_escaped_line_before_the_envelope() {
    let err = ToolError::conflict("Invoice inv_7 is paid.").next_step(format!(
        "Call billing.get_invoice\r\nwith id inv_7 & {TABLE}"
    ));
    let xml = render(&err);
    assert_eq!(
        xml,
        format!(
            "Call billing.get_invoice  with id inv_7 &amp; {TABLE_TEXT}\n<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Invoice inv_7 is paid.</message>\n</tool_error>"
        )
    );
    assert_eq!(
        to_meta(&err)["next_step"],
        json!(format!("Call billing.get_invoice  with id inv_7 & {TABLE}"))
    );
    let ParsedEnvelope::Tool(parsed) = parse(&xml).unwrap() else {
        panic!("a tool error")
    };
    assert_eq!(parsed, normalize(&err));
    // The same through the `CallToolResult` written in one pass.
    let result = to_call_tool_result(&err);
    assert_eq!(result.content[0].as_text().unwrap().text, xml);
    assert_eq!(result.meta.unwrap().0[META_KEY], to_meta(&err));
}

#[test]
fn a_warning_or_a_blank_next_step_writes_no_line() {
    let warning = ToolError::new(ErrorCode::Deprecated, "v1 is deprecated.")
        .warning()
        .next_step("Call v2 next time.");
    assert_eq!(normalize(&warning).next_step, None);
    assert!(render(&warning).starts_with("<tool_error code=\"DEPRECATED\""));
    assert!(to_meta(&warning).get("next_step").is_none());
    let blank = ToolError::conflict("x").next_step(" \t ");
    assert_eq!(blank.next_step, None);
    assert!(render(&blank).starts_with("<tool_error"));
}

#[test]
fn a_validation_next_step_stays_one_line_whatever_the_tool_name() {
    let failure = ValidationFailure::new(
        "bil\u{2028}l\u{85}i\u{2029}ng.pay",
        vec![FieldError::new("id", "Required.")],
    );
    assert_eq!(
        failure.next_step(),
        "Fix the fields below and call bil l i ng again."
    );
}
