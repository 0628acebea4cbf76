//! Application state and the values a handler takes from its call
//! ([`FromCallContext`]), in the style of axum's extractors.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use super::context::CallContext;
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
    pub(crate) fn insert<T: StateType>(&mut self, value: T) {
        self.by_type.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Whether a state of the type `id` was given.
    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.by_type.contains_key(&id)
    }

    /// The state of type `T`, if one was given.
    pub fn get<T: StateType>(&self) -> Option<T> {
        self.by_type
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
            .cloned()
    }
}

/// A state type a handler needs: its `TypeId` (checked when the server is
/// built) and its name (for the build error).
pub type StateNeed = (TypeId, &'static str);

/// What a state may be: a value cloned for every call that takes it, so
/// `Clone + Send + Sync + 'static` (an `Arc`, a connection pool).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a state: a state is cloned for every call, so it must be Clone + Send + Sync + 'static",
    label = "not Clone + Send + Sync + 'static",
    note = "derive Clone on it, or share it behind an Arc: State<Arc<{Self}>> and ServerBuilder::state(Arc::new(value)) (an Arc<Mutex<_>> when it is not Sync)"
)]
pub trait StateType: Clone + Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Clone + Send + Sync + 'static> StateType for T {}

/// A value a handler takes from the call it serves, as a parameter before the
/// arguments: [`CallContext`], [`State<T>`], or your own type. Taking it may
/// wait (look a tenant up, open a session): it is an `async fn`.
///
/// ```
/// use mcp_fusion::{CallContext, FromCallContext, ToolError};
///
/// /// The caller's tenant, from an HTTP header.
/// struct Tenant(String);
///
/// impl FromCallContext for Tenant {
///     async fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
///         ctx.http()
///             .and_then(|h| h.headers.get("x-tenant"))
///             .and_then(|v| v.to_str().ok())
///             .map(|t| Tenant(t.to_owned()))
///             .ok_or_else(|| ToolError::forbidden("No tenant given.").suggest("Send the X-Tenant header."))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the call: it is not an extractor",
    label = "not an extractor",
    note = "every parameter but the last is an extractor (CallContext, State<T>, or a type that implements FromCallContext); the arguments type goes last"
)]
pub trait FromCallContext: Sized + Send + 'static {
    /// Takes the value from the call.
    ///
    /// # Errors
    /// A [`ToolError`] that ends the call before the handler runs (it reaches
    /// the model like a handler's own error).
    fn from_call_context(ctx: &CallContext)
    -> impl Future<Output = Result<Self, ToolError>> + Send;

    /// The state this extractor needs, checked when the server is built (a
    /// missing one is a build error, not a failed call). `None` by default.
    fn state_need() -> Option<StateNeed> {
        None
    }
}

impl FromCallContext for CallContext {
    async fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
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

impl<T: StateType> FromCallContext for State<T> {
    async fn from_call_context(ctx: &CallContext) -> Result<Self, ToolError> {
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
