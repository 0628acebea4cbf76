//! [`Handler`]: the one shape every handler has — an `async fn` of
//! extractors, then the input last, returning `Result<R, E>` — for actions,
//! prompts, resources, resource templates and completers alike.
//!
//! How it is checked: a function is first matched by its arity alone
//! ([`HandlerFn`], one impl per number of parameters), so that the compiler
//! knows its parameter types; then each part of its signature is checked by
//! a trait of its own ([`FromCallContext`] for each parameter before the
//! last, [`Input`] for the last, `HandlerFuture` for what it returns,
//! `IntoToolError` for its error, [`IntoOutput`] for its success), each with a
//! `#[diagnostic::on_unimplemented]` that names the mistake and its fix.

use std::future::Future;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::CallContext;
use super::extract::{FromCallContext, StateNeed};
use super::input::{Input, NoArgs, deserialize_args};
use super::output::IntoOutput;
use crate::error::ToolError;

/// A handler producing `O` (a tool's [`ToolOutput`](super::ToolOutput), a
/// prompt's messages, a resource's data, a completer's values). `M` is a
/// marker the compiler infers; you never name it.
///
/// A handler is an `async fn` (or a closure returning a future) whose
/// parameters are any number (up to 16) of extractors — [`CallContext`],
/// [`State<T>`](super::State), any type that implements [`FromCallContext`]
/// — then, last, the arguments type (`serde::Deserialize +
/// schemars::JsonSchema`: its schema is the input schema; without one the
/// handler takes no arguments), and which returns `Result<R, E>`:
///
/// - `R` is what the capability returns ([`IntoOutput`]): for an action any
///   `Serialize` value, a [`Json<T>`](super::Json) or a
///   [`ToolOutput`](super::ToolOutput); for a prompt a `String` or
///   `PromptMessage`s; for a resource a `String` or bytes; for a completer a
///   `Vec<String>`;
/// - `E` is anything `Into<ToolError>`: a [`ToolError`] reaches the wire
///   unchanged, your own error type through `impl From<MyError> for
///   ToolError`, a [`BoxError`](crate::BoxError) is classified (a
///   `ToolError` in its `source()` chain is kept, anything else becomes the
///   masked `INTERNAL_ERROR`; wire contract §6).
///
/// ```
/// use mcp_fusion::{CallContext, Json, State, ToolError};
///
/// #[derive(Clone)]
/// struct Db;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct GetInvoice { id: String }
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Invoice { id: String }
///
/// async fn get_invoice(State(_db): State<Db>, args: GetInvoice) -> Result<Json<Invoice>, ToolError> {
///     Ok(Json(Invoice { id: args.id }))
/// }
/// async fn health(_ctx: CallContext) -> Result<&'static str, ToolError> {
///     Ok("ok")
/// }
/// let _ = mcp_fusion::Action::new("get_invoice", get_invoice);
/// let _ = mcp_fusion::Action::new("health", health);
/// ```
///
/// A mistake in a handler is reported at the call that takes it
/// (`Action::new("get", get)`), by the part of the signature that is wrong:
///
/// | Mistake | The compiler says | The fix |
/// | --- | --- | --- |
/// | the arguments type derives `serde::Deserialize` but not `schemars::JsonSchema` | `` `Args` cannot be a handler's last parameter: it is neither an arguments type nor an extractor `` | derive both `serde::Deserialize` and `schemars::JsonSchema` on it |
/// | the error type is not `Into<ToolError>` (`std::io::Error`, `anyhow::Error`) | `` `std::io::Error` cannot be a handler's error type: it does not convert into ToolError `` | return `Result<_, ToolError>` and convert with `.map_err(ToolError::internal)` or another [`ToolError`] constructor; or return [`BoxError`](crate::BoxError); for your own error type, `impl From<MyError> for ToolError` |
/// | the arguments before an extractor: `async fn get(args: Args, State(db): State<Db>)` | `` `Args` cannot be taken from the call: it is not an extractor `` | put the arguments type last |
/// | a state type that is not `Clone` (`State<Db>` with `struct Db;`) | `` `Db` cannot be a state: a state is cloned for every call, so it must be Clone + Send + Sync + 'static `` | derive `Clone` on it, or share it as `State<Arc<Db>>` |
/// | a plain `fn` returning `Result<String, ToolError>` | ``a handler must be an `async fn`: it returns `Result<std::string::String, ToolError>`, which is not a future of Result<_, _>`` | write `async fn` |
///
/// A success the capability cannot return (bytes from a prompt) says ``a
/// handler producing `PromptMessages` cannot return `Vec<u8>` on success``;
/// something that is not a function, or one of more than 16 parameters,
/// ``… is not a handler: a handler is an `async fn`, or a closure returning
/// a future, of at most 16 parameters``. The test
/// `tests/handler-diagnostics/tests/handler_diagnostics.rs` holds each of these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler: a handler is an `async fn`, or a closure returning a future, of at most 16 parameters",
    label = "not an async fn or closure of at most 16 parameters",
    note = "a handler takes extractors (CallContext, State<T>, your FromCallContext types), then its arguments type last, and returns Result<R, E> with E: Into<ToolError>; it is Clone + Send + Sync + 'static (a closure's captures must be too)"
)]
pub trait Handler<M, O>: Clone + Send + Sync + 'static {
    /// The arguments type: its schema is the input schema ([`NoArgs`] when the
    /// handler takes none).
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// Runs the handler for one call whose arguments passed validation:
    /// takes each extractor from `ctx` (the first that fails ends the call
    /// with its error), then calls the function.
    fn call(&self, ctx: CallContext, args: Self::Args) -> BoxFuture<'static, Result<O, ToolError>>;

    /// The states the handler's extractors need (checked when the server is
    /// built).
    fn state_needs() -> Vec<StateNeed>;

    /// The output schema its success type gives (an action's `outputSchema`:
    /// [`Json<T>`](super::Json)'s), else `None`.
    fn output_schema() -> Option<Value>;
}

impl<F, P, M, O> Handler<(P, M), O> for F
where
    F: HandlerFn<P>,
    P: Signature<M, O>,
{
    type Args = P::Args;

    fn call(&self, ctx: CallContext, args: Self::Args) -> BoxFuture<'static, Result<O, ToolError>> {
        P::run(self.clone(), ctx, args)
    }

    fn state_needs() -> Vec<StateNeed> {
        P::state_needs()
    }

    fn output_schema() -> Option<Value> {
        P::output_schema()
    }
}

/// A function by its arity: `P` is its parameter types, then what it
/// returns. Implemented for every `Fn` of up to 16 parameters that is
/// `Clone + Send + Sync + 'static` (a function item, or a closure whose
/// captures are).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler: a handler is an `async fn`, or a closure returning a future, of at most 16 parameters",
    label = "not an async fn or closure of at most 16 parameters",
    note = "a handler takes extractors (CallContext, State<T>, your FromCallContext types), then its arguments type last, and returns Result<R, E> with E: Into<ToolError>; it is Clone + Send + Sync + 'static (a closure's captures must be too)"
)]
pub trait HandlerFn<P: Shape>: Clone + Send + Sync + 'static {
    /// Calls the function with its parameters.
    fn invoke(&self, params: P::Params) -> P::Returns;
}

/// The parts of a signature tuple `(T1, …, Tn, Fut)`: the parameters and
/// what the function returns.
pub trait Shape {
    /// The parameters, as a tuple.
    type Params;
    /// What the function returns (its future).
    type Returns;
}

/// A signature whose parts each fit a handler producing `O`: what runs the
/// extractors, the input and the function, and says what they need.
pub trait Signature<M, O>: Shape + Sized {
    /// The arguments type.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// Runs `handler` with extractors from `ctx` and `args`.
    fn run<H: HandlerFn<Self>>(
        handler: H,
        ctx: CallContext,
        args: Self::Args,
    ) -> BoxFuture<'static, Result<O, ToolError>>;

    /// The states the extractors need.
    fn state_needs() -> Vec<StateNeed>;

    /// The output schema of the success type.
    fn output_schema() -> Option<Value>;
}

/// What a handler returns: a future of `Result<R, E>`.
#[diagnostic::on_unimplemented(
    message = "a handler must be an `async fn`: it returns `{Self}`, which is not a future of Result<_, _>",
    label = "not a future of a Result",
    note = "write `async fn`, or return a future whose output is Result<R, E> (e.g. `std::future::ready(Ok(value))`)"
)]
pub trait HandlerFuture<R, E>: Future<Output = Result<R, E>> + Send + 'static {}

#[diagnostic::do_not_recommend]
impl<Fut, R, E> HandlerFuture<R, E> for Fut where Fut: Future<Output = Result<R, E>> + Send + 'static
{}

/// A handler's error type: anything `Into<ToolError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler's error type: it does not convert into ToolError",
    label = "not Into<ToolError>",
    note = "return Result<_, ToolError> and convert where the error occurs (`.map_err(ToolError::internal)` gives the masked INTERNAL_ERROR; another ToolError constructor says what the model can do), or return Result<_, mcp_fusion::BoxError> (`?` converts into it; a ToolError in its source chain is kept, anything else is the masked INTERNAL_ERROR); for an error type of your own crate, implement `From<YourError> for ToolError`"
)]
pub trait IntoToolError {
    /// The error as a [`ToolError`].
    fn into_tool_error(self) -> ToolError;
}

#[diagnostic::do_not_recommend]
impl<E: Into<ToolError>> IntoToolError for E {
    fn into_tool_error(self) -> ToolError {
        self.into()
    }
}

/// Erases a handler's arguments type: the result takes the validated
/// arguments object and deserializes it (see [`deserialize_args`]).
/// Arguments that passed validation but do not deserialize (a schema looser
/// than the type) are an internal error, not the model's fault.
pub(crate) fn erase<M, O, H>(handler: H) -> Erased<O>
where
    H: Handler<M, O>,
    O: Send + 'static,
{
    std::sync::Arc::new(move |ctx: CallContext, args: Value| {
        match deserialize_args::<H::Args>(args) {
            Ok(args) => handler.call(ctx, args),
            Err(e) => Box::pin(std::future::ready(Err(ToolError::internal(format!(
                "validated arguments do not deserialize: {e}"
            ))))),
        }
    })
}

/// A handler with its arguments type erased (see [`erase`]).
pub(crate) type Erased<O> = std::sync::Arc<
    dyn Fn(CallContext, Value) -> BoxFuture<'static, Result<O, ToolError>> + Send + Sync,
>;

/// The success of a handler's future as `O`, its error as a `ToolError`.
async fn finish<Fut, R, E, O>(future: Fut) -> Result<O, ToolError>
where
    Fut: Future<Output = Result<R, E>>,
    R: IntoOutput<O>,
    E: IntoToolError,
{
    future
        .await
        .map_err(IntoToolError::into_tool_error)?
        .into_output()
}

macro_rules! arity {
    // The extractors $e, and the last parameter $last.
    ($($e:ident),* ; $last:ident) => {
        impl<$($e,)* $last, Fut> Shape for ($($e,)* $last, Fut) {
            type Params = ($($e,)* $last,);
            type Returns = Fut;
        }

        impl<F, Fut, $($e,)* $last> HandlerFn<($($e,)* $last, Fut)> for F
        where
            F: Fn($($e,)* $last) -> Fut + Clone + Send + Sync + 'static,
        {
            #[allow(non_snake_case)]
            fn invoke(&self, ($($e,)* $last,): ($($e,)* $last,)) -> Fut {
                self($($e,)* $last)
            }
        }

        impl<Fut, R, E, O, M, $($e,)* $last> Signature<(M, R, E), O> for ($($e,)* $last, Fut)
        where
            Fut: HandlerFuture<R, E>,
            E: IntoToolError + 'static,
            R: IntoOutput<O> + 'static,
            O: Send + 'static,
            $($e: FromCallContext,)*
            $last: Input<M>,
        {
            type Args = <$last as Input<M>>::Args;

            #[allow(non_snake_case)]
            fn run<H: HandlerFn<Self>>(
                handler: H,
                ctx: CallContext,
                args: Self::Args,
            ) -> BoxFuture<'static, Result<O, ToolError>> {
                Box::pin(async move {
                    $(let $e = $e::from_call_context(&ctx).await?;)*
                    let $last = $last::take(&ctx, args).await?;
                    finish(handler.invoke(($($e,)* $last,))).await
                })
            }

            fn state_needs() -> Vec<StateNeed> {
                #[allow(unused_mut)]
                let mut needs = Vec::new();
                $(needs.extend($e::state_need());)*
                needs.extend($last::state_need());
                needs
            }

            fn output_schema() -> Option<Value> {
                R::output_schema()
            }
        }
    };
}

// No parameter at all: no extractor, no arguments.
impl<Fut> Shape for (Fut,) {
    type Params = ();
    type Returns = Fut;
}

impl<F, Fut> HandlerFn<(Fut,)> for F
where
    F: Fn() -> Fut + Clone + Send + Sync + 'static,
{
    fn invoke(&self, (): ()) -> Fut {
        self()
    }
}

impl<Fut, R, E, O> Signature<((), R, E), O> for (Fut,)
where
    Fut: HandlerFuture<R, E>,
    E: IntoToolError + 'static,
    R: IntoOutput<O> + 'static,
    O: Send + 'static,
{
    type Args = NoArgs;

    fn run<H: HandlerFn<Self>>(
        handler: H,
        _ctx: CallContext,
        _args: NoArgs,
    ) -> BoxFuture<'static, Result<O, ToolError>> {
        Box::pin(finish(handler.invoke(())))
    }

    fn state_needs() -> Vec<StateNeed> {
        Vec::new()
    }

    fn output_schema() -> Option<Value> {
        R::output_schema()
    }
}

arity!(; T1);
arity!(T1; T2);
arity!(T1, T2; T3);
arity!(T1, T2, T3; T4);
arity!(T1, T2, T3, T4; T5);
arity!(T1, T2, T3, T4, T5; T6);
arity!(T1, T2, T3, T4, T5, T6; T7);
arity!(T1, T2, T3, T4, T5, T6, T7; T8);
arity!(T1, T2, T3, T4, T5, T6, T7, T8; T9);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9; T10);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10; T11);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11; T12);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12; T13);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13; T14);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14; T15);
arity!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15; T16);
