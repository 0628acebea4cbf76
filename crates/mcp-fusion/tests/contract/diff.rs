//! The diff rules of `docs/contracts.md`, one test per rule, on contracts
//! built from JSON Schemas. Each test checks the exact delta (field,
//! severity, old and new values, description).

use mcp_fusion::contract::{
    ActionContract, ContractDiff, Delta, ServerContract, ToolContract, diff,
};
use mcp_fusion::error::ChangeSeverity::{self, Breaking, Cosmetic, Risky, Safe};
use serde_json::{Value, json};

/// One action's contract with `schema` as its input schema.
fn action(name: &str, schema: Value) -> ActionContract {
    ActionContract {
        name: name.into(),
        input_schema: schema,
        ..ActionContract::default()
    }
    .canonical()
}

/// A server with one group `reports` holding `actions`.
fn server(actions: Vec<ActionContract>) -> ServerContract {
    let tool = ToolContract {
        name: "reports".into(),
        description: None,
        discriminator: Some("action".into()),
        actions: actions.into_iter().map(|a| (a.name.clone(), a)).collect(),
    };
    ServerContract {
        tools: [(tool.name.clone(), tool)].into(),
    }
}

/// The diff between `reports.summary` with input `old` and with input `new`.
fn diff_inputs(old: Value, new: Value) -> ContractDiff {
    diff(
        &server(vec![action("summary", old)]),
        &server(vec![action("summary", new)]),
    )
}

/// An object schema with `properties` and `required`.
fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn delta(
    field: &str,
    severity: ChangeSeverity,
    old: Option<&str>,
    new: Option<&str>,
    description: &str,
) -> Delta {
    Delta {
        tool: "reports".into(),
        action: Some("summary".into()),
        field: field.into(),
        severity,
        old: old.map(str::to_owned),
        new: new.map(str::to_owned),
        description: description.into(),
    }
}

fn only(diff: ContractDiff) -> Delta {
    assert_eq!(diff.deltas.len(), 1, "{:#?}", diff.deltas);
    diff.deltas.into_iter().next().unwrap()
}

#[test]
fn action_removed_is_breaking() {
    let old = server(vec![
        action("summary", object(json!({}), &[])),
        action(
            "export",
            object(json!({"format": {"type": "string"}}), &["format"]),
        ),
    ]);
    let new = server(vec![action("summary", object(json!({}), &[]))]);
    let changes = diff(&old, &new);
    assert_eq!(
        only(changes.clone()),
        Delta {
            tool: "reports".into(),
            action: Some("export".into()),
            field: "(action)".into(),
            severity: Breaking,
            old: Some("format (required): string".into()),
            new: None,
            description: "Action \"reports.export\" was removed.".into(),
        }
    );
    assert!(changes.is_breaking());
}

#[test]
fn action_added_is_safe() {
    let old = server(vec![action("summary", object(json!({}), &[]))]);
    let new = server(vec![
        action("summary", object(json!({}), &[])),
        action("export", object(json!({}), &[])),
    ]);
    let changes = diff(&old, &new);
    assert_eq!(
        only(changes.clone()),
        Delta {
            tool: "reports".into(),
            action: Some("export".into()),
            field: "(action)".into(),
            severity: Safe,
            old: None,
            new: Some("no fields".into()),
            description: "Action \"reports.export\" was added.".into(),
        }
    );
    assert!(!changes.is_breaking());
}

#[test]
fn required_field_added_is_breaking() {
    let changes = diff_inputs(
        object(json!({}), &[]),
        object(json!({"limit": {"type": "integer"}}), &["limit"]),
    );
    assert_eq!(
        only(changes),
        delta(
            "limit",
            Breaking,
            None,
            Some("integer"),
            "Required field \"limit\" was added."
        )
    );
    // An existing field that becomes required is the same rule.
    let changes = diff_inputs(
        object(json!({"limit": {"type": "integer"}}), &[]),
        object(json!({"limit": {"type": "integer"}}), &["limit"]),
    );
    assert_eq!(
        only(changes),
        delta(
            "limit",
            Breaking,
            Some("optional"),
            Some("required"),
            "Field \"limit\" is now required."
        )
    );
}

#[test]
fn required_field_removed_is_safe() {
    let changes = diff_inputs(
        object(json!({"limit": {"type": "integer"}}), &["limit"]),
        object(json!({"limit": {"type": "integer"}}), &[]),
    );
    assert_eq!(
        only(changes),
        delta(
            "limit",
            Safe,
            Some("required"),
            Some("optional"),
            "Field \"limit\" is no longer required."
        )
    );
}

#[test]
fn optional_field_added_is_safe() {
    let changes = diff_inputs(
        object(json!({}), &[]),
        object(json!({"note": {"type": "string"}}), &[]),
    );
    assert_eq!(
        only(changes),
        delta(
            "note",
            Safe,
            None,
            Some("string"),
            "Optional field \"note\" was added."
        )
    );
}

#[test]
fn field_removed_is_breaking_when_it_was_required() {
    let changes = diff_inputs(
        object(json!({"note": {"type": "string"}}), &["note"]),
        object(json!({}), &[]),
    );
    assert_eq!(
        only(changes),
        delta(
            "note",
            Breaking,
            Some("string"),
            None,
            "Field \"note\" was removed (it was required)."
        )
    );
}

#[test]
fn field_removed_is_risky_when_it_was_optional() {
    let changes = diff_inputs(
        object(json!({"note": {"type": "string"}}), &[]),
        object(json!({}), &[]),
    );
    assert_eq!(
        only(changes),
        delta(
            "note",
            Risky,
            Some("string"),
            None,
            "Field \"note\" was removed."
        )
    );
}

#[test]
fn type_changed_is_breaking() {
    let changes = diff_inputs(
        object(
            json!({"limit": {"type": "integer", "minimum": 0}}),
            &["limit"],
        ),
        object(json!({"limit": {"type": "string"}}), &["limit"]),
    );
    // The rest of the field (the dropped minimum) is not reported on top.
    assert_eq!(
        only(changes),
        delta(
            "limit",
            Breaking,
            Some("integer"),
            Some("string"),
            "Field \"limit\" changed type from integer to string."
        )
    );
}

#[test]
fn type_widened_is_safe() {
    let changes = diff_inputs(
        object(json!({"limit": {"type": "integer"}}), &["limit"]),
        object(json!({"limit": {"type": ["number", "null"]}}), &["limit"]),
    );
    assert_eq!(
        only(changes),
        delta(
            "limit",
            Safe,
            Some("integer"),
            Some("null|number"),
            "Field \"limit\" now accepts more types: null|number instead of integer."
        )
    );
}

#[test]
fn enum_value_removed_is_breaking() {
    let changes = diff_inputs(
        object(
            json!({"period": {"type": "string", "enum": ["day", "week", "month"]}}),
            &["period"],
        ),
        object(
            json!({"period": {"type": "string", "enum": ["day", "month"]}}),
            &["period"],
        ),
    );
    assert_eq!(
        only(changes),
        delta(
            "period",
            Breaking,
            Some("day|week|month"),
            Some("day|month"),
            "Field \"period\" no longer accepts \"week\"."
        )
    );
}

#[test]
fn enum_value_swapped_in_place_names_its_replacement() {
    let changes = diff_inputs(
        object(
            json!({"status": {"type": "string", "enum": ["draft", "sent", "paid"]}}),
            &["status"],
        ),
        object(
            json!({"status": {"type": "string", "enum": ["draft", "open", "paid"]}}),
            &["status"],
        ),
    );
    let removed: Vec<Delta> = changes
        .deltas
        .into_iter()
        .filter(|d| d.severity == Breaking)
        .collect();
    assert_eq!(
        removed,
        vec![delta(
            "status",
            Breaking,
            Some("draft|sent|paid"),
            Some("draft|open|paid"),
            "Field \"status\" no longer accepts \"sent\"; \"open\" took its place."
        )]
    );
}

#[test]
fn enum_value_added_is_safe() {
    let changes = diff_inputs(
        object(
            json!({"period": {"type": "string", "enum": ["day", "week"]}}),
            &["period"],
        ),
        object(
            json!({"period": {"type": "string", "enum": ["day", "week", "month"]}}),
            &["period"],
        ),
    );
    assert_eq!(
        only(changes),
        delta(
            "period",
            Safe,
            Some("day|week"),
            Some("day|week|month"),
            "Field \"period\" now also accepts \"month\"."
        )
    );
}

#[test]
fn documented_rust_enums_count_as_enums() {
    // schemars writes an enum whose variants have doc comments as a oneOf of
    // constants.
    let currencies = |codes: &[&str]| {
        let branches: Vec<Value> = codes
            .iter()
            .map(|c| json!({"const": c, "type": "string", "description": format!("{c}.")}))
            .collect();
        object(json!({"currency": {"oneOf": branches}}), &["currency"])
    };
    let changes = diff_inputs(
        currencies(&["USD", "EUR"]),
        currencies(&["USD", "EUR", "GBP"]),
    );
    assert_eq!(
        only(changes),
        delta(
            "currency",
            Safe,
            Some("USD|EUR"),
            Some("USD|EUR|GBP"),
            "Field \"currency\" now also accepts \"GBP\"."
        )
    );
}

#[test]
fn bound_tightened_is_risky() {
    let cases = [
        ("minLength", 1, 3, "raised"),
        ("maxLength", 10, 5, "lowered"),
        ("minimum", 0, 1, "raised"),
        ("maximum", 100, 50, "lowered"),
        ("exclusiveMinimum", 0, 1, "raised"),
        ("exclusiveMaximum", 100, 99, "lowered"),
        ("minItems", 0, 1, "raised"),
        ("maxItems", 10, 3, "lowered"),
    ];
    for (keyword, old, new, verb) in cases {
        let changes = diff_inputs(
            object(json!({"x": {keyword: old}}), &[]),
            object(json!({"x": {keyword: new}}), &[]),
        );
        assert_eq!(
            only(changes),
            delta(
                "x",
                Risky,
                Some(&old.to_string()),
                Some(&new.to_string()),
                &format!("Field \"x\": {keyword} {verb}; fewer values are accepted.")
            ),
            "{keyword}"
        );
    }
    // A bound that appears is a tightening too.
    let changes = diff_inputs(
        object(json!({"x": {"type": "string"}}), &[]),
        object(json!({"x": {"type": "string", "maxLength": 20}}), &[]),
    );
    assert_eq!(
        only(changes),
        delta(
            "x",
            Risky,
            None,
            Some("20"),
            "Field \"x\": maxLength added; fewer values are accepted."
        )
    );
}

#[test]
fn bound_loosened_is_safe() {
    let cases = [
        ("minLength", 3, 1, "lowered"),
        ("maxLength", 5, 10, "raised"),
        ("minimum", 1, 0, "lowered"),
        ("maximum", 50, 100, "raised"),
        ("minItems", 2, 1, "lowered"),
        ("maxItems", 3, 10, "raised"),
    ];
    for (keyword, old, new, verb) in cases {
        let changes = diff_inputs(
            object(json!({"x": {keyword: old}}), &[]),
            object(json!({"x": {keyword: new}}), &[]),
        );
        assert_eq!(
            only(changes),
            delta(
                "x",
                Safe,
                Some(&old.to_string()),
                Some(&new.to_string()),
                &format!("Field \"x\": {keyword} {verb}; more values are accepted.")
            ),
            "{keyword}"
        );
    }
    let changes = diff_inputs(
        object(json!({"x": {"type": "string", "maxLength": 20}}), &[]),
        object(json!({"x": {"type": "string"}}), &[]),
    );
    assert_eq!(
        only(changes),
        delta(
            "x",
            Safe,
            Some("20"),
            None,
            "Field \"x\": maxLength removed; more values are accepted."
        )
    );
}

#[test]
fn pattern_changed_is_risky() {
    let changes = diff_inputs(
        object(
            json!({"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}),
            &["code"],
        ),
        object(
            json!({"code": {"type": "string", "pattern": "^[A-Z]{3,4}$"}}),
            &["code"],
        ),
    );
    assert_eq!(
        only(changes),
        delta(
            "code",
            Risky,
            Some("^[A-Z]{3}$"),
            Some("^[A-Z]{3,4}$"),
            "Field \"code\": pattern changed."
        )
    );
}

#[test]
fn rename_is_one_risky_delta_naming_both() {
    let changes = diff_inputs(
        object(
            json!({"period": {"type": "string", "enum": ["day", "week"]}}),
            &["period"],
        ),
        object(
            json!({"time_range": {"type": "string", "enum": ["day", "week", "month"]}}),
            &["time_range"],
        ),
    );
    assert_eq!(
        only(changes),
        delta(
            "period",
            Risky,
            Some("enum day|week"),
            Some("enum day|week|month"),
            "Field \"period\" was renamed to \"time_range\"."
        )
    );
}

#[test]
fn remove_and_add_of_another_type_is_not_a_rename() {
    let changes = diff_inputs(
        object(json!({"period": {"type": "string"}}), &["period"]),
        object(json!({"days": {"type": "integer"}}), &["days"]),
    );
    let fields: Vec<(&str, ChangeSeverity)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity))
        .collect();
    assert_eq!(fields, [("period", Breaking), ("days", Breaking)]);
    assert_eq!(
        changes.deltas[1].description,
        "Required field \"days\" was added."
    );
}

#[test]
fn an_optional_field_replaced_by_a_required_one_is_not_a_rename() {
    // Calls without the new field fail: that is a required field added.
    let changes = diff_inputs(
        object(json!({"note": {"type": "string"}}), &[]),
        object(json!({"email": {"type": "string"}}), &["email"]),
    );
    let fields: Vec<(&str, ChangeSeverity)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity))
        .collect();
    assert_eq!(fields, [("email", Breaking), ("note", Risky)]);
}

#[test]
fn read_only_annotation_changed_is_breaking() {
    let mut new_action = action("summary", object(json!({}), &[]));
    new_action.annotations.read_only = true;
    let changes = diff(
        &server(vec![action("summary", object(json!({}), &[]))]),
        &server(vec![new_action]),
    );
    assert_eq!(
        only(changes),
        delta(
            "(readOnlyHint)",
            Breaking,
            Some("false"),
            Some("true"),
            "The readOnly annotation of action \"reports.summary\" changed from false to true."
        )
    );
}

#[test]
fn destructive_annotation_changed_is_breaking() {
    let mut old_action = action("summary", object(json!({}), &[]));
    old_action.annotations.destructive = true;
    let changes = diff(
        &server(vec![old_action]),
        &server(vec![action("summary", object(json!({}), &[]))]),
    );
    assert_eq!(
        only(changes),
        delta(
            "(destructiveHint)",
            Breaking,
            Some("true"),
            Some("false"),
            "The destructive annotation of action \"reports.summary\" changed from true to false."
        )
    );
}

#[test]
fn description_changed_is_cosmetic() {
    let described = |text: &str| {
        ActionContract {
            name: "summary".into(),
            description: Some(text.to_owned()),
            input_schema: object(
                json!({"period": {"type": "string", "description": format!("{text} period")}}),
                &[],
            ),
            ..ActionContract::default()
        }
        .canonical()
    };
    let changes = diff(
        &server(vec![described("Totals.")]),
        &server(vec![described("Totals per period.")]),
    );
    assert_eq!(
        changes.deltas,
        [
            delta(
                "(description)",
                Cosmetic,
                Some("Totals."),
                Some("Totals per period."),
                "The description of action \"reports.summary\" changed."
            ),
            delta(
                "period",
                Cosmetic,
                Some("Totals. period"),
                Some("Totals per period. period"),
                "Field \"period\": description changed."
            ),
        ]
    );
    assert_eq!(changes.max_severity(), Some(Cosmetic));
}

// ---- Paths: nested objects, array items, local $refs.

#[test]
fn nested_objects_array_items_and_refs_have_dotted_paths() {
    let schema = |max: u32, currency: &[&str]| {
        json!({
            "type": "object",
            "properties": {
                "customer": {"$ref": "#/$defs/Customer"},
                "lines": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"amount": {"type": "integer", "maximum": max}},
                    "required": ["amount"],
                }},
            },
            "$defs": {"Customer": {
                "type": "object",
                "properties": {"address": {"type": "object", "properties": {
                    "currency": {"type": "string", "enum": currency},
                }}},
            }},
        })
    };
    let changes = diff_inputs(schema(100, &["USD", "EUR"]), schema(50, &["USD"]));
    let fields: Vec<(&str, ChangeSeverity, &str)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity, d.description.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            (
                "customer.address.currency",
                Breaking,
                "Field \"customer.address.currency\" no longer accepts \"EUR\"."
            ),
            (
                "lines[].amount",
                Risky,
                "Field \"lines[].amount\": maximum lowered; fewer values are accepted."
            ),
        ]
    );
}

#[test]
fn recursive_refs_end() {
    let tree = |leaf: &str| {
        json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "label": {"type": leaf},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            }}},
        })
    };
    let changes = diff_inputs(tree("string"), tree("integer"));
    assert_eq!(
        changes
            .deltas
            .iter()
            .map(|d| d.field.as_str())
            .collect::<Vec<_>>(),
        ["root.label"]
    );
}

#[test]
fn unknown_keys_no_longer_accepted_is_risky() {
    let mut open = object(json!({"a": {"type": "string"}}), &[]);
    open.as_object_mut().unwrap().remove("additionalProperties");
    let closed = object(json!({"a": {"type": "string"}}), &[]);
    assert_eq!(
        only(diff_inputs(open.clone(), closed.clone())),
        delta(
            "(root)",
            Risky,
            Some("true"),
            Some("false"),
            "The input no longer accepts unknown keys."
        )
    );
    assert_eq!(only(diff_inputs(closed, open)).severity, Safe);
}

// ---- The rest of an action, and tools.

#[test]
fn other_parts_of_an_action() {
    let base = action("summary", object(json!({}), &[]));
    let mut changed = base.clone();
    changed.annotations.idempotent = true;
    changed.deprecated = Some("reports.summary_v2".into());
    changed.required_scopes = vec!["reports:read".into()];
    changed.guards =
        json!({"timeoutMs": 500, "rateLimit": {"calls": 10, "periodMs": 60000, "scope": "caller"}});
    let changes = diff(&server(vec![base.clone()]), &server(vec![changed.clone()]));
    let summary: Vec<(&str, ChangeSeverity)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity))
        .collect();
    assert_eq!(
        summary,
        [
            ("(requiredScopes)", Breaking),
            ("(idempotentHint)", Risky),
            ("(deprecated)", Risky),
            ("(guards.rateLimit.calls)", Risky),
            ("(guards.rateLimit.periodMs)", Risky),
            ("(guards.rateLimit.scope)", Risky),
            ("(guards.timeoutMs)", Risky),
        ]
    );
    assert_eq!(
        changes.deltas[0].description,
        "Action \"reports.summary\" now requires the scopes reports:read."
    );
    // Looser guards, no scopes, no deprecation: SAFE.
    let mut looser = changed.clone();
    looser.guards = json!({"timeoutMs": 1000, "rateLimit": {"calls": 20, "periodMs": 60000, "scope": "caller"}});
    looser.required_scopes = vec![];
    looser.deprecated = None;
    let changes = diff(&server(vec![changed]), &server(vec![looser]));
    assert!(
        changes.deltas.iter().all(|d| d.severity == Safe),
        "{:#?}",
        changes.deltas
    );
    assert_eq!(changes.deltas.len(), 4);
}

#[test]
fn results_slots_tighter_egress_is_breaking_looser_safe_the_rest_risky() {
    let base = action("summary", object(json!({}), &[]));
    let mut tighter = base.clone();
    tighter.results = json!({"egressLimitBytes": 65536});
    let changes = diff(&server(vec![base.clone()]), &server(vec![tighter.clone()]));
    assert_eq!(
        only(changes),
        delta(
            "(results.egressLimitBytes)",
            Breaking,
            Some("262144"),
            Some("65536"),
            "The egress limit of action \"reports.summary\" tightened."
        )
    );
    let changes = diff(&server(vec![tighter.clone()]), &server(vec![base.clone()]));
    assert_eq!(only(changes).severity, Safe);
    let mut none = base.clone();
    none.results = json!({"egressLimitBytes": null});
    let changes = diff(&server(vec![base.clone()]), &server(vec![none.clone()]));
    assert_eq!(only(changes).severity, Safe);
    let changes = diff(&server(vec![none]), &server(vec![base.clone()]));
    assert_eq!(only(changes).severity, Breaking);
    let mut synced = base.clone();
    synced.results = json!({"invalidates": ["invoices.*"], "freshness": {"noStore": true}});
    let changes = diff(&server(vec![base]), &server(vec![synced]));
    let summary: Vec<(&str, ChangeSeverity)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity))
        .collect();
    assert_eq!(
        summary,
        [
            ("(results.freshness)", Risky),
            ("(results.invalidates)", Risky)
        ]
    );
}

#[test]
fn a_new_serializer_is_safe_and_a_tighter_one_risky() {
    let base = action("summary", object(json!({}), &[]));
    let mut serialized = base.clone();
    serialized.guards = json!({"serialize": {"key": "id", "maxQueue": 64, "maxWaitMs": 30000}});
    let changes = diff(
        &server(vec![base.clone()]),
        &server(vec![serialized.clone()]),
    );
    let summary: Vec<(&str, ChangeSeverity, &str)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity, d.description.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "(guards.serialize.key)",
                Safe,
                "Action \"reports.summary\" is newly serialized: serialize.key."
            ),
            (
                "(guards.serialize.maxQueue)",
                Safe,
                "Action \"reports.summary\" is newly serialized: serialize.maxQueue."
            ),
            (
                "(guards.serialize.maxWaitMs)",
                Safe,
                "Action \"reports.summary\" is newly serialized: serialize.maxWaitMs."
            ),
        ]
    );
    let mut tighter = serialized.clone();
    tighter.guards = json!({"serialize": {"key": "id", "maxQueue": 8, "maxWaitMs": 30000}});
    let changes = diff(&server(vec![serialized.clone()]), &server(vec![tighter]));
    assert_eq!(
        only(changes),
        delta(
            "(guards.serialize.maxQueue)",
            Risky,
            Some("64"),
            Some("8"),
            "The limit serialize.maxQueue of action \"reports.summary\" tightened."
        )
    );
    // No longer serialized: SAFE.
    let changes = diff(&server(vec![serialized]), &server(vec![base]));
    assert!(changes.deltas.iter().all(|d| d.severity == Safe));
}

#[test]
fn a_state_gate_allowing_fewer_states_is_breaking_and_more_safe() {
    let gated = |states: Value| {
        let mut a = action("summary", object(json!({}), &[]));
        a.guards =
            json!({"stateGate": {"machine": "cart", "allowedIn": states, "transitions": {}}});
        a
    };
    let free = action("summary", object(json!({}), &[]));
    let two = gated(json!(["filled", "paid"]));
    let one = gated(json!(["filled"]));
    assert_eq!(
        only(diff(
            &server(vec![free.clone()]),
            &server(vec![two.clone()])
        )),
        delta(
            "(guards.stateGate)",
            Breaking,
            None,
            Some("\"filled\", \"paid\""),
            "Action \"reports.summary\" is now gated by the state machine \"cart\": allowed only in \"filled\", \"paid\"."
        )
    );
    assert_eq!(
        only(diff(&server(vec![two.clone()]), &server(vec![one.clone()]))),
        delta(
            "(guards.stateGate.allowedIn)",
            Breaking,
            Some("\"filled\", \"paid\""),
            Some("\"filled\""),
            "Action \"reports.summary\" is no longer allowed in \"paid\"."
        )
    );
    assert_eq!(
        only(diff(&server(vec![one.clone()]), &server(vec![two]))),
        delta(
            "(guards.stateGate.allowedIn)",
            Safe,
            Some("\"filled\""),
            Some("\"filled\", \"paid\""),
            "Action \"reports.summary\" is now also allowed in \"paid\"."
        )
    );
    assert_eq!(
        only(diff(&server(vec![one]), &server(vec![free]))).severity,
        Safe
    );
}

#[test]
fn output_changes_are_mirrored() {
    let with_output = |output: Value| {
        ActionContract {
            name: "summary".into(),
            input_schema: object(json!({}), &[]),
            output_schema: Some(output),
            ..ActionContract::default()
        }
        .canonical()
    };
    let old = with_output(object(
        json!({"total": {"type": "integer"}, "status": {"enum": ["ok"]}}),
        &["total"],
    ));
    let new = with_output(object(
        json!({"status": {"enum": ["ok", "partial"]}, "currency": {"type": "string"}}),
        &[],
    ));
    let changes = diff(&server(vec![old]), &server(vec![new]));
    let summary: Vec<(&str, ChangeSeverity)> = changes
        .deltas
        .iter()
        .map(|d| (d.field.as_str(), d.severity))
        .collect();
    assert_eq!(
        summary,
        [
            ("(output).total", Breaking),
            ("(output).status", Risky),
            ("(output).currency", Safe),
        ]
    );
}

#[test]
fn tools_removed_and_added() {
    let old = server(vec![action("summary", object(json!({}), &[]))]);
    let changes = diff(&old, &ServerContract::default());
    assert_eq!(
        only(changes),
        Delta {
            tool: "reports".into(),
            action: None,
            field: "(tool)".into(),
            severity: Breaking,
            old: Some("actions summary".into()),
            new: None,
            description: "Tool \"reports\" was removed.".into(),
        }
    );
    let changes = diff(&ServerContract::default(), &old);
    assert_eq!(only(changes).severity, Safe);
}

#[test]
fn identical_contracts_have_no_deltas() {
    let a = server(vec![action(
        "summary",
        object(json!({"x": {"type": "string"}}), &["x"]),
    )]);
    let changes = diff(&a, &a.clone());
    assert!(changes.is_empty());
    assert_eq!(changes.max_severity(), None);
    assert_eq!(
        changes.to_json(),
        json!({"changes": 0, "max_severity": null, "counts": {"BREAKING": 0, "RISKY": 0, "SAFE": 0, "COSMETIC": 0}, "deltas": []})
    );
}

#[test]
fn deltas_are_ordered_by_action_then_severity() {
    let old = server(vec![
        action(
            "b",
            object(json!({"x": {"type": "string", "description": "x"}}), &[]),
        ),
        action("a", object(json!({"y": {"type": "string"}}), &["y"])),
    ]);
    let new = server(vec![
        action(
            "b",
            object(
                json!({"x": {"type": "integer", "description": "x"}, "z": {"type": "string"}}),
                &[],
            ),
        ),
        action("a", object(json!({}), &[])),
    ]);
    let order: Vec<(String, ChangeSeverity)> = diff(&old, &new)
        .deltas
        .iter()
        .map(|d| (d.location(), d.severity))
        .collect();
    assert_eq!(
        order,
        [
            ("reports.a".to_owned(), Breaking),
            ("reports.b".to_owned(), Breaking),
            ("reports.b".to_owned(), Safe),
        ]
    );
}
