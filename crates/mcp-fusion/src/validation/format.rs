//! Phrases for the `format` keyword: a label for the problem and what is
//! expected, with an example where the expectation does not already spell the
//! form (wire contract §4): an example is a value a model may copy in place of
//! the user's, so an email address and a `YYYY-MM-DD` date have none. Format names schemars derives
//! from Rust types (`uint64`, `int32`…) are never shown.

/// The label and the expectation (with an example where the form is not
/// spelled out) for a `format`.
pub(crate) fn format_phrase(format: &str) -> (String, String) {
    let known: Option<(&str, &str)> = match format {
        "email" | "idn-email" => Some(("email", "a valid email address")),
        "uri" | "iri" => Some((
            "URI",
            "a valid absolute URI (e.g. https://example.com/path)",
        )),
        "uri-reference" | "iri-reference" => Some((
            "URI reference",
            "a valid URI or relative reference (e.g. /path/to/item)",
        )),
        "uri-template" => Some((
            "URI template",
            "a valid URI template (e.g. https://example.com/{id})",
        )),
        "uuid" => Some((
            "UUID",
            "a valid UUID (e.g. 123e4567-e89b-12d3-a456-426614174000)",
        )),
        "date-time" => Some((
            "date-time",
            "an RFC 3339 date-time with a time zone (e.g. 2024-01-15T10:30:00Z)",
        )),
        "date" => Some(("date", "a full date as YYYY-MM-DD")),
        "time" => Some(("time", "a time with a time zone (e.g. 10:30:00Z)")),
        "duration" => Some(("duration", "an ISO 8601 duration (e.g. P3DT4H)")),
        "ipv4" => Some(("IPv4", "a valid IPv4 address (e.g. 192.168.1.10)")),
        "ipv6" => Some(("IPv6", "a valid IPv6 address (e.g. 2001:db8::1)")),
        "hostname" | "idn-hostname" => {
            Some(("hostname", "a valid hostname (e.g. api.example.com)"))
        }
        "json-pointer" => Some(("JSON Pointer", "a JSON Pointer (e.g. /items/0/name)")),
        "relative-json-pointer" => Some((
            "relative JSON Pointer",
            "a relative JSON Pointer (e.g. 1/name)",
        )),
        "regex" => Some((
            "regular expression",
            "a valid regular expression (e.g. ^[a-z]+$)",
        )),
        _ => None,
    };
    match known {
        Some((label, what)) => (label.to_owned(), format!("Expected {what}.")),
        None if looks_like_rust_type(format) => (
            "value".to_owned(),
            "Expected a value in the required format.".to_owned(),
        ),
        None => {
            let name = clean(format);
            (name.clone(), format!("Expected a valid {name} value."))
        }
    }
}

/// Keeps schema-given names short and plain.
pub(crate) fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_graphic())
        .take(60)
        .collect()
}

/// Format names schemars derives from Rust types (`uint64`, `int32`, `double`…).
fn looks_like_rust_type(format: &str) -> bool {
    let f = format.to_ascii_lowercase();
    f.starts_with("int")
        || f.starts_with("uint")
        || f == "float"
        || f == "double"
        || f.contains("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_have_examples_where_the_form_is_not_spelled_and_hide_rust_type_names() {
        assert_eq!(
            format_phrase("email"),
            (
                "email".to_owned(),
                "Expected a valid email address.".to_owned()
            )
        );
        assert_eq!(
            format_phrase("date").1,
            "Expected a full date as YYYY-MM-DD."
        );
        assert_eq!(
            format_phrase("uri").1,
            "Expected a valid absolute URI (e.g. https://example.com/path)."
        );
        for rust in ["uint64", "int32", "double", "float", "uint"] {
            let (label, expected) = format_phrase(rust);
            assert_eq!(label, "value");
            assert_eq!(expected, "Expected a value in the required format.");
        }
        assert_eq!(format_phrase("semver").1, "Expected a valid semver value.");
    }
}
