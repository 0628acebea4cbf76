//! The `_meta["mcp-fusion/error"]` twin of an envelope (wire contract §1).

use serde_json::{Map, Value, json};

use super::json_text::json_into;
use super::limits::{is_normal, normalize, normalize_validation};
use crate::error::{ErrorCode, Severity, ToolError, ValidationFailure, envelope_secs};

/// The `_meta` key under which a result carries its envelope as JSON (§1).
pub const META_KEY: &str = "mcp-fusion/error";

/// The JSON twin of [`render`](super::render)'s envelope, for programs (§1):
/// `{"code", "severity", "message", "next_step"?, "recovery"?, "available_actions"?,
/// "details"? (object, insertion order), "retry_after_seconds"?}`. Optional
/// members are omitted when absent; values are the normalized ones, so they
/// equal what the XML says.
pub fn to_meta(err: &ToolError) -> Value {
    if is_normal(err) {
        return meta_of_normalized(err);
    }
    meta_of_normalized(&normalize(err))
}

/// [`to_meta`] of a failure [`normalize`] already returned (or that
/// [`is_normal`] says needs nothing).
pub(super) fn meta_of_normalized(err: &ToolError) -> Value {
    let mut meta = Map::new();
    meta.insert("code".into(), json!(err.code.as_str()));
    meta.insert("severity".into(), json!(err.severity.as_str()));
    meta.insert("message".into(), json!(err.message));
    if let Some(next_step) = &err.next_step {
        meta.insert("next_step".into(), json!(next_step));
    }
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
    if let Some(secs) = envelope_secs(err.retry_after) {
        meta.insert("retry_after_seconds".into(), json!(secs));
    }
    Value::Object(meta)
}

/// The JSON twin of [`render_validation`](super::render_validation)'s envelope:
/// code `VALIDATION_ERROR`, severity `error`, a one-sentence message, the
/// recovery ([`ValidationFailure::recovery`]: the line before the envelope and
/// the `<recovery>` line), the dotted `action`, and `fields: [{"path", "message"}]` (§1, §4);
/// with self-healing, also `contract_awareness: {"action", "changes",
/// "max_severity", "deltas": [{"severity", "field", "text"}]}` (§4.1).
pub fn validation_to_meta(failure: &ValidationFailure) -> Value {
    validation_meta_of_normalized(normalize_validation(failure))
}

/// [`validation_to_meta`] of a failure [`normalize_validation`] already
/// returned (its texts move into the JSON).
pub(super) fn validation_meta_of_normalized(failure: ValidationFailure) -> Value {
    let message = failure.summary();
    let recovery = failure.recovery();
    let fields: Vec<Value> = failure
        .fields
        .into_iter()
        .map(|f| {
            let mut field = Map::with_capacity(2);
            field.insert("path".into(), Value::String(f.path));
            field.insert("message".into(), Value::String(f.message));
            Value::Object(field)
        })
        .collect();
    let mut meta = Map::with_capacity(7);
    meta.insert("code".into(), json!(ErrorCode::ValidationError.as_str()));
    meta.insert("severity".into(), json!(Severity::Error.as_str()));
    meta.insert("message".into(), Value::String(message));
    meta.insert("recovery".into(), Value::String(recovery));
    meta.insert("action".into(), Value::String(failure.action));
    meta.insert("fields".into(), Value::Array(fields));
    let mut meta = Value::Object(meta);
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

/// Appends `s` as a JSON string, quotes included.
pub(super) fn string_into(out: &mut String, s: &str) {
    out.push('"');
    json_into(out, s);
    out.push('"');
}

/// Writes [`to_meta`]'s twin of `err`, a failure [`normalize`] already
/// returned, as JSON text into `out`: the bytes serde_json writes for that
/// `Value`. `false` (nothing written) when two details share a key, which
/// the JSON object keeps once (the `Value` is written then).
pub(super) fn meta_json_into(out: &mut String, err: &ToolError) -> bool {
    let repeated = err
        .details
        .iter()
        .enumerate()
        .any(|(i, (key, _))| err.details[..i].iter().any(|(k, _)| k == key));
    if repeated {
        return false;
    }
    out.push_str("{\"code\":");
    string_into(out, err.code.as_str());
    out.push_str(",\"severity\":");
    string_into(out, err.severity.as_str());
    out.push_str(",\"message\":");
    string_into(out, &err.message);
    if let Some(next_step) = &err.next_step {
        out.push_str(",\"next_step\":");
        string_into(out, next_step);
    }
    if let Some(recovery) = &err.recovery {
        out.push_str(",\"recovery\":");
        string_into(out, recovery);
    }
    if !err.available_actions.is_empty() {
        out.push_str(",\"available_actions\":[");
        for (i, action) in err.available_actions.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            string_into(out, action);
        }
        out.push(']');
    }
    if !err.details.is_empty() {
        out.push_str(",\"details\":{");
        for (i, (key, value)) in err.details.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            string_into(out, key);
            out.push(':');
            string_into(out, value);
        }
        out.push('}');
    }
    if let Some(secs) = envelope_secs(err.retry_after) {
        out.push_str(",\"retry_after_seconds\":");
        out.push_str(&secs.to_string());
    }
    out.push('}');
    true
}

/// Writes [`validation_to_meta`]'s twin of `failure`, a failure
/// [`normalize_validation`] already returned, as JSON text into `out`: the
/// bytes serde_json writes for that `Value`.
pub(super) fn validation_meta_json_into(out: &mut String, failure: &ValidationFailure) {
    out.push_str("{\"code\":");
    string_into(out, ErrorCode::ValidationError.as_str());
    out.push_str(",\"severity\":");
    string_into(out, Severity::Error.as_str());
    out.push_str(",\"message\":");
    string_into(out, &failure.summary());
    out.push_str(",\"recovery\":");
    string_into(out, &failure.recovery());
    out.push_str(",\"action\":");
    string_into(out, &failure.action);
    out.push_str(",\"fields\":[");
    for (i, field) in failure.fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"path\":");
        string_into(out, &field.path);
        out.push_str(",\"message\":");
        string_into(out, &field.message);
        out.push('}');
    }
    out.push(']');
    if let Some(awareness) = &failure.contract_awareness {
        out.push_str(",\"contract_awareness\":{\"action\":");
        string_into(out, &awareness.action);
        out.push_str(",\"changes\":");
        out.push_str(&awareness.changes.to_string());
        out.push_str(",\"max_severity\":");
        string_into(out, awareness.max_severity.as_str());
        out.push_str(",\"deltas\":[");
        for (i, delta) in awareness.deltas.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"severity\":");
            string_into(out, delta.severity.as_str());
            out.push_str(",\"field\":");
            string_into(out, &delta.field);
            out.push_str(",\"text\":");
            string_into(out, &delta.text);
            out.push('}');
        }
        out.push_str("]}");
    }
    out.push('}');
}

/// The code of the envelope in a result's `_meta` (its
/// `_meta["mcp-fusion/error"]` twin, §1), when it has one: a failure's, or
/// a success's first warning's.
#[cfg(any(feature = "client", feature = "otel"))]
pub(crate) fn code_in(meta: Option<&rmcp::model::MetaObject>) -> Option<&str> {
    meta?.get(META_KEY)?.get("code")?.as_str()
}
