//! The `<contract_awareness>` section of a `<validation_error>` (wire
//! contract §4.1, `docs/contracts.md`): exact bytes, the `_meta` twin, the
//! parser, the size budget, and a property test of the round trip.

use mcp_fusion::envelope::{
    MAX_ENVELOPE_BYTES, ParsedEnvelope, normalize_validation, parse, render_validation,
    validation_result, validation_to_meta,
};
use mcp_fusion::error::AwarenessDelta;
use mcp_fusion::error::{ChangeSeverity, ContractAwareness, FieldError, ValidationFailure};
use proptest::prelude::*;
use serde_json::json;

fn failure(awareness: ContractAwareness) -> ValidationFailure {
    ValidationFailure::new(
        "reports.summary",
        vec![FieldError::new(
            "time_range",
            "Missing required field. You sent: (missing).",
        )],
    )
    .with_contract_awareness(awareness)
}

fn delta(severity: ChangeSeverity, field: &str, text: &str) -> AwarenessDelta {
    AwarenessDelta {
        severity,
        field: field.into(),
        text: text.into(),
    }
}

#[test]
fn exact_bytes_with_shown_when_capped() {
    let awareness = ContractAwareness {
        action: "reports.summary".into(),
        changes: 3,
        max_severity: ChangeSeverity::Breaking,
        deltas: vec![
            delta(
                ChangeSeverity::Breaking,
                "limit",
                "Field \"limit\" changed type from integer to string. Before: integer. Now: string.",
            ),
            delta(ChangeSeverity::Risky, "a<b", "x < y & z > w"),
        ],
    };
    assert_eq!(
        render_validation(&failure(awareness)),
        "Fix the fields below and call reports again.\n<validation_error action=\"reports.summary\">\n  \
         <field name=\"time_range\">Missing required field. You sent: (missing).</field>\n  \
         <recovery>Do not explain the error.</recovery>\n  \
         <contract_awareness action=\"reports.summary\" changes=\"3\" shown=\"2\" max_severity=\"BREAKING\">\n    \
         <delta severity=\"BREAKING\" field=\"limit\">Field \"limit\" changed type from integer to string. Before: integer. Now: string.</delta>\n    \
         <delta severity=\"RISKY\" field=\"a&lt;b\">x &lt; y &amp; z > w</delta>\n  \
         </contract_awareness>\n\
         </validation_error>"
    );
}

#[test]
fn meta_twin_and_result() {
    let awareness = ContractAwareness {
        action: "reports.summary".into(),
        changes: 1,
        max_severity: ChangeSeverity::Risky,
        deltas: vec![delta(ChangeSeverity::Risky, "period", "Renamed.")],
    };
    let meta = validation_to_meta(&failure(awareness.clone()));
    assert_eq!(
        meta["contract_awareness"],
        json!({"action": "reports.summary", "changes": 1, "max_severity": "RISKY",
               "deltas": [{"severity": "RISKY", "field": "period", "text": "Renamed."}]})
    );
    let result = validation_result(&failure(awareness));
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.content.len(), 1);
    // Without the section, _meta has no such member and the XML ends as before.
    let plain = ValidationFailure::new("a", vec![FieldError::new("x", "bad")]);
    assert!(
        validation_to_meta(&plain)
            .get("contract_awareness")
            .is_none()
    );
    assert!(render_validation(&plain).ends_with("</recovery>\n</validation_error>"));
}

#[test]
fn parse_reads_the_section_back() {
    let awareness = ContractAwareness {
        action: "t\"<>&'".into(),
        changes: 4,
        max_severity: ChangeSeverity::Breaking,
        deltas: vec![
            delta(ChangeSeverity::Breaking, "f\t\n", "a ]]> b <c> &d"),
            delta(ChangeSeverity::Cosmetic, "(description)", ""),
        ],
    };
    let original = failure(awareness);
    let xml = render_validation(&original);
    crate::support::check_envelope(&xml).unwrap();
    assert_eq!(
        parse(&xml),
        Ok(ParsedEnvelope::Validation(normalize_validation(&original)))
    );
    assert_eq!(normalize_validation(&original), original);
}

#[test]
fn a_section_or_delta_without_its_attributes_is_skipped() {
    let wrap = |section: &str| {
        format!(
            "Fix the fields below and call a again.\n<validation_error action=\"a\">\n  <field name=\"x\">bad</field>\n  {section}\n</validation_error>"
        )
    };
    let awareness_of = |text: &str| match parse(text) {
        Ok(ParsedEnvelope::Validation(parsed)) => {
            assert_eq!(parsed.fields, [FieldError::new("x", "bad")]);
            parsed.contract_awareness
        }
        other => panic!("{text}: {other:?}"),
    };
    for section in [
        "<contract_awareness changes=\"1\" max_severity=\"RISKY\"><delta severity=\"RISKY\" field=\"f\">t</delta></contract_awareness>",
        "<contract_awareness action=\"a\" changes=\"many\" max_severity=\"RISKY\"/>",
        "<contract_awareness action=\"a\" changes=\"1\" max_severity=\"HUGE\"/>",
    ] {
        assert_eq!(awareness_of(&wrap(section)), None, "{section}");
    }
    // A delta without a known severity is skipped; the others are kept.
    let section = awareness_of(&wrap(
        "<contract_awareness action=\"a\" changes=\"2\" max_severity=\"RISKY\">\
         <delta field=\"x\">no severity</delta><delta severity=\"HUGE\" field=\"y\">t</delta>\
         <delta severity=\"RISKY\" field=\"z\">kept</delta></contract_awareness>",
    ))
    .unwrap();
    assert_eq!(section.deltas, [delta(ChangeSeverity::Risky, "z", "kept")]);
    // An attribute that cannot be read counts as absent: the section is
    // skipped, the field lines stay (wire contract §8).
    assert_eq!(
        awareness_of(&wrap(
            "<contract_awareness action=a changes=\"1\" max_severity=\"SAFE\"/>"
        )),
        None
    );
    // Only the first section counts; a second one is skipped.
    let text = wrap(
        "<contract_awareness action=\"a\" changes=\"1\" max_severity=\"SAFE\"><delta severity=\"SAFE\" field=\"x\">one</delta></contract_awareness>\
         <contract_awareness action=\"b\" changes=\"1\" max_severity=\"RISKY\"><delta severity=\"RISKY\" field=\"y\">two</delta></contract_awareness>",
    );
    let Ok(ParsedEnvelope::Validation(parsed)) = parse(&text) else {
        panic!("parses");
    };
    let awareness = parsed.contract_awareness.unwrap();
    assert_eq!(awareness.action, "a");
    assert_eq!(awareness.deltas, [delta(ChangeSeverity::Safe, "x", "one")]);
}

#[test]
fn the_field_lines_come_first_in_the_size_budget() {
    let big = "x".repeat(1_900);
    let awareness = ContractAwareness {
        action: "reports.summary".into(),
        changes: 20,
        max_severity: ChangeSeverity::Breaking,
        deltas: (0..20)
            .map(|i| delta(ChangeSeverity::Risky, &format!("f{i}"), &big))
            .collect(),
    };
    let normalized = normalize_validation(&failure(awareness.clone()));
    let kept = normalized.contract_awareness.as_ref().unwrap();
    assert!(kept.deltas.len() < 20 && !kept.deltas.is_empty());
    assert_eq!(kept.changes, 20);
    assert_eq!(kept.max_severity, ChangeSeverity::Breaking);
    assert_eq!(kept.deltas[0].field, "f0");
    let xml = render_validation(&failure(awareness.clone()));
    assert!(xml.len() < MAX_ENVELOPE_BYTES, "{}", xml.len());
    assert!(xml.contains(&format!("shown=\"{}\"", kept.deltas.len())));

    // Field lines that fill the envelope leave no room: the section goes.
    let fields: Vec<FieldError> = (0..40)
        .map(|i| FieldError::new(format!("f{i}"), big.clone()))
        .collect();
    let crowded = ValidationFailure::new("a", fields).with_contract_awareness(awareness);
    let normalized = normalize_validation(&crowded);
    assert!(normalized.contract_awareness.is_none());
    assert!(render_validation(&crowded).len() < MAX_ENVELOPE_BYTES);
}

#[test]
fn counts_below_what_the_deltas_say_are_raised() {
    let awareness = ContractAwareness {
        action: "a".into(),
        changes: 0,
        max_severity: ChangeSeverity::Cosmetic,
        deltas: vec![delta(ChangeSeverity::Breaking, "x", "t")],
    };
    let normalized = normalize_validation(&failure(awareness))
        .contract_awareness
        .unwrap();
    assert_eq!(normalized.changes, 1);
    assert_eq!(normalized.max_severity, ChangeSeverity::Breaking);
    // No delta, no section.
    let empty = ContractAwareness {
        action: "a".into(),
        changes: 3,
        max_severity: ChangeSeverity::Risky,
        deltas: vec![],
    };
    assert!(!render_validation(&failure(empty)).contains("contract_awareness"));
}

fn severity() -> impl Strategy<Value = ChangeSeverity> {
    prop::sample::select(ChangeSeverity::ALL.to_vec())
}

proptest! {
    #![proptest_config(crate::support::beside_source(ProptestConfig::with_cases(256)))]

    #[test]
    fn any_section_renders_well_formed_and_reads_back(
        action in any::<String>(),
        changes in 0usize..50,
        max in severity(),
        deltas in prop::collection::vec((severity(), any::<String>(), any::<String>()), 0..8),
        fields in prop::collection::vec((any::<String>(), any::<String>()), 0..4),
    ) {
        let failure = ValidationFailure::new(
            "x",
            fields.into_iter().map(|(p, m)| FieldError::new(p, m)).collect(),
        )
        .with_contract_awareness(ContractAwareness {
            action,
            changes,
            max_severity: max,
            deltas: deltas
                .into_iter()
                .map(|(severity, field, text)| AwarenessDelta { severity, field, text })
                .collect(),
        });
        let xml = render_validation(&failure);
        prop_assert!(crate::support::check_envelope(&xml).is_ok(), "{}", xml);
        prop_assert!(xml.len() < MAX_ENVELOPE_BYTES);
        let normalized = normalize_validation(&failure);
        prop_assert_eq!(parse(&xml), Ok(ParsedEnvelope::Validation(normalized.clone())));
        prop_assert_eq!(normalize_validation(&normalized), normalized);
    }
}
