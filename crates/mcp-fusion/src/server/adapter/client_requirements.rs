//! The client capabilities a `tools/call` needs
//! ([`Action::requires_client`](crate::Action::requires_client)), checked
//! against those the client declared before anything else runs: a missing
//! one is the JSON-RPC error `-32021` Missing required client capability
//! (MCP 2026-07-28 basic/index, error codes; over Streamable HTTP rmcp
//! answers it with status 400).

use rmcp::model::{ClientCapabilities, ElicitationCapability};
use rmcp::service::{RequestContext, RoleServer};

use crate::capability::RegisteredAction;

/// Of `required`, what `declared` lacks; `None` when it lacks nothing.
/// Elicitation counts per mode: `{}` declared means form mode (MCP
/// 2025-11-25 client/elicitation), and a requirement of `url` needs `url`
/// declared.
pub(crate) fn missing(
    required: &ClientCapabilities,
    declared: Option<&ClientCapabilities>,
) -> Option<ClientCapabilities> {
    let mut lacking = ClientCapabilities::default();
    let declared_or_none = |pick: fn(&ClientCapabilities) -> bool| declared.is_some_and(pick);
    if required.sampling.is_some() && !declared_or_none(|d| d.sampling.is_some()) {
        lacking.sampling = required.sampling.clone();
    }
    if required.roots.is_some() && !declared_or_none(|d| d.roots.is_some()) {
        lacking.roots = required.roots.clone();
    }
    if let Some(needed) = &required.elicitation {
        let have = declared.and_then(|d| d.elicitation.as_ref());
        let form = have.is_some_and(|e| e.form.is_some() || e.url.is_none());
        let url = have.is_some_and(|e| e.url.is_some());
        let mut short = ElicitationCapability::default();
        if needed.url.is_some() && !url {
            short.url = needed.url.clone();
        }
        let needs_form = needed.form.is_some() || needed.url.is_none();
        if needs_form && !form {
            short.form = needed.form.clone();
        }
        if short.url.is_some() || short.form.is_some() || (needs_form && !form) {
            lacking.elicitation = Some(short);
        }
    }
    if let Some(needed) = &required.extensions {
        let have = declared.and_then(|d| d.extensions.as_ref());
        let short: rmcp::model::ExtensionCapabilities = needed
            .iter()
            .filter(|(id, _)| !have.is_some_and(|h| h.contains_key(*id)))
            .map(|(id, settings)| (id.clone(), settings.clone()))
            .collect();
        if !short.is_empty() {
            lacking.extensions = Some(short);
        }
    }
    (lacking != ClientCapabilities::default()).then_some(lacking)
}

/// `-32021` for a call whose action (`None`: the call reaches none, and
/// the call path answers it) requires client capabilities the client of
/// `context` did not declare; `None` when it declared them (or the action
/// requires none).
pub(crate) fn refusal(
    action: Option<&RegisteredAction>,
    context: &RequestContext<RoleServer>,
) -> Option<rmcp::ErrorData> {
    let required = action?.requires_client.as_ref()?;
    let lacking = missing(required, context.client_capabilities().as_ref())?;
    Some(rmcp::ErrorData::missing_required_client_capability(lacking))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn caps(value: Value) -> ClientCapabilities {
        serde_json::from_value(value).expect("client capabilities")
    }

    #[test]
    fn what_is_declared_is_not_missing() {
        let sampling = caps(json!({"sampling": {}}));
        assert_eq!(missing(&sampling, Some(&sampling)), None);
        assert_eq!(
            missing(&sampling, Some(&caps(json!({"sampling": {"tools": {}}})))),
            None
        );
        let form = caps(json!({"elicitation": {}}));
        assert_eq!(
            missing(&form, Some(&caps(json!({"elicitation": {"form": {}}})))),
            None
        );
    }

    #[test]
    fn what_is_not_declared_is_named() {
        let needed = caps(json!({"sampling": {}, "roots": {}}));
        let lacking = missing(&needed, Some(&caps(json!({"roots": {}})))).expect("missing");
        assert_eq!(
            serde_json::to_value(&lacking).expect("JSON"),
            json!({"sampling": {}})
        );
        let lacking = missing(&needed, None).expect("missing");
        assert_eq!(
            serde_json::to_value(&lacking).expect("JSON"),
            json!({"sampling": {}, "roots": {}})
        );
        let url = caps(json!({"elicitation": {"url": {}}}));
        let lacking = missing(&url, Some(&caps(json!({"elicitation": {}})))).expect("missing");
        assert_eq!(
            serde_json::to_value(&lacking).expect("JSON"),
            json!({"elicitation": {"url": {}}})
        );
        let form = caps(json!({"elicitation": {}}));
        let lacking =
            missing(&form, Some(&caps(json!({"elicitation": {"url": {}}})))).expect("missing");
        assert_eq!(
            serde_json::to_value(&lacking).expect("JSON"),
            json!({"elicitation": {}})
        );
    }
}
