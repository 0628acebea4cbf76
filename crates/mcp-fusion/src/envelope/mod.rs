//! The one renderer and parser of the wire form of a failure (wire contract
//! §1–§4): `<tool_error>` and `<validation_error>` XML, their `_meta` JSON twin,
//! and the `CallToolResult` that carries them. No other module writes XML.

mod escape;
mod json_text;
mod limits;
mod meta;
mod parse;
mod render;
mod result;

pub use limits::{
    MAX_ENVELOPE_BYTES, MAX_NAME_CHARS, MAX_TEXT_CHARS, normalize, normalize_validation,
};
#[cfg(any(feature = "client", feature = "otel"))]
pub(crate) use meta::code_in;
pub use meta::{META_KEY, to_meta, validation_to_meta};
#[cfg(feature = "client")]
pub(crate) use parse::opens_tool_error;
pub use parse::{ParseError, ParsedEnvelope, parse};
pub use render::{render, render_validation};
pub(crate) use result::{
    WritesEnvelopes, envelope_and_meta, validation_envelope_and_meta, written_members,
    written_result, written_validation_result,
};
pub use result::{attach_warning, to_call_tool_result, validation_result};
