//! Application state and the values a handler takes from its call
//! ([`FromCallContext`]), in the style of axum's extractors.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::sync::Arc;

use super::CallContext;
use crate::error::ToolError;

/// The application states of a server, one per type, given with
/// `ServerBuilder::state`. Shared by every call (cheap to clone).
#[derive(Clone, Default)]
pub struct States {
    by_type: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("States")
            .field("count", &self.by_type.len())
            .finish_non_exhaustive()
    }
}

impl States {
    /// Adds `value` as the state of its type, replacing an earlier one.
    pub(crate) fn insert<T: Clone + Send + Sync + 'static>(&mut self, value: T) {
        self.by_type.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Whether a state of the type `id` was given.
    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.by_type.contains_key(&id)
    }

    /// The state of type `T`, if one was given.
    pub fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.by_type
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
            .cloned()
    }
}

/// A state type a handler needs: its `TypeId` (checked when the server is
/// built) and its name (for the build error).
pub type StateNeed = (TypeId, &'static str);

/// A value a handler takes from the call it serves, as a parameter before the
/// arguments: [`CallContext`], [`State<T>`], or your own type.
///
/// ```
/// use mcp_fusion::{CallContext, FromCallContext, ToolError};
///
/// /// The caller's tenant, from an HTTP header.
/// struct Tenant(String);
///
/// impl FromCallContext for Tenant {
///     fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
///         ctx.http()
///             .and_then(|h| h.headers.get("x-tenant"))
///             .and_then(|v| v.to_str().ok())
///             .map(|t| Tenant(t.to_owned()))
///             .ok_or_else(|| ToolError::forbidden("No tenant given.").suggest("Send the X-Tenant header."))
///     }
/// }
/// ```
pub trait FromCallContext: Sized + Send + 'static {
    /// Takes the value from the call.
    ///
    /// # Errors
    /// A [`ToolError`] that ends the call before the handler runs (it reaches
    /// the model like a handler's own error).
    fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError>;

    /// The state this extractor needs, checked when the server is built (a
    /// missing one is a build error, not a failed call). `None` by default.
    fn state_need() -> Option<StateNeed> {
        None
    }
}

impl FromCallContext for CallContext {
    fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
        Ok(ctx.clone())
    }
}

/// The application state of type `T` given with `ServerBuilder::state`, as a
/// handler parameter: `async fn get_invoice(State(db): State<Db>, args:
/// GetInvoice)`. `T` is cloned for each call: make it cheap to clone (an
/// `Arc`, a pool handle). A handler asking for a state the server was not
/// given does not build (`BuildError::MissingState`).
#[derive(Debug, Clone, Copy, Default)]
pub struct State<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromCallContext for State<T> {
    fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
        ctx.state::<T>().map(State).ok_or_else(|| {
            ToolError::internal(format!(
                "no state of type {} was given to the server",
                type_name::<T>()
            ))
        })
    }

    fn state_need() -> Option<StateNeed> {
        Some((TypeId::of::<T>(), type_name::<T>()))
    }
}

/// In a handler's `call`: each extractor read from `ctx`, or the call ends
/// with its error (a boxed ready future). Shared by every handler shape:
/// actions, prompts and resources.
macro_rules! extract {
    ($ctx:ident; $($extractor:ident),*) => {
        $(
            let $extractor = match $extractor::from_call_context(&$ctx) {
                Ok(value) => value,
                Err(e) => return Box::pin(std::future::ready(Err(e))),
            };
        )*
    };
}
pub(crate) use extract;
