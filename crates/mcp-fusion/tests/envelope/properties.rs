//! Properties of the envelope (wire contract §2, §4): for arbitrary Unicode in
//! every field, the rendering is well-formed XML with exactly one root, is
//! smaller than 16 KiB, and parses back to the normalized failure; a foreign
//! `<retry_after>` of any form never costs the rest of the envelope (§8).

use std::time::Duration;

use crate::support::check_envelope;
use crate::support::xml::check_well_formed;
use mcp_fusion::envelope::{
    self, MAX_ENVELOPE_BYTES, ParsedEnvelope, normalize, normalize_validation, parse,
};
use mcp_fusion::error::{FieldError, ValidationFailure};
use mcp_fusion::error::{MAX_RETRY_AFTER_SECS, retry_after_from_text};
use mcp_fusion::{ErrorCode, Severity, ToolError};
use proptest::prelude::*;

/// Pieces that stress the escaper and the parser.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any::<char>().prop_map(String::from),
        2 => "[a-z ]{1,8}",
        1 => prop::sample::select(vec![
            "<", "&", ">", "\"", "'", "]]>", "]]", "]", "</message>", "<message>",
            "<tool_error>", "</tool_error>", "<![CDATA[", "<!--", "&amp;", "&lt;", "&#10;",
            "\r\n", "\r", "\n", "\t", " ", "  ", "\u{0}", "\u{1}", "\u{1b}", "\u{7f}",
            "\u{85}", "\u{2028}", "\u{fffe}", "\u{ffff}", "\u{feff}", "é", "漢", "👍🏽",
            "\u{10ffff}", "…",
        ])
        .prop_map(String::from),
    ]
}

/// A short string built from [`piece`]s.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..12).prop_map(|v| v.concat())
}

/// A string that is sometimes far over the limits (thousands of characters).
fn long_text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => text(),
        1 => (piece(), 1_500usize..4_000).prop_map(|(p, n)| p.repeat(n)),
        1 => (text(), 100usize..1_200).prop_map(|(p, n)| p.repeat(n)),
    ]
}

/// A string far over the limits whose escaped form is several bytes per
/// character, so that the 16 KiB budget is what cuts it.
fn heavy_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["&", "<", "👍🏽", "漢", "]]>", "&<>\"'", "\r\n"]),
        text(),
        1_000usize..3_000,
    )
        .prop_map(|(p, t, n)| format!("{t}{}", p.repeat(n)))
}

fn code() -> impl Strategy<Value = ErrorCode> {
    prop_oneof![
        prop::sample::select([ErrorCode::CANONICAL.as_slice(), &ErrorCode::LIBRARY].concat()),
        long_text().prop_map(ErrorCode::from),
    ]
}

fn severity() -> impl Strategy<Value = Severity> {
    prop::sample::select(Severity::ALL.to_vec())
}

fn retry_after() -> impl Strategy<Value = Option<Duration>> {
    prop_oneof![
        Just(None),
        Just(Some(Duration::ZERO)),
        Just(Some(Duration::MAX)),
        (0u64..200_000, 0u32..1_000_000_000).prop_map(|(s, n)| Some(Duration::new(s, n))),
    ]
}

/// Any `ToolError`, built field by field so that nothing the builder would
/// tidy up (an empty message, an empty recovery, duplicate keys) is excluded.
fn tool_error() -> impl Strategy<Value = ToolError> {
    (
        code(),
        severity(),
        long_text(),
        prop::option::of(long_text()),
        prop::collection::vec(long_text(), 0..6),
        prop::collection::vec((long_text(), long_text()), 0..6),
        retry_after(),
        prop::option::of(long_text()),
    )
        .prop_map(
            |(
                code,
                severity,
                message,
                recovery,
                available_actions,
                details,
                retry_after,
                next_step,
            )| {
                ToolError {
                    code,
                    severity,
                    message,
                    next_step,
                    recovery,
                    available_actions,
                    details,
                    retry_after,
                    internal: None,
                }
            },
        )
}

/// A `ToolError` whose every section is over the limits.
fn heavy_tool_error() -> impl Strategy<Value = ToolError> {
    (
        heavy_text(),
        severity(),
        heavy_text(),
        heavy_text(),
        prop::collection::vec(heavy_text(), 0..30),
        prop::collection::vec((heavy_text(), heavy_text()), 0..30),
        heavy_text(),
    )
        .prop_map(
            |(code, severity, message, recovery, actions, details, next_step)| ToolError {
                code: ErrorCode::from(code),
                severity,
                message,
                next_step: Some(next_step),
                recovery: Some(recovery),
                available_actions: actions,
                details,
                retry_after: Some(Duration::MAX),
                internal: None,
            },
        )
}

fn validation_failure() -> impl Strategy<Value = ValidationFailure> {
    (
        long_text(),
        prop::collection::vec(
            (long_text(), long_text()).prop_map(|(p, m)| FieldError::new(p, m)),
            0..12,
        ),
        prop::option::of(long_text()),
    )
        .prop_map(|(action, fields, next_step)| {
            let mut failure = ValidationFailure::new(action, fields);
            failure.next_step = next_step;
            failure
        })
}

/// What a foreign server may write in `<retry_after>`: numbers in every form,
/// with and without a unit, and garbage (no XML-forbidden characters, so that
/// the envelope stays well-formed).
fn foreign_retry_after() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => ("-?[0-9]{0,22}(\\.[0-9]{0,4})?", prop::sample::select(vec!["", " ", " seconds", " second", "seconds", " minutes", "abc", "e3", "x"]))
            .prop_map(|(n, unit)| format!("{n}{unit}")),
        2 => any::<f64>().prop_map(|f| f.to_string()),
        1 => any::<u64>().prop_map(|n| format!("{n} seconds")),
        1 => prop::sample::select(vec!["NaN", "inf", "-inf", "thirty", "1e3x", "30abc", "", " ", "+5", ".5", "1."])
            .prop_map(String::from),
        1 => "[ -~\t\n]{0,12}",
    ]
}

proptest! {
    #![proptest_config(crate::support::beside_source(ProptestConfig::with_cases(256)))]

    #[test]
    fn tool_error_round_trips(err in tool_error(), before in text(), after in text()) {
        let xml = envelope::render(&err);
        let normalized = normalize(&err);

        prop_assert!(xml.len() < MAX_ENVELOPE_BYTES, "{} bytes", xml.len());
        if let Err(why) = check_envelope(&xml) {
            prop_assert!(false, "not well-formed ({why}):\n{xml}");
        }
        prop_assert_eq!(parse(&xml), Ok(ParsedEnvelope::Tool(normalized.clone())));

        // Normalizing is idempotent, so the rendering, the `_meta` twin and the
        // parsed envelope all agree.
        prop_assert_eq!(&normalize(&normalized), &normalized);
        prop_assert_eq!(envelope::render(&normalized), xml.clone());
        let parsed = parse(&xml).unwrap();
        prop_assert_eq!(parsed.to_meta(), envelope::to_meta(&err));
        prop_assert_eq!(parsed.render(), xml.clone());

        // Found anywhere in a text, whatever comes before and after; a blank
        // line keeps the text before from being read as the next step (§2.1).
        let embedded = format!("{before}\n\n{xml}\n{after}");
        prop_assert_eq!(parse(&embedded), Ok(ParsedEnvelope::Tool(normalized)));
    }

    #[test]
    fn validation_failure_round_trips(failure in validation_failure(), before in text()) {
        let xml = envelope::render_validation(&failure);
        let normalized = normalize_validation(&failure);

        prop_assert!(xml.len() < MAX_ENVELOPE_BYTES, "{} bytes", xml.len());
        if let Err(why) = check_envelope(&xml) {
            prop_assert!(false, "not well-formed ({why}):\n{xml}");
        }
        prop_assert_eq!(parse(&xml), Ok(ParsedEnvelope::Validation(normalized.clone())));
        prop_assert_eq!(&normalize_validation(&normalized), &normalized);
        prop_assert_eq!(envelope::render_validation(&normalized), xml.clone());
        prop_assert_eq!(
            parse(&xml).unwrap().to_meta(),
            envelope::validation_to_meta(&failure)
        );
        // A line end keeps the text before from being read as the next step.
        let embedded = format!("{before}\n{xml}");
        prop_assert_eq!(parse(&embedded), Ok(ParsedEnvelope::Validation(normalized)));
    }

    /// At the size limit: the budget, not the per-value cuts, decides.
    #[test]
    fn oversized_tool_error_round_trips(err in heavy_tool_error()) {
        let xml = envelope::render(&err);
        prop_assert!(xml.len() < MAX_ENVELOPE_BYTES, "{} bytes", xml.len());
        if let Err(why) = check_envelope(&xml) {
            prop_assert!(false, "not well-formed ({why}):\n{xml}");
        }
        let normalized = normalize(&err);
        prop_assert!(!normalized.message.trim().is_empty());
        prop_assert_eq!(&normalize(&normalized), &normalized);
        prop_assert_eq!(parse(&xml), Ok(ParsedEnvelope::Tool(normalized)));
    }

    /// A `<retry_after>` written by a foreign server never costs the rest of
    /// the envelope: the failure reads back whole, with the delay the one
    /// number rule gives (`retry_after_from_text`), which is either none or
    /// whole seconds from 1 to 86 400, and never read from a prefix.
    #[test]
    fn a_foreign_retry_after_never_costs_the_rest(err in tool_error(), value in foreign_retry_after()) {
        let mut expected = normalize(&err);
        expected.retry_after = None;
        let xml = envelope::render(&expected);
        let escaped = value.replace('&', "&amp;").replace('<', "&lt;");
        let foreign = xml.replacen(
            "\n</tool_error>",
            &format!("\n  <retry_after>{escaped}</retry_after>\n</tool_error>"),
            1,
        );
        let secs = retry_after_from_text(&value);
        expected.retry_after = secs.map(Duration::from_secs);
        prop_assert_eq!(parse(&foreign), Ok(ParsedEnvelope::Tool(expected)));
        if let Some(secs) = secs {
            prop_assert!((1..=MAX_RETRY_AFTER_SECS).contains(&secs));
            // Read whole: what is left without the unit is nothing but a plain number.
            let trimmed = value.trim();
            let lower = trimmed.to_ascii_lowercase();
            let number = lower
                .strip_suffix("seconds")
                .or_else(|| lower.strip_suffix("second"))
                .unwrap_or(&lower)
                .trim_end();
            prop_assert!(
                number.bytes().all(|b| b.is_ascii_digit() || b == b'.'),
                "read {:?} as {} seconds", value, secs
            );
            let parsed: f64 = number.parse().expect("a plain number");
            prop_assert_eq!(secs, (parsed.ceil().min(MAX_RETRY_AFTER_SECS as f64)).max(1.0) as u64);
        }
    }

    /// Whatever the text, `parse` returns a value and never panics.
    #[test]
    fn parse_never_panics(input in long_text()) {
        let _ = parse(&input);
        let _ = parse(&format!("<tool_error code=\"X\">{input}"));
        let _ = parse(&format!("<tool_error code=\"X\"><message>{input}</message></tool_error>"));
        let _ = parse(&format!("Fix the fields below and call a again.\n<validation_error action=\"a\"><field name=\"f\">{input}</field></validation_error>"));
    }

    /// Every proper prefix of an envelope is an error, never a wrong envelope.
    #[test]
    fn truncated_envelopes_are_errors(err in tool_error(), cut in any::<prop::sample::Index>()) {
        let xml = envelope::render(&err);
        let mut end = cut.index(xml.len());
        while !xml.is_char_boundary(end) {
            end -= 1;
        }
        prop_assert!(parse(&xml[..end]).is_err(), "parsed a prefix of {} bytes", end);
    }
}

#[test]
fn the_checker_rejects_what_it_must() {
    assert_eq!(check_well_formed("<a>x &amp; y</a>"), Ok(()));
    for bad in [
        "<a>x</a><b/>",
        "<a>x",
        "<a>x</b>",
        "text<a/>",
        "<a>x < y</a>",
        "<a>x & y</a>",
        "<a>&nbsp;</a>",
        "<a>]]></a>",
        "<a>\u{1}</a>",
        "<a b=\"1\" b=\"2\"/>",
        "",
    ] {
        assert!(check_well_formed(bad).is_err(), "accepted {bad:?}");
    }
}
