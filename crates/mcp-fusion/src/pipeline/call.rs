//! [`Call`]: one routed, validated call on its way through the middleware to
//! the handler.

use serde_json::Value;

use crate::handler::CallContext;

/// A routed call whose arguments passed validation: what middleware sees.
///
/// `args` is the arguments object without the discriminator field, after
/// optional `null`s were removed; the handler deserializes it into its type.
#[derive(Debug, Clone)]
pub struct Call {
    /// Who is being called, and how.
    pub ctx: CallContext,
    /// The validated arguments (a JSON object).
    pub args: Value,
}
