//! Tool transformation: another server's tools (a mounted server's, a
//! gateway upstream's) renamed, re-described, with arguments hidden behind
//! a constant or computed value, and filtered, before they are listed
//! beside a server's own tools.

mod hidden;
#[cfg(test)]
mod tests;
mod tool_transform;
mod transform_error;
mod transformed;
mod transforms;

pub use hidden::HiddenValue;
pub use tool_transform::ToolTransform;
pub use transform_error::TransformError;
pub use transformed::Transformed;
pub use transforms::{ToolFilter, Transforms};
