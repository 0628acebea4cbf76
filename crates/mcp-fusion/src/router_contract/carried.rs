//! A tool result carried out of an rmcp extractor, which the routes of
//! [`RouterContract`](super::RouterContract) answer with, and the changes a
//! route hands to the extractor.
//!
//! rmcp's `FromContextPart::from_context_part` can only fail with an
//! [`ErrorData`], which ends the call as a JSON-RPC error. So a failed
//! [`Parameters<T>`](super::Parameters) puts the whole `CallToolResult` it
//! answers with into the error's `data` (under [`CARRIED_KEY`]), and the
//! routes of [`RouterContract`](super::RouterContract) take it out again.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ErrorCode};
use serde_json::{Map, Value};

use crate::error::ContractAwareness;

/// The key of [`ErrorData::data`] that holds the carried result.
const CARRIED_KEY: &str = "mcp-fusion/result";

/// The start rmcp's `ToolRouter::call` looks for in an `invalid_params`
/// message to answer it as a tool result (text: the message, `isError`
/// true) rather than as a JSON-RPC error: a router not wrapped by
/// [`answer_validation`](super::answer_validation) still shows the model the envelope, after these
/// words and without `_meta`.
const RMCP_ARGUMENT_ERROR: &str = "failed to deserialize parameters:";

/// `result` carried in an `invalid_params` error: `data` holds the result,
/// the message rmcp's prefix and the result's first text.
pub(super) fn carry(result: CallToolResult) -> ErrorData {
    let text = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.as_str())
        .unwrap_or_default();
    let message = format!("{RMCP_ARGUMENT_ERROR} {text}");
    let result = serde_json::to_value(result).unwrap_or(Value::Null);
    let mut data = Map::with_capacity(1);
    data.insert(CARRIED_KEY.to_owned(), result);
    ErrorData::invalid_params(message, Some(Value::Object(data)))
}

/// The result `error` carries, or `error` itself when it carries none.
pub(super) fn uncarry(error: ErrorData) -> Result<CallToolResult, ErrorData> {
    if error.code != ErrorCode::INVALID_PARAMS {
        return Err(error);
    }
    match error.data.as_ref().and_then(|data| data.get(CARRIED_KEY)) {
        Some(result) => serde_json::from_value(result.clone()).map_err(|_| error),
        None => Err(error),
    }
}

/// The changes since the lockfile of the tool being called, put in the
/// request's extensions by the route for [`Parameters<T>`](super::Parameters)
/// to attach to a validation failure (wire contract §4.1).
#[derive(Debug, Clone)]
pub(super) struct Awareness(pub ContractAwareness);

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_carried_result_comes_back_whole() {
        let mut result = CallToolResult::error(vec![ContentBlock::text("the envelope")]);
        result.meta = Some(rmcp::model::MetaObject(
            json!({"mcp-fusion/error": {"code": "X"}})
                .as_object()
                .cloned()
                .unwrap(),
        ));
        let error = carry(result.clone());
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            error.message,
            "failed to deserialize parameters: the envelope"
        );
        assert_eq!(uncarry(error).unwrap(), result);
    }

    #[test]
    fn other_errors_stay_errors() {
        let plain = ErrorData::invalid_params("tool not found", None);
        assert_eq!(uncarry(plain.clone()).unwrap_err(), plain);
        let foreign = ErrorData::internal_error("x", Some(json!({CARRIED_KEY: {}})));
        assert_eq!(uncarry(foreign.clone()).unwrap_err(), foreign);
    }
}
