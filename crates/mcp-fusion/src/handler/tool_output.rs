//! An action's success: [`ToolOutput`] and [`Json<T>`].

use std::any::Any;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use crate::error::ToolError;

/// The successful outcome of a handler, before it becomes a `CallToolResult`.
///
/// - [`ToolOutput::text`]: one text block.
/// - [`ToolOutput::json`]: the value as compact JSON text; when the action
///   declares an output schema, also `structuredContent`.
/// - [`ToolOutput::result`]: a full `CallToolResult`, sent as it is.
///
/// Warnings ([`ToolOutput::with_warning`]) ride after the normal content as
/// `<tool_error severity="warning">` envelopes with `isError: false` (§3).
#[derive(Debug, Clone)]
pub struct ToolOutput {
    pub(crate) body: Body,
    pub(crate) warnings: Vec<ToolError>,
    /// What a presenter added (wire contract §9.1); `None` for an action
    /// without one, which pays nothing more.
    pub(crate) shown: Option<Box<Shown>>,
    /// The result's `_meta` entries its handler set
    /// ([`ToolOutput::with_meta`]); `None` for none, which costs nothing.
    pub(crate) meta: Option<Box<Map<String, Value>>>,
}

/// What a presenter made of an output beside its data.
#[derive(Debug, Clone)]
pub(crate) struct Shown {
    /// The guidance block, sent after the data; `None` when empty.
    pub guidance: Option<String>,
    /// What the model does not read (the whole value, the guidance as
    /// data), for `mcp_fusion::testing`.
    pub hidden: Arc<dyn Any + Send + Sync>,
}

#[derive(Debug, Clone)]
pub(crate) enum Body {
    Text(String),
    Json(Value),
    Result(Box<CallToolResult>),
}

impl ToolOutput {
    /// Whether it is a whole result marked `isError` (a foreign tool's
    /// failure, passed on as it is).
    pub(crate) fn is_error_result(&self) -> bool {
        matches!(&self.body, Body::Result(result) if result.is_error == Some(true))
    }

    /// One text block holding `text` (an empty text is sent as `OK`).
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            body: Body::Text(text.into()),
            warnings: Vec::new(),
            shown: None,
            meta: None,
        }
    }

    /// `value` as JSON text (plus `structuredContent` when the action has an
    /// output schema). A JSON string value is sent as plain text instead.
    pub fn json(value: Value) -> Self {
        match value {
            Value::String(text) => ToolOutput::text(text),
            value => ToolOutput {
                body: Body::Json(value),
                warnings: Vec::new(),
                shown: None,
                meta: None,
            },
        }
    }

    /// A full `CallToolResult`, sent unchanged (warnings are appended to it).
    pub fn result(result: CallToolResult) -> Self {
        ToolOutput {
            body: Body::Result(Box::new(result)),
            warnings: Vec::new(),
            shown: None,
            meta: None,
        }
    }

    /// Attaches a warning: the call still succeeds (`isError: false`) and the
    /// model reads the warning envelope after the content (§3). Use a warning
    /// severity, e.g. [`ToolError::deprecated`] or `ToolError::new(..).warning()`.
    pub fn with_warning(mut self, warning: ToolError) -> Self {
        self.warnings.push(warning);
        self
    }

    /// Sets `key` to `value` in the result's `_meta` (MCP `CallToolResult`
    /// `_meta`; for MCP Apps, what a view reads beside `structuredContent`
    /// and the model does not: timestamps, versions). Entries the library
    /// writes (`mcp-fusion/error`, the envelope's JSON twin of a warning)
    /// win a key both have; a key a server's code may not set (under
    /// `io.modelcontextprotocol/` other than a known extension's, a trace
    /// context key, one under `mcp-fusion/`, an empty key) is left out.
    /// For a [`ToolOutput::result`], added to its own `_meta`, whose
    /// entries win.
    ///
    /// ```
    /// use mcp_fusion::ToolOutput;
    ///
    /// let output = ToolOutput::text("Invoice inv_1: 12.00 EUR").with_meta("com.example/rendered-at", "2026-12-05T14:00:00Z");
    /// # let _ = output;
    /// ```
    pub fn with_meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.meta
            .get_or_insert_with(Default::default)
            .insert(key.into(), value.into());
        self
    }

    /// The warnings attached so far, in order.
    pub fn warnings(&self) -> &[ToolError] {
        &self.warnings
    }

    /// The value that goes to `structuredContent`: a JSON body, or the
    /// structured content of a full result; `None` for text.
    /// Whether its first content block will be the data (a text or JSON
    /// value), not a result the handler built itself.
    pub(crate) fn is_value(&self) -> bool {
        !matches!(self.body, Body::Result(_))
    }

    pub(crate) fn structured_value(&self) -> Option<&Value> {
        match &self.body {
            Body::Json(value) => Some(value),
            Body::Result(result) => result.structured_content.as_ref(),
            Body::Text(_) => None,
        }
    }

    /// The output as a `CallToolResult` (`structured` says whether the action
    /// declared an output schema): the data, then a presenter's guidance
    /// block (wire contract §9.1), then the warnings, appended through
    /// [`crate::envelope::attach_warning`].
    pub(crate) fn into_call_tool_result(self, structured: bool) -> CallToolResult {
        let mut result = match self.body {
            Body::Text(text) if text.is_empty() => {
                CallToolResult::success(vec![ContentBlock::text("OK")])
            }
            Body::Text(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Body::Json(value) => {
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
                if structured {
                    result.structured_content = Some(value);
                }
                result
            }
            Body::Result(result) => *result,
        };
        if let Some(guidance) = self.shown.and_then(|shown| shown.guidance) {
            result.content.push(ContentBlock::text(guidance));
        }
        for warning in &self.warnings {
            result = crate::envelope::attach_warning(result, warning);
        }
        if let Some(mut theirs) = self.meta {
            theirs.retain(|key, _| crate::meta_keys::reserved(key).is_none());
            let ours = result.meta.take().map(|meta| meta.0).unwrap_or_default();
            let meta = crate::meta_keys::merged_under(ours, &theirs);
            result.meta = (!meta.is_empty()).then_some(rmcp::model::MetaObject(meta));
        }
        result
    }
}

/// A typed result: `T`'s JSON Schema (serialization side, draft 2020-12) is
/// the action's `outputSchema`, and a success is sent as `structuredContent`
/// plus the same JSON as text (MCP `tools/call`: "a tool that returns
/// structured content SHOULD also return the serialized JSON in a text
/// block"). Before it leaves the server, the value is checked against the
/// schema; a value that does not match becomes a masked `INTERNAL_ERROR`
/// (the mismatch goes to the log), never a result that contradicts its own
/// schema.
///
/// ```
/// use mcp_fusion::{Json, ToolError};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Invoice { id: String, amount_cents: u64 }
///
/// async fn get_invoice(args: mcp_fusion::NoArgs) -> Result<Json<Invoice>, ToolError> {
///     Ok(Json(Invoice { id: "inv_1".into(), amount_cents: 1200 }))
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);
