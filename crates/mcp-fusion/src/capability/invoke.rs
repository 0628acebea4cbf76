//! [`Invoke`]: the handler shape prompts and resources share with actions —
//! an `async fn` of extractors ([`FromCallContext`]: a [`CallContext`], a
//! [`State<T>`](crate::State), your own), then optionally the arguments type
//! last, returning `Result<R, E>` with `R: Into<O>` and `E: Into<ToolError>`.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::capability::NoArgs;
use crate::error::ToolError;
use crate::handler::{CallContext, FromCallContext, StateNeed, extract};

/// A prompt or resource handler producing `O` (see the module docs). `M` is a
/// marker the compiler infers; you never name it.
///
/// A prompt handler returns `Result<R, E>` with `R` a `String`, a
/// `&'static str`, a `PromptMessage`, a `Vec<PromptMessage>` or
/// [`PromptMessages`](super::PromptMessages); a resource handler `R` a
/// `String`, a `&'static str`, a `Vec<u8>`, a `&'static [u8]` or
/// [`ResourceData`](super::ResourceData). `E` is anything `Into<ToolError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt or resource handler producing `{O}`",
    note = "a handler is an `async fn` of extractors (CallContext, State<T>) then optionally its arguments type, returning Result<R, E>: for a prompt R is String, &'static str, PromptMessage, Vec<PromptMessage> or PromptMessages; for a resource R is String, &'static str, Vec<u8> or ResourceData; E is anything Into<ToolError>"
)]
pub trait Invoke<M, O>: Send + Sync + 'static {
    /// The arguments type: prompt arguments, or a template's variables.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// Runs the handler with arguments that passed validation.
    fn invoke(
        &self,
        ctx: CallContext,
        args: Self::Args,
    ) -> BoxFuture<'static, Result<O, ToolError>>;

    /// The states the handler's extractors need (checked when the server is built).
    fn state_needs() -> Vec<StateNeed>;
}

/// Marks an [`Invoke`] whose last parameter is its arguments type.
#[derive(Debug)]
pub struct InvokeWithArgs;
/// Marks an [`Invoke`] that takes no arguments.
#[derive(Debug)]
pub struct InvokeWithoutArgs;

async fn finish<Fut, R, O, E>(future: Fut) -> Result<O, ToolError>
where
    Fut: Future<Output = Result<R, E>>,
    R: Into<O>,
    E: Into<ToolError>,
{
    future.await.map(Into::into).map_err(Into::into)
}

macro_rules! invokers {
    ($($extractor:ident),*) => {
        impl<F, Fut, R, O, E, $($extractor,)* A> Invoke<(InvokeWithArgs, R, $($extractor,)* A), O> for F
        where
            F: Fn($($extractor,)* A) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<R, E>> + Send + 'static,
            R: Into<O> + 'static,
            O: Send + 'static,
            E: Into<ToolError> + 'static,
            $($extractor: FromCallContext,)*
            A: DeserializeOwned + JsonSchema + Send + 'static,
        {
            type Args = A;

            #[allow(non_snake_case, unused_variables)]
            fn invoke(&self, ctx: CallContext, args: A) -> BoxFuture<'static, Result<O, ToolError>> {
                extract!(ctx; $($extractor),*);
                Box::pin(finish(self($($extractor,)* args)))
            }

            fn state_needs() -> Vec<StateNeed> {
                #[allow(unused_mut)]
                let mut needs = Vec::new();
                $(needs.extend($extractor::state_need());)*
                needs
            }
        }

        impl<F, Fut, R, O, E, $($extractor,)*> Invoke<(InvokeWithoutArgs, R, $($extractor,)*), O> for F
        where
            F: Fn($($extractor,)*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<R, E>> + Send + 'static,
            R: Into<O> + 'static,
            O: Send + 'static,
            E: Into<ToolError> + 'static,
            $($extractor: FromCallContext,)*
        {
            type Args = NoArgs;

            #[allow(non_snake_case, unused_variables)]
            fn invoke(&self, ctx: CallContext, _args: NoArgs) -> BoxFuture<'static, Result<O, ToolError>> {
                extract!(ctx; $($extractor),*);
                Box::pin(finish(self($($extractor,)*)))
            }

            fn state_needs() -> Vec<StateNeed> {
                #[allow(unused_mut)]
                let mut needs = Vec::new();
                $(needs.extend($extractor::state_need());)*
                needs
            }
        }
    };
}

invokers!();
invokers!(E1);
invokers!(E1, E2);
invokers!(E1, E2, E3);

/// A handler with its arguments type erased: takes the validated arguments
/// object and deserializes it.
pub(crate) type Erased<O> =
    Arc<dyn Fn(CallContext, Value) -> BoxFuture<'static, Result<O, ToolError>> + Send + Sync>;

/// Erases `handler`'s arguments type. Arguments that passed validation but
/// do not deserialize (a schema looser than the type) are an internal error.
pub(crate) fn erase<M, O, H>(handler: H) -> Erased<O>
where
    H: Invoke<M, O>,
    O: Send + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(
        move |ctx: CallContext, args: Value| match serde_json::from_value::<H::Args>(args) {
            Ok(args) => handler.invoke(ctx, args),
            Err(e) => Box::pin(std::future::ready(Err(ToolError::internal(format!(
                "validated arguments do not deserialize: {e}"
            ))))),
        },
    )
}
