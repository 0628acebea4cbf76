//! Which `_meta` keys a server's own code may set on what it lists and
//! returns, and how its entries meet the library's: MCP 2025-11-25
//! basic/index "`_meta`" reserves the `io.modelcontextprotocol/` prefix
//! (and `modelcontextprotocol.io/`) for the protocol; SEP-414 gives
//! `traceparent`, `tracestate` and `baggage` to trace context; the
//! library writes its own keys under `mcp-fusion/` (the envelope's JSON
//! twin, the actions of a group, freshness, …).

use serde_json::{Map, Value};

/// The extension identifiers whose `_meta` keys a user may set: those the
/// library knows (MCP Apps, Skills, Tasks; SEP-1724 extensions).
const KNOWN_EXTENSION_KEYS: [&str; 3] = [
    "io.modelcontextprotocol/ui",
    "io.modelcontextprotocol/skills",
    "io.modelcontextprotocol/tasks",
];

/// The trace context keys (SEP-414), written by the telemetry layer.
const TRACE_CONTEXT_KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// The keys of an MCP App's link (SEP-1865), set only through
/// `Action::ui` / `Group::ui` (a `UiLink`, whose URI is checked).
const APP_LINK_KEYS: [&str; 3] = ["ui", "ui/resourceuri", "io.modelcontextprotocol/ui"];

/// Why a server's code may not set the `_meta` key `key`, or `None` when
/// it may. Keys are compared without ASCII case.
pub(crate) fn reserved(key: &str) -> Option<&'static str> {
    let folded = key.to_ascii_lowercase();
    let key = folded.as_str();
    if key.is_empty() {
        return Some("a `_meta` key is not empty");
    }
    if TRACE_CONTEXT_KEYS.contains(&key) {
        return Some("trace context (SEP-414) is written by the telemetry layer");
    }
    if key.starts_with("mcp-fusion/") {
        return Some("the library writes its own keys under `mcp-fusion/`");
    }
    if APP_LINK_KEYS.contains(&key) {
        return Some("an MCP App's link is set with `ui(UiLink)`, which checks its ui:// URI");
    }
    let (prefix, _) = key.split_once('/')?;
    let labels_ok = prefix.split('.').all(|label| {
        !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    if !labels_ok {
        return Some(
            "a `_meta` prefix is labels of ASCII letters, digits and hyphens separated by dots, then `/` (MCP basic/index, `_meta`)",
        );
    }
    let protocol = prefix
        .split('.')
        .any(|label| label == "modelcontextprotocol" || label == "mcp");
    if protocol && !KNOWN_EXTENSION_KEYS.contains(&key) {
        return Some(
            "a prefix with a `modelcontextprotocol` or `mcp` label is reserved for the protocol (MCP basic/index, `_meta`); use a prefix of your own, e.g. `com.example/`",
        );
    }
    None
}

/// The first key of `meta` a server's code may not set, with the reason.
pub(crate) fn first_reserved(meta: &Map<String, Value>) -> Option<(&str, &'static str)> {
    meta.keys()
        .find_map(|key| reserved(key).map(|reason| (key.as_str(), reason)))
}

/// `ours` with the entries of `theirs` whose keys it does not have: a
/// user's `_meta` is merged under the library's, never over it.
pub(crate) fn merged_under(
    mut ours: Map<String, Value>,
    theirs: &Map<String, Value>,
) -> Map<String, Value> {
    for (key, value) in theirs {
        if !ours.contains_key(key) {
            ours.insert(key.clone(), value.clone());
        }
    }
    ours
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn protocol_trace_and_library_keys_are_reserved() {
        assert!(reserved("io.modelcontextprotocol/related-task").is_some());
        assert!(reserved("modelcontextprotocol.io/x").is_some());
        assert!(reserved("traceparent").is_some());
        assert!(reserved("mcp-fusion/error").is_some());
        assert!(reserved("").is_some());
        assert_eq!(reserved("io.modelcontextprotocol/skills"), None);
        assert_eq!(reserved("com.example/owner"), None);
        assert_eq!(reserved("owner"), None);
    }

    #[test]
    fn case_lookalikes_and_every_mcp_label_are_reserved() {
        for key in [
            "MCP-Fusion/error",
            "Traceparent",
            "IO.modelcontextprotocol/related-task",
            "mcp.dev/x",
            "api.modelcontextprotocol.org/x",
            "tools.mcp.com/x",
            // U+2010 HYPHEN: not an ASCII label.
            "mcp\u{2010}fusion/error",
        ] {
            assert!(reserved(key).is_some(), "{key}");
        }
    }

    #[test]
    fn an_app_link_is_set_only_through_ui_link() {
        for key in ["ui", "UI", "ui/resourceUri", "io.modelcontextprotocol/ui"] {
            assert_eq!(
                reserved(key),
                Some("an MCP App's link is set with `ui(UiLink)`, which checks its ui:// URI"),
                "{key}"
            );
        }
    }

    #[test]
    fn ours_win() {
        let ours = json!({"mcp-fusion/error": 1}).as_object().unwrap().clone();
        let theirs = json!({"mcp-fusion/error": 2, "x": 3})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(
            Value::Object(merged_under(ours, &theirs)),
            json!({"mcp-fusion/error": 1, "x": 3})
        );
    }
}
