//! [`HiddenValue`]: what a hidden argument is set to.

use std::sync::Arc;

use serde_json::Value;

use crate::handler::CallContext;

/// The value a hidden argument ([`ToolTransform::hide`](super::ToolTransform::hide))
/// is given on every call, whatever the model sent for it.
#[derive(Clone)]
#[non_exhaustive]
pub enum HiddenValue {
    /// The same JSON value on every call (`"EUR"`, `30`).
    Constant(Value),
    /// A value computed for each call from its context (the caller's
    /// [`principal`](CallContext::principal), a state of the server).
    Computed(Arc<dyn Fn(&CallContext) -> Value + Send + Sync>),
}

impl HiddenValue {
    /// The value for the call of `ctx`.
    pub fn value(&self, ctx: &CallContext) -> Value {
        match self {
            HiddenValue::Constant(value) => value.clone(),
            HiddenValue::Computed(compute) => compute(ctx),
        }
    }
}

impl std::fmt::Debug for HiddenValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HiddenValue::Constant(value) => f.debug_tuple("Constant").field(value).finish(),
            HiddenValue::Computed(_) => f.write_str("Computed(..)"),
        }
    }
}

/// Constants compare by value, computed values by identity (the same
/// function, shared).
impl PartialEq for HiddenValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (HiddenValue::Constant(a), HiddenValue::Constant(b)) => a == b,
            (HiddenValue::Computed(a), HiddenValue::Computed(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<Value> for HiddenValue {
    fn from(value: Value) -> Self {
        HiddenValue::Constant(value)
    }
}
