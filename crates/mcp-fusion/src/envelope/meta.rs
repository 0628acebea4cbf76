//! The `_meta["mcp-fusion/error"]` twin of an envelope (wire contract §1).

use serde_json::{Map, Value, json};

use super::limits::{normalize, normalize_validation, retry_after_secs};
use crate::error::{ErrorCode, Severity, ToolError, VALIDATION_RECOVERY, ValidationFailure};

/// The `_meta` key under which a result carries its envelope as JSON (§1).
pub const META_KEY: &str = "mcp-fusion/error";

/// The JSON twin of [`render`](super::render)'s envelope, for programs (§1):
/// `{"code", "severity", "message", "recovery"?, "available_actions"?,
/// "details"? (object, insertion order), "retry_after_seconds"?}`. Optional
/// members are omitted when absent; values are the normalized ones, so they
/// equal what the XML says.
pub fn to_meta(err: &ToolError) -> Value {
    let err = normalize(err);
    let mut meta = Map::new();
    meta.insert("code".into(), json!(err.code.as_str()));
    meta.insert("severity".into(), json!(err.severity.as_str()));
    meta.insert("message".into(), json!(err.message));
    if let Some(recovery) = &err.recovery {
        meta.insert("recovery".into(), json!(recovery));
    }
    if !err.available_actions.is_empty() {
        meta.insert("available_actions".into(), json!(err.available_actions));
    }
    if !err.details.is_empty() {
        let details: Map<String, Value> = err
            .details
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        meta.insert("details".into(), Value::Object(details));
    }
    if let Some(secs) = retry_after_secs(err.retry_after) {
        meta.insert("retry_after_seconds".into(), json!(secs));
    }
    Value::Object(meta)
}

/// The JSON twin of [`render_validation`](super::render_validation)'s envelope:
/// code `VALIDATION_ERROR`, severity `error`, a one-sentence message, the fixed
/// recovery, the dotted `action`, and `fields: [{"path", "message"}]` (§1, §4);
/// with self-healing, also `contract_awareness: {"action", "changes",
/// "max_severity", "deltas": [{"severity", "field", "text"}]}` (§4.1).
pub fn validation_to_meta(failure: &ValidationFailure) -> Value {
    let failure = normalize_validation(failure);
    let fields: Vec<Value> = failure
        .fields
        .iter()
        .map(|f| json!({"path": f.path, "message": f.message}))
        .collect();
    let mut meta = json!({
        "code": ErrorCode::ValidationError.as_str(),
        "severity": Severity::Error.as_str(),
        "message": failure.summary(),
        "recovery": VALIDATION_RECOVERY,
        "action": failure.action,
        "fields": fields,
    });
    if let Some(awareness) = &failure.contract_awareness {
        let deltas: Vec<Value> = awareness
            .deltas
            .iter()
            .map(|d| json!({"severity": d.severity.as_str(), "field": d.field, "text": d.text}))
            .collect();
        meta["contract_awareness"] = json!({
            "action": awareness.action,
            "changes": awareness.changes,
            "max_severity": awareness.max_severity.as_str(),
            "deltas": deltas,
        });
    }
    meta
}
