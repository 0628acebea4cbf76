//! Argument validation against JSON Schema (wire contract §4): string lengths
//! in characters, `pattern`, and `format` (the asserted ones with an example
//! each, the unknown ones ignored). Every test asserts the exact field lines:
//! path and message.

use serde_json::json;

use crate::lines::{field, one};

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
            "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
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
            "Invalid date format. You sent: '2024-13-01'. Expected a full date as YYYY-MM-DD.",
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
