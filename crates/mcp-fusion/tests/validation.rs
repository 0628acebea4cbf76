//! Argument validation against JSON Schema, phrased for the model (wire contract §4).
//! Every test asserts the exact field lines: path and message.

use mcp_fusion::FieldError;
use mcp_fusion::validation::{SchemaError, SchemaValidator};
use serde_json::{Value, json};

/// The field lines for `args` against `schema`, as `(path, message)` pairs;
/// empty when the arguments are valid.
fn lines(schema: &Value, args: Value) -> Vec<(String, String)> {
    let v = SchemaValidator::new(schema).expect("schema compiles");
    let mut args = args;
    match v.validate(&mut args) {
        Ok(()) => Vec::new(),
        Err(fields) => {
            assert!(!fields.is_empty(), "an error is never empty");
            fields.into_iter().map(|f| (f.path, f.message)).collect()
        }
    }
}

fn line(path: &str, message: &str) -> (String, String) {
    (path.to_owned(), message.to_owned())
}

/// One property `f` with schema `sub`: the lines for `{"f": value}`.
fn field(sub: Value, value: Value) -> Vec<(String, String)> {
    let schema = json!({"type": "object", "properties": {"f": sub}});
    lines(&schema, json!({"f": value}))
}

/// Asserts that `{"f": value}` against `sub` yields exactly one line at `f` saying `message`.
#[track_caller]
fn one(sub: Value, value: Value, message: &str) {
    assert_eq!(field(sub, value), vec![line("f", message)]);
}

fn project_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "project": {"type": "string"},
            "limit": {"type": "integer", "minimum": 0}
        },
        "required": ["project"],
        "additionalProperties": false
    })
}

fn status_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["active", "paid", "void", "draft", "overdue"]}
        },
        "additionalProperties": false
    })
}

// ---------------------------------------------------------------------------
// The inputs the issue names

#[test]
fn empty_input_reports_the_missing_required_field_once() {
    assert_eq!(
        lines(&project_schema(), json!({})),
        vec![line(
            "project",
            "Missing required field. You sent: (missing). Expected a string."
        )]
    );
}

#[test]
fn wrong_type_for_a_required_field_is_one_line() {
    assert_eq!(
        lines(&project_schema(), json!({"project": 42})),
        vec![line(
            "project",
            "Wrong type. You sent: 42. Expected a string."
        )]
    );
}

#[test]
fn wrong_type_for_an_optional_integer_is_one_line() {
    assert_eq!(
        lines(
            &project_schema(),
            json!({"project": "demo", "limit": "ten"})
        ),
        vec![line(
            "limit",
            "Wrong type. You sent: 'ten'. Expected an integer."
        )]
    );
}

#[test]
fn valid_input_passes_and_is_left_alone() {
    let v = SchemaValidator::new(&project_schema()).unwrap();
    let mut args = json!({"project": "demo", "limit": 0});
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args, json!({"project": "demo", "limit": 0}));
}

#[test]
fn enum_lists_every_option_in_schema_order_and_suggests_the_closest() {
    assert_eq!(
        lines(&status_schema(), json!({"status": "Active"})),
        vec![line(
            "status",
            "Invalid value. You sent: 'Active'. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'. Did you mean 'active'?"
        )]
    );
}

#[test]
fn enum_without_a_near_option_suggests_nothing() {
    assert_eq!(
        lines(&status_schema(), json!({"status": "cancelled"})),
        vec![line(
            "status",
            "Invalid value. You sent: 'cancelled'. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'."
        )]
    );
}

#[test]
fn enum_of_the_wrong_type_is_one_line_listing_the_options() {
    assert_eq!(
        lines(&status_schema(), json!({"status": 3})),
        vec![line(
            "status",
            "Invalid value. You sent: 3. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'."
        )]
    );
}

#[test]
fn null_for_an_optional_field_is_treated_as_absent_and_removed() {
    let v = SchemaValidator::new(&project_schema()).unwrap();
    let mut args = json!({"project": "demo", "limit": null});
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args, json!({"project": "demo"}));
}

#[test]
fn null_for_a_required_field_is_reported_as_null_not_missing() {
    let v = SchemaValidator::new(&project_schema()).unwrap();
    let mut args = json!({"project": null});
    let err = v.validate(&mut args).unwrap_err();
    assert_eq!(
        err,
        vec![FieldError::new(
            "project",
            "Wrong type. You sent: null. Expected a string."
        )]
    );
    assert_eq!(args, json!({"project": null}), "a required null stays");
}

#[test]
fn unknown_key_near_a_known_key_is_named_with_a_suggestion() {
    assert_eq!(
        lines(&project_schema(), json!({"project": "demo", "limt": 5})),
        vec![line(
            "limt",
            "Unrecognized field \"limt\". You sent: 5. Known fields: \"project\", \"limit\". Check for typos. Did you mean \"limit\"?"
        )]
    );
}

#[test]
fn renamed_field_still_names_the_known_keys() {
    let schema = json!({
        "type": "object",
        "properties": {"project": {"type": "string"}, "time_range": {"type": "string"}},
        "additionalProperties": false
    });
    assert_eq!(
        lines(&schema, json!({"period": "7d"})),
        vec![line(
            "period",
            "Unrecognized field \"period\". You sent: '7d'. Known fields: \"project\", \"time_range\". Check for typos."
        )]
    );
}

#[test]
fn every_unknown_key_gets_its_own_line_after_the_known_fields_in_input_order() {
    assert_eq!(
        lines(
            &project_schema(),
            json!({"zeta": 1, "limit": "x", "alpha": [1, 2]})
        ),
        vec![
            line(
                "project",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line("limit", "Wrong type. You sent: 'x'. Expected an integer."),
            line(
                "zeta",
                "Unrecognized field \"zeta\". You sent: 1. Known fields: \"project\", \"limit\". Check for typos."
            ),
            line(
                "alpha",
                "Unrecognized field \"alpha\". You sent: array(2). Known fields: \"project\", \"limit\". Check for typos."
            ),
        ]
    );
}

#[test]
fn object_with_no_known_fields_says_so_for_every_key() {
    let schema = json!({"type": "object", "additionalProperties": false});
    assert_eq!(
        lines(&schema, json!({"x": true, "y": {"z": 1}})),
        vec![
            line(
                "x",
                "Unrecognized field \"x\". You sent: true. This object accepts no fields; remove it."
            ),
            line(
                "y",
                "Unrecognized field \"y\". You sent: {\"z\":1}. This object accepts no fields; remove it."
            ),
        ]
    );
    let nested = json!({"type": "object", "properties": {"opts": {"type": "object", "additionalProperties": false}}});
    assert_eq!(
        lines(&nested, json!({"opts": {"verbose": 1}})),
        vec![line(
            "opts.verbose",
            "Unrecognized field \"verbose\". You sent: 1. This object accepts no fields; remove it."
        )]
    );
}

#[test]
fn unknown_key_mentions_pattern_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {}},
        "additionalProperties": false
    });
    assert_eq!(
        lines(&schema, json!({"name": "a", "x-ok": 1, "nmae": "b"})),
        vec![line(
            "nmae",
            "Unrecognized field \"nmae\". You sent: 'b'. Known fields: \"name\", and names matching '^x-'. Check for typos. Did you mean \"name\"?"
        )]
    );
}

// ---------------------------------------------------------------------------
// Tagged unions inside arrays

fn orders_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "orders": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}}
                    },
                    "required": ["id", "lines"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["orders"],
        "additionalProperties": false,
        "$defs": {
            "Line": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "minLength": 1},
                    "pricing": {"$ref": "#/$defs/Pricing"}
                },
                "required": ["sku", "pricing"],
                "additionalProperties": false
            },
            "Pricing": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "model": {"type": "string", "const": "flat"},
                            "amount": {"type": "integer", "minimum": 1}
                        },
                        "required": ["model", "amount"],
                        "additionalProperties": false
                    },
                    {
                        "type": "object",
                        "properties": {
                            "model": {"type": "string", "const": "tiered"},
                            "tiers": {"type": "array", "minItems": 1, "items": {"type": "integer"}}
                        },
                        "required": ["model", "tiers"],
                        "additionalProperties": false
                    }
                ]
            }
        }
    })
}

fn orders_with_pricing(pricing: Value) -> Value {
    json!({"orders": [
        {"id": "o1", "lines": [{"sku": "a", "pricing": {"model": "flat", "amount": 5}}]},
        {"id": "o2", "lines": [
            {"sku": "b", "pricing": {"model": "tiered", "tiers": [1, 2]}},
            {"sku": "c", "pricing": pricing}
        ]}
    ]})
}

#[test]
fn unknown_union_tag_is_one_line_at_the_tag_listing_the_options() {
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "volume", "amount": 3}))
        ),
        vec![line(
            "orders.1.lines.1.pricing.model",
            "Invalid value. You sent: 'volume'. Expected one of: 'flat', 'tiered'."
        )]
    );
}

#[test]
fn near_union_tag_is_suggested() {
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "Tiered", "tiers": [1]}))
        ),
        vec![line(
            "orders.1.lines.1.pricing.model",
            "Invalid value. You sent: 'Tiered'. Expected one of: 'flat', 'tiered'. Did you mean 'tiered'?"
        )]
    );
}

#[test]
fn missing_union_tag_is_one_line_at_the_tag() {
    assert_eq!(
        lines(&orders_schema(), orders_with_pricing(json!({"amount": 3}))),
        vec![line(
            "orders.1.lines.1.pricing.model",
            "Missing required field. You sent: (missing). Expected one of: 'flat', 'tiered'."
        )]
    );
}

#[test]
fn known_union_tag_reports_that_branch_errors_at_their_paths() {
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "tiered", "tiers": [], "amount": 3}))
        ),
        vec![
            line(
                "orders.1.lines.1.pricing.tiers",
                "Too few items. You sent: array(0). Expected at least 1 item."
            ),
            line(
                "orders.1.lines.1.pricing.amount",
                "Unrecognized field \"amount\". You sent: 3. Known fields: \"model\", \"tiers\". Check for typos."
            ),
        ]
    );
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "flat"}))
        ),
        vec![line(
            "orders.1.lines.1.pricing.amount",
            "Missing required field. You sent: (missing). Expected an integer."
        )]
    );
}

#[test]
fn union_with_three_tagged_branches_behaves_the_same() {
    let schema = json!({
        "type": "object",
        "properties": {"shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
            {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]},
            {"type": "object", "properties": {"kind": {"enum": ["rect", "rectangle"]}, "w": {"type": "number"}}, "required": ["kind", "w"]}
        ]}}
    });
    assert_eq!(
        lines(&schema, json!({"shape": {"kind": "triangle", "r": 1}})),
        vec![line(
            "shape.kind",
            "Invalid value. You sent: 'triangle'. Expected one of: 'circle', 'square', 'rect', 'rectangle'."
        )]
    );
    assert_eq!(
        lines(
            &schema,
            json!({"shape": {"kind": "rectangle", "w": "wide"}})
        ),
        vec![line(
            "shape.w",
            "Wrong type. You sent: 'wide'. Expected a number."
        )]
    );
}

#[test]
fn several_problems_across_the_tree_come_in_schema_order() {
    let args = json!({"orders": [
        {"id": 7, "lines": [{"sku": "", "pricing": {"model": "flat", "amount": 0}}], "note": "x"},
        {"lines": [{"pricing": {"model": "zzz"}}]}
    ], "extra": true});
    assert_eq!(
        lines(&orders_schema(), args),
        vec![
            line("orders.0.id", "Wrong type. You sent: 7. Expected a string."),
            line(
                "orders.0.lines.0.sku",
                "Too short. You sent: ''. Expected at least 1 character."
            ),
            line(
                "orders.0.lines.0.pricing.amount",
                "Too small. You sent: 0. Expected an integer >= 1."
            ),
            line(
                "orders.0.note",
                "Unrecognized field \"note\". You sent: 'x'. Known fields: \"id\", \"lines\". Check for typos."
            ),
            line(
                "orders.1.id",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line(
                "orders.1.lines.0.sku",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line(
                "orders.1.lines.0.pricing.model",
                "Invalid value. You sent: 'zzz'. Expected one of: 'flat', 'tiered'."
            ),
            line(
                "extra",
                "Unrecognized field \"extra\". You sent: true. Known fields: \"orders\". Check for typos."
            ),
        ]
    );
}

// ---------------------------------------------------------------------------
// Other unions

#[test]
fn union_whose_types_all_misfit_is_one_line_describing_the_branches() {
    one(
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!(1.5),
        "No branch matched. You sent: 1.5. Expected one of: a string, an integer.",
    );
    one(
        json!({"oneOf": [{"type": "object", "properties": {"a": {}}}, {"type": "null"}]}),
        json!("x"),
        "No branch matched. You sent: 'x'. Expected one of: an object, null.",
    );
}

#[test]
fn union_picks_the_fitting_branch_with_the_fewest_errors() {
    let sub = json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "string"}}, "required": ["a", "c"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
        {"type": "null"}
    ]});
    assert_eq!(
        field(sub.clone(), json!({"b": "x"})),
        vec![line(
            "f.b",
            "Wrong type. You sent: 'x'. Expected an integer."
        )]
    );
    // A tie goes to the first branch.
    assert_eq!(
        field(sub, json!({"a": "x", "b": "y"})),
        vec![line(
            "f.c",
            "Missing required field. You sent: (missing). Expected a string."
        )]
    );
}

#[test]
fn union_of_constants_reads_like_an_enum() {
    one(
        json!({"oneOf": [
            {"type": "string", "const": "active", "description": "a"},
            {"type": "string", "const": "paid", "description": "p"}
        ]}),
        json!("PAID"),
        "Invalid value. You sent: 'PAID'. Expected one of: 'active', 'paid'. Did you mean 'paid'?",
    );
}

#[test]
fn one_of_matching_several_branches_says_so() {
    one(
        json!({"oneOf": [{"type": "integer"}, {"type": "number"}]}),
        json!(1),
        "Matches more than one allowed shape. You sent: 1. Expected a value that matches exactly one of the allowed shapes (one of: an integer, a number).",
    );
}

// ---------------------------------------------------------------------------
// Every keyword

#[test]
fn type_names_each_json_type() {
    one(
        json!({"type": "string"}),
        json!(1),
        "Wrong type. You sent: 1. Expected a string.",
    );
    one(
        json!({"type": "integer"}),
        json!(1.5),
        "Wrong type. You sent: 1.5. Expected an integer.",
    );
    one(
        json!({"type": "number"}),
        json!("1"),
        "Wrong type. You sent: '1'. Expected a number.",
    );
    one(
        json!({"type": "boolean"}),
        json!("true"),
        "Wrong type. You sent: 'true'. Expected a boolean.",
    );
    one(
        json!({"type": "object"}),
        json!([]),
        "Wrong type. You sent: array(0). Expected an object.",
    );
    one(
        json!({"type": "array"}),
        json!({}),
        "Wrong type. You sent: {}. Expected an array.",
    );
    one(
        json!({"type": "null"}),
        json!(false),
        "Wrong type. You sent: false. Expected null.",
    );
}

#[test]
fn type_lists_several_types_and_says_or_null() {
    one(
        json!({"type": ["string", "null"]}),
        json!(1),
        "Wrong type. You sent: 1. Expected a string or null.",
    );
    one(
        json!({"type": ["null", "integer"]}),
        json!("x"),
        "Wrong type. You sent: 'x'. Expected an integer or null.",
    );
    one(
        json!({"type": ["string", "integer", "boolean"]}),
        json!([1]),
        "Wrong type. You sent: array(1). Expected a string, an integer or a boolean.",
    );
}

#[test]
fn root_that_is_not_an_object_is_reported_at_root() {
    assert_eq!(
        lines(&project_schema(), json!([1, 2])),
        vec![line(
            "(root)",
            "Wrong type. You sent: array(2). Expected an object."
        )]
    );
}

#[test]
fn string_lengths_count_characters_singular_and_plural() {
    one(
        json!({"minLength": 3}),
        json!("ab"),
        "Too short. You sent: 'ab'. Expected at least 3 characters.",
    );
    one(
        json!({"minLength": 1}),
        json!(""),
        "Too short. You sent: ''. Expected at least 1 character.",
    );
    one(
        json!({"maxLength": 1}),
        json!("ab"),
        "Too long. You sent: 'ab'. Expected at most 1 character.",
    );
    one(
        json!({"maxLength": 4}),
        json!("abcde"),
        "Too long. You sent: 'abcde'. Expected at most 4 characters.",
    );
    one(
        json!({"minLength": 3, "maxLength": 3}),
        json!("ab"),
        "Too short. You sent: 'ab'. Expected exactly 3 characters.",
    );
    // Characters, not bytes.
    assert_eq!(field(json!({"maxLength": 3}), json!("ééé")), vec![]);
    assert_eq!(field(json!({"minLength": 2}), json!("😀😀")), vec![]);
}

#[test]
fn numeric_bounds_use_comparison_signs() {
    let int = json!({"type": "integer", "minimum": 1, "maximum": 100});
    one(
        int.clone(),
        json!(0),
        "Too small. You sent: 0. Expected an integer >= 1 and <= 100.",
    );
    one(
        int,
        json!(101),
        "Too large. You sent: 101. Expected an integer >= 1 and <= 100.",
    );
    one(
        json!({"type": "number", "exclusiveMinimum": 0}),
        json!(0),
        "Too small. You sent: 0. Expected a number > 0.",
    );
    one(
        json!({"exclusiveMaximum": 1.5}),
        json!(1.5),
        "Too large. You sent: 1.5. Expected a number < 1.5.",
    );
    one(
        json!({"maximum": 10}),
        json!(10.5),
        "Too large. You sent: 10.5. Expected a number <= 10.",
    );
    one(
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}),
        json!(-2),
        "Too small. You sent: -2. Expected a number > 0 and <= 1.",
    );
}

#[test]
fn array_lengths_count_items() {
    one(
        json!({"minItems": 1}),
        json!([]),
        "Too few items. You sent: array(0). Expected at least 1 item.",
    );
    one(
        json!({"minItems": 2}),
        json!([1]),
        "Too few items. You sent: array(1). Expected at least 2 items.",
    );
    one(
        json!({"maxItems": 2}),
        json!([1, 2, 3]),
        "Too many items. You sent: array(3). Expected at most 2 items.",
    );
    one(
        json!({"minItems": 2, "maxItems": 2}),
        json!([1, 2, 3]),
        "Too many items. You sent: array(3). Expected exactly 2 items.",
    );
}

#[test]
fn const_says_exactly_what_is_expected() {
    one(
        json!({"const": "flat"}),
        json!("Flat"),
        "Invalid value. You sent: 'Flat'. Expected exactly 'flat'. Did you mean 'flat'?",
    );
    one(
        json!({"const": 3}),
        json!(4),
        "Invalid value. You sent: 4. Expected exactly 3.",
    );
}

#[test]
fn non_string_enum_options_are_shown_as_json() {
    one(
        json!({"enum": [1, 2, null, "x"]}),
        json!(3),
        "Invalid value. You sent: 3. Expected one of: 1, 2, null, 'x'.",
    );
}

#[test]
fn pattern_shows_the_pattern() {
    one(
        json!({"type": "string", "pattern": "^inv_[0-9]+$"}),
        json!("INV-1"),
        "Does not match the pattern. You sent: 'INV-1'. Expected a string matching the pattern '^inv_[0-9]+$'.",
    );
}

#[test]
fn formats_are_asserted_with_an_example_each() {
    let cases = [
        (
            "email",
            "not-an-email",
            "Invalid email format. You sent: 'not-an-email'. Expected a valid email address (e.g. user@example.com).",
        ),
        (
            "uri",
            "not a uri",
            "Invalid URI format. You sent: 'not a uri'. Expected a valid absolute URI (e.g. https://example.com/path).",
        ),
        (
            "uuid",
            "123",
            "Invalid UUID format. You sent: '123'. Expected a valid UUID (e.g. 123e4567-e89b-12d3-a456-426614174000).",
        ),
        (
            "date-time",
            "2024-01-15",
            "Invalid date-time format. You sent: '2024-01-15'. Expected an RFC 3339 date-time with a time zone (e.g. 2024-01-15T10:30:00Z).",
        ),
        (
            "date",
            "2024-13-01",
            "Invalid date format. You sent: '2024-13-01'. Expected a full date as YYYY-MM-DD (e.g. 2024-01-15).",
        ),
        (
            "ipv4",
            "256.1.1.1",
            "Invalid IPv4 format. You sent: '256.1.1.1'. Expected a valid IPv4 address (e.g. 192.168.1.10).",
        ),
        (
            "ipv6",
            "::g",
            "Invalid IPv6 format. You sent: '::g'. Expected a valid IPv6 address (e.g. 2001:db8::1).",
        ),
        (
            "hostname",
            "-bad-.com",
            "Invalid hostname format. You sent: '-bad-.com'. Expected a valid hostname (e.g. api.example.com).",
        ),
        (
            "time",
            "25:00",
            "Invalid time format. You sent: '25:00'. Expected a time with a time zone (e.g. 10:30:00Z).",
        ),
    ];
    for (format, value, message) in cases {
        one(
            json!({"type": "string", "format": format}),
            json!(value),
            message,
        );
    }
    let valid = [
        ("email", "user@example.com"),
        ("uri", "https://example.com/x"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
        ("date-time", "2024-01-15T10:30:00Z"),
        ("date", "2024-01-15"),
        ("ipv4", "192.168.1.10"),
        ("ipv6", "2001:db8::1"),
    ];
    for (format, value) in valid {
        assert_eq!(
            field(json!({"format": format}), json!(value)),
            vec![],
            "{format}"
        );
    }
}

#[test]
fn unknown_formats_are_ignored() {
    for format in ["uint64", "int32", "double", "uint8", "float", "semver"] {
        assert_eq!(
            field(json!({"format": format}), json!("anything")),
            vec![],
            "{format}"
        );
        assert_eq!(
            field(json!({"type": "number", "format": format}), json!(12.5)),
            vec![],
            "{format}"
        );
    }
}

#[test]
fn integer_formats_from_rust_types_are_range_checked() {
    one(
        json!({"type": "integer", "format": "uint32", "minimum": 0}),
        json!(5000000000u64),
        "Too large. You sent: 5000000000. Expected an integer >= 0 and <= 4294967295.",
    );
    one(
        json!({"type": "integer", "format": "uint64", "minimum": 0}),
        json!(-1),
        "Too small. You sent: -1. Expected an integer >= 0.",
    );
    one(
        json!({"type": "integer", "format": "int32"}),
        json!(-2147483649i64),
        "Too small. You sent: -2147483649. Expected an integer >= -2147483648.",
    );
    let mut big: Value = serde_json::from_str("100000000000000000000").unwrap();
    let v = SchemaValidator::new(&json!({"type": "integer", "format": "uint64", "minimum": 0}))
        .unwrap();
    assert_eq!(
        v.validate(&mut big).unwrap_err(),
        vec![FieldError::new(
            "(root)",
            "Too large. You sent: 1e+20. Expected an integer >= 0 and <= 18446744073709551615."
        )]
    );
    assert_eq!(
        v.schema(),
        &json!({"type": "integer", "format": "uint64", "minimum": 0}),
        "the schema given is kept as given"
    );
}

#[test]
fn multiple_of_names_the_step() {
    one(
        json!({"multipleOf": 0.5}),
        json!(1.2),
        "Not a multiple of 0.5. You sent: 1.2. Expected a multiple of 0.5.",
    );
    one(
        json!({"type": "integer", "multipleOf": 5}),
        json!(7),
        "Not a multiple of 5. You sent: 7. Expected a multiple of 5.",
    );
}

#[test]
fn unique_items_points_at_the_first_duplicate() {
    one(
        json!({"uniqueItems": true}),
        json!([1, 2, 1]),
        "Duplicate items. You sent: array(3). Expected every item to be different (items 0 and 2 are equal).",
    );
}

#[test]
fn property_counts() {
    one(
        json!({"type": "object", "minProperties": 1}),
        json!({}),
        "Too few fields. You sent: {}. Expected at least 1 field.",
    );
    one(
        json!({"type": "object", "maxProperties": 1}),
        json!({"a": 1, "b": 2}),
        "Too many fields. You sent: {\"a\":1,\"b\":2}. Expected at most 1 field.",
    );
}

#[test]
fn contains_describes_the_wanted_item() {
    one(
        json!({"contains": {"type": "string"}}),
        json!([1, 2]),
        "No matching item. You sent: array(2). Expected at least one item that is a string.",
    );
    one(
        json!({"contains": {"const": "admin"}, "minContains": 2}),
        json!(["admin", "user"]),
        "Wrong number of matching items. You sent: array(2). Expected at least 2 items that are each exactly 'admin'.",
    );
    one(
        json!({"contains": {"type": "string"}, "maxContains": 1}),
        json!(["a", "b"]),
        "Wrong number of matching items. You sent: array(2). Expected exactly 1 item that is a string.",
    );
    one(
        json!({"contains": {"type": "string"}, "minContains": 2, "maxContains": 3}),
        json!(["a", 1]),
        "Wrong number of matching items. You sent: array(2). Expected from 2 to 3 items that are each a string.",
    );
}

#[test]
fn not_says_what_is_excluded() {
    one(
        json!({"not": {"type": "string"}}),
        json!("x"),
        "Value not allowed. You sent: 'x'. Expected a value that is not a string.",
    );
    one(
        json!({"not": {"enum": ["root", "admin"]}}),
        json!("root"),
        "Value not allowed. You sent: 'root'. Expected a value that is not one of: 'root', 'admin'.",
    );
}

#[test]
fn false_schema_asks_to_remove_the_field() {
    one(
        json!(false),
        json!(1),
        "Not allowed. You sent: 1. Remove this field.",
    );
}

#[test]
fn property_names_are_checked_at_the_key() {
    assert_eq!(
        field(
            json!({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}),
            json!({"ok": 1, "Bad": 2})
        ),
        vec![line(
            "f.Bad",
            "Invalid field name \"Bad\" (does not match the pattern). You sent: 2. Expected a string matching the pattern '^[a-z]+$'."
        )]
    );
    assert_eq!(
        field(
            json!({"type": "object", "propertyNames": false}),
            json!({"a": 1})
        ),
        vec![line(
            "f.a",
            "Unrecognized field \"a\". You sent: 1. This object accepts no fields; remove it."
        )]
    );
}

#[test]
fn unevaluated_properties_name_the_known_keys() {
    assert_eq!(
        field(
            json!({"allOf": [{"properties": {"name": {}}}], "properties": {"age": {}}, "unevaluatedProperties": false}),
            json!({"name": "x", "nmae": "y"})
        ),
        vec![line(
            "f.nmae",
            "Unrecognized field \"nmae\". You sent: 'y'. Known fields: \"age\", \"name\". Check for typos. Did you mean \"name\"?"
        )]
    );
}

#[test]
fn additional_properties_with_a_schema_checks_the_values() {
    assert_eq!(
        field(
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"a": 1, "b": "x"})
        ),
        vec![line(
            "f.b",
            "Wrong type. You sent: 'x'. Expected an integer."
        )]
    );
}

#[test]
fn dependent_required_is_a_missing_field() {
    assert_eq!(
        field(
            json!({"type": "object", "properties": {"card": {}, "cvc": {"type": "string"}}, "dependentRequired": {"card": ["cvc"]}}),
            json!({"card": "4111"})
        ),
        vec![line(
            "f.cvc",
            "Missing required field. You sent: (missing). Expected a string."
        )]
    );
}

#[test]
fn unevaluated_items_past_a_tuple_are_too_many() {
    one(
        json!({"prefixItems": [{"type": "string"}], "unevaluatedItems": false}),
        json!(["a", 2, 3]),
        "Too many items. You sent: array(3). Expected at most 1 item.",
    );
}

#[test]
fn extra_tuple_items_are_reported() {
    assert_eq!(
        field(
            json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
            json!(["a", 1, true])
        ),
        vec![line(
            "f.2",
            "Not allowed. You sent: true. Remove this item."
        )]
    );
}

#[test]
fn conditional_schemas_report_the_branch_taken() {
    let sub = json!({
        "type": "object",
        "properties": {"country": {"type": "string"}, "zip": {"type": "string"}},
        "if": {"properties": {"country": {"const": "US"}}},
        "then": {"properties": {"zip": {"pattern": "^[0-9]{5}$"}}}
    });
    assert_eq!(
        field(sub, json!({"country": "US", "zip": "ABC"})),
        vec![line(
            "f.zip",
            "Does not match the pattern. You sent: 'ABC'. Expected a string matching the pattern '^[0-9]{5}$'."
        )]
    );
}

// ---------------------------------------------------------------------------
// `You sent:` rendering

#[test]
fn long_multibyte_strings_are_cut_on_character_boundaries() {
    let long = "é".repeat(30) + &"日本".repeat(15); // 60 characters, 150 bytes
    let shown = format!(
        "'{}{}...'",
        "é".repeat(30),
        "日本".repeat(9)[..(17 * 3)].to_owned()
    );
    assert_eq!(shown.chars().count(), 2 + 47 + 3);
    one(
        json!({"maxLength": 10}),
        json!(long),
        &format!("Too long. You sent: {shown}. Expected at most 10 characters."),
    );
    let fifty = "ü".repeat(50);
    one(
        json!({"type": "integer"}),
        json!(fifty.clone()),
        &format!("Wrong type. You sent: '{fifty}'. Expected an integer."),
    );
}

#[test]
fn big_integers_are_printed_exactly() {
    one(
        json!({"type": "string"}),
        json!(9007199254740993u64),
        "Wrong type. You sent: 9007199254740993. Expected a string.",
    );
    let v = SchemaValidator::new(&json!({"properties": {"n": {"type": "integer"}}})).unwrap();
    let mut args = json!({"n": 9007199254740993u64});
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args["n"].as_u64(), Some(9007199254740993));
}

#[test]
fn objects_are_compact_json_cut_at_fifty_characters() {
    let sent = format!("{{\"description\":\"{}...", "x".repeat(34));
    one(
        json!({"type": "string"}),
        json!({"description": "x".repeat(60)}),
        &format!("Wrong type. You sent: {sent}. Expected a string."),
    );
    one(
        json!({"type": "string"}),
        json!({"a": 1, "b": [true, null]}),
        "Wrong type. You sent: {\"a\":1,\"b\":[true,null]}. Expected a string.",
    );
}

#[test]
fn paths_use_numeric_indices() {
    let schema = json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {
            "type": "object",
            "properties": {"price": {"type": "number"}},
            "required": ["price"]
        }}}
    });
    assert_eq!(
        lines(
            &schema,
            json!({"items": [{"price": 1}, {}, {"price": "9.99"}]})
        ),
        vec![
            line(
                "items.1.price",
                "Missing required field. You sent: (missing). Expected a number."
            ),
            line(
                "items.2.price",
                "Wrong type. You sent: '9.99'. Expected a number."
            ),
        ]
    );
}

// ---------------------------------------------------------------------------
// A schema derived from Rust types

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Order {
    id: u64,
    lines: Vec<OrderLine>,
    note: Option<String>,
    ship_to: Option<Address>,
    status: Status,
    channel: Channel,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct OrderLine {
    qty: u32,
    #[schemars(length(min = 1))]
    sku: String,
    pricing: Pricing,
    price: f64,
    discount: i8,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Address {
    city: String,
    #[schemars(email)]
    contact: Option<String>,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "model", rename_all = "snake_case")]
enum Pricing {
    Flat { amount: u64 },
    Tiered { tiers: Vec<u32> },
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Active,
    Paid,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Channel {
    /// Sold on the web shop.
    Web,
    /// Sold in a store.
    Store,
}

fn order_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Order)).unwrap()
}

#[test]
fn derived_schema_accepts_a_valid_order_and_drops_optional_nulls() {
    let schema = order_schema();
    assert!(schema.get("$defs").is_some(), "nested types live in $defs");
    let v = SchemaValidator::new(&schema).unwrap();
    let mut args = json!({
        "id": 9007199254740993u64,
        "lines": [{"qty": 2, "sku": "A-1", "pricing": {"model": "tiered", "tiers": [1, 5]}, "price": 9.5, "discount": -3}],
        "note": null,
        "ship_to": {"city": "Lyon", "contact": null},
        "status": "paid",
        "channel": "web"
    });
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args.get("note"), None);
    assert_eq!(args["ship_to"], json!({"city": "Lyon"}));
    assert_eq!(args["id"].as_u64(), Some(9007199254740993));
    let order: Order = serde_json::from_value(args).unwrap();
    assert_eq!(order.id, 9007199254740993);
}

#[test]
fn derived_schema_reports_every_problem_through_refs() {
    let args = json!({
        "id": -1,
        "lines": [{"qty": 1.5, "sku": "", "pricing": {"model": "volume"}, "price": "x", "discount": 200, "extra": 1}],
        "note": null,
        "ship_to": {"city": 5, "contact": "nope"},
        "status": "Paid",
        "channel": "phone"
    });
    assert_eq!(
        lines(&order_schema(), args),
        vec![
            line("id", "Too small. You sent: -1. Expected an integer >= 0."),
            line(
                "lines.0.qty",
                "Wrong type. You sent: 1.5. Expected an integer."
            ),
            line(
                "lines.0.sku",
                "Too short. You sent: ''. Expected at least 1 character."
            ),
            line(
                "lines.0.pricing.model",
                "Invalid value. You sent: 'volume'. Expected one of: 'flat', 'tiered'."
            ),
            line(
                "lines.0.price",
                "Wrong type. You sent: 'x'. Expected a number."
            ),
            line(
                "lines.0.discount",
                "Too large. You sent: 200. Expected an integer >= -128 and <= 127."
            ),
            line(
                "lines.0.extra",
                "Unrecognized field \"extra\". You sent: 1. Known fields: \"qty\", \"sku\", \"pricing\", \"price\", \"discount\". Check for typos."
            ),
            line(
                "ship_to.city",
                "Wrong type. You sent: 5. Expected a string."
            ),
            line(
                "ship_to.contact",
                "Invalid email format. You sent: 'nope'. Expected a valid email address (e.g. user@example.com)."
            ),
            line(
                "status",
                "Invalid value. You sent: 'Paid'. Expected one of: 'active', 'paid'. Did you mean 'paid'?"
            ),
            line(
                "channel",
                "Invalid value. You sent: 'phone'. Expected one of: 'web', 'store'."
            ),
        ]
    );
}

#[test]
fn derived_schema_missing_fields_describe_their_type() {
    assert_eq!(
        lines(&order_schema(), json!({})),
        vec![
            line(
                "id",
                "Missing required field. You sent: (missing). Expected an integer."
            ),
            line(
                "lines",
                "Missing required field. You sent: (missing). Expected an array."
            ),
            line(
                "status",
                "Missing required field. You sent: (missing). Expected one of: 'active', 'paid'."
            ),
            line(
                "channel",
                "Missing required field. You sent: (missing). Expected one of: 'web', 'store'."
            ),
        ]
    );
}

// ---------------------------------------------------------------------------
// No Rust or serde names, ever

#[test]
fn texts_never_leak_rust_or_serde_names() {
    let schema = order_schema();
    let inputs = [
        json!({}),
        json!([]),
        json!({"id": "x", "lines": "x", "note": 1, "ship_to": 1, "status": 1, "channel": 1, "z": 1}),
        json!({"id": 1.5, "lines": [{"qty": -1, "sku": 1, "pricing": 1, "price": null, "discount": -500}]}),
        json!({"id": u64::MAX, "lines": [{"qty": 5000000000u64, "pricing": {"model": "flat", "amount": -1}}]}),
        json!({"lines": [{"pricing": {"model": "tiered", "tiers": [-1, 1.5, "x"]}}]}),
        json!({"lines": [{"pricing": {}}], "ship_to": {"contact": "@"}}),
        json!({"lines": [{"pricing": []}], "ship_to": null, "status": null}),
    ];
    let mut all = String::new();
    for input in inputs {
        for (path, message) in lines(&schema, input) {
            all.push_str(&path);
            all.push(' ');
            all.push_str(&message);
            all.push('\n');
        }
    }
    assert!(all.lines().count() > 20, "{all}");
    for banned in [
        "i64",
        "u64",
        "uint",
        "int32",
        "int8",
        "double",
        "alloc::",
        "line 1 column",
        "serde",
        "Value",
    ] {
        assert!(!all.contains(banned), "{banned:?} leaked in:\n{all}");
    }
}

// ---------------------------------------------------------------------------
// In the envelope

#[test]
fn lines_render_into_the_validation_envelope() {
    let v = SchemaValidator::new(&json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "amount": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000}
        },
        "required": ["email"]
    }))
    .unwrap();
    let fields = v
        .validate(&mut json!({"email": "not-an-email", "amount": 1000}))
        .unwrap_err();
    let failure = mcp_fusion::ValidationFailure::new("billing.create_invoice", fields);
    let expected = r#"<validation_error action="billing.create_invoice">
  <field name="email">Invalid email format. You sent: 'not-an-email'. Expected a valid email address (e.g. user@example.com).</field>
  <field name="amount">Too large. You sent: 1000. Expected an integer > 0 and &lt; 1000.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>"#;
    assert_eq!(mcp_fusion::envelope::render_validation(&failure), expected);
}

// ---------------------------------------------------------------------------
// Compiling

#[test]
fn remote_refs_are_refused_at_compile_time() {
    for reference in [
        "https://example.com/schema.json",
        "http://example.com/s#/$defs/A",
        "file:///etc/schema.json",
        "other.json",
    ] {
        let err =
            SchemaValidator::new(&json!({"properties": {"a": {"$ref": reference}}})).unwrap_err();
        assert!(
            matches!(err, SchemaError::RemoteReference { .. }),
            "{reference}: {err:?}"
        );
        assert!(err.to_string().contains("only local references"), "{err}");
    }
}

#[test]
fn invalid_schemas_are_refused_with_a_reason() {
    let err = SchemaValidator::new(&json!({"properties": {"a": {"type": 5}}})).unwrap_err();
    assert!(matches!(err, SchemaError::Invalid { .. }), "{err:?}");
    assert!(
        err.to_string().ends_with(" (at /properties/a/type)"),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("the schema is not a valid JSON Schema (draft 2020-12): "),
        "{err}"
    );
    let err = SchemaValidator::new(&json!({"$ref": "#/$defs/Nope"})).unwrap_err();
    assert!(matches!(err, SchemaError::Invalid { .. }), "{err:?}");
}

#[test]
fn validator_is_shareable_and_keeps_its_schema() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<SchemaValidator>();
    let schema = project_schema();
    let v = SchemaValidator::new(&schema).unwrap();
    let copy = v.clone();
    assert_eq!(copy.schema(), &schema);
    let handle = std::thread::spawn(move || copy.validate(&mut json!({})).unwrap_err().len());
    assert_eq!(handle.join().unwrap(), 1);
}

// ---------------------------------------------------------------------------
// Any input

mod any_input {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            "\\PC{0,70}".prop_map(Value::from),
            prop::sample::select(vec!["flat", "tiered", "active", "Paid", "web", "x@y.z"])
                .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec(
                    (
                        prop::sample::select(vec![
                            "id", "lines", "note", "ship_to", "status", "channel", "qty", "sku",
                            "pricing", "price", "discount", "model", "amount", "tiers", "city",
                            "contact", "zzz"
                        ]),
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| Value::Object(
                    kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_line_has_the_contract_shape(args in json_value()) {
            let v = SchemaValidator::new(&order_schema()).unwrap();
            let mut args = args;
            if let Err(fields) = v.validate(&mut args) {
                prop_assert!(!fields.is_empty());
                for f in fields {
                    prop_assert!(!f.path.is_empty());
                    prop_assert!(f.message.contains(". You sent: "), "{}", f.message);
                    let sent = f.message.split(". You sent: ").nth(1).unwrap();
                    prop_assert!(sent.chars().count() <= 200, "{}", f.message);
                    for banned in ["i64", "u64", "uint", "int32", "alloc::", "line 1 column"] {
                        prop_assert!(!f.message.contains(banned), "{}", f.message);
                    }
                }
            }
        }
    }
}

#[test]
fn thousands_of_unknown_keys_are_counted_not_all_listed() {
    let validator = SchemaValidator::new(&json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "additionalProperties": false
    }))
    .unwrap();
    let mut args = serde_json::Map::new();
    args.insert("id".into(), json!("inv_1"));
    for i in 0..30_000 {
        args.insert(format!("k{i}"), json!(i));
    }
    let fields = validator.validate(&mut Value::Object(args)).unwrap_err();
    assert_eq!(fields.len(), 101);
    let last = fields.last().unwrap();
    assert_eq!(last.path, "(more)");
    assert_eq!(
        last.message,
        "29900 more problems are not shown. Fix the fields above and call again to see the rest."
    );
    let failure = mcp_fusion::ValidationFailure::new("t.a", fields);
    assert_eq!(failure.problem_count(), 30_000);
    let meta = mcp_fusion::envelope::validation_to_meta(&failure);
    assert_eq!(
        meta["message"],
        json!("The arguments for t.a are not valid (30000 problems).")
    );
    assert!(mcp_fusion::envelope::render_validation(&failure).len() < 16 * 1024);
}
