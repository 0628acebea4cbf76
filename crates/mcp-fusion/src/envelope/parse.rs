//! Reading an envelope back from text, with `quick-xml`.

use crate::error::{ToolError, ValidationFailure};

/// An envelope found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedEnvelope {
    /// A `<tool_error>`.
    Tool(ToolError),
    /// A `<validation_error>`.
    Validation(ValidationFailure),
}

/// Why [`parse`] found no envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text holds no `<tool_error>` or `<validation_error>` element.
    #[error("no <tool_error> or <validation_error> element in the text")]
    NotFound,
}

/// Finds the first envelope in `text`. (Work in progress.)
pub fn parse(_text: &str) -> Result<ParsedEnvelope, ParseError> {
    Err(ParseError::NotFound)
}
